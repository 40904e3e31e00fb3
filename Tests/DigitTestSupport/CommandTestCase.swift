import Foundation
import XCTest

/// A test case that runs the `digits` executable, each test in a fresh scratch folder (`folder`).
open class DigitsCommandTestCase: XCTestCase {
    /// The running test's scratch folder, removed when it ends.
    public var folder: URL!

    open override func setUpWithError() throws {
        try super.setUpWithError()
        folder = try temporaryFolder(self)
    }

    /// Runs `digits args…` in `directory` (the scratch folder unless given), with `DIGITS_WEIGHTS`
    /// cleared unless `environment` sets it.
    public func digits(_ args: [String], stdin: String? = nil, in directory: URL? = nil, environment: [String: String?] = [:],
                       file: StaticString = #filePath, line: UInt = #line) throws -> Executable.Result {
        guard let digits = Executable.named("digits", file: file, line: line) else { throw Executable.Missing() }
        return try digits.run(args, in: directory ?? folder, environment: environment, stdin: stdin, file: file, line: line)
    }

    /// Exit `status` and exactly one stderr line, containing each of `parts`.
    public func assertOneLineError(_ r: Executable.Result, status: Int32, _ parts: [String],
                                   file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(r.status, status, "stderr: \(r.stderr)", file: file, line: line)
        XCTAssertEqual(r.stderrLines.count, 1, "stderr: \(r.stderr)", file: file, line: line)
        for part in parts {
            XCTAssertTrue(r.stderr.contains(part), "'\(part)' not in: \(r.stderr)", file: file, line: line)
        }
    }
}
