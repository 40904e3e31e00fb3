import Foundation
import DigitFormats
import DigitKit
import DigitTestSupport
import XCTest

/// JPEG fixtures were written by Pillow; the expected luminance is Pillow's own gray decode at each
/// DCT scale (`draft("L", …)`) and, at full size, Pillow's RGB decode through the BT.601 formula.
final class JPEGTests: XCTestCase {
    func testJPEG_ScaleIsTheSmallestWhoseLongSideReachesMaxSide() {
        XCTAssertEqual(JPEG.scale(width: 4000, height: 3000, maxSide: 1000), 4)  // 1000×750
        XCTAssertEqual(JPEG.scale(width: 4000, height: 3000, maxSide: 1001), 2)  // 2000×1500
        XCTAssertEqual(JPEG.scale(width: 3000, height: 4000, maxSide: 500), 8)
        XCTAssertEqual(JPEG.scale(width: 4000, height: 3000, maxSide: 2001), 1)
        XCTAssertEqual(JPEG.scale(width: 4000, height: 3000, maxSide: 9000), 1)
        XCTAssertEqual(JPEG.scale(width: 4000, height: 3000, maxSide: nil), 1)
        XCTAssertEqual(JPEG.scale(width: 37, height: 29, maxSide: 5), 8)  // 5 = 37 / 8 rounded up
        XCTAssertEqual(JPEG.scale(width: 37, height: 29, maxSide: 6), 4)
    }

    #if DIGITS_JPEG
    private let fixtures = ["color420.jpg", "color444-progressive.jpg", "gray-odd.jpg", "rgb-no-transform.jpg"]

    func testJPEG_FixturesMatchPillowAtEveryScale() throws {
        var compared = 0
        for name in fixtures {
            let bytes = try TestPaths.image(name)
            for scale in [1, 2, 4, 8] {
                guard let expected = ExpectedImage.all["\(name)@\(scale)"] else { continue }
                let side = max(expected.originalWidth ?? 0, expected.originalHeight ?? 0)
                let maxSide = scale == 1 ? nil : (side + scale - 1) / scale
                let image = try JPEG.decode(bytes, file: name, maxSide: maxSide)
                XCTAssertEqual(image.scale, scale, name)
                XCTAssertEqual(image.width, expected.width, name)
                XCTAssertEqual(image.height, expected.height, name)
                XCTAssertEqual(image.originalWidth, expected.originalWidth, name)
                XCTAssertEqual(image.originalHeight, expected.originalHeight, name)
                XCTAssertEqual(image.color.rawValue, expected.color, name)
                XCTAssertEqual(image.interlaced, expected.interlaced, name)
                XCTAssertEqual(image.format, .jpeg)
                // Pillow asks the same libjpeg algorithms (accurate integer IDCT, Y channel) for
                // the same output: at most 1 apart, for a different libjpeg-turbo version.
                XCTAssertLessThanOrEqual(maxDifference(image.gray, expected.gray), 1, "\(name) at 1/\(scale)")
                compared += 1
            }
        }
        XCTAssertEqual(compared, 14)
    }

    func testJPEG_LuminanceIsCloseToTheRGBDecodeThroughBT601() throws {
        for name in fixtures {
            guard let expected = ExpectedImage.all["\(name)@rgb"] else { XCTFail(name); continue }
            let image = try JPEG.decode(try TestPaths.image(name), file: name)
            if image.color != .ycbcr {
                XCTAssertLessThanOrEqual(maxDifference(image.gray, expected.gray), 1, name)
                continue
            }
            // Y from the file versus Y of the RGB that Pillow rebuilt from Y, Cb and Cr: that RGB
            // is rounded and clamped to 0…255, which moves saturated colours along sharp edges
            // (the red disc, the blue square) by up to 28 levels; elsewhere they agree.
            let near = zip(image.gray, expected.gray).filter { abs(Int($0) - Int($1)) <= 3 }.count
            XCTAssertGreaterThan(Double(near) / Double(image.gray.count), 0.97, name)
            XCTAssertLessThan(meanDifference(image.gray, expected.gray), 0.5, name)
        }
    }

    func testJPEG_SummarySaysProgressiveAndScale() throws {
        let image = try JPEG.decode(try TestPaths.image("color444-progressive.jpg"), file: "p.jpg", maxSide: 24)
        XCTAssertEqual(image.summary, "YCbCr progressive JPEG 96×64 decoded at 1/4 (24×16)")
    }

    func testJPEG_CMYKIsRefusedWithAClearError() throws {
        assertDigitError(.format, file: "cmyk.jpg", contains: "unsupported JPEG colour space CMYK") {
            try JPEG.decode(try TestPaths.image("cmyk.jpg"), file: "cmyk.jpg")
        }
    }

    func testJPEG_EveryTruncationThrows() throws {
        for name in fixtures {
            let bytes = try TestPaths.image(name)
            // Every cut up to the last 2 bytes (the end-of-image marker) loses image data.
            for cut in stride(from: 0, to: bytes.count - 2, by: 7) {
                assertDigitError(.format, file: "cut.jpg") { try JPEG.decode(Array(bytes.prefix(cut)), file: "cut.jpg") }
            }
        }
        let bytes = try TestPaths.image("color420.jpg")
        assertDigitError(.format, file: "cut.jpg", contains: "the file ends before the image data does", location: "byte 2000") {
            try JPEG.decode(Array(bytes.prefix(2000)), file: "cut.jpg")
        }
    }

    func testJPEG_CorruptBytesThrowOrDecodeToTheRightSize() throws {
        let bytes = try TestPaths.image("color444-progressive.jpg")
        var rng = SplitMix64(seed: 5)
        var failures = 0
        for _ in 0..<300 {
            var broken = bytes
            for _ in 0..<3 { broken[Int.random(in: 2..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            do {
                let image = try JPEG.decode(broken, file: "x.jpg", maxSide: 20)
                XCTAssertEqual(image.gray.count, image.width * image.height)
            } catch let error as DigitError {
                XCTAssertEqual(error.file, "x.jpg")
                failures += 1
            }
        }
        XCTAssertGreaterThan(failures, 0)
    }

    func testJPEG_HugeDeclaredSizeIsRefusedBeforeDecoding() throws {
        var bytes = try TestPaths.image("color420.jpg")
        // The frame header: FF C0, length (2), precision (1), height (2), width (2).
        guard let sof = (0..<(bytes.count - 1)).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 }) else {
            return XCTFail("no SOF0 marker")
        }
        bytes[sof + 5] = 0xEA; bytes[sof + 6] = 0x60  // height 60,000
        bytes[sof + 7] = 0xEA; bytes[sof + 8] = 0x60  // width 60,000
        assertDigitError(.limit, file: "big.jpg", contains: "more than the limit of 50000000 pixels", location: "JPEG header") {
            try JPEG.decode(bytes, file: "big.jpg")
        }
    }

    func testJPEG_ScanLimitStopsManyScans() throws {
        let bytes = try TestPaths.image("color444-progressive.jpg")
        assertDigitError(.limit, file: "p.jpg", contains: "more than 3 scans") {
            try JPEG.decode(bytes, file: "p.jpg", limits: ImageLimits(maxJPEGScans: 3))
        }
    }

    func testJPEG_GarbageThrows() {
        assertDigitError(.format, file: "g.jpg", contains: "cannot decode JPEG") {
            try JPEG.decode([0xFF, 0xD8, 0xFF, 0xE0, 0, 2, 1, 2, 3], file: "g.jpg")
        }
        assertDigitError(.format, file: "g.jpg") { try JPEG.decode([], file: "g.jpg") }
        assertDigitError(.format, file: "g.jpg") { try JPEG.decode(Array("hello".utf8), file: "g.jpg") }
    }

    func testJPEG_EncoderRoundTripsGrayAndRGB() throws {
        let (w, h) = (64, 48)
        var rng = SplitMix64(seed: 3)
        let gray = (0..<(w * h)).map { i in UInt8(((i % w) * 4 + (i / w) * 2) % 256) }
        for progressive in [false, true] {
            let jpeg = try JPEG.encode(gray: gray, width: w, height: h, quality: 95, progressive: progressive)
            let image = try JPEG.decode(jpeg, file: "g.jpg")
            XCTAssertEqual(image.color, .gray)
            XCTAssertEqual(image.interlaced, progressive)
            XCTAssertEqual(image.width, w)
            XCTAssertLessThanOrEqual(meanDifference(image.gray, gray), 1.5)
        }
        let rgb = (0..<(w * h * 3)).map { i in UInt8(clamping: (i / 3 % w) * 3 + (i % 3) * 40 + Int.random(in: 0...8, using: &rng)) }
        let expected = (0..<(w * h)).map { i -> UInt8 in
            let r = Int(rgb[3 * i]), g = Int(rgb[3 * i + 1]), b = Int(rgb[3 * i + 2])
            return UInt8((299 * r + 587 * g + 114 * b + 500) / 1000)
        }
        let image = try JPEG.decode(try JPEG.encode(rgb: rgb, width: w, height: h, quality: 95), file: "c.jpg")
        XCTAssertEqual(image.color, .ycbcr)
        XCTAssertLessThanOrEqual(meanDifference(image.gray, expected), 3)
        // Lower quality, smaller file.
        let small = try JPEG.encode(rgb: rgb, width: w, height: h, quality: 20)
        XCTAssertLessThan(small.count, try JPEG.encode(rgb: rgb, width: w, height: h, quality: 95).count)
        XCTAssertThrowsError(try JPEG.encode(gray: gray, width: w, height: h, quality: 0)) { error in
            XCTAssertEqual((error as? DigitError)?.kind, .usage)
        }
    }

    func testJPEG_LargePhotoDecodesAtAQuarterScale() throws {
        // 4000×3000 synthetic photo, decoded for a long side of at least 1000: scale 1/4.
        let (w, h) = (4000, 3000)
        var rgb = [UInt8](repeating: 0, count: w * h * 3)
        for y in stride(from: 0, to: h, by: 1) {
            for x in 0..<w {
                let i = 3 * (y * w + x)
                rgb[i] = UInt8((x / 16 + y / 24) & 0xFF)
                rgb[i + 1] = UInt8((x * y / 4096) & 0xFF)
                rgb[i + 2] = UInt8(((x - 2000) * (x - 2000) + (y - 1500) * (y - 1500)) / 20_000 & 0xFF)
            }
        }
        let jpeg = try JPEG.encode(rgb: rgb, width: w, height: h, quality: 90)
        let image = try JPEG.decode(jpeg, file: "photo.jpg", maxSide: 1000)
        XCTAssertEqual(image.scale, 4)
        XCTAssertEqual([image.width, image.height, image.originalWidth, image.originalHeight], [1000, 750, 4000, 3000])
    }
    #else
    func testJPEG_WithoutLibjpegInputThrowsSayingWhatToInstall() throws {
        XCTAssertFalse(JPEG.isAvailable)
        assertDigitError(.format, file: "c.jpg", contains: "install libjpeg-turbo8-dev or libjpeg-dev") {
            try ImageDecoder.decode(try TestPaths.image("color420.jpg"), file: "c.jpg")
        }
        XCTAssertThrowsError(try JPEG.encode(gray: [0], width: 1, height: 1))
    }
    #endif
}

func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
    guard a.count == b.count else { return Int.max }
    return zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
}

func meanDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
    guard a.count == b.count, !a.isEmpty else { return .infinity }
    return Double(zip(a, b).map { abs(Int($0) - Int($1)) }.reduce(0, +)) / Double(a.count)
}
