import Foundation
import DigitFormats
import DigitKit
import DigitTestSupport
import XCTest

extension TestPaths {
    static let images = fixtures.appendingPathComponent("images")

    static func image(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: images.appendingPathComponent(name)))
    }
}

extension ExpectedImage {
    /// Decodes each fixture whose name ends in one of `suffixes` and that expected.json describes,
    /// asserts what every lossless decoder reports alike (`assertDecoded`), and hands the image on
    /// for the format's own checks. Returns the number of fixture files with those suffixes.
    static func decodeEach(withSuffixes suffixes: [String], format: DecodedImage.Format,
                           _ decode: ([UInt8], String) throws -> DecodedImage,
                           check: (DecodedImage, ExpectedImage, String) -> Void) throws -> Int {
        let names = files(withSuffixes: suffixes)
        for name in names {
            guard let expected = all[name] else { continue }
            let image = try decode(try TestPaths.image(name), name)
            expected.assertDecoded(image, format: format, name)
            check(image, expected, name)
        }
        return names.count
    }

    /// Asserts what every lossless decoder reports alike: size, luminance, format, colour type and depth.
    func assertDecoded(_ image: DecodedImage, format: DecodedImage.Format, _ name: String,
                       file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(image.width, width, name, file: file, line: line)
        XCTAssertEqual(image.height, height, name, file: file, line: line)
        XCTAssertEqual(image.gray, gray, name, file: file, line: line)
        XCTAssertEqual(image.format, format, name, file: file, line: line)
        XCTAssertEqual(image.color.rawValue, color, name, file: file, line: line)
        XCTAssertEqual(image.bitDepth, bitDepth, name, file: file, line: line)
    }
}

/// One entry of Fixtures/images/expected.json (written by scripts/make-image-fixtures).
struct ExpectedImage {
    var width: Int
    var height: Int
    var gray: [UInt8]
    var color: String
    var bitDepth: Int
    var interlaced: Bool
    var transparency: Bool
    var maxValue: Int?
    var variant: String?
    var originalWidth: Int?
    var originalHeight: Int?
    var scale: Int?

    /// Every entry by name: a file name, or `NAME@SCALE` / `NAME@rgb` for JPEG.
    static let all: [String: ExpectedImage] = {
        guard let data = try? Data(contentsOf: TestPaths.images.appendingPathComponent("expected.json")),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: [String: Any]] else { return [:] }
        var out: [String: ExpectedImage] = [:]
        for (name, e) in object {
            guard let width = e["width"] as? Int, let height = e["height"] as? Int, let hex = e["gray"] as? String else { continue }
            out[name] = ExpectedImage(
                width: width, height: height, gray: bytes(hex: hex), color: e["color"] as? String ?? "",
                bitDepth: e["bitDepth"] as? Int ?? 0, interlaced: e["interlaced"] as? Bool ?? false,
                transparency: e["transparency"] as? Bool ?? false, maxValue: e["maxValue"] as? Int,
                variant: e["variant"] as? String, originalWidth: e["originalWidth"] as? Int,
                originalHeight: e["originalHeight"] as? Int, scale: e["scale"] as? Int)
        }
        return out
    }()

    static func bytes(hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var high: UInt8?
        for c in hex.utf8 {
            let v = c <= 0x39 ? c - 0x30 : c - 0x57
            if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
        }
        return out
    }

    /// The fixture files with an exact expectation, by format (`.png`, `.pgm`/`.ppm`).
    static func files(withSuffixes suffixes: [String]) -> [String] {
        all.keys.filter { name in suffixes.contains { name.hasSuffix($0) } }.sorted()
    }
}

/// Asserts that `body` throws a `DigitError` of `kind` that names `file` in its one-line
/// description, and returns it.
@discardableResult
func assertDigitError<T>(_ kind: DigitError.Kind? = nil, file name: String, contains text: String? = nil,
                         location: String? = nil, _ body: () throws -> T,
                         file: StaticString = #filePath, line: UInt = #line) -> DigitError? {
    do {
        _ = try body()
        XCTFail("expected an error", file: file, line: line)
    } catch let error as DigitError {
        if let kind { XCTAssertEqual(error.kind, kind, "\(error)", file: file, line: line) }
        XCTAssertEqual(error.file, name, "\(error)", file: file, line: line)
        XCTAssertTrue(error.description.hasPrefix(name + ": "), "\(error)", file: file, line: line)
        XCTAssertFalse(error.description.contains("\n"), file: file, line: line)
        if let text { XCTAssertTrue(error.message.contains(text), "'\(error.message)' lacks '\(text)'", file: file, line: line) }
        if let location { XCTAssertEqual(error.location, location, "\(error)", file: file, line: line) }
        return error
    } catch {
        XCTFail("unexpected error \(error)", file: file, line: line)
    }
    return nil
}

/// Hand-made PNG files for the error tests: any IHDR fields, raw scanlines (filter bytes
/// included) in a zlib stream of stored blocks, and chunks in any order, with correct CRCs
/// unless a test breaks them on purpose.
enum PNGBuilder {
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(Gzip.crc32(body))
    }

    static func ihdr(width: UInt32, height: UInt32, depth: UInt8 = 8, colorType: UInt8 = 0, interlace: UInt8 = 0) -> [UInt8] {
        chunk("IHDR", be32(width) + be32(height) + [depth, colorType, 0, 0, interlace])
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    /// A zlib stream (RFC 1950) of one stored block.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        precondition(data.count < 65_536)
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        let n = data.count
        return [0x78, 0x01, 1, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8(~n >> 8 & 0xFF)] + data + be32(b << 16 | a)
    }

    /// Signature, IHDR, `before` chunks, one IDAT of `raw`, IEND.
    static func png(width: UInt32, height: UInt32, depth: UInt8 = 8, colorType: UInt8 = 0, interlace: UInt8 = 0,
                    raw: [UInt8], before: [[UInt8]] = []) -> [UInt8] {
        PNG.signature + ihdr(width: width, height: height, depth: depth, colorType: colorType, interlace: interlace)
            + before.joined() + chunk("IDAT", zlibStored(raw)) + chunk("IEND", [])
    }
}
