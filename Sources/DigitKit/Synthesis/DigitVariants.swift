import Foundation

/// Forms of digits that people write and the training drawings rarely hold, made by adding a stroke
/// to a drawing of the digit: a zero with a slash or a dot, a seven with a bar across its stem, a
/// one with a long flag and a base (the European one). The added strokes follow the drawing's box,
/// with a little randomness in where they start and end.
public enum DigitVariants {
    /// A variant of `drawing` (a drawing of `digit`), or the drawing itself for digits without one.
    public static func variant(of drawing: Drawing, digit: Int, rng: inout SplitMix64) -> Drawing {
        guard let box = Segmentation.box(drawing.strokes.joined()), box.height > 0 else { return drawing }
        var copy = drawing
        let w = max(box.width, 0.2 * box.height), h = box.height
        func p(_ fx: Float, _ fy: Float) -> StrokePoint {
            StrokePoint(x: box.x0 + fx * w + rng.uniform(-0.04, 0.04) * h, y: box.y0 + fy * h + rng.uniform(-0.03, 0.03) * h)
        }
        func line(_ a: StrokePoint, _ b: StrokePoint, points: Int = 8) -> [StrokePoint] {
            (0..<points).map { k in
                let t = Float(k) / Float(points - 1)
                return StrokePoint(x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y))
            }
        }
        switch digit {
        case 0:
            if rng.nextFloat() < 0.6 {
                copy.strokes.append(line(p(0.85, 0.05), p(0.15, 0.95)))       // slashed zero
            } else {
                let c = p(0.5, 0.5), r = 0.04 * h
                copy.strokes.append((0..<6).map { k in                         // dotted zero
                    let a = Float(k) / 5 * 2 * .pi
                    return StrokePoint(x: c.x + r * cos(a), y: c.y + r * sin(a))
                })
            }
        case 7:
            copy.strokes.append(line(p(0.25, 0.55), p(0.8, 0.5)))              // crossed seven
        case 1:
            // A long flag from the top down to the left, and (half the time) a base.
            let top = StrokePoint(x: box.x0 + 0.5 * box.width, y: box.y0)
            let flag = StrokePoint(x: top.x - rng.uniform(0.25, 0.45) * h, y: top.y + rng.uniform(0.25, 0.4) * h)
            copy.strokes.insert(line(flag, top), at: 0)
            if rng.nextFloat() < 0.5 {
                let y = box.y1 + rng.uniform(-0.02, 0.02) * h
                copy.strokes.append(line(StrokePoint(x: top.x - 0.25 * h, y: y), StrokePoint(x: top.x + 0.25 * h, y: y)))
            }
        default:
            return drawing
        }
        return copy
    }
}
