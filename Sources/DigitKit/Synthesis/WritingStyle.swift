import Foundation

/// Other hands than the pen writers have, put on their digits so that numbers composed from a few
/// writers show more ways of writing: for the whole number a slant and a width (a person writes
/// a number at one slant), for each digit a little turn, and a smooth bend of its strokes; some
/// 0s, 1s and 7s in their variant forms (`DigitVariants`). The paper model's synthetic lines can
/// use it (`digits train --recipe paper --writing-styles P`, default 0: what it gave on writers
/// the model never saw is in docs/images.md, "Other hands on the synthetic lines"; the shipped
/// model does not use it). Deterministic: the same drawing and generator state give the same result.
public struct WritingStyle: Sendable, Equatable {
    /// The share of numbers written in another hand (the rest are left as the writer drew them).
    public var share: Float = 1
    /// The number's slant: x moves by up to ± this × the height above the digit's middle.
    public var slant: Float = 0.3
    /// The number's width against the writer's, drawn uniformly.
    public var width: ClosedRange<Float> = 0.8...1.2
    /// Each digit turned by up to ± this many degrees about its middle.
    public var turnDegrees: Float = 5
    /// Each digit's strokes bent by a smooth field of up to this share of its height.
    public var bend: Float = 0.05
    /// The chance that a 0, 1 or 7 takes a variant form (slashed, flagged, crossed).
    public var variants: Float = 0.1

    public init(share: Float = 1) { self.share = share }

    /// One number's hand: its slant and width.
    public struct Hand: Sendable, Equatable {
        public var slant: Float
        public var width: Float
    }

    /// A hand for the next number, or nil for one left as written (`share`).
    public func hand(rng: inout SplitMix64) -> Hand? {
        guard rng.nextFloat() < share else { return nil }
        return Hand(slant: rng.uniform(-slant, slant), width: rng.uniform(width.lowerBound, width.upperBound))
    }

    /// `digit` written in `hand`: the variant form at times, then turned, slanted, widened and bent
    /// about its own box (the composer sizes and places it afterwards).
    public func restyle(_ digit: Drawing, hand: Hand, rng: inout SplitMix64) -> Drawing {
        var drawing = digit
        if let d = digit.labelDigit, [0, 1, 7].contains(d), rng.nextFloat() < variants {
            drawing = DigitVariants.variant(of: drawing, digit: d, rng: &rng)
        }
        guard let box = Segmentation.box(drawing.strokes.joined()), max(box.height, box.width) > 0 else { return drawing }
        let h = box.height > 0 ? box.height : box.width, cx = (box.x0 + box.x1) / 2, cy = (box.y0 + box.y1) / 2
        let angle = rng.uniform(-turnDegrees, turnDegrees) * .pi / 180
        let c = cos(angle), s = sin(angle)
        // The bend: two waves across the digit for each axis, of about one to two per height.
        var waves: [(fx: Float, fy: Float, phase: Float, amplitude: Float)] = []
        for _ in 0..<4 {
            let direction = rng.uniform(0, 2 * .pi), frequency = rng.uniform(0.5, 1.5) * 2 * .pi / h
            waves.append((cos(direction) * frequency, sin(direction) * frequency, rng.uniform(0, 2 * .pi), rng.uniform(0, bend) * h / 2))
        }
        drawing.strokes = drawing.strokes.map { stroke in
            stroke.map { p in
                var x = p.x - cx, y = p.y - cy
                let bx = waves[0].amplitude * sin(waves[0].fx * x + waves[0].fy * y + waves[0].phase)
                    + waves[1].amplitude * sin(waves[1].fx * x + waves[1].fy * y + waves[1].phase)
                let by = waves[2].amplitude * sin(waves[2].fx * x + waves[2].fy * y + waves[2].phase)
                    + waves[3].amplitude * sin(waves[3].fx * x + waves[3].fy * y + waves[3].phase)
                (x, y) = (c * x - s * y + bx, s * x + c * y + by)
                x = (x - hand.slant * y) * hand.width   // y grows downward: the top leans by +slant
                return StrokePoint(x: cx + x, y: cy + y, t: p.t, p: p.p)
            }
        }
        return drawing
    }
}
