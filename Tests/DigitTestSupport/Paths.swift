import Foundation
import XCTest

/// Paths to the repository and its fixtures, found from this source file's location.
public enum TestPaths {
    public static let repoRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let fixtures = repoRoot.appendingPathComponent("Fixtures")
    public static let mnist = fixtures.appendingPathComponent("mnist")
    public static let pendigits = fixtures.appendingPathComponent("pendigits/pendigits-orig.tra")
    public static let weights = repoRoot.appendingPathComponent("Weights/mnist-cnn.safetensors")
    public static let paperWeights = repoRoot.appendingPathComponent("Weights/paper-lines.safetensors")
    public static let secondOpinion = repoRoot.appendingPathComponent("Weights/second-opinion.safetensors")
    public static let parish = fixtures.appendingPathComponent("parish")

    /// The MNIST fixture folder, or a test failure that says how to fill it. Tests never skip
    /// silently: a missing fixture is a failure in CI and on a developer's machine alike.
    public static func requireMNIST(file: StaticString = #filePath, line: UInt = #line) -> URL? {
        let probe = mnist.appendingPathComponent("t10k-images-idx3-ubyte")
        if FileManager.default.fileExists(atPath: probe.path) { return mnist }
        XCTFail("MNIST fixtures are missing in \(mnist.path): run scripts/fetch-mnist", file: file, line: line)
        return nil
    }

    /// The pendigits file, or a test failure that says how to get it.
    public static func requirePendigits(file: StaticString = #filePath, line: UInt = #line) -> URL? {
        if FileManager.default.fileExists(atPath: pendigits.path) { return pendigits }
        XCTFail("the pendigits fixture is missing at \(pendigits.path): run scripts/fetch-pendigits", file: file, line: line)
        return nil
    }
}

extension TestPaths {
    /// The parish scans' validation folder (real crops with labels.csv), or a test failure that
    /// says how to get it.
    public static func requireParishValidation(file: StaticString = #filePath, line: UInt = #line) -> URL? {
        let folder = parish.appendingPathComponent("validation")
        if FileManager.default.fileExists(atPath: folder.appendingPathComponent("labels.csv").path) { return folder }
        XCTFail("the parish scans are missing in \(parish.path): run scripts/fetch-parish", file: file, line: line)
        return nil
    }
}

/// A fresh empty folder under the system temporary folder, removed when the test ends.
public func temporaryFolder(_ test: XCTestCase) throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("digits-tests-\(getpid())-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}

/// Bit patterns, so that "equal" means bit-identical (and NaN equals NaN).
public func bits(_ values: [Float]) -> [UInt32] { values.map(\.bitPattern) }
