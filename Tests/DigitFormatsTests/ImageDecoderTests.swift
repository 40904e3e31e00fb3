import CZlib
import Foundation
@testable import DigitFormats
import DigitKit
import DigitTestSupport
import XCTest

final class ImageDecoderTests: XCTestCase {
    func testDecoder_DetectsTheFormatFromTheBytesNotTheName() throws {
        for (name, format) in [("gray8.png", DecodedImage.Format.png), ("p5-gray8.pgm", .pnm), ("p3-rgb.ppm", .pnm),
                               ("color420.jpg", .jpeg)] {
            let bytes = try TestPaths.image(name)
            XCTAssertEqual(ImageDecoder.detect(bytes), format, name)
            if format == .jpeg && !JPEG.isAvailable { continue }
            let image = try ImageDecoder.decode(bytes, file: "misnamed.gif")
            XCTAssertEqual(image.format, format)
            if let expected = ExpectedImage.all[name] { XCTAssertEqual(image.gray, expected.gray, name) }
        }
    }

    func testDecoder_OtherFormatsAreNamedInTheError() {
        let cases: [([UInt8], String)] = [
            (Array("GIF89a....".utf8), "a GIF image, which is not supported"),
            (Array("BM6\0\0\0".utf8), "a BMP image"),
            (Array("RIFF\0\0\0\0WEBPVP8 ".utf8), "a WebP image"),
            (Array("P4\n1 1\n\0".utf8), "a PBM bitmap (P4)"),
            ([0x1F, 0x8B, 8, 0], "gzip data"),
            ([], "empty file"),
            ([0x00, 0x01, 0xAB], "it starts with 00 01 ab"),
        ]
        for (bytes, message) in cases {
            assertDigitError(.format, file: "x.img", contains: message, location: "byte 0") {
                try ImageDecoder.decode(bytes, file: "x.img")
            }
        }
    }

    func testDecoder_ReadsFilesWithASizeLimit() throws {
        let path = TestPaths.images.appendingPathComponent("rgba8.png").path
        let image = try ImageDecoder.read(path: path)
        XCTAssertEqual(image.gray, ExpectedImage.all["rgba8.png"]?.gray)
        assertDigitError(.limit, file: path, contains: "more than the limit of 100") {
            try ImageDecoder.read(path: path, limits: ImageLimits(maxFileBytes: 100))
        }
        assertDigitError(.io, file: "/no/such/image.png", contains: "no such file") { try ImageDecoder.read(path: "/no/such/image.png") }
    }

    func testDecoder_MaxSideMustBePositive() {
        XCTAssertThrowsError(try ImageDecoder.decode([], file: "x", maxSide: 0)) { error in
            XCTAssertEqual((error as? DigitError)?.kind, .usage)
        }
    }

    func testDecoder_MaxSideLeavesPNGAndPNMAtFullSize() throws {
        let image = try ImageDecoder.decode(try TestPaths.image("gray8.png"), file: "g.png", maxSide: 2)
        XCTAssertEqual([image.width, image.height, image.scale], [13, 11, 1])
    }

    func testDecoder_DescriptionIsTheSummary() throws {
        let image = try ImageDecoder.decode(try TestPaths.image("graya16-adam7.png"), file: "g.png")
        XCTAssertEqual("\(image)", "gray+alpha 16-bit interlaced PNG with transparency 7×5")
    }
}

final class PNGEncoderTests: XCTestCase {
    private func random(_ count: Int, seed: UInt64) -> [UInt8] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }

    /// Smooth ramps with a little noise: every filter type wins on some rows.
    private func photoLike(_ width: Int, _ height: Int, channels: Int) -> [UInt8] {
        var rng = SplitMix64(seed: 9)
        return (0..<(width * height * channels)).map { i in
            let x = i / channels % width, y = i / channels / width, c = i % channels
            return UInt8(truncatingIfNeeded: x * 3 + y * (c + 1) * 2 + Int.random(in: 0...3, using: &rng))
        }
    }

    func testPNGEncoder_GrayRoundTripsExactly() throws {
        for (w, h) in [(1, 1), (28, 28), (13, 7), (300, 2)] {
            for gray in [random(w * h, seed: UInt64(w)), photoLike(w, h, channels: 1)] {
                let png = try PNG.encode(gray: gray, width: w, height: h)
                let image = try PNG.decode(png, file: "g.png")
                XCTAssertEqual(image.gray, gray)
                XCTAssertEqual([image.width, image.height, image.bitDepth], [w, h, 8])
                XCTAssertEqual(image.color, .gray)
            }
        }
    }

    func testPNGEncoder_RGBAndRGBARoundTripThroughTheLuminanceFormula() throws {
        let (w, h) = (17, 9)
        let rgb = photoLike(w, h, channels: 3)
        let image = try PNG.decode(try PNG.encode(rgb: rgb, width: w, height: h), file: "c.png")
        XCTAssertEqual(image.color, .rgb)
        let expected = (0..<(w * h)).map { i -> UInt8 in
            let r = Int(rgb[3 * i]), g = Int(rgb[3 * i + 1]), b = Int(rgb[3 * i + 2])
            return UInt8((299 * r + 587 * g + 114 * b + 500) / 1000)
        }
        XCTAssertEqual(image.gray, expected)
        let rgba = random(w * h * 4, seed: 4)
        let alpha = try PNG.decode(try PNG.encode(rgba: rgba, width: w, height: h), file: "a.png")
        XCTAssertEqual(alpha.color, .rgba)
        let composited = (0..<(w * h)).map { i -> UInt8 in
            let r = Int(rgba[4 * i]), g = Int(rgba[4 * i + 1]), b = Int(rgba[4 * i + 2]), a = Int(rgba[4 * i + 3])
            let y = (299 * r + 587 * g + 114 * b + 500) / 1000
            return UInt8((y * a + 255 * (255 - a) + 127) / 255)
        }
        XCTAssertEqual(alpha.gray, composited)
    }

    func testPNGEncoder_ChoosesFiltersAndCompresses() throws {
        let (w, h) = (64, 64)
        let gray = photoLike(w, h, channels: 1)
        let png = try PNG.encode(gray: gray, width: w, height: h)
        XCTAssertLessThan(png.count, w * h / 2, "a smooth image compresses well")
        // The filter bytes are the first byte of each row of the inflated IDAT data.
        let idatLength = Int(png[33]) << 24 | Int(png[34]) << 16 | Int(png[35]) << 8 | Int(png[36])
        XCTAssertEqual(String(decoding: png[37..<41], as: UTF8.self), "IDAT")
        let raw = try XCTUnwrap(inflateZlib(Array(png[41..<(41 + idatLength)])))
        XCTAssertEqual(raw.count, (w + 1) * h)
        let filters = Set(stride(from: 0, to: raw.count, by: w + 1).map { raw[$0] })
        XCTAssertTrue(filters.isSubset(of: [0, 1, 2, 3, 4]))
        XCTAssertGreaterThanOrEqual(filters.count, 2, "rows of a ramp pick different filters: \(filters)")
    }

    /// A whole zlib stream inflated by zlib, nil on any error.
    private func inflateZlib(_ data: [UInt8]) -> [UInt8]? {
        guard let inflater = ZStream.inflater(windowBits: 15) else { return nil }
        var input = data
        var output = [UInt8](repeating: 0, count: 1 << 20)
        let status = input.withUnsafeMutableBufferPointer { i in
            output.withUnsafeMutableBufferPointer { o in
                inflater.stream.pointee.next_in = i.baseAddress
                inflater.stream.pointee.avail_in = UInt32(i.count)
                inflater.stream.pointee.next_out = o.baseAddress
                inflater.stream.pointee.avail_out = UInt32(o.count)
                return inflate(inflater.stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        return Array(output.prefix(Int(inflater.stream.pointee.total_out)))
    }

    func testPNGEncoder_WritesAtomically() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("png-encoder-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("out.png").path
        try PNG.write(gray: [0, 128, 255, 7], width: 2, height: 2, to: path)
        XCTAssertEqual(try ImageDecoder.read(path: path).gray, [0, 128, 255, 7])
        try PNM.writeP5(gray: [1, 2], width: 2, height: 1, to: path)
        XCTAssertEqual(try ImageDecoder.read(path: path).gray, [1, 2])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["out.png"])
    }

    func testPNGEncoder_RefusesMismatchedSizes() {
        for (count, w, h) in [(5, 2, 2), (0, 0, 0), (4, -2, -2)] {
            XCTAssertThrowsError(try PNG.encode(gray: [UInt8](repeating: 0, count: count), width: w, height: h)) { error in
                XCTAssertEqual((error as? DigitError)?.kind, .usage)
            }
        }
        XCTAssertThrowsError(try PNG.encode(rgb: [0, 0], width: 1, height: 1))
    }
}
