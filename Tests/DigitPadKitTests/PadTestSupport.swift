import DigitApp
import DigitKit
import XCTest
@testable import DigitPadKit

/// What the controller and renderer tests share: strokes in canvas units, pixels counted.
enum Pad {
    /// A window point at canvas units (u, v).
    static func at(_ c: PadController, _ u: Float, _ v: Float) -> (x: Float, y: Float) {
        let r = c.layout.canvas
        return (Float(r.x) + u * Float(r.width), Float(r.y) + v * Float(r.height))
    }

    /// A mouse stroke through points in canvas units; returns the effects.
    @discardableResult
    static func stroke(_ c: PadController, _ points: [(Float, Float)]) -> [PadEffect] {
        var effects: [PadEffect] = []
        for (i, p) in points.enumerated() {
            let (x, y) = at(c, p.0, p.1)
            effects += c.handle(i == 0 ? .press(.mouse, x: x, y: y, button: 1, time: Double(i), pressure: nil)
                                       : .move(.mouse, x: x, y: y, time: Double(i), pressure: nil))
        }
        let (x, y) = at(c, points.last?.0 ?? 0, points.last?.1 ?? 0)
        effects += c.handle(.release(.mouse, x: x, y: y, button: 1, time: Double(points.count)))
        return effects
    }

    /// Moves the mouse (no button) to canvas units (u, v).
    static func hover(_ c: PadController, _ u: Float, _ v: Float) {
        let (x, y) = at(c, u, v)
        _ = c.handle(.move(.mouse, x: x, y: y, time: 0, pressure: nil))
    }

    /// Pixels of white ink (gray above half); the canvas's hint text and every mark are tinted, not gray.
    static func ink(_ s: Surface, in r: PixelRect) -> Int {
        var n = 0
        for y in r.y..<r.maxY {
            for x in r.x..<r.maxX {
                let c = RGB(s.pixel(x, y))
                if c.r == c.g && c.g == c.b && c.r > 0x80 { n += 1 }
            }
        }
        return n
    }

    static func count(_ s: Surface, _ color: RGB, in r: PixelRect) -> Int {
        var n = 0
        for y in r.y..<r.maxY { for x in r.x..<r.maxX where s.pixel(x, y) == color.argb { n += 1 } }
        return n
    }

    /// Canvas pixels where two pictures differ.
    static func differences(_ a: Surface, _ b: Surface, in r: PixelRect) -> Int {
        var n = 0
        for y in r.y..<r.maxY { for x in r.x..<r.maxX where a.pixel(x, y) != b.pixel(x, y) { n += 1 } }
        return n
    }

    /// A digit mark with a box in canvas units, a raster lit in `rows` and `probabilities` peaked at `digit`'s place.
    static func mark(_ digit: Int?, best: Int, confidence: Float, notADigit: Float = 0, box: CanvasBox, rows: Range<Int>) -> DigitMark {
        var p = Array(repeating: Float(0.005), count: 10)
        p[best] = confidence
        var raster = Array(repeating: Float(0), count: 784)
        for r in rows { for x in 8..<20 { raster[r * 28 + x] = 1 } }
        return DigitMark(digit: digit, confidence: confidence, notADigit: notADigit, probabilities: p, raster: raster, box: box)
    }
}
