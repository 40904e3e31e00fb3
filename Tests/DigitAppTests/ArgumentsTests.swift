import DigitApp
import DigitKit
import DigitTestSupport
import XCTest

/// The command-line parser shared by `digits` and `digitpad`.
final class ArgumentsTests: XCTestCase {
    func testArguments_BadValuesAreUsageErrorsThatSayWhatWasExpected() {
        func usage(_ items: [String], _ read: (inout Arguments) throws -> Void) -> String? {
            var args = Arguments(items)
            do { try read(&args) } catch let e as DigitError {
                XCTAssertEqual(e.kind, .usage, "\(items)")
                return e.message
            } catch { XCTFail("\(error)") }
            return nil
        }
        let threshold: (inout Arguments) throws -> Void = { _ = try $0.float("--threshold", default: 0.9, range: 0...1) }
        let index: (inout Arguments) throws -> Void = { _ = try $0.int("--index", default: 0, range: 0...Int.max) }
        XCTAssertEqual(usage(["--threshold", "nan"], threshold), "--threshold must be a number in 0.0...1.0, got 'nan'")
        XCTAssertEqual(usage(["--threshold=inf"], threshold), "--threshold must be a number in 0.0...1.0, got 'inf'")
        XCTAssertEqual(usage(["--threshold", "1e999"], threshold), "--threshold must be a number in 0.0...1.0, got '1e999'")
        XCTAssertEqual(usage(["--threshold", "1.5"], threshold), "--threshold must be a number in 0.0...1.0, got '1.5'")
        XCTAssertEqual(usage(["--threshold"], threshold), "option --threshold needs a value")
        XCTAssertEqual(usage(["--threshold", "--json"], threshold), "option --threshold needs a value, found the option '--json'")
        XCTAssertEqual(usage(["--index", "-1"], index), "--index must be a whole number of at least 0, got '-1'")
        XCTAssertEqual(usage(["--index", "99999999999999999999"], index), "--index must be a whole number of at least 0, got '99999999999999999999'")
        XCTAssertEqual(usage(["--index", "1.5"], index), "--index must be a whole number of at least 0, got '1.5'")
        XCTAssertEqual(usage(["--bogus"]) { _ = try $0.positionals() }, "unknown option '--bogus' (see --help)")
        XCTAssertNil(usage(["--index=-0"], index))
        var args = Arguments(["--out=--weird-name", "-", "--", "--not-an-option"])
        XCTAssertEqual(try args.option("--out"), "--weird-name")
        XCTAssertEqual(try args.positionals(), ["-", "--not-an-option"])
    }

}
