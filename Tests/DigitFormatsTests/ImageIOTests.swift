@testable import DigitFormats
import Foundation
import DigitKit
import DigitTestSupport
import XCTest

final class ImageIOTests: XCTestCase {
    /// A minimal PNG reader for what `ImageIO.png` writes (8-bit gray, filter 0, stored deflate
    /// blocks), checking every CRC, the zlib header and the Adler-32. Independent of the writer's code.
    private struct DecodedPNG {
        var width = 0
        var height = 0
        var pixels: [UInt8] = []
        var chunkTypes: [String] = []
    }

    private enum DecodeError: Error { case bad(String) }

    private func u32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    /// Bitwise CRC-32, written out separately from the table-driven one under test.
    private func slowCRC(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0xEDB8_8320 : 0) }
        }
        return ~crc
    }

    private func decode(_ png: [UInt8]) throws -> DecodedPNG {
        guard png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { throw DecodeError.bad("signature") }
        var result = DecodedPNG()
        var idat: [UInt8] = []
        var i = 8
        while i + 12 <= png.count {
            let length = Int(u32(png, i))
            let type = String(decoding: png[(i + 4)..<(i + 8)], as: UTF8.self)
            guard i + 12 + length <= png.count else { throw DecodeError.bad("chunk \(type) overruns") }
            let data = Array(png[(i + 8)..<(i + 8 + length)])
            guard u32(png, i + 8 + length) == slowCRC(Array(png[(i + 4)..<(i + 8 + length)])) else { throw DecodeError.bad("CRC of \(type)") }
            result.chunkTypes.append(type)
            if type == "IHDR" {
                result.width = Int(u32(data, 0))
                result.height = Int(u32(data, 4))
                guard Array(data[8...]) == [8, 0, 0, 0, 0] else { throw DecodeError.bad("not 8-bit gray") }
            } else if type == "IDAT" {
                idat += data
            }
            i += 12 + length
        }
        guard i == png.count else { throw DecodeError.bad("trailing bytes") }
        // zlib: header, stored blocks, Adler-32.
        guard idat.count >= 6, (UInt16(idat[0]) << 8 | UInt16(idat[1])) % 31 == 0, idat[0] & 0x0F == 8 else { throw DecodeError.bad("zlib header") }
        var raw: [UInt8] = []
        var p = 2
        while true {
            let header = idat[p]
            guard header & 0x06 == 0 else { throw DecodeError.bad("not a stored block") }
            let length = Int(idat[p + 1]) | Int(idat[p + 2]) << 8
            let complement = Int(idat[p + 3]) | Int(idat[p + 4]) << 8
            guard length ^ complement == 0xFFFF else { throw DecodeError.bad("LEN/NLEN") }
            raw += idat[(p + 5)..<(p + 5 + length)]
            p += 5 + length
            if header & 1 == 1 { break }
        }
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        guard u32(idat, p) == b << 16 | a, p + 4 == idat.count else { throw DecodeError.bad("Adler-32") }
        guard raw.count == (result.width + 1) * result.height else { throw DecodeError.bad("size") }
        for row in 0..<result.height {
            guard raw[row * (result.width + 1)] == 0 else { throw DecodeError.bad("filter") }
            result.pixels += raw[(row * (result.width + 1) + 1)..<((row + 1) * (result.width + 1))]
        }
        return result
    }

    func testPNG_RoundTripsThroughAnIndependentDecoder() throws {
        let image = Rasterizer().rasterize(Drawing(strokes: [[StrokePoint(x: 0, y: 0), StrokePoint(x: 10, y: 25), StrokePoint(x: 20, y: 3)]]))
        let gray = ImageIO.grayBytes(image)
        let decoded = try decode(try ImageIO.png(gray: gray, width: 28, height: 28))
        XCTAssertEqual(decoded.chunkTypes, ["IHDR", "IDAT", "IEND"])
        XCTAssertEqual(decoded.width, 28)
        XCTAssertEqual(decoded.height, 28)
        XCTAssertEqual(decoded.pixels, gray)
        XCTAssertTrue(gray.contains(255) && gray.contains(0))
    }

    func testPNG_LargeImageUsesSeveralStoredBlocks() throws {
        let gray = (0..<(300 * 250)).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / 300) }
        let png = try ImageIO.png(gray: gray, width: 300, height: 250)
        let decoded = try decode(png)
        XCTAssertEqual(decoded.pixels, gray)
        XCTAssertGreaterThan(png.count, 75_250 + 2 * 5)  // more than one block header
    }

    func testChecksums_KnownValues() {
        XCTAssertEqual(ImageIO.crc32(Array("123456789".utf8)), 0xCBF4_3926)  // the standard check value
        XCTAssertEqual(ImageIO.crc32([UInt8]()), 0)
        XCTAssertEqual(ImageIO.adler32(Array("Wikipedia".utf8)), 0x11E6_0398)
        XCTAssertEqual(ImageIO.adler32([UInt8]()), 1)
        let long = [UInt8](repeating: 255, count: 100_000)
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in long {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        XCTAssertEqual(ImageIO.adler32(long), b << 16 | a, "no overflow over long runs")
    }

    func testPGM_HeaderAndPixels() throws {
        let pgm = try ImageIO.pgm(gray: [0, 128, 255, 7], width: 2, height: 2)
        XCTAssertEqual(pgm, Array("P5\n2 2\n255\n".utf8) + [0, 128, 255, 7])
    }

    func testUpscale_RepeatsEachPixel() throws {
        XCTAssertEqual(try ImageIO.upscale([1, 2, 3, 4], width: 2, height: 2, factor: 2),
                       [1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4])
        XCTAssertEqual(try ImageIO.upscale([9], width: 1, height: 1, factor: 1), [9])
        XCTAssertThrowsError(try ImageIO.upscale([1, 2, 3], width: 2, height: 2, factor: 2))
        XCTAssertThrowsError(try ImageIO.upscale([1], width: 1, height: 1, factor: 0))
        XCTAssertThrowsError(try ImageIO.upscale([1], width: 1, height: 1, factor: 65))
    }

    func testWriters_RejectMismatchedSizes() {
        XCTAssertThrowsError(try ImageIO.png(gray: [1, 2, 3], width: 2, height: 2))
        XCTAssertThrowsError(try ImageIO.png(gray: [], width: 0, height: 0))
        XCTAssertThrowsError(try ImageIO.pgm(gray: [1], width: -1, height: -1))
        XCTAssertThrowsError(try ImageIO.png(gray: [1], width: Int.max, height: 2))
    }

    func testGrayBytes_ClampsAndRounds() {
        XCTAssertEqual(ImageIO.grayBytes([0, 1, 0.5, -3, 7, .nan, 0.001, 0.999]), [0, 255, 128, 0, 255, 0, 0, 255])
    }

    func testASCII_RampAndShape() {
        var image = [Float](repeating: 0, count: 784)
        image[0] = 1
        image[1] = 0.01
        image[2] = 0.5
        let text = ImageIO.ascii(image)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.count, 29)  // 28 lines and the final newline
        XCTAssertTrue(lines.dropLast().allSatisfy { $0.count == 56 })
        XCTAssertTrue(lines[0].hasPrefix("@@..++  "))
        XCTAssertEqual(lines[1], Substring(String(repeating: " ", count: 56)))
    }
}
