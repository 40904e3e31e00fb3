import Foundation
import DigitFormats
import DigitKit
import DigitTestSupport
import XCTest

/// PNG fixtures come from pypng and from scripts/make-image-fixtures' own writer (all five
/// filters, split IDAT); their expected luminance was computed by the script from the samples.
final class PNGTests: XCTestCase {
    func testPNG_EveryFixtureDecodesToTheExpectedLuminance() throws {
        var colorsAndDepths = Set<String>()
        let count = try ExpectedImage.decodeEach(withSuffixes: [".png"], format: .png,
                                                 { try PNG.decode($0, file: $1) }) { image, expected, name in
            XCTAssertEqual(image.interlaced, expected.interlaced, name)
            XCTAssertEqual(image.transparency, expected.transparency, name)
            XCTAssertEqual(image.scale, 1)
            XCTAssertEqual(image.originalWidth, image.width)
            colorsAndDepths.insert("\(image.color.rawValue) \(image.bitDepth) \(image.interlaced)")
        }
        XCTAssertGreaterThanOrEqual(count, 45)
        // Every colour type at every depth it allows, plain and interlaced.
        XCTAssertEqual(colorsAndDepths.count, 30, "\(colorsAndDepths.sorted())")
    }

    func testPNG_SummaryNamesColourDepthAndInterlacing() throws {
        let image = try PNG.decode(try TestPaths.image("rgb16-adam7.png"), file: "rgb16-adam7.png")
        XCTAssertEqual(image.summary, "RGB 16-bit interlaced PNG 7×5")
        let palette = try PNG.decode(try TestPaths.image("palette4-trns.png"), file: "p.png")
        XCTAssertEqual(palette.summary, "palette 4-bit PNG with transparency 17×6")
    }

    func testPNG_AllFiveFiltersAreUndone() throws {
        // Rows cycle through filters 0…4 in these files; one wrong filter breaks the rows after it.
        for name in ["filters-gray1.png", "filters-gray8.png", "filters-rgb8.png", "filters-rgba16-adam7.png",
                     "filters-gray4-adam7.png", "filters-graya8.png"] {
            let bytes = try TestPaths.image(name)
            XCTAssertEqual(try PNG.decode(bytes, file: name).gray, ExpectedImage.all[name]?.gray, name)
        }
    }

    func testPNG_GrayKeyIsTransparentAndBecomesWhite() throws {
        // 2-bit gray: samples 0…3 map to 0, 85, 170, 255; the tRNS sample becomes 255 wherever it occurs.
        let raw: [UInt8] = [0, 0b0001_1011]  // samples 0, 1, 2, 3
        let trns = PNGBuilder.chunk("tRNS", [0, 1])
        let image = try PNG.decode(PNGBuilder.png(width: 4, height: 1, depth: 2, raw: raw, before: [trns]), file: "k.png")
        XCTAssertEqual(image.gray, [0, 255, 170, 255])
    }

    func testPNG_HalfTransparentBlackIsMidGray() throws {
        // RGBA black at alpha 128 over white: (0 * 128 + 255 * 127 + 127) / 255 = 127.
        let image = try PNG.decode(PNGBuilder.png(width: 1, height: 1, colorType: 6, raw: [0, 0, 0, 0, 128]), file: "a.png")
        XCTAssertEqual(image.gray, [127])
    }

    func testPNG_AncillaryChunksAreSkippedAndDataAfterIENDIgnored() throws {
        var bytes = PNGBuilder.png(width: 2, height: 1, raw: [0, 10, 20], before: [PNGBuilder.chunk("zzZz", [1, 2, 3])])
        bytes += [0xDE, 0xAD]
        XCTAssertEqual(try PNG.decode(bytes, file: "x.png").gray, [10, 20])
    }

    // MARK: - Errors

    private func decode(_ bytes: [UInt8], limits: ImageLimits = ImageLimits()) throws -> DecodedImage {
        try PNG.decode(bytes, file: "bad.png", limits: limits)
    }

    func testPNG_EveryTruncationThrows() throws {
        for name in ["gray1.png", "rgb16-adam7.png", "palette2-trns.png", "filters-rgb8.png", "graya8-adam7.png"] {
            let bytes = try TestPaths.image(name)
            for cut in 0..<bytes.count {
                assertDigitError(.format, file: "bad.png") { try decode(Array(bytes.prefix(cut))) }
            }
        }
    }

    func testPNG_TruncationMessagesSayWhatIsMissing() throws {
        let bytes = try TestPaths.image("gray8.png")
        assertDigitError(.format, file: "bad.png", contains: "missing IEND chunk", location: "byte \(bytes.count - 12)") {
            try decode(Array(bytes.prefix(bytes.count - 12)))
        }
        assertDigitError(.format, file: "bad.png", contains: "ends inside the signature", location: "byte 5") {
            try decode(Array(bytes.prefix(5)))
        }
        assertDigitError(.format, file: "bad.png", contains: "declares 13 data bytes", location: "IHDR chunk at byte 8") {
            try decode(Array(bytes.prefix(20)))
        }
    }

    func testPNG_FlippedByteInAnyChunkFailsItsCRC() throws {
        let bytes = try TestPaths.image("palette4-trns.png")
        // Walk the chunks; flip one bit in each chunk's type, data and CRC.
        var pos = 8
        var checked = 0
        while pos < bytes.count {
            let length = Int(bytes[pos]) << 24 | Int(bytes[pos + 1]) << 16 | Int(bytes[pos + 2]) << 8 | Int(bytes[pos + 3])
            let type = String(decoding: bytes[(pos + 4)..<(pos + 8)], as: UTF8.self)
            for offset in [8, 8 + length / 2, 8 + length + 3] where offset < 12 + length && (offset >= 8 + length || length > 0) {
                var broken = bytes
                broken[pos + offset] ^= 0x01
                assertDigitError(.format, file: "bad.png", contains: "CRC-32 mismatch", location: "\(type) chunk at byte \(pos)") {
                    try decode(broken)
                }
                checked += 1
            }
            pos += 12 + length
        }
        XCTAssertGreaterThanOrEqual(checked, 12)
    }

    func testPNG_HugeDeclaredSizeIsRefusedBeforeAllocation() throws {
        // 100,000 × 100,000 gray: 10 GB if allocated. The IHDR alone decides.
        let huge = PNG.signature + PNGBuilder.ihdr(width: 100_000, height: 100_000)
        assertDigitError(.limit, file: "bad.png", contains: "more than the limit of 65535 on a side", location: "IHDR chunk at byte 8") {
            try decode(huge)
        }
        let wide = PNG.signature + PNGBuilder.ihdr(width: 60_000, height: 60_000)
        assertDigitError(.limit, file: "bad.png", contains: "more than the limit of 50000000 pixels") { try decode(wide) }
        let tight = ImageLimits(maxPixels: 100, maxSide: 20)
        assertDigitError(.limit, file: "bad.png", contains: "limit of 100 pixels") {
            try decode(PNGBuilder.png(width: 11, height: 10, raw: []), limits: tight)
        }
        let over31 = PNG.signature + PNGBuilder.ihdr(width: 0x8000_0000, height: 1)
        assertDigitError(.format, file: "bad.png", contains: "over 2^31 - 1") { try decode(over31) }
    }

    func testPNG_DeclaredSizeTheDataCannotHoldIsRefused() throws {
        // 8000 × 6000 RGBA is 192 MB of image data; 40 bytes of IDAT cannot expand to it.
        let bytes = PNGBuilder.png(width: 8000, height: 6000, colorType: 6, raw: [0, 1, 2, 3])
        assertDigitError(.format, file: "bad.png", contains: "cannot hold the 192006000 bytes") { try decode(bytes) }
    }

    func testPNG_ZeroSizeThrows() {
        assertDigitError(.format, file: "bad.png", contains: "zero-size") {
            try decode(PNGBuilder.png(width: 0, height: 5, raw: []))
        }
    }

    func testPNG_BadFilterByteThrowsWithTheRow() {
        let raw: [UInt8] = [0, 1, 2, 5, 3, 4]  // row 1 has filter type 5
        assertDigitError(.format, file: "bad.png", contains: "invalid filter type 5", location: "row 1") {
            try decode(PNGBuilder.png(width: 2, height: 2, raw: raw))
        }
        // Interlaced 8×1: passes 1, 2, 4 and 6 hold 1, 1, 2 and 4 pixels; pass 2 is column 4.
        let interlaced: [UInt8] = [0, 9, 7, 9, 0, 1, 1, 0, 1, 1, 1, 1]
        assertDigitError(.format, file: "bad.png", contains: "invalid filter type 7", location: "Adam7 pass 2, row 0 (image row 0)") {
            try decode(PNGBuilder.png(width: 8, height: 1, interlace: 1, raw: interlaced))
        }
    }

    func testPNG_PaletteIndexOutOfRangeThrows() {
        let plte = PNGBuilder.chunk("PLTE", [0, 0, 0, 255, 255, 255])  // 2 entries
        assertDigitError(.format, file: "bad.png", contains: "palette index 7 but PLTE has 2 entries", location: "row 0, column 2") {
            try decode(PNGBuilder.png(width: 3, height: 1, colorType: 3, raw: [0, 1, 0, 7], before: [plte]))
        }
        // 4-bit indices are unpacked before the check.
        assertDigitError(.format, file: "bad.png", contains: "palette index 15", location: "row 0, column 1") {
            try decode(PNGBuilder.png(width: 2, height: 1, depth: 4, colorType: 3, raw: [0, 0x1F], before: [plte]))
        }
    }

    func testPNG_ChunksOutOfOrderThrow() {
        let plte = PNGBuilder.chunk("PLTE", [0, 0, 0])
        let trns = PNGBuilder.chunk("tRNS", [0])
        let idat = PNGBuilder.chunk("IDAT", PNGBuilder.zlibStored([0, 0]))
        let iend = PNGBuilder.chunk("IEND", [])
        let ihdr = PNGBuilder.ihdr(width: 1, height: 1, colorType: 3)
        let cases: [([[UInt8]], String)] = [
            ([plte, ihdr, idat, iend], "the first chunk is PLTE, expected IHDR"),
            ([PNGBuilder.ihdr(width: 1, height: 1, colorType: 2), idat, plte, iend], "PLTE after IDAT"),
            ([ihdr, trns, plte, idat, iend], "tRNS before PLTE"),
            ([ihdr, idat, iend], "without a PLTE chunk"),
            ([ihdr, plte, plte, idat, iend], "a second PLTE chunk"),
            ([ihdr, plte, idat, PNGBuilder.chunk("tEXt", [65, 0, 66]), idat, iend], "IDAT chunks are not consecutive"),
            ([ihdr, plte, iend], "no IDAT chunk before IEND"),
            ([ihdr, ihdr, plte, idat, iend], "a second IHDR"),
            ([ihdr, plte, PNGBuilder.chunk("vpAg", []), PNGBuilder.chunk("CgBI", []), idat, iend], "unknown critical chunk CgBI"),
            ([PNGBuilder.ihdr(width: 1, height: 1), plte, idat, iend], "PLTE in a gray image"),
            ([PNGBuilder.ihdr(width: 1, height: 1, colorType: 6), trns, idat, iend], "which has an alpha channel already"),
        ]
        for (chunks, message) in cases {
            assertDigitError(.format, file: "bad.png", contains: message) { try decode(PNG.signature + chunks.joined()) }
        }
    }

    func testPNG_InvalidHeaderFieldsThrow() {
        for (depth, type, message) in [(3, 0, "bit depth 3"), (16, 3, "bit depth 16 is not allowed for colour type 3"),
                                        (8, 5, "colour type 5"), (4, 2, "bit depth 4")] {
            assertDigitError(.format, file: "bad.png", contains: message) {
                try decode(PNGBuilder.png(width: 1, height: 1, depth: UInt8(depth), colorType: UInt8(type), raw: [0, 0]))
            }
        }
        assertDigitError(.format, file: "bad.png", contains: "interlace method 2") {
            try decode(PNGBuilder.png(width: 1, height: 1, interlace: 2, raw: [0, 0]))
        }
    }

    func testPNG_WrongAmountOfImageDataThrows() {
        assertDigitError(.format, file: "bad.png", contains: "ends after 5 of the 6 bytes") {
            try decode(PNGBuilder.png(width: 2, height: 2, raw: [0, 1, 2, 0, 3]))
        }
        assertDigitError(.format, file: "bad.png", contains: "holds more than the 6 bytes") {
            try decode(PNGBuilder.png(width: 2, height: 2, raw: [0, 1, 2, 0, 3, 4, 0]))
        }
    }

    func testPNG_CorruptZlibDataThrowsWithAnOffset() throws {
        var raw = PNGBuilder.zlibStored([0, 1, 2, 0, 3, 4])
        raw[raw.count - 1] ^= 0xFF  // the Adler-32
        let bytes = PNG.signature + PNGBuilder.ihdr(width: 2, height: 2) + PNGBuilder.chunk("IDAT", raw) + PNGBuilder.chunk("IEND", [])
        let error = assertDigitError(.format, file: "bad.png", contains: "Adler-32 checksum mismatch") { try decode(bytes) }
        // The checksum is the last 4 bytes of the IDAT data, which starts at byte 33 + 8.
        XCTAssertEqual(error?.location, "byte \(33 + 8 + raw.count - 4)")
        var header = PNGBuilder.zlibStored([0, 0])
        header[0] = 0x79  // not deflate
        assertDigitError(.format, file: "bad.png", contains: "corrupt zlib data in IDAT") {
            try decode(PNG.signature + PNGBuilder.ihdr(width: 1, height: 1) + PNGBuilder.chunk("IDAT", header) + PNGBuilder.chunk("IEND", []))
        }
    }

    func testPNG_NotAPNGThrows() {
        assertDigitError(.format, file: "bad.png", contains: "not a PNG file", location: "byte 0") { try decode(Array("GIF89a".utf8)) }
        assertDigitError(.format, file: "bad.png", location: "byte 0") { try decode([]) }
    }
}
