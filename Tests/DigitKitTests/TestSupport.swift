import Foundation
import XCTest

/// Paths to the repository and its fixtures, found from this source file's location.
enum TestPaths {
    static let repoRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = repoRoot.appendingPathComponent("Fixtures")
    static let mnist = fixtures.appendingPathComponent("mnist")
    static let weights = repoRoot.appendingPathComponent("Weights/mnist-cnn.safetensors")

    /// The MNIST fixture folder, or a test failure that says how to fill it. Tests never skip
    /// silently: a missing fixture is a failure in CI and on a developer's machine alike.
    static func requireMNIST(file: StaticString = #filePath, line: UInt = #line) -> URL? {
        let probe = mnist.appendingPathComponent("t10k-images-idx3-ubyte")
        if FileManager.default.fileExists(atPath: probe.path) { return mnist }
        XCTFail("MNIST fixtures are missing in \(mnist.path): run scripts/fetch-mnist", file: file, line: line)
        return nil
    }
}
