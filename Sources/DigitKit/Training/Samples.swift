/// A source of labelled 28×28 training images (pixels 0…1, 0 = background, 1 = ink).
/// `render` writes sample `i` — distorted when `augment` is true, using only `rng` for
/// randomness so a seed reproduces the exact images.
public protocol SampleSource: Sendable {
    var count: Int { get }
    func label(_ i: Int) -> Int
    func render(_ i: Int, augment: Bool, rng: inout SplitMix64, into pixels: UnsafeMutablePointer<Float>)
}

/// MNIST images (a contiguous range of an `MNISTSet`), distorted with `Augmentation`.
public struct MNISTSamples: SampleSource {
    public let set: MNISTSet
    public let range: Range<Int>
    public var augmentation: Augmentation

    public init(_ set: MNISTSet, range: Range<Int>? = nil, augmentation: Augmentation = .init()) {
        self.set = set
        self.range = range ?? 0..<set.count
        self.augmentation = augmentation
    }

    public var count: Int { range.count }
    public func label(_ i: Int) -> Int { Int(set.labels[range.lowerBound + i]) }

    public func render(_ i: Int, augment: Bool, rng: inout SplitMix64, into pixels: UnsafeMutablePointer<Float>) {
        let base = (range.lowerBound + i) * 784
        set.images.pixels.withUnsafeBufferPointer { src in
            if !augment {
                for j in 0..<784 { pixels[j] = Float(src[base + j]) / 255 }
                return
            }
            withUnsafeTemporaryAllocation(of: Float.self, capacity: 784) { tmp in
                for j in 0..<784 { tmp[j] = Float(src[base + j]) / 255 }
                augmentation.apply(UnsafePointer(tmp.baseAddress!), into: pixels, rng: &rng)
            }
        }
    }
}

/// Several sources seen as one, indices running through them in order.
public struct ConcatenatedSamples: SampleSource {
    public let parts: [any SampleSource]
    private let offsets: [Int]

    public init(_ parts: [any SampleSource]) {
        self.parts = parts
        var o: [Int] = []
        var total = 0
        for p in parts { o.append(total); total += p.count }
        offsets = o + [total]
    }

    public var count: Int { offsets.last ?? 0 }

    private func locate(_ i: Int) -> (Int, Int) {
        var p = 0
        while i >= offsets[p + 1] { p += 1 }
        return (p, i - offsets[p])
    }

    public func label(_ i: Int) -> Int { let (p, j) = locate(i); return parts[p].label(j) }

    public func render(_ i: Int, augment: Bool, rng: inout SplitMix64, into pixels: UnsafeMutablePointer<Float>) {
        let (p, j) = locate(i)
        parts[p].render(j, augment: augment, rng: &rng, into: pixels)
    }
}
