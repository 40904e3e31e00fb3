import DigitKit
import DigitTestSupport
import XCTest
@testable import DigitPadKit

final class PNGCodecTests: XCTestCase {
    private func sampleImage(width: Int, height: Int) -> [UInt32] {
        var random = SplitMix64(seed: 3)
        return (0..<(width * height)).map { i in
            let x = i % width, y = i / width
            if x < width / 2 { return y < height / 2 ? 0xFF10_1217 : 0xFF5E_C8A8 }   // flat areas
            return 0xFF00_0000 | UInt32(truncatingIfNeeded: random.next()) & 0xFF_FFFF   // noise
        }
    }

    func testPNG_RoundTripsExactly() throws {
        let pixels = sampleImage(width: 37, height: 23)
        let png = try XCTUnwrap(PNGEncoder.encodeRGB(width: 37, height: 23, argb: pixels))
        let image = try PNGDecoder.decode(png)
        XCTAssertEqual(image.width, 37)
        XCTAssertEqual(image.height, 23)
        XCTAssertEqual(image.pixels, pixels)
    }

    func testPNG_HasSignatureIHDRAndIEND() throws {
        let png = try XCTUnwrap(PNGEncoder.encodeRGB(width: 2, height: 1, argb: [0xFFFF_0000, 0xFF00_FF00]))
        XCTAssertEqual(Array(png[0..<8]), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        XCTAssertEqual(String(decoding: png[12..<16], as: UTF8.self), "IHDR")
        XCTAssertEqual(Array(png[16..<24]), [0, 0, 0, 2, 0, 0, 0, 1])
        XCTAssertEqual(png[24], 8, "bit depth")
        XCTAssertEqual(png[25], 2, "colour type RGB")
        XCTAssertEqual(String(decoding: png[(png.count - 8)..<(png.count - 4)], as: UTF8.self), "IEND")
    }

    func testPNG_FlatScreensCompressToAFewPercent() throws {
        let width = 960, height = 600
        var s = Surface(width: width, height: height, fill: RGB(0x101217))
        s.fill(PixelRect(x: 24, y: 24, width: 552, height: 552), RGB(0))
        s.stampCapsule(from: (100, 100), to: (400, 450), radius: 28, RGB(0xFFFFFF), clip: s.bounds)
        let png = try XCTUnwrap(PNGEncoder.encodeRGB(width: width, height: height, argb: s.pixels))
        XCTAssertLessThan(png.count, width * height * 3 / 50, "\(png.count) bytes")
        XCTAssertEqual(try PNGDecoder.decode(png).pixels, s.pixels)
    }

    func testPNG_EncoderRejectsImpossibleSizes() {
        XCTAssertNil(PNGEncoder.encodeRGB(width: 0, height: 5, argb: []))
        XCTAssertNil(PNGEncoder.encodeRGB(width: 3, height: 3, argb: [0, 0]))
    }

    func testPNG_ReadsTheGrayPNGsOfDigitKitsImageIO() throws {
        let gray: [UInt8] = [0, 64, 128, 255, 255, 128]
        let image = try PNGDecoder.decode(try ImageIO.png(gray: gray, width: 3, height: 2))
        XCTAssertEqual(image.pixels, gray.map { 0xFF00_0000 | UInt32($0) * 0x01_0101 })
    }

    func testPNG_DecoderNamesTheProblemInBrokenFiles() throws {
        let png = try XCTUnwrap(PNGEncoder.encodeRGB(width: 4, height: 4, argb: sampleImage(width: 4, height: 4)))
        XCTAssertThrowsError(try PNGDecoder.decode(Array(png.prefix(40)), file: "a.png")) { error in
            XCTAssertTrue("\(error)".hasPrefix("a.png: byte "), "\(error)")
        }
        var flipped = png
        flipped[30] ^= 0x01   // inside IHDR: the CRC no longer matches
        XCTAssertThrowsError(try PNGDecoder.decode(flipped)) { error in
            XCTAssertTrue("\(error)".contains("CRC mismatch in chunk IHDR"), "\(error)")
        }
        // A header that claims 8000×8000 pixels for a few bytes of data is refused up front.
        var huge = png
        huge.replaceSubrange(16..<24, with: [0, 0, 0x1F, 0x40, 0, 0, 0x1F, 0x40])
        let crc = ImageIO.crc32(Array(huge[12..<29]))
        huge.replaceSubrange(29..<33, with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        XCTAssertThrowsError(try PNGDecoder.decode(huge)) { error in
            XCTAssertTrue("\(error)".contains("needs more data than the"), "\(error)")
        }
        XCTAssertThrowsError(try PNGDecoder.decode(Array("not a png at all".utf8))) { error in
            XCTAssertTrue("\(error)".contains("bad signature"), "\(error)")
        }
    }
}
