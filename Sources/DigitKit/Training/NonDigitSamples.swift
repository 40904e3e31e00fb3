import Foundation

/// Synthetic drawings that are not digits, for outlier exposure (Hendrycks, Mazeika, Dietterich
/// 2019): trained toward the uniform distribution, they teach the model to be unsure — and the
/// 0.9 filter to refuse — on dots, tangles, stars, spirals, zigzags and lone dashes, instead of
/// calling a dot a "1". Shapes that are plausible digits (an oval, a square that reads as 0, a
/// single vertical bar) are deliberately not generated. Label: `NonDigitSamples.label` (-1).
public struct NonDigitSamples: SampleSource {
    public static let label = -1
    public let count: Int
    public let seed: UInt64
    public var raster: RasterOptions

    public init(count: Int, seed: UInt64, raster: RasterOptions = .init()) {
        self.count = count
        self.seed = seed
        self.raster = raster
    }

    public func label(_ i: Int) -> Int { Self.label }

    public func render(_ i: Int, augment: Bool, rng: inout SplitMix64, into pixels: UnsafeMutablePointer<Float>) {
        // The shape depends on the sample index (and the epoch's rng when augmenting), so every
        // epoch sees fresh shapes.
        var g = augment ? rng : SplitMix64(seed: seed).derived(UInt64(i))
        var options = raster
        options.penWidth = g.uniform(1.6, 3.2)
        options.minimumExtent = 0
        Rasterizer(options: options).rasterize(Self.shape(kind: i % 7, rng: &g), into: UnsafeMutableBufferPointer(start: pixels, count: 784))
        rng = g
    }

    /// One random non-digit in a 100×100 canvas (y down).
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
        case 2: // a star: 3 to 6 lines through one point
            let cx = rng.uniform(40, 60), cy = rng.uniform(40, 60), r = rng.uniform(25, 45)
            let n = 3 + Int(rng.next() % 4)
            let a0 = rng.uniform(0, .pi)
            strokes = (0..<n).map { k in
                let a = a0 + Float(k) * .pi / Float(n)
                return [p(cx - r * cos(a), cy - r * sin(a)), p(cx + r * cos(a), cy + r * sin(a))]
            }
        case 3: // a spiral of 2.5 to 4 turns
            let turns = rng.uniform(2.5, 4), cx = rng.uniform(45, 55), cy = rng.uniform(45, 55)
            let dir: Float = rng.nextFloat() < 0.5 ? 1 : -1
            strokes = [(0..<120).map { k in
                let t = Float(k) / 119, a = dir * t * turns * 2 * .pi, r = 3 + 40 * t
                return p(cx + r * cos(a), cy + r * sin(a))
            }]
        case 4: // a zigzag of 5 to 9 teeth
            let teeth = 5 + Int(rng.next() % 5), h = rng.uniform(10, 40), y0 = rng.uniform(30, 70)
            strokes = [(0...(2 * teeth)).map { k in p(5 + 90 * Float(k) / Float(2 * teeth), y0 + (k % 2 == 0 ? 0 : h)) }]
        case 5: // a lone dash, horizontal-ish
            let y = rng.uniform(30, 70), slope = rng.uniform(-0.15, 0.15), len = rng.uniform(30, 90)
            strokes = [[p(50 - len / 2, y - slope * len / 2), p(50 + len / 2, y + slope * len / 2)]]
        default: // a grid or hatch: 3-5 parallel lines crossed by 3-5 others
            let n = 3 + Int(rng.next() % 3), m = 3 + Int(rng.next() % 3)
            strokes = (0..<n).map { k in let y = 10 + 80 * Float(k) / Float(n - 1); return [p(10, y), p(90, y)] }
                + (0..<m).map { k in let x = 10 + 80 * Float(k) / Float(m - 1); return [p(x, 10), p(x, 90)] }
        }
        return Drawing(strokes: strokes)
    }
}
