import Foundation
import XCTest

/// The one way the tests run a program: the package's executables (`digits`, `digitpad`, built by
/// `swift test` beside the test bundle) and the project's scripts, as child processes with output
/// to files (a chatty child never blocks on a full pipe), a timeout, and the result's exit status
/// (128 + the signal when a signal ended it).
public struct Executable {
    public struct Result {
        public var status: Int32
        public var stdout: String
        public var stderr: String
        /// The non-empty lines of stdout and of stderr.
        public var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
        public var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
    }

    public struct Missing: Error { public init() {} }

    public let url: URL

    /// A program of the package, found beside the test bundle (`.build/<triple>/<config>/`), else in
    /// the repository's `.build/debug`; nil (with a test failure saying how to build it) when absent.
    public static func named(_ name: String, file: StaticString = #filePath, line: UInt = #line) -> Executable? {
        var folders: [URL] = []
        if let exe = Bundle.main.executableURL { folders.append(exe.deletingLastPathComponent()) }
        folders += Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        folders.append(TestPaths.repoRoot.appendingPathComponent(".build/debug"))
        let candidates = folders.map { $0.appendingPathComponent(name) }
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) {
            return Executable(url: found)
        }
        XCTFail("the \(name) executable is missing (looked in \(folders.map(\.path))): run swift build first", file: file, line: line)
        return nil
    }

    public static var digits: Executable? { named("digits") }

    /// A script of the repository, run with bash.
    public static func script(_ relative: String) -> (Executable, [String]) {
        (Executable(url: URL(fileURLWithPath: "/bin/bash")), [TestPaths.repoRoot.appendingPathComponent(relative).path])
    }

    public init(url: URL) { self.url = url }

    /// A started process and where its output goes.
    public struct Running {
        public let process: Process
        let out: URL, err: URL
    }

    /// Starts the program in `directory` with `environment` added to this process's (a nil value
    /// removes a variable; `DIGITS_WEIGHTS` is removed unless given) and `stdin` as its input.
    public func start(_ arguments: [String], in directory: URL, environment: [String: String?] = [:],
                      stdin: Data? = nil) throws -> Running {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var env = ProcessInfo.processInfo.environment
        env["DIGITS_WEIGHTS"] = nil
        env["SWIFT_BACKTRACE"] = "enable=no"  // a crash should end the child at once
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let tag = UUID().uuidString
        let out = directory.appendingPathComponent(".stdout-\(tag)"), err = directory.appendingPathComponent(".stderr-\(tag)")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        if let stdin {
            let input = directory.appendingPathComponent(".stdin-\(tag)")
            try stdin.write(to: input)
            process.standardInput = try FileHandle(forReadingFrom: input)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        return Running(process: process, out: out, err: err)
    }

    /// Waits for a started process (killing it after `timeout` seconds, which fails the test) and
    /// collects its output.
    public static func finish(_ running: Running, timeout: Double = 120, file: StaticString = #filePath,
                              line: UInt = #line) -> Result {
        let process = running.process
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(2_000) }
        if process.isRunning {
            XCTFail("\(process.executableURL?.lastPathComponent ?? "") \(process.arguments ?? []) did not finish within \(timeout) s",
                    file: file, line: line)
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        let result = Result(status: status, stdout: (try? String(contentsOf: running.out, encoding: .utf8)) ?? "",
                            stderr: (try? String(contentsOf: running.err, encoding: .utf8)) ?? "")
        try? FileManager.default.removeItem(at: running.out)
        try? FileManager.default.removeItem(at: running.err)
        return result
    }

    /// Runs the program to the end.
    public func run(_ arguments: [String], in directory: URL, environment: [String: String?] = [:], stdin: String? = nil,
                    timeout: Double = 120, file: StaticString = #filePath, line: UInt = #line) throws -> Result {
        Self.finish(try start(arguments, in: directory, environment: environment, stdin: stdin.map { Data($0.utf8) }),
                    timeout: timeout, file: file, line: line)
    }
}
