import Foundation

/// Synthetic drawings that are not digits, for outlier exposure (Hendrycks, Mazeika, Dietterich
/// 2019). For a network with a "not a digit" output they train toward that output, in all seven
/// kinds (dots, tangles, spirals, zigzags, dashes, crosses, crossings-out). For a ten-output
/// network they train toward the uniform distribution, so the 0.9 filter refuses them, and only
/// the first four kinds are drawn: there, shapes that are parts of digits (a bar, a dash,
/// crossing lines) cost accuracy — a first model trained with stars, dashes and grids lost 0.36
/// points of MNIST, mostly 7s read as 1s and 9s read as 4s. Label: `target`.
public struct NonDigitSamples: SampleSource {
    /// The label of "train toward uniform probabilities" (a network without a "not a digit" output).
    public static let label = -1
    public let count: Int
    public let seed: UInt64
    public var raster: RasterOptions
    /// The class these samples train toward: `label` (-1), or the "not a digit" output.
    public var target: Int = NonDigitSamples.label
    /// How many shape kinds are drawn: the first 4 (dots, tangles, spirals, zigzags), or all 7 with
    /// dashes, crosses and crossings-out, for a network that has a "not a digit" output.
    public var kinds = 4

    public init(count: Int, seed: UInt64, raster: RasterOptions = .init()) {
        self.count = count
        self.seed = seed
        self.raster = raster
    }

    public func label(_ i: Int) -> Int { target }

    public func render(_ i: Int, augment: Bool, rng: inout SplitMix64, into pixels: UnsafeMutablePointer<Float>) {
        // The shape depends on the sample index (and the epoch's rng when augmenting), so every
        // epoch sees fresh shapes.
        var g = augment ? rng : SplitMix64(seed: seed).derived(UInt64(i))
        var options = raster
        options.penWidth = g.uniform(1.6, 3.2)
        Rasterizer(options: options).rasterize(Self.shape(kind: i % kinds, rng: &g), into: UnsafeMutableBufferPointer(start: pixels, count: 784))
        rng = g
    }

    /// One random non-digit on a 100×100 canvas (y down). The canvas is part of the drawing, so a
    /// dot stays a dot (`RasterOptions.minimumExtent`, as the recognizer sees a tap) instead of
    /// being blown up to fill the 20-pixel box, where a short dab looks like the bar of a 1.
    /// (Rasterized without it, the dots of an earlier model taught it that a plain 1 is "not a digit".)
    static func shape(kind: Int, rng: inout SplitMix64) -> Drawing {
        func p(_ x: Float, _ y: Float) -> StrokePoint { StrokePoint(x: x, y: y) }
        var strokes: [[StrokePoint]] = []
        switch kind {
        case 0: // a dot or a tiny tap
            let x = rng.uniform(20, 80), y = rng.uniform(20, 80)
            let n = Int(rng.next() % 4) + 1
            strokes = [(0..<n).map { _ in p(x + rng.uniform(-0.5, 0.5), y + rng.uniform(-0.5, 0.5)) }]
        case 1: // a tangle: a long random walk with sharp turns
            var x = rng.uniform(30, 70), y = rng.uniform(30, 70)
            var s: [StrokePoint] = []
            for _ in 0..<(30 + Int(rng.next() % 30)) {
                s.append(p(x, y))
                x = min(max(x + rng.uniform(-25, 25), 0), 100)
                y = min(max(y + rng.uniform(-25, 25), 0), 100)
            }
            strokes = [s]
        case 2: // a spiral of 2.5 to 4 turns
            let turns = rng.uniform(2.5, 4), cx = rng.uniform(45, 55), cy = rng.uniform(45, 55)
            let dir: Float = rng.nextFloat() < 0.5 ? 1 : -1
            strokes = [(0..<120).map { k in
                let t = Float(k) / 119, a = dir * t * turns * 2 * .pi, r = 3 + 40 * t
                return p(cx + r * cos(a), cy + r * sin(a))
            }]
        case 3: // a zigzag of 5 to 9 teeth
            let teeth = 5 + Int(rng.next() % 5), h = rng.uniform(10, 40), y0 = rng.uniform(30, 70)
            strokes = [(0...(2 * teeth)).map { k in p(5 + 90 * Float(k) / Float(2 * teeth), y0 + (k % 2 == 0 ? 0 : h)) }]
        case 4: // a dash, nearly level
            let y = rng.uniform(30, 70), tilt = rng.uniform(-12, 12)
            strokes = [(0..<10).map { k in p(10 + 8 * Float(k), y + tilt * (Float(k) / 9 - 0.5)) }]
        case 5: // a plus or an x
            let c = rng.uniform(40, 60), r = rng.uniform(20, 40), turn: Float = rng.nextFloat() < 0.5 ? 0 : .pi / 4
            strokes = [0, .pi / 2].map { a in
                (0..<8).map { k in
                    let t = (Float(k) / 7 * 2 - 1) * r
                    return p(c + t * cos(a + turn), c + t * sin(a + turn))
                }
            }
        default: // a crossing-out: a dense zigzag over a box
            let rows = 4 + Int(rng.next() % 5), x0 = rng.uniform(5, 30), x1 = rng.uniform(70, 95)
            strokes = [(0...(2 * rows)).map { k in
                p(k % 2 == 0 ? x0 + rng.uniform(-4, 4) : x1 + rng.uniform(-4, 4), 15 + 70 * Float(k) / Float(2 * rows))
            }]
        }
        return Drawing(strokes: strokes, canvasWidth: 100, canvasHeight: 100)
    }
}
