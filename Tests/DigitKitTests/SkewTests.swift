@testable import DigitKit
import DigitFormats
import DigitTestSupport
import Foundation
import XCTest

/// A tilted scan or photo is turned level before its line is cut (`Skew`): real register crops
/// turned by a few degrees are found turned by that much and read as the level ones are; writing
/// without straight lines is left as it is; boxes are turned back into the image.
final class SkewTests: XCTestCase {
    /// `image` turned clockwise by `degrees` about its middle (bilinear), the corners filled with
    /// the paper's grey (the 75th percentile): a scan fed askew.
    static func turned(_ image: DecodedImage, degrees: Float) -> DecodedImage {
        let w = image.width, h = image.height
        let paper = image.gray.sorted()[image.gray.count * 3 / 4]
        let a = degrees * .pi / 180, c = cos(a), s = sin(a)
        let cx = Float(w) / 2, cy = Float(h) / 2
        var out = [UInt8](repeating: paper, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                // The source of (x, y): turned back by the angle.
                let dx = Float(x) + 0.5 - cx, dy = Float(y) + 0.5 - cy
                let sx = cx + c * dx + s * dy - 0.5, sy = cy - s * dx + c * dy - 0.5
                guard sx >= 0, sy >= 0, sx <= Float(w - 1), sy <= Float(h - 1) else { continue }
                let x0 = Int(sx), y0 = Int(sy), x1 = min(x0 + 1, w - 1), y1 = min(y0 + 1, h - 1)
                let fx = sx - Float(x0), fy = sy - Float(y0)
                func g(_ px: Int, _ py: Int) -> Float { Float(image.gray[py * w + px]) }
                let v = (g(x0, y0) * (1 - fx) + g(x1, y0) * fx) * (1 - fy) + (g(x0, y1) * (1 - fx) + g(x1, y1) * fx) * fy
                out[y * w + x] = UInt8(max(0, min(255, v.rounded())))
            }
        }
        return DecodedImage(width: w, height: h, gray: out, format: .pnm, color: .gray, bitDepth: 8)
    }

    /// Thirty real crops of the parish validation split (a black scanner margin, a column line),
    /// each turned by 2.5° or 4° either way: the tilt is found within a degree, and the crops are
    /// read exactly as often as level (unturned, the cut finds no margin and no column line in
    /// them and reads next to nothing: 14% of the split answered at 2°, 0.5% at 4°).
    func testSkew_RealScansTurnedAFewDegreesAreFoundAndReadAsLevel() throws {
        guard let folder = TestPaths.requireParishValidation() else { return }
        let recognizer = try TestRecognizers.withPaperModel()
        let chosen = try TestPaths.numbers(in: folder, evenly: 30)
        var level = 0, turned = 0
        for (k, e) in chosen.enumerated() {
            let image = try ImageDecoder.read(path: folder.appendingPathComponent(e.file).path, maxSide: 1200)
            let degrees: Float = [2.5, -2.5, 4, -4][k % 4]
            let askew = Self.turned(image, degrees: degrees)
            let found = Skew.angle(of: FloatImage(askew)) * 180 / .pi
            XCTAssertEqual(found, degrees, accuracy: 1, "\(e.file) turned \(degrees)°")
            if try recognizer.read(image: image).text == e.label { level += 1 }
            let reading = try recognizer.read(image: askew)
            if reading.text == e.label { turned += 1 }
            // The digits' boxes lie inside the image.
            for d in reading.digits {
                XCTAssertTrue(d.box.x0 >= 0 && d.box.y0 >= 0 && d.box.x1 <= Float(image.width) && d.box.y1 <= Float(image.height), "\(e.file): \(d.box)")
            }
        }
        XCTAssertGreaterThanOrEqual(level, 24, "\(level) of 30 level crops read exactly")
        XCTAssertGreaterThanOrEqual(turned, level - 2, "turned: \(turned) read exactly, level: \(level)")
    }

    /// Handwriting on plain paper has no straight line to go by: it is read as it is, even when
    /// the digits lean (a 1's stroke is no column line).
    func testSkew_WritingWithoutStraightLinesIsNotTurned() throws {
        var renderer = PaperRendererTests.small()
        renderer.invertedShare = 0
        for seed: UInt64 in 0..<12 {
            var rng = SplitMix64(seed: seed)
            let photo = try renderer.render(PaperRendererTests.number(seed: seed), rng: &rng)
            let image = DecodedImage(width: photo.width, height: photo.height, gray: photo.gray, format: .pnm, color: .gray, bitDepth: 8)
            XCTAssertEqual(Skew.angle(of: FloatImage(image)), 0, "seed \(seed)")
            XCTAssertEqual(LineImage(image: image).skew, 0, "seed \(seed)")
        }
    }

    /// Squared paper turned by less than a degree, its lines light: found and levelled, as its
    /// grid is taken out only when its lines run straight down the columns and along the rows (a
    /// grid 0.75° askew drifts 4 pixels across a 300-pixel page). Lined paper alone is turned
    /// only from a degree, as before; either, turned 3°, is found though no line's edges reach the
    /// 85% of the page that one line alone must (light print leaves weak, broken edges).
    func testSkew_SquaredPaperIsLevelledFromHalfADegree() {
        let w = 300, h = 200
        func page(columns: Bool, gaps: Bool) -> DecodedImage {
            var gray = [UInt8](repeating: 235, count: w * h)
            for y in stride(from: 12, to: h, by: 25) { for x in 0..<w where !gaps || x % 50 < 30 { gray[y * w + x] = 170 } }
            if columns { for x in stride(from: 9, to: w, by: 25) { for y in 0..<h where !gaps || y % 50 < 30 { gray[y * w + x] = 170 } } }
            return DecodedImage(width: w, height: h, gray: gray, format: .pnm, color: .gray, bitDepth: 8)
        }
        let squared = Self.turned(page(columns: true, gaps: false), degrees: 0.75)
        XCTAssertEqual(Skew.angle(of: FloatImage(squared)) * 180 / .pi, 0.75, accuracy: 0.26)
        XCTAssertEqual(Skew.angle(of: FloatImage(Self.turned(page(columns: false, gaps: false), degrees: 0.75))), 0, "lined paper under a degree")
        for columns in [true, false] {
            let broken = Self.turned(page(columns: columns, gaps: true), degrees: 3)
            XCTAssertEqual(Skew.angle(of: FloatImage(broken)) * 180 / .pi, 3, accuracy: 0.3, columns ? "squared" : "lined")
        }
    }

    /// A ruled page turned by 3°: found, and the strip's boxes come back turned into the image.
    func testSkew_TheTurnMapsTheLevelledPageBackIntoTheImage() {
        let turn = Skew.Turn(angle: 3 * .pi / 180, centreX: 100, centreY: 50)
        let centre = turn.toImage(100, 50)
        XCTAssertEqual(centre.x, 100, accuracy: 1e-4)
        XCTAssertEqual(centre.y, 50, accuracy: 1e-4)
        // Clockwise in image coordinates (y down): a point right of the centre goes down.
        XCTAssertGreaterThan(turn.toImage(200, 50).y, 50)
        let box = turn.toImage(InkBox(x0: 90, y0: 40, x1: 110, y1: 60))
        XCTAssertLessThan(box.x0, 90)
        XCTAssertGreaterThan(box.x1, 110)
        XCTAssertEqual(box.x0 + box.x1, 200, accuracy: 1e-3, "symmetric about the centre")
        // A page of rules turned by 3° is found turned by 3°.
        let w = 300, h = 200
        var gray = [UInt8](repeating: 235, count: w * h)
        for y in stride(from: 20, to: h, by: 30) { for x in 0..<w { for t in 0..<2 { gray[(y + t) * w + x] = 40 } } }
        for x in [30, 270] { for y in 0..<h { for t in 0..<2 { gray[y * w + x + t] = 40 } } }
        let page = Self.turned(DecodedImage(width: w, height: h, gray: gray, format: .pnm, color: .gray, bitDepth: 8), degrees: 3)
        XCTAssertEqual(Skew.angle(of: FloatImage(page)) * 180 / .pi, 3, accuracy: 0.3)
    }
}
