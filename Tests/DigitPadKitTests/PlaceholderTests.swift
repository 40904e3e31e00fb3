import XCTest
@testable import DigitPadKit
final class PlaceholderTests: XCTestCase { func testNothing() {} }
