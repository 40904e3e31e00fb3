import DigitFormats
import Foundation

/// Candidates cut from synthetic photos of numbers along seams, exactly as the page reader cuts
/// and renders them: what the network must score when it reads paper. (The reader's other cut,
/// into strokes where strokes cross, is not trained on: trained on too, it made development
/// photos no better read and MNIST a little worse; docs/images.md.) The "not a digit" output learned from
/// pieces of pen drawings (`NumberPartSamples`) does not carry over to photos, whose ink is found
/// by thresholds and cut along seams, so a piece of a digit or two touching digits read as one
/// confident digit there (docs/images.md).
///
/// At creation, `photos` numbers of 2–4 digits of one training writer each are composed
/// (`NumberComposer`), rendered on paper (`PaperRenderer`, gray, 640×480, JPEG-compressed when
/// libjpeg is there), and read as `DigitRecognizer.read(image:)` reads a photo up to the network:
/// ink map, components, seams, candidate runs. Each candidate is compared with the true digit
/// boxes of the rendering:
/// - it holds one digit whole and nothing of another: that digit;
/// - it holds most of two digits or more: "not a digit";
/// - it is a small part of one digit (shorter than `fragmentHeight` of it, less than half its
///   area), such as a 5's hat or half a 0: "not a digit";
/// - anything else (a tall stem of a 4 that reads as a 1, a digit with a sliver of its
///   neighbour) is left out, as the reader's comparison of readings must settle those.
/// The 28×28 inputs are kept (784 floats each) and shown unchanged every epoch. Deterministic
/// for a seed.
public struct PaperPartSamples: SampleSource {
    public let count: Int
    private let pixels: [Float]
    private let labels: [Int]
    /// Samples kept of each kind: whole digits, merged digits, fragments.
    public let kinds: (digits: Int, merged: Int, fragments: Int)

    /// A digit's box counts as held when this share of its area is inside the candidate's box.
    static let whole: Float = 0.85
    /// Another digit's box counts as untouched below this share.
    static let untouched: Float = 0.15
    /// A fragment is shorter than this share of its digit's height.
    static let fragmentHeight: Float = 0.7

    /// Renders and cuts `photos` numbers; `byWriter` holds the training writers' single digits.
    public init(photos: Int, seed: UInt64, byWriter: [[Drawing]], refusalLabel: Int) {
        var pixels: [Float] = [], labels: [Int] = []
        var kinds = (digits: 0, merged: 0, fragments: 0)
        let writers = byWriter.filter { $0.count >= 2 }
        var renderer = PaperRenderer()
        renderer.colour = false
        var rng = SplitMix64(seed: seed)
        let composer = NumberComposer()
        var input = [Float](repeating: 0, count: 784)
        for _ in 0..<(writers.isEmpty ? 0 : photos) {
            let pool = writers[Int(rng.next() % UInt64(writers.count))]
            let length = 2 + Int(rng.next() % 3)
            let number = composer.compose((0..<length).map { _ in pool[Int(rng.next() % UInt64(pool.count))] }, rng: &rng)
            guard let photo = try? renderer.render(number, rng: &rng),
                  let decoded = try? Self.decode(photo) else { continue }
            let page = FloatImage(decoded).reduced(toSide: ImageOptions().workingSide)
            let map = InkMap(page)
            guard let line = InkComponents(map).line() else { continue }
            let truth = photo.digitBoxes.map { InkBox(x0: Float($0.x), y0: Float($0.y), x1: Float($0.maxX), y1: Float($0.maxY)) }
            let digitValues = (number.drawing.label ?? "").compactMap(\.wholeNumberValue)
            guard digitValues.count == truth.count else { continue }
            for (i, ends) in line.candidates.enumerated() {
                for j in ends {
                    let b = line.box(i..<j)
                    // Piece boxes are inclusive pixel indices; the truth is half-open.
                    let box = InkBox(x0: b.x0, y0: b.y0, x1: b.x1 + 1, y1: b.y1 + 1)
                    let label: Int
                    switch Self.judge(box, truth: truth) {
                    case .digit(let k)?:
                        guard k < digitValues.count else { continue }
                        label = digitValues[k]
                        kinds.digits += 1
                    case .merged?:
                        label = refusalLabel
                        kinds.merged += 1
                    case .fragment?:
                        label = refusalLabel
                        kinds.fragments += 1
                    case nil:
                        continue
                    }
                    input.withUnsafeMutableBufferPointer { line.render(i..<j, ink: map.ink, into: $0) }
                    pixels += input
                    labels.append(label)
                }
            }
        }
        self.pixels = pixels
        self.labels = labels
        self.kinds = kinds
        count = labels.count
    }

    /// The photo as the reader gets it from a file: JPEG-compressed when libjpeg is there.
    static func decode(_ photo: PaperImage) throws -> DecodedImage {
        let format: PaperFormat = JPEG.isAvailable ? .jpeg : .pgm
        return try ImageDecoder.decode(try photo.encoded(format), file: "paper")
    }

    /// What a candidate with box `box` (image pixels, half-open) is, against the true digit boxes.
    enum Verdict: Equatable {
        /// The digit at this position, whole, and nothing of another.
        case digit(Int)
        /// Most of two digits or more.
        case merged
        /// A small part of one digit.
        case fragment
    }

    /// The verdict, or nil when the candidate is neither clearly a digit nor clearly not one.
    static func judge(_ box: InkBox, truth: [InkBox]) -> Verdict? {
        func area(_ b: InkBox) -> Float { max(0, b.width) * max(0, b.height) }
        func held(_ d: InkBox) -> Float {
            let i = InkBox(x0: max(box.x0, d.x0), y0: max(box.y0, d.y0), x1: min(box.x1, d.x1), y1: min(box.y1, d.y1))
            return i.width > 0 && i.height > 0 ? area(i) / max(area(d), 1) : 0
        }
        let shares = truth.map(held)
        let touched = shares.indices.filter { shares[$0] >= untouched }
        if touched.filter({ shares[$0] >= 0.5 }).count >= 2 { return .merged }
        guard touched.count == 1, let k = touched.first else { return nil }
        if shares[k] >= whole { return .digit(k) }
        if box.height < fragmentHeight * truth[k].height && shares[k] < 0.5 { return .fragment }
        return nil
    }

    public func label(_ i: Int) -> Int { labels[i] }

    public func render(_ i: Int, augment: Bool, rng: inout SplitMix64, into out: UnsafeMutablePointer<Float>) {
        pixels.withUnsafeBufferPointer { p in out.update(from: p.baseAddress! + i * 784, count: 784) }
    }
}
