import Foundation
import DigitFormats
import DigitKit
import DigitTestSupport
import XCTest

/// PNM fixtures were written by scripts/make-image-fixtures (and read back by Pillow where it can).
final class PNMTests: XCTestCase {
    func testPNM_EveryFixtureDecodesToTheExpectedLuminance() throws {
        var variants = Set<String>()
        let count = try ExpectedImage.decodeEach(withSuffixes: [".pgm", ".ppm"], format: .pnm,
                                                 { try PNM.decode($0, file: $1) }) { image, expected, name in
            XCTAssertEqual(image.maxValue, expected.maxValue, name)
            XCTAssertEqual(image.variant, expected.variant, name)
            variants.insert(image.variant ?? "")
        }
        XCTAssertEqual(count, 11)
        XCTAssertEqual(variants, ["P2", "P3", "P5", "P6"])
    }

    func testPNM_SummaryNamesTheVariantAndMaxval() throws {
        let image = try PNM.decode(try TestPaths.image("p5-maxval-1000.pgm"), file: "x.pgm")
        XCTAssertEqual(image.summary, "gray 16-bit PNM (P5, maxval 1000) 7×5")
    }

    func testPNM_CommentsActAsWhitespaceAnywhereInTheHeader() throws {
        let text = "P2#c\n2#w\n1 #h\n#x\n3 # m\n0 3\n"
        let image = try PNM.decode(Array(text.utf8), file: "c.pgm")
        XCTAssertEqual(image.gray, [0, 255])
        // After a raw maxval exactly one whitespace character: here the CR, so LF is the first sample.
        let raw = Array("P5 2 1 255\r".utf8) + [10, 20]
        XCTAssertEqual(try PNM.decode(raw, file: "r.pgm").gray, [10, 20])
    }

    func testPNM_SamplesAreScaledWithRounding() throws {
        // maxval 2: 0, 1, 2 → 0, 128 (127.5 rounds up), 255.
        XCTAssertEqual(try PNM.decode(Array("P2 3 1 2 0 1 2".utf8), file: "s.pgm").gray, [0, 128, 255])
        // 16-bit big-endian: 0x8000 of 65535 → 127.5…→ 128; 0x7FFF → 127.
        let p5 = Array("P5 2 1 65535\n".utf8) + [0x80, 0x00, 0x7F, 0xFF]
        XCTAssertEqual(try PNM.decode(p5, file: "s.pgm").gray, [128, 127])
    }

    func testPNM_ColourUsesBT601Weights() throws {
        let p6 = Array("P6 3 1 255\n".utf8) + [255, 0, 0, 0, 255, 0, 0, 0, 255]
        // (299 * 255 + 500) / 1000 = 76, (587 * 255 + 500) / 1000 = 150, (114 * 255 + 500) / 1000 = 29.
        XCTAssertEqual(try PNM.decode(p6, file: "c.ppm").gray, [76, 150, 29])
    }

    // MARK: - Errors

    private func decode(_ text: String) throws -> DecodedImage {
        try PNM.decode(Array(text.utf8), file: "bad.pgm")
    }

    func testPNM_P5WithMissingDataThrows() {
        let bytes = Array("P5\n4 3\n255\n".utf8) + [UInt8](repeating: 7, count: 9)
        assertDigitError(.format, file: "bad.pgm", contains: "P5 data ends in row 2 after 9 of 12 bytes", location: "byte \(bytes.count)") {
            try PNM.decode(bytes, file: "bad.pgm")
        }
        let wide = Array("P6\n2 2\n1000\n".utf8) + [UInt8](repeating: 0, count: 23)
        assertDigitError(.format, file: "bad.pgm", contains: "after 23 of 24 bytes") { try PNM.decode(wide, file: "bad.pgm") }
    }

    func testPNM_EveryTruncationThrows() throws {
        for name in ["p2-maxval-1023.pgm", "p3-rgb.ppm", "p5-gray16.pgm", "p6-rgb8.ppm"] {
            let bytes = try TestPaths.image(name)
            // A plain file cut inside its last number is a smaller number, and complete.
            let lastDigit = bytes.lastIndex(where: { (0x30...0x39).contains($0) }) ?? bytes.count
            let lastNumber = (bytes[..<lastDigit].lastIndex(where: { !(0x30...0x39).contains($0) }) ?? 0) + 1
            for cut in 0..<bytes.count where !(name.hasPrefix("p2") || name.hasPrefix("p3")) || cut < lastNumber {
                assertDigitError(.format, file: "bad.pgm") { try PNM.decode(Array(bytes.prefix(cut)), file: "bad.pgm") }
            }
        }
    }

    func testPNM_SampleOverMaxvalThrowsWithItsPlace() {
        assertDigitError(.format, file: "bad.pgm", contains: "row 1, column 0 is 9, over maxval 7") { try decode("P2 2 2 7 1 2 9 3") }
        let raw = Array("P5 2 2 100\n".utf8) + [1, 2, 3, 101]
        assertDigitError(.format, file: "bad.pgm", contains: "row 1, column 1 is 101, over maxval 100", location: "byte 14") {
            try PNM.decode(raw, file: "bad.pgm")
        }
        let wide = Array("P6 1 1 300\n".utf8) + [0, 1, 1, 0x2D, 0, 2]
        assertDigitError(.format, file: "bad.pgm", contains: "is 301, over maxval 300") { try PNM.decode(wide, file: "bad.pgm") }
    }

    func testPNM_BadHeadersThrow() {
        let cases: [(String, DigitError.Kind, String)] = [
            ("P5 0 3 255\n", .format, "zero-size"),
            ("P5 3 3 0\n", .format, "maxval 0"),
            ("P5 3 3 65536\n", .format, "maxval is over 65535"),
            ("P2 x 3 255\n", .format, "expected the width as a decimal number, found 'x'"),
            ("P2 3x 3 255\n", .format, "expected whitespace after the width"),
            ("P2 3 3", .format, "file ends after the height"),
            ("P2 3 -3 255", .format, "found '-'"),
            ("P5 99999999999 1 255\n", .format, "width is over 2147483647"),
            ("P5 100000 100000 255\n", .limit, "more than the limit of 65535 on a side"),
            ("P5 10000 10000 255\n", .limit, "more than the limit of 50000000 pixels"),
            ("P2 3 1 255 1 2  ", .format, "file ends before the sample at row 0, column 2"),
            ("P2 3 1 255 1 2 99999999", .format, "is over 65535"),
            ("P2 2 1 255 1,2", .format, "expected whitespace after the sample at row 0, column 0"),
        ]
        for (text, kind, message) in cases {
            assertDigitError(kind, file: "bad.pgm", contains: message) { try decode(text) }
        }
    }

    func testPNM_PlainFileTooShortForItsSizeIsRefusedBeforeAllocation() {
        assertDigitError(.format, file: "bad.pgm", contains: "needs at least 97999999 bytes") { try decode("P2 7000 7000 255 1 2 3") }
    }

    func testPNM_EncodersRoundTrip() throws {
        var rng = SplitMix64(seed: 11)
        let gray = (0..<(13 * 7)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let p5 = try PNM.encodeP5(gray: gray, width: 13, height: 7)
        XCTAssertEqual(Array(p5.prefix(14)), Array("P5\n13 7\n255\n".utf8) + [gray[0], gray[1]])
        XCTAssertEqual(try PNM.decode(p5, file: "x.pgm").gray, gray)
        let rgb = (0..<(5 * 3 * 3)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let p6 = try PNM.encodeP6(rgb: rgb, width: 5, height: 3)
        let expected = (0..<15).map { (i: Int) -> UInt8 in
            let r = Int(rgb[3 * i]), g = Int(rgb[3 * i + 1]), b = Int(rgb[3 * i + 2])
            return UInt8((299 * r + 587 * g + 114 * b + 500) / 1000)
        }
        XCTAssertEqual(try PNM.decode(p6, file: "x.ppm").gray, expected)
        XCTAssertThrowsError(try PNM.encodeP5(gray: gray, width: 13, height: 8))
        XCTAssertThrowsError(try PNM.encodeP6(rgb: [], width: 0, height: 0))
    }
}
