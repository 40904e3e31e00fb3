@testable import DigitApp
import DigitKit
import Foundation
import DigitTestSupport
import XCTest

/// Runs scripts/fetch-mnist and scripts/fetch-pendigits inside a throw-away copy of the repository
/// layout (`repo/scripts`, `repo/Fixtures/...`, and optionally `shared/` beside `repo/`), so the
/// real Fixtures folder is never touched. No test reaches the network: the download branch is
/// only run against `file://` URLs.
final class FetchScriptsTests: XCTestCase {
    private var root = ""
    private var repo: String { root + "/repo" }

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("fetch-tests-\(UUID().uuidString)").path
        for dir in ["repo/scripts", "repo/Fixtures/mnist", "repo/Fixtures/pendigits", "sources"] {
            try FileManager.default.createDirectory(atPath: root + "/" + dir, withIntermediateDirectories: true)
        }
        for script in ["fetch-mnist", "fetch-pendigits"] {
            try FileManager.default.copyItem(atPath: TestPaths.repoRoot.appendingPathComponent("scripts/" + script).path,
                                             toPath: repo + "/scripts/" + script)
        }
        let dir = root
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
    }

    /// Runs a script of the copied repository. Download sources default to a missing local file,
    /// so a test that falls through to the download branch fails instead of going online.
    private func run(_ script: String, _ environment: [String: String] = [:]) throws -> Executable.Result {
        var env: [String: String?] = ["MNIST_DIR": nil, "PENDIGITS_DIR": nil,
                                      "MNIST_MIRRORS": "file://\(root)/no-such-mirror",
                                      "PENDIGITS_URLS": "file://\(root)/no-such-archive.zip"]
        for (key, value) in environment { env[key] = value }
        return try bash.run([repo + "/scripts/" + script], in: URL(fileURLWithPath: root), environment: env)
    }

    private func shell(_ command: String) throws {
        let result = try bash.run(["-c", command], in: URL(fileURLWithPath: root))
        XCTAssertEqual(result.status, 0, "failed: \(command): \(result.stderr)")
    }

    private let bash = Executable(url: URL(fileURLWithPath: "/bin/bash"))

    private func write(_ bytes: [UInt8], _ path: String) throws {
        try FileIO.writeAtomically(bytes, to: root + "/" + path)
    }

    private func read(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: root + "/" + path).map { Array($0) }
    }

    private let mnistNames = ["train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"]

    /// Small stand-ins for the four MNIST files (the scripts only check bytes against SHA256SUMS).
    private func fakeMNIST() -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for (i, name) in mnistNames.enumerated() { files[name] = Array("fake \(name) \(i)\n".utf8) }
        return files
    }

    /// Writes SHA256SUMS for `files` into the copied repository's `folder`, with sha256sum itself.
    private func writeSums(_ files: [String: [UInt8]], folder: String) throws {
        try shell("mkdir -p sums && cd sums && rm -f ./*")
        for (name, bytes) in files { try write(bytes, "sums/" + name) }
        try shell("cd sums && sha256sum \(files.keys.sorted().joined(separator: " ")) > ../repo/Fixtures/\(folder)/SHA256SUMS")
    }

    private func linkSharedData() throws {
        let shared = TestPaths.repoRoot.deletingLastPathComponent().appendingPathComponent("shared").path
        guard FileManager.default.fileExists(atPath: shared + "/data") else {
            return XCTFail("\(shared)/data is missing: the shared data folder must sit beside the repository")
        }
        try FileManager.default.createSymbolicLink(atPath: root + "/shared", withDestinationPath: shared)
    }

    /// With the shared data folder linked beside the copy and the real Fixtures/`folder`/SHA256SUMS
    /// in it, runs `script`, which must succeed; returns that first run.
    @discardableResult
    private func fillFromSharedData(_ script: String, folder: String) throws -> Executable.Result {
        try linkSharedData()
        try FileManager.default.copyItem(atPath: TestPaths.fixtures.appendingPathComponent(folder + "/SHA256SUMS").path,
                                         toPath: repo + "/Fixtures/\(folder)/SHA256SUMS")
        let first = try run(script)
        XCTAssertEqual(first.status, 0, first.stderr)
        return first
    }

    /// Runs `script` again: it succeeds, saying only `stdout`.
    private func assertRunAgainIsANoOp(_ script: String, says stdout: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let second = try run(script)
        XCTAssertEqual(second.status, 0, second.stderr, file: file, line: line)
        XCTAssertEqual(second.stdout, stdout, file: file, line: line)
    }

    // MARK: - fetch-mnist

    func testFetchMNIST_FillsFromTheSharedFolderThenIsANoOp() throws {
        let first = try fillFromSharedData("fetch-mnist", folder: "mnist")
        for name in mnistNames { XCTAssertTrue(first.stdout.contains("\(name): ok"), first.stdout) }
        let images = try IDX.readImages(path: repo + "/Fixtures/mnist/t10k-images-idx3-ubyte")
        XCTAssertEqual(images.count, 10_000)
        try assertRunAgainIsANoOp("fetch-mnist", says: "fetch-mnist: all 4 files present and verified in \(repo)/Fixtures/mnist\n")
    }

    func testFetchMNIST_TakesRawAndGzipFilesFromMNISTDir() throws {
        let files = fakeMNIST()
        try writeSums(files, folder: "mnist")
        for (i, name) in mnistNames.enumerated() {
            try write(files[name] ?? [], "sources/" + name)
            if i % 2 == 1 { try shell("gzip sources/\(name)") }
        }
        let result = try run("fetch-mnist", ["MNIST_DIR": root + "/sources"])
        XCTAssertEqual(result.status, 0, result.stderr)
        for name in mnistNames { XCTAssertEqual(read("repo/Fixtures/mnist/" + name), files[name], name) }
    }

    func testFetchMNIST_ReplacesACorruptFile() throws {
        let files = fakeMNIST()
        try writeSums(files, folder: "mnist")
        for name in mnistNames { try write(files[name] ?? [], "sources/" + name) }
        for name in mnistNames { try write(files[name] ?? [], "repo/Fixtures/mnist/" + name) }
        try write(Array("damaged".utf8), "repo/Fixtures/mnist/t10k-labels-idx1-ubyte")
        let result = try run("fetch-mnist", ["MNIST_DIR": root + "/sources"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("t10k-labels-idx1-ubyte: present but its checksum is wrong, replacing it"), result.stdout)
        XCTAssertEqual(read("repo/Fixtures/mnist/t10k-labels-idx1-ubyte"), files["t10k-labels-idx1-ubyte"])
    }

    func testFetchMNIST_ChecksumMismatchFailsAndLeavesNothingBehind() throws {
        var files = fakeMNIST()
        try writeSums(files, folder: "mnist")
        files["t10k-images-idx3-ubyte"] = Array("something else".utf8)
        for name in mnistNames { try write(files[name] ?? [], "sources/" + name) }
        let result = try run("fetch-mnist", ["MNIST_DIR": root + "/sources"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("t10k-images-idx3-ubyte: checksum mismatch from \(root)/sources/t10k-images-idx3-ubyte"), result.stderr)
        XCTAssertNil(read("repo/Fixtures/mnist/t10k-images-idx3-ubyte"))
        let left = try FileManager.default.contentsOfDirectory(atPath: repo + "/Fixtures/mnist").filter { $0.hasSuffix(".tmp") }
        XCTAssertEqual(left, [])
    }

    func testFetchMNIST_MissingSourceFileFails() throws {
        let files = fakeMNIST()
        try writeSums(files, folder: "mnist")
        for name in mnistNames.dropLast() { try write(files[name] ?? [], "sources/" + name) }
        let result = try run("fetch-mnist", ["MNIST_DIR": root + "/sources"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("t10k-labels-idx1-ubyte: neither"), result.stderr)
    }

    func testFetchMNIST_DownloadFallsBackToTheNextMirror() throws {
        let files = fakeMNIST()
        try writeSums(files, folder: "mnist")
        try shell("mkdir -p bad good")
        for name in mnistNames {
            try write(files[name] ?? [], "good/" + name)
            try shell("gzip good/\(name) && echo junk | gzip > bad/\(name).gz")
        }
        let result = try run("fetch-mnist", ["MNIST_MIRRORS": "file://\(root)/bad file://\(root)/good"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("file://\(root)/bad failed"), result.stdout)
        for name in mnistNames { XCTAssertEqual(read("repo/Fixtures/mnist/" + name), files[name], name) }

        try FileManager.default.removeItem(atPath: repo + "/Fixtures/mnist/t10k-images-idx3-ubyte")
        let failed = try run("fetch-mnist", ["MNIST_MIRRORS": "file://\(root)/bad"])
        XCTAssertEqual(failed.status, 1)
        XCTAssertTrue(failed.stderr.contains("no mirror gave a file with the expected checksum"), failed.stderr)
    }

    // MARK: - fetch-pendigits

    func testFetchPendigits_FillsFromTheSharedFolderThenIsANoOp() throws {
        try fillFromSharedData("fetch-pendigits", folder: "pendigits")
        let text = String(decoding: read("repo/Fixtures/pendigits/pendigits-orig.tra") ?? [], as: UTF8.self)
        XCTAssertEqual(text.components(separatedBy: ".SEGMENT DIGIT").count - 1, 7494)
        try assertRunAgainIsANoOp("fetch-pendigits",
                                  says: "fetch-pendigits: pendigits-orig.tra present and verified in \(repo)/Fixtures/pendigits\n")
    }

    func testFetchPendigits_UnpacksAZipDownloadAfterAFailedSource() throws {
        let content = Array(".SEGMENT DIGIT 0 ? \"8\"\n.PEN_DOWN\n 267 333\n.PEN_UP\n".utf8)
        try writeSums(["pendigits-orig.tra": content], folder: "pendigits")
        // The UCI archive holds the file compressed with Unix `compress` (.Z); gzip stands in for it
        // here (the script hands both to `gzip -d`), since `compress` is not part of a base system.
        try write(content, "sources/pendigits-orig.tra")
        try shell("cd sources && gzip pendigits-orig.tra && echo notes > pendigits.names")
        try writeZip(["pendigits-orig.tra.gz", "pendigits.names"], from: "sources", to: "uci.zip")
        let result = try run("fetch-pendigits", ["PENDIGITS_URLS": "file://\(root)/missing.zip file://\(root)/uci.zip"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("file://\(root)/missing.zip failed"), result.stdout)
        XCTAssertEqual(read("repo/Fixtures/pendigits/pendigits-orig.tra"), content)
    }

    func testFetchPendigits_ChecksumMismatchFails() throws {
        try writeSums(["pendigits-orig.tra": Array("expected".utf8)], folder: "pendigits")
        try write(Array("different".utf8), "sources/pendigits-orig.tra")
        let result = try run("fetch-pendigits", ["PENDIGITS_DIR": root + "/sources"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("checksum mismatch from \(root)/sources/pendigits-orig.tra"), result.stderr)
        XCTAssertNil(read("repo/Fixtures/pendigits/pendigits-orig.tra"))
    }

    /// Writes a zip of `names` (stored, no compression) so the test needs no `zip` tool.
    private func writeZip(_ names: [String], from folder: String, to path: String) throws {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xFF) } }
        var archive: [UInt8] = []
        var directory: [UInt8] = []
        for name in names {
            let data = read(folder + "/" + name) ?? []
            let crc = Gzip.crc32(data)
            let common = le16(20) + le16(0) + le16(0) + le16(0) + le16(0x21) + le32(crc)
                + le32(UInt32(data.count)) + le32(UInt32(data.count)) + le16(name.utf8.count) + le16(0)
            directory += le32(0x0201_4B50) + le16(20) + common + le16(0) + le16(0) + le16(0) + le32(0)
                + le32(UInt32(archive.count)) + Array(name.utf8)
            archive += le32(0x0403_4B50) + common + Array(name.utf8) + data
        }
        let end = le32(0x0605_4B50) + le16(0) + le16(0) + le16(names.count) + le16(names.count)
            + le32(UInt32(directory.count)) + le32(UInt32(archive.count)) + le16(0)
        try write(archive + directory + end, path)
    }
}
