import Foundation

/// Labelled pen drawings rasterized on the fly, so the model learns what drawn digits look like
/// after our rasterizer (uniform pen width, crisp anti-aliased edges). With `augment`, each
/// rendering distorts the pen path — rotation, shear, aspect, small per-point jitter — and
/// draws it with a random pen width and softness around the rasterizer's settings.
public struct StrokeSamples: SampleSource {
    public let drawings: [Drawing]
    public let labels: [Int]
    public var raster: RasterOptions
    public var penWidthRange: ClosedRange<Float> = 1.6...3.2
    public var softnessRange: ClosedRange<Float> = 0.7...1.4
    public var rotationDegrees: Float = 10
    public var shear: Float = 0.25
    public var aspect: ClosedRange<Float> = 0.8...1.25
    /// Per-point jitter as a fraction of the drawing's size.
    public var jitter: Float = 0.01

    /// Keeps the drawings of `records` that decoded, carry a digit label and pass `writers`.
    public init(records: [DrawingRecord], raster: RasterOptions = .init(), writers: (Int?) -> Bool = { _ in true }) {
        var d: [Drawing] = [], l: [Int] = []
        for r in records where writers(r.writer) {
            guard case let .success(drawing) = r.result, let label = drawing.labelDigit, !drawing.isEmpty else { continue }
            d.append(drawing)
            l.append(label)
        }
        drawings = d
        labels = l
        self.raster = raster
    }

    public var count: Int { drawings.count }
    public func label(_ i: Int) -> Int { labels[i] }

    /// Share of the 0s, 1s and 7s drawn in a variant form (see `DigitVariants`); 0 turns it off
    /// (and draws no random number for it, so older runs reproduce).
    public var variantRate: Float = 0

    public func render(_ i: Int, augment: Bool, rng: inout SplitMix64, into pixels: UnsafeMutablePointer<Float>) {
        var drawing = drawings[i]
        if augment, variantRate > 0, rng.nextFloat() < variantRate {
            drawing = DigitVariants.variant(of: drawing, digit: labels[i], rng: &rng)
        }
        render(drawing, augment: augment, rng: &rng, into: pixels)
    }

    /// `drawing` rasterized, distorted when `augment`.
    func render(_ drawing: Drawing, augment: Bool, rng: inout SplitMix64, into pixels: UnsafeMutablePointer<Float>) {
        let out = UnsafeMutableBufferPointer(start: pixels, count: 784)
        guard augment else {
            Rasterizer(options: raster).rasterize(drawing, into: out)
            return
        }
        var options = raster
        options.penWidth = rng.uniform(penWidthRange.lowerBound, penWidthRange.upperBound)
        options.softness = rng.uniform(softnessRange.lowerBound, softnessRange.upperBound)
        Rasterizer(options: options).rasterize(distorted(drawing, rng: &rng), into: out)
    }

    func distorted(_ d: Drawing, rng: inout SplitMix64) -> Drawing {
        let angle = rng.uniform(-rotationDegrees, rotationDegrees) * .pi / 180
        let sh = rng.uniform(-shear, shear)
        let a = rng.uniform(aspect.lowerBound, aspect.upperBound).squareRoot()
        let (cs, sn) = (cos(angle), sin(angle))
        var minX = Float.infinity, maxX = -Float.infinity, minY = Float.infinity, maxY = -Float.infinity
        for s in d.strokes { for p in s { minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y) } }
        let size = max(maxX - minX, maxY - minY, 1)
        let cx = (minX + maxX) / 2, cy = (minY + maxY) / 2
        let amount = jitter * size
        var copy = d
        copy.canvasWidth = nil
        copy.canvasHeight = nil
        copy.strokes = d.strokes.map { stroke in
            stroke.map { p in
                let x = (p.x - cx) * a + sh * (p.y - cy) / a, y = (p.y - cy) / a
                return StrokePoint(x: cs * x - sn * y + rng.uniform(-amount, amount),
                                   y: sn * x + cs * y + rng.uniform(-amount, amount))
            }
        }
        return copy
    }
}

/// The pendigits writers held out from training and used to measure accuracy on unseen writers:
/// every third writer (3, 6, …, 30).
public enum PendigitsSplit {
    public static func isHeldOut(_ writer: Int?) -> Bool { (writer ?? 0) % 3 == 0 }
    public static let heldOutList = "3,6,9,12,15,18,21,24,27,30"
}
