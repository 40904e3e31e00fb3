import Foundation

/// Wrong pieces of numbers, labelled "not a digit": what the number reader must score low. Each
/// sample composes a number of 2–4 digits from one training writer (`NumberComposer`), cuts it as
/// the reader does (`Segmentation`) and takes a candidate that is not one whole digit — two digits
/// taken together, or a small fragment of one (a 5's hat, a 7's bar, a 1's base) — rasterized as
/// the reader rasterizes candidates. Fragments as tall as the line (a 4's stem) are not used: they
/// look like a 1, and the reader's comparison of readings sorts them out.
public struct NumberPartSamples: SampleSource {
    public let count: Int
    public let seed: UInt64
    /// Single digits grouped by writer (training writers only).
    public let byWriter: [[Drawing]]
    public var raster: RasterOptions
    /// The class these samples train toward.
    public let label: Int
    public var composer = NumberComposer()

    public init(count: Int, seed: UInt64, byWriter: [[Drawing]], raster: RasterOptions, label: Int) {
        self.count = count
        self.seed = seed
        self.byWriter = byWriter.filter { $0.count >= 2 }
        self.raster = raster
        self.label = label
    }

    public func label(_ i: Int) -> Int { label }

    public func render(_ i: Int, augment: Bool, rng: inout SplitMix64, into pixels: UnsafeMutablePointer<Float>) {
        var g = augment ? rng : SplitMix64(seed: seed).derived(UInt64(i))
        defer { rng = g }
        var options = raster
        options.minimumExtent = 0.5
        if augment { options.penWidth = g.uniform(1.6, 3.2) }
        let out = UnsafeMutableBufferPointer(start: pixels, count: 784)
        for _ in 0..<20 {
            guard !byWriter.isEmpty, let part = Self.wrongPart(byWriter: byWriter, composer: composer, rng: &g) else { break }
            Rasterizer(options: options).rasterize(part, into: out)
            return
        }
        // No writer data (or no wrong part found): a synthetic scribble instead.
        options.minimumExtent = raster.minimumExtent
        Rasterizer(options: options).rasterize(NonDigitSamples.shape(kind: Int(g.next() % 4), rng: &g), into: out)
    }

    /// One wrong candidate of a freshly composed number, as the reader would rasterize it.
    static func wrongPart(byWriter: [[Drawing]], composer: NumberComposer, rng: inout SplitMix64) -> Drawing? {
        let pool = byWriter[Int(rng.next() % UInt64(byWriter.count))]
        let length = 2 + Int(rng.next() % 3)
        let digits = (0..<length).map { _ in pool[Int(rng.next() % UInt64(pool.count))] }
        let number = composer.compose(digits, rng: &rng)
        guard let segmentation = try? Segmentation(number.drawing), !segmentation.pieces.isEmpty else { return nil }
        let h = segmentation.lineHeight
        // The box of each true digit.
        var digitBoxes: [Int: InkBox] = [:]
        for piece in segmentation.pieces {
            let d = number.strokeDigit[piece.stroke]
            digitBoxes[d] = digitBoxes[d].map { $0.union(piece.box) } ?? piece.box
        }
        var wrong: [Range<Int>] = []
        for i in segmentation.pieces.indices {
            for j in segmentation.candidates[i] {
                let run = i..<j
                var tall = Set<Int>(), owners = Set<Int>()
                for piece in segmentation.pieces[run] {
                    let d = number.strokeDigit[piece.stroke]
                    owners.insert(d)
                    if piece.box.height >= 0.45 * h { tall.insert(d) }
                }
                if tall.count >= 2 {
                    wrong.append(run)   // two digits (or more) taken together
                } else if owners.count == 1, let d = owners.first, let whole = digitBoxes[d] {
                    let box = segmentation.box(run)
                    let small = box.height < 0.45 * h && box.width * box.height < 0.3 * whole.width * whole.height
                    if small { wrong.append(run) }
                }
            }
        }
        guard !wrong.isEmpty else { return nil }
        return segmentation.drawing(number.drawing, wrong[Int(rng.next() % UInt64(wrong.count))])
    }
}
