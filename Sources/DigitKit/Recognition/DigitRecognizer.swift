import DigitWeights
import Foundation

/// The answer for one drawing or image.
public struct Recognition: Sendable {
    /// The digit, or nil when the top probability is below `threshold` ("not sure") or the
    /// drawing is empty.
    public var digit: Int?
    /// The top probability (after the model's softmax temperature).
    public var confidence: Float
    /// The ten digits' probabilities (all zero for an empty drawing). They sum to 1 less
    /// `notADigit`.
    public var probabilities: [Float]
    /// The probability that the drawing is not a digit at all, for a network with that output
    /// (see `ModelFile.classes`); 0 otherwise.
    public var notADigit: Float = 0
    /// The three best candidates, best first.
    public var top: [(digit: Int, probability: Float)]
    /// The 28×28 input the network saw, row-major, 0 = background, 1 = ink.
    public var raster: [Float]
    /// True when the drawing had no points (nothing was recognized).
    public var isEmpty: Bool
    public var threshold: Float

    /// The best digit whatever its confidence (nil for an empty drawing).
    public var bestGuess: Int? { top.first?.digit }

    /// True when "not a digit" is more likely than any digit: what the window and the command line
    /// show as "not a digit" rather than "not sure".
    public var isNotADigit: Bool { !isEmpty && notADigit > confidence }

    /// One line of `digits recognize --json`:
    /// `{"source":"a.jsonl","index":0,"digit":7,"confidence":0.993,"top":[[7,0.993],[1,0.004],[9,0.002]],"label":"7"}`.
    /// `digit` is null below the threshold; an empty drawing adds `"empty":true`.
    public func jsonLine(source: String, index: Int, label: String?) -> String {
        var writer = JSONWriter()
        writer.object { o in
            o.member("source", source)
            o.member("index", index)
            o.member("digit", digit)
            o.member("confidence", number: Self.probability(confidence))
            o.member("top", array: { Self.write(top, to: &$0) })
            if let label { o.member("label", label) }
            if isEmpty { o.member("empty", true) }
        }
        return writer.text
    }

    /// A probability in `--json` lines: six significant digits. A broken model can produce NaN;
    /// JSON has no NaN, so it is written as null.
    static func probability(_ v: Float) -> String { JSONText.number(v, format: "%.6g") }

    /// Candidates as `[[digit, probability], …]` elements of an array.
    static func write(_ top: [(digit: Int, probability: Float)], to w: inout JSONWriter) {
        for t in top { w.array { $0.int(t.digit); $0.number(text: probability(t.probability)) } }
    }
}

/// Recognizes handwritten digits: rasterizes a drawing the way MNIST was made, runs the CNN and
/// applies the confidence filter. The CLI and the window share it.
///
/// ```swift
/// let recognizer = try DigitRecognizer()              // the shipped weights
/// let drawing = Drawing(strokes: [[StrokePoint(x: 10, y: 5), StrokePoint(x: 10, y: 60)]])
/// let answer = recognizer.recognize(drawing)
/// print(answer.digit.map(String.init) ?? "?", answer.confidence)
/// ```
///
/// Not thread-safe (it reuses scratch buffers): use one instance per thread or queue.
public final class DigitRecognizer {
    public let model: ModelFile
    public let network: InferenceNetwork
    public var threshold: Float
    public var rasterizer: Rasterizer
    let workspace: InferenceNetwork.Workspace
    /// The larger network consulted when this one is unsure (`SecondOpinion`), or nil. The
    /// default weights come with the shipped one (or `$DIGITS_SECOND_OPINION`); other weights
    /// have none until one is set.
    public var secondOpinion: SecondOpinion?
    /// The paper reader's line model, which reads photos and scans (`read(image:)`): set it, or
    /// leave it nil to have the shipped one (or `$DIGITS_PAPER_WEIGHTS`) loaded on the first image.
    public var lineReader: LineReader? {
        get { loadedLineReader }
        set { loadedLineReader = newValue; lineReaderLooked = true }
    }
    private var loadedLineReader: LineReader?
    private var lineReaderLooked = false
    private var pixels = [Float](repeating: 0, count: 784)
    var logits: [Float]

    /// The weight file used when none is named: `$DIGITS_WEIGHTS` when set, else the shipped
    /// weights from the package's resource bundle. Throws one error naming what was looked for.
    public static func defaultWeightsPath() throws -> String {
        if let env = ProcessEnvironment.value("DIGITS_WEIGHTS") { return env }
        if let path = ShippedWeights.path { return path }
        throw DigitError(.io, "no weight file found: DIGITS_WEIGHTS is not set and the shipped weights are not at "
            + ShippedWeights.candidates.joined(separator: " or ")
            + " (copy the \(ShippedWeights.bundleName) folder beside the executable, or pass a weight file)")
    }

    /// Loads the weight file (`weightsPath`, else `$DIGITS_WEIGHTS`, else the shipped weights).
    /// The rasterizer uses the pen width and softness recorded in the file (`raster_pen_width`,
    /// `raster_softness`) when present.
    /// With the default weights (no `weightsPath`), the default second opinion is consulted too
    /// (`SecondOpinion.defaultPath()`), read when first asked (`SecondOpinion.deferred(path:)`).
    public convenience init(weightsPath: String? = nil, threshold: Float = 0.9) throws {
        try self.init(model: try ModelFile.load(path: weightsPath ?? Self.defaultWeightsPath()), threshold: threshold)
        secondOpinion = try SecondOpinion.load(choice: nil, weights: weightsPath)
    }

    /// Consults the default second opinion (`SecondOpinion.defaultPath()`) when there is one.
    public func useDefaultSecondOpinion() throws {
        secondOpinion = try SecondOpinion.load(choice: nil, weights: nil)
    }

    /// The line model for images: the one set, else the shipped one, loaded once; nil when there
    /// is none (the digits are then cut apart and read one by one).
    func paperReader() throws -> LineReader? {
        if !lineReaderLooked {
            lineReaderLooked = true
            if ProcessEnvironment.value("DIGITS_PAPER_WEIGHTS") != nil || ShippedWeights.paperPath != nil {
                loadedLineReader = try LineReader(threshold: threshold)
            }
        }
        loadedLineReader?.threshold = threshold
        return loadedLineReader
    }

    /// Whether a paper model is there to read images with (loading it when it is not yet).
    public func paperReaderLoaded() throws -> Bool { try paperReader() != nil }

    /// A recognizer for one person's hand: the weights (`weightsPath`, else the default ones)
    /// with `profile`'s layer in place (`WriterProfile.apply(to:)`, which refuses a profile made
    /// for other weights). `profileName` names it in errors and in `profileName`.
    public convenience init(profile: WriterProfile, weightsPath: String? = nil, threshold: Float = 0.9,
                            profileName: String = "profile") throws {
        let base = try ModelFile.load(path: weightsPath ?? Self.defaultWeightsPath())
        try self.init(model: try profile.apply(to: base, file: profileName), threshold: threshold)
        secondOpinion = try SecondOpinion.load(choice: nil, weights: weightsPath)
    }

    /// The personal profile in use (its file name), nil for the weights as they are.
    public var profileName: String? { model.provenance["profile"] }

    public init(model: ModelFile, threshold: Float = 0.9, raster: RasterOptions? = nil) throws {
        guard !model.isLineModel else {
            throw DigitError(.format, file: model.source, "a line model (the paper reader's: DIGITS_PAPER_WEIGHTS) cannot read "
                + "one digit; the digit network's weights are a network of 10 or 11 classes")
        }
        self.model = model
        network = try model.makeNetwork()
        self.threshold = threshold
        rasterizer = Rasterizer(options: raster ?? model.rasterOptions)
        workspace = network.makeWorkspace()
        logits = [Float](repeating: 0, count: network.classCount)
    }

    public func recognize(_ drawing: Drawing) -> Recognition {
        if drawing.isEmpty {
            return Recognition(digit: nil, confidence: 0, probabilities: Array(repeating: 0, count: 10), top: [],
                               raster: Array(repeating: 0, count: 784), isEmpty: true, threshold: threshold)
        }
        pixels.withUnsafeMutableBufferPointer { rasterizer.rasterize(drawing, into: $0) }
        return recognize(pixels: pixels)
    }

    /// Recognizes a 28×28 image (784 values in 0…1, 0 = background, 1 = ink).
    public func recognize(pixels input: [Float]) -> Recognition {
        var all = [Float](repeating: 0, count: network.classCount)
        input.withUnsafeBufferPointer { px in
            all.withUnsafeMutableBufferPointer { classProbabilities(pixels: px.baseAddress!, into: $0) }
        }
        let classes = all.count
        let probabilities = Array(all.prefix(10))
        let order = (0..<10).sorted { probabilities[$0] > probabilities[$1] || (probabilities[$0] == probabilities[$1] && $0 < $1) }
        let confidence = probabilities[order[0]]
        var r = Recognition(digit: confidence >= threshold ? order[0] : nil, confidence: confidence,
                            probabilities: probabilities, top: order.prefix(3).map { ($0, probabilities[$0]) },
                            raster: input, isEmpty: false, threshold: threshold)
        r.notADigit = classes > 10 ? all[10] : 0
        return r
    }
}

extension DigitRecognizer {
    /// The class probabilities of one 28×28 image over the first `probabilities.count` classes
    /// (the digits, then "not a digit"), at the model's temperature, revised by the second
    /// opinion when this network is unsure at the threshold.
    func classProbabilities(pixels: UnsafePointer<Float>, into probabilities: UnsafeMutableBufferPointer<Float>) {
        logits.withUnsafeMutableBufferPointer { l in
            network.logits(pixels: pixels, workspace: workspace, into: l.baseAddress!)
            softmax(l.baseAddress!, count: probabilities.count, temperature: model.temperature, into: probabilities.baseAddress!)
        }
        secondOpinion?.revise(probabilities, pixels: pixels, threshold: threshold)
    }

    /// The ten digits' probabilities (10 values a row) of many 28×28 images (784 values each), as
    /// `recognize(pixels:)` gives them, second opinion included, scored in batches on `threads`.
    public func digitProbabilities(pixels: [Float], threads: Int) -> [Float] {
        let classes = network.classCount
        var all = BatchInference.classProbabilities(BatchInference.logits(network, pixels: pixels, threads: threads),
                                                    temperature: model.temperature, classes: classes)
        secondOpinion?.revise(rows: &all, classes: classes, pixels: pixels, threshold: threshold, threads: threads)
        return BatchInference.digits(of: all, classes: classes)
    }
}

extension ModelFile {
    /// The rasterizer settings the model is read with: the pen it was trained for
    /// (`raster_pen_width`, `raster_softness` in the metadata, else the defaults), and a sparse
    /// stroke drawn along a spline (`Smoothing.sparse`: the same image for strokes as dense as
    /// the training drawings, rounder curves for a device that records few points).
    public var rasterOptions: RasterOptions {
        var o = RasterOptions()
        o.smoothing = .sparse
        if let w = provenance["raster_pen_width"].flatMap(Float.init), w.isFinite { o.penWidth = w }
        if let s = provenance["raster_softness"].flatMap(Float.init), s.isFinite { o.softness = s }
        return o
    }
}
