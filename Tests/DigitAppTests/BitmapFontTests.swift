import DigitKit
import DigitTestSupport
import XCTest
@testable import DigitApp

final class BitmapFontTests: XCTestCase {
    func testFont_DigitsLettersAndCommonSymbolsHaveGlyphs() {
        let wanted = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz .,:;!?'\"-+=_/%()[]<>#*|·×…"
        for c in wanted { XCTAssertTrue(BitmapFont.hasGlyph(c), "no glyph for '\(c)'") }
        XCTAssertFalse(BitmapFont.hasGlyph("€"))
    }

    func testFont_GlyphsAreAtMostFiveWideAndNineTallWithDigitsAllFiveWide() {
        for (c, g) in BitmapFont.glyphs {
            XCTAssertTrue((1...5).contains(g.width), "'\(c)' is \(g.width) wide")
            XCTAssertEqual(g.bits.count, g.width * BitmapFont.rows, "'\(c)'")
        }
        for c in "0123456789" { XCTAssertEqual(BitmapFont.glyph(c).width, 5, "digit '\(c)' must be 5 wide so numbers line up") }
    }

    func testFont_PatternsHaveRowsOfEqualLength() {
        // Glyph(_:) pads short rows silently; a typo in the table should not go unnoticed.
        for c in BitmapFont.glyphs.keys {
            let g = BitmapFont.glyph(c)
            let inkColumns = (0..<g.width).filter { column in (0..<BitmapFont.rows).contains { g.ink(column, $0) } }
            XCTAssertFalse(inkColumns.isEmpty && c != " ", "'\(c)' has no ink")
        }
    }

    func testFont_WidthCountsOneColumnBetweenGlyphs() {
        XCTAssertEqual(BitmapFont.width(of: "", scale: 2), 0)
        XCTAssertEqual(BitmapFont.width(of: "7", scale: 1), 5)
        XCTAssertEqual(BitmapFont.width(of: "77", scale: 1), 11)
        XCTAssertEqual(BitmapFont.width(of: "77", scale: 3), 33)
        XCTAssertEqual(BitmapFont.width(of: "i", scale: 1), 3)
    }

    func testFont_TextIsDrawnInsideItsBoxAndUnknownCharactersShowAsQuestionMarks() {
        var a = Surface(width: 60, height: 20, fill: RGB(0))
        let end = BitmapFont.draw("Hi 7", x: 2, y: 2, scale: 2, color: RGB(0xFFFFFF), on: &a)
        XCTAssertEqual(end, 2 + BitmapFont.width(of: "Hi 7", scale: 2) + 2)
        for y in 0..<a.height {
            for x in 0..<a.width where a.pixel(x, y) != 0xFF00_0000 {
                XCTAssertTrue(x >= 2 && x < end && y >= 2 && y < 2 + 9 * 2, "ink outside the text box at (\(x), \(y))")
            }
        }
        var b = Surface(width: 20, height: 20, fill: RGB(0)), c = Surface(width: 20, height: 20, fill: RGB(0))
        BitmapFont.draw("€", x: 0, y: 0, scale: 1, color: RGB(0xFFFFFF), on: &b)
        BitmapFont.draw("?", x: 0, y: 0, scale: 1, color: RGB(0xFFFFFF), on: &c)
        XCTAssertEqual(b.pixels, c.pixels)
    }

    func testFont_StrokedDigitsAreDistinctAndStayInTheirRectangle() {
        var pictures: [[UInt32]] = []
        let rect = PixelRect(x: 10, y: 10, width: 80, height: 100)
        for c in "0123456789?" {
            var s = Surface(width: 100, height: 120, fill: RGB(0x181B21))
            BitmapFont.drawStroked(c, in: rect, height: 84, color: RGB(0xE6E8EC), on: &s)
            var ink = 0
            for y in 0..<s.height {
                for x in 0..<s.width where s.pixel(x, y) != RGB(0x181B21).argb {
                    XCTAssertTrue(rect.contains(Float(x), Float(y)), "'\(c)' drew outside its rectangle at (\(x), \(y))")
                    ink += 1
                }
            }
            XCTAssertGreaterThan(ink, 300, "'\(c)' has too little ink")
            pictures.append(s.pixels)
        }
        XCTAssertEqual(Set(pictures.map { $0.hashValue }).count, pictures.count, "two glyphs look the same")
    }

    func testFont_StrokedSevenHasASlantedStrokeNotAStaircase() {
        // The diagonal of the 7 joins cells (3,2) → (2,3): the midpoint between them must be ink.
        var s = Surface(width: 70, height: 70, fill: RGB(0))
        BitmapFont.drawStroked("7", in: PixelRect(x: 0, y: 0, width: 50, height: 70), height: 70, color: RGB(0xFFFFFF), on: &s)
        let cell: Float = 10, originX: Float = 25 - 2.5 * cell
        let mid = (x: originX + 3 * cell, y: 3 * cell)   // between the centres (3.5, 2.5) and (2.5, 3.5)
        XCTAssertEqual(s.pixel(Int(mid.x), Int(mid.y)), 0xFFFF_FFFF)
    }
}
