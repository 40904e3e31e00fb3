import DigitApp
import DigitKit
import DigitPadKit
import Foundation
import XCTest

/// A picture of the window (from the screen, or a `--screenshot` file) and the layout of a
/// window its size, to measure its parts.
struct Screenshot {
    let width: Int
    let height: Int
    /// 0xFFRRGGBB, row-major, y downward.
    let pixels: [UInt32]
    let layout: PadLayout

    init(width: Int, height: Int, pixels: [UInt32]) {
        self.width = width
        self.height = height
        self.pixels = pixels
        layout = PadLayout(width: width, height: height)
    }

    /// A PNG file written by `digitpad --screenshot`.
    init(png path: String) throws {
        let image = try PNG.decodeRGB(try FileIO.read(path, limit: 1 << 28), file: path)
        let rgb = image.rgb ?? []
        self.init(width: image.width, height: image.height, pixels: (0..<(image.width * image.height)).map { i in
            0xFF00_0000 | UInt32(rgb[3 * i]) << 16 | UInt32(rgb[3 * i + 1]) << 8 | UInt32(rgb[3 * i + 2])
        })
    }

    func pixel(_ x: Int, _ y: Int) -> RGB { RGB(pixels[y * width + x]) }

    /// Pixels of white ink (gray, brighter than half) inside `rect`.
    func ink(in rect: PixelRect) -> Int {
        region(rect).reduce(0) { n, p in
            let c = RGB(p)
            return n + (c.r == c.g && c.g == c.b && c.r > 0x80 ? 1 : 0)
        }
    }

    /// Pixels of exactly `color` inside `rect`.
    func count(_ color: RGB, in rect: PixelRect) -> Int { region(rect).filter { $0 == color.argb }.count }

    /// Variance of the luminance over the whole picture (0 for a blank one).
    var variance: Double {
        var sum = 0.0, squares = 0.0
        for p in pixels {
            let c = RGB(p)
            let v = 0.299 * Double(c.r) + 0.587 * Double(c.g) + 0.114 * Double(c.b)
            sum += v
            squares += v * v
        }
        let n = Double(max(pixels.count, 1))
        return squares / n - (sum / n) * (sum / n)
    }

    /// The pixels of `rect` (clipped to the picture), row by row.
    func region(_ rect: PixelRect) -> [UInt32] {
        let r = rect.intersection(PixelRect(x: 0, y: 0, width: width, height: height))
        guard !r.isEmpty else { return [] }
        var out: [UInt32] = []
        out.reserveCapacity(r.width * r.height)
        for y in r.y..<r.maxY { out += pixels[(y * width + r.x)..<(y * width + r.maxX)] }
        return out
    }
}

/// One printed recognition (`--print`), decoded from its JSON line.
struct PrintedAnswer {
    var source: String
    var index: Int
    /// The number read ("2026", "20?6"); nil in the one-digit schema (`--single`).
    var text: String?
    /// Each digit of the number: its answer (nil: not sure), and its box in canvas pixels.
    var digits: [(digit: Int?, box: [Double], notADigit: Double?)]
    var digit: Int?
    var confidence: Double
    var top: [(digit: Int, probability: Double)]
    var label: String?
    var isEmpty: Bool

    init(_ line: String, file: StaticString = #filePath, line number: UInt = #line) throws {
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                                   "not a JSON object: \(line)", file: file, line: number)
        source = try XCTUnwrap(object["source"] as? String, file: file, line: number)
        index = try XCTUnwrap(object["index"] as? Int, file: file, line: number)
        text = object["text"] as? String
        digits = (object["digits"] as? [[String: Any]] ?? []).map { d in
            (d["digit"] as? Int, d["box"] as? [Double] ?? [], d["not_a_digit"] as? Double)
        }
        digit = object["digit"] as? Int
        if digit == nil { XCTAssertTrue(object["digit"] is NSNull, "digit must be a number or null", file: file, line: number) }
        confidence = try XCTUnwrap(object["confidence"] as? Double, file: file, line: number)
        let pairs = try XCTUnwrap(object["top"] as? [[Double]], file: file, line: number)
        top = pairs.map { (Int($0[0]), $0[1]) }
        label = object["label"] as? String
        isEmpty = object["empty"] as? Bool ?? false
    }
}
