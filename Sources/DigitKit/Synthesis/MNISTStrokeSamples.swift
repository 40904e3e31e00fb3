import Foundation

/// MNIST training images drawn again as pen strokes: each image's ink is thinned to its skeleton
/// (`InkStrokes.thin` on the image enlarged twice), the skeleton's lines become pen paths, and
/// these are rasterized like the pendigits drawings (`StrokeSamples`: path distortion, random pen
/// width and softness). Pen-drawn digits of thousands of MNIST writers instead of the 30 pendigits
/// writers, with MNIST's labels; and pen-drawn ink is no longer mostly "not a digit" in training
/// (the wrong pieces of numbers, scribbles and glyph letters are all drawn with the pen).
public struct MNISTStrokeSamples: SampleSource {
    public let drawings: [Drawing]
    public let labels: [Int]
    /// The path distortion, pen width and softness (no per-point jitter: the paths meet at the
    /// skeleton's junctions and would come apart).
    public var strokes: StrokeSamples

    /// `count` images of `range` of `set`, chosen by `seed`, skeletonized once. Images whose
    /// skeleton is empty are left out.
    public init(_ set: MNISTSet, range: Range<Int>, count: Int, seed: UInt64, raster: RasterOptions) {
        var rng = SplitMix64(seed: seed)
        let order = rng.shuffled(Array(range))
        var drawings: [Drawing] = [], labels: [Int] = []
        set.images.pixels.withUnsafeBufferPointer { all in
            for index in order.prefix(count) {
                let image = UnsafeBufferPointer(rebasing: all[(index * 784)..<((index + 1) * 784)])
                guard let drawing = Self.drawing(image) else { continue }
                drawings.append(drawing)
                labels.append(Int(set.labels[index]))
            }
        }
        self.drawings = drawings
        self.labels = labels
        strokes = StrokeSamples(records: [], raster: raster)
        strokes.jitter = 0
    }

    public var count: Int { drawings.count }
    public func label(_ i: Int) -> Int { labels[i] }

    public func render(_ i: Int, augment: Bool, rng: inout SplitMix64, into pixels: UnsafeMutablePointer<Float>) {
        strokes.render(drawings[i], augment: augment, rng: &rng, into: pixels)
    }

    /// The pen paths of a 28×28 image (0…255, ink bright): enlarged twice (bilinear) inside a
    /// border of background, ink where it is at least half bright, small holes filled, thinned,
    /// spurs shorter than a stroke's width dropped. Nil when no line is left.
    public static func drawing(_ image: UnsafeBufferPointer<UInt8>) -> Drawing? {
        let scale = 2, border = 2
        let side = 28 * scale + 2 * border
        var mask = [UInt8](repeating: 0, count: side * side)
        for y in 0..<(28 * scale) {
            for x in 0..<(28 * scale) {
                // Bilinear sample at the centre of the enlarged pixel.
                let fx = min(max((Float(x) + 0.5) / Float(scale) - 0.5, 0), 27)
                let fy = min(max((Float(y) + 0.5) / Float(scale) - 0.5, 0), 27)
                let x0 = Int(fx), y0 = Int(fy), x1 = min(x0 + 1, 27), y1 = min(y0 + 1, 27)
                let ax = fx - Float(x0), ay = fy - Float(y0)
                func v(_ xx: Int, _ yy: Int) -> Float { Float(image[yy * 28 + xx]) }
                let value = (v(x0, y0) * (1 - ax) + v(x1, y0) * ax) * (1 - ay) + (v(x0, y1) * (1 - ax) + v(x1, y1) * ax) * ay
                if value >= 128 { mask[(y + border) * side + x + border] = 1 }
            }
        }
        InkStrokes.fillHoles(&mask, width: side, height: side, smallerThan: 5)
        InkStrokes.thin(&mask, width: side, height: side)
        var graph = SkeletonGraph(mask, width: side, height: side)
        graph.prune(spur: 4)
        let paths = graph.polylines()
        guard !paths.isEmpty else { return nil }
        return Drawing(strokes: paths.map { $0.map { StrokePoint(x: $0.x, y: $0.y) } })
    }
}
