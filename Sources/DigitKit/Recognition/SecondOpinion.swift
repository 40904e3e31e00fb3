import DigitKernels
import DigitWeights
import Foundation

/// A larger network consulted only when the compact one is unsure of a digit: when its likeliest
/// class is a digit below the threshold, the drawing's 28×28 image goes to this network too and
/// the answer is made from both. The final probabilities are a geometric mix,
/// p ∝ p₁^(1−mix) · p₂^mix, so the 0.9 filter and "not a digit" keep their meaning: they apply
/// to the probabilities after the second opinion. Two networks that agree make a sure answer;
/// two that disagree, or that both doubt, stay unsure.
///
/// Not thread-safe (it reuses scratch buffers), like `DigitRecognizer`, which owns one.
///
/// A second opinion named by the user (`init(path:)`) is read and checked at once; the shipped
/// one (`load(choice:weights:)` with no choice, or `deferred(path:)`) is read the first time it
/// is asked, so a command that reads only sure drawings never pays for it (about a sixth of a
/// `digits recognize` on one drawing). Should that file then fail to load, the drawing keeps
/// the compact network's unsure answer ("?", never a digit) and `failure` says why.
public final class SecondOpinion {
    /// The file it reads, when it came from one.
    public let path: String?
    /// The weight file (read now if the opinion was deferred).
    public var model: ModelFile { get throws { try ready().model } }
    /// The network, built (its weights packed for the kernels) the first time it is asked.
    public var network: InferenceNetwork { get throws { try ready().running.network } }
    /// How much the second opinion counts when consulted, 0…1 (1: it alone decides). Recorded in
    /// its weight file (`second_opinion_mix`) by the recipe that trained it.
    public var mix: Float { get throws { try ready().mix } }
    /// The mix used when the file records none.
    public static let defaultMix: Float = 0.5
    /// How many images it has been consulted on since it was made (`digits bench` reports it).
    public private(set) var consultations = 0
    /// Why a deferred second opinion could not be loaded when first asked (nil: it loaded, or
    /// was not asked yet). Its drawings kept the compact network's unsure answer.
    public private(set) var failure: DigitError?
    private var state: Ready?

    /// A loaded and checked second opinion, with its scratch buffers.
    private final class Ready {
        let model: ModelFile
        let mix: Float
        lazy var running: (network: InferenceNetwork, workspace: InferenceNetwork.Workspace) = {
            // `check` validated these layers and tensors: building from them cannot fail.
            let network = try! model.makeNetwork()
            return (network, network.makeWorkspace())
        }()
        var logits: [Float]
        var second: [Float]
        init(model: ModelFile, mix: Float) {
            self.model = model
            self.mix = mix
            logits = [Float](repeating: 0, count: model.classes.count)
            second = logits
        }
    }

    /// The loaded opinion; a deferred one is read and checked here, once.
    private func ready() throws -> Ready {
        if let state { return state }
        if let failure { throw failure }
        guard let path else { preconditionFailure("a second opinion without a file is made loaded") }
        do {
            let loaded = try Self.check(try ModelFile.load(path: path), file: path)
            state = loaded
            return loaded
        } catch let e as DigitError {
            failure = e
            throw e
        }
    }

    /// The shipped file's name (a resource of DigitWeights, beside the compact network).
    public static let fileName = "second-opinion.safetensors"

    /// `$DIGITS_SECOND_OPINION` when set, else the shipped second opinion, else nil.
    public static func defaultPath() -> String? {
        if let env = ProcessEnvironment.value("DIGITS_SECOND_OPINION") { return env }
        return ShippedWeights.firstExisting(fileName)
    }

    /// The second opinion to consult: `choice` is a file, "none" for none, or nil for the
    /// default (`defaultPath()`), which goes with the default weights only (`weights` nil): a
    /// second opinion is trained beside its compact network, not beside weights named apart.
    public static func path(choice: String?, weights: String?) -> String? {
        switch choice {
        case "none": return nil
        case let path?: return path
        case nil: return weights == nil ? defaultPath() : nil
        }
    }

    /// The second opinion at `path(choice:weights:)`, nil for none: a file the user named
    /// (`choice`), or any with `now`, is read and checked now; the default one when first asked
    /// (`deferred(path:)`).
    public static func load(choice: String?, weights: String?, now: Bool = false) throws -> SecondOpinion? {
        guard let path = path(choice: choice, weights: weights) else { return nil }
        return choice == nil && !now ? deferred(path: path) : try SecondOpinion(path: path)
    }

    /// Where the shipped second opinion is looked for (the weights' resource bundle), in order.
    public static var candidates: [String] { ShippedWeights.candidates(fileName) }

    /// Reads and checks the file at `path` now (errors name it).
    public init(path: String) throws {
        self.path = path
        state = try Self.check(try ModelFile.load(path: path), file: path)
    }

    /// Checks that the network reads what the compact one reads (one 28×28 digit; the digits, then
    /// "not a digit") and takes the mix from its metadata. Errors name `file`.
    public init(model: ModelFile, file: String? = nil) throws {
        path = nil
        state = try Self.check(model, file: file)
    }

    /// The second opinion at `path`, read and checked the first time it is asked.
    public static func deferred(path: String) -> SecondOpinion { SecondOpinion(deferred: path) }

    private init(deferred path: String) {
        self.path = path
    }

    private static func check(_ model: ModelFile, file: String?) throws -> Ready {
        let classes = model.classes.count
        guard !model.isLineModel, classes == 10 || classes == 11 else {
            throw DigitError(.format, file: file, "a second opinion reads a 28×28 image of one digit; this is "
                + (model.isLineModel ? "a line model" : "a network of \(classes) classes"))
        }
        do {
            try InferenceNetwork.validate(layers: model.layers, tensors: model.tensors, inputMean: model.inputMean,
                                          inputStd: model.inputStd, outputs: classes, file: file ?? "weights",
                                          input: model.inputShape(width: InferenceNetwork.inputSize))
        } catch var e as DigitError {
            if let file { e.file = file }
            throw e
        }
        var mix = defaultMix
        if let text = model.provenance["second_opinion_mix"] {
            guard let m = Float(text), m.isFinite, (0...1).contains(m) else {
                throw DigitError(.format, file: file, at: "second_opinion_mix", "must be a number in 0…1, got '\(text)'")
            }
            mix = m
        }
        return Ready(model: model, mix: mix)
    }

    /// Whether the compact network is unsure of a digit: its likeliest class is a digit (not "not
    /// a digit", the eleventh) and no class reaches `threshold`. A lean toward "not a digit" is
    /// never taken to the second opinion: it may confirm or reject a digit, never make one out of
    /// ink the compact network doubts is one.
    public static func isUnsure(_ probabilities: UnsafeBufferPointer<Float>, threshold: Float) -> Bool {
        guard let top = probabilities.indices.max(by: { probabilities[$0] < probabilities[$1] }) else { return false }
        return top < 10 && probabilities[top] < threshold
    }

    /// Revises `probabilities` (the compact network's softmax over its first `probabilities.count`
    /// classes, for the image `pixels`) when they are unsure at `threshold`. Returns whether the
    /// second opinion was consulted.
    @discardableResult
    public func revise(_ probabilities: UnsafeMutableBufferPointer<Float>, pixels: UnsafePointer<Float>, threshold: Float) -> Bool {
        guard Self.isUnsure(UnsafeBufferPointer(probabilities), threshold: threshold),
              let r = try? ready() else { return false }
        consultations += 1
        let classes = min(probabilities.count, r.logits.count)
        let (network, workspace) = r.running
        let temperature = r.model.temperature
        r.logits.withUnsafeMutableBufferPointer { l in
            network.logits(pixels: pixels, workspace: workspace, into: l.baseAddress!)
            r.second.withUnsafeMutableBufferPointer { dk_softmax(l.baseAddress!, classes, temperature, $0.baseAddress!) }
        }
        r.second.withUnsafeBufferPointer { Self.combine(probabilities, with: UnsafeBufferPointer(rebasing: $0[0..<classes]), mix: r.mix) }
        return true
    }

    /// The geometric mix of `first` (replaced) and `second` over the classes both have; a class
    /// only the first has (a compact network's "not a digit" against a ten-output second opinion)
    /// keeps the first's log-probability.
    static func combine(_ first: UnsafeMutableBufferPointer<Float>, with second: UnsafeBufferPointer<Float>, mix: Float) {
        let tiny: Float = 1e-12
        var top = -Float.infinity
        for c in first.indices {
            let a = log(max(first[c], tiny))
            let v = c < second.count ? (1 - mix) * a + mix * log(max(second[c], tiny)) : a
            first[c] = v
            top = max(top, v)
        }
        var sum: Float = 0
        for c in first.indices {
            first[c] = exp(first[c] - top)
            sum += first[c]
        }
        for c in first.indices { first[c] /= sum }
    }

    /// Its probabilities (at its temperature, over its first `classes` classes, as `revise` mixes
    /// them) of 28×28 images (784 values each), one row per image, with the row's length and its
    /// mix; nil when a deferred file fails to load. For callers that weigh many candidate answers
    /// against one opinion (`WriterAdaptation`).
    public func probabilities(pixels: [Float], classes: Int, threads: Int) -> (rows: [Float], classes: Int, mix: Float)? {
        guard let r = try? ready() else { return nil }
        let network = r.running.network
        let logits = BatchInference.logits(network, pixels: pixels, threads: threads)
        let n = network.classCount, used = min(classes, n), count = logits.count / n
        var out = [Float](repeating: 0, count: count * used)
        out.withUnsafeMutableBufferPointer { o in
            logits.withUnsafeBufferPointer { l in
                for i in 0..<count { dk_softmax(l.baseAddress! + i * n, used, r.model.temperature, o.baseAddress! + i * used) }
            }
        }
        return (out, used, r.mix)
    }

    /// Revises the rows of a batch (`probabilities`: `classes` values a row, for the images of
    /// `pixels`, 784 values each) whose compact answer is unsure, scoring those images in one batch.
    /// Returns how many were consulted.
    @discardableResult
    public func revise(rows probabilities: inout [Float], classes: Int, pixels: [Float], threshold: Float, threads: Int) -> Int {
        let rows = probabilities.count / classes
        let unsure = (0..<rows).filter { i in
            probabilities.withUnsafeBufferPointer { Self.isUnsure(UnsafeBufferPointer(rebasing: $0[(i * classes)..<((i + 1) * classes)]), threshold: threshold) }
        }
        guard !unsure.isEmpty else { return 0 }
        var images = [Float](repeating: 0, count: unsure.count * 784)
        for (k, i) in unsure.enumerated() { images.replaceSubrange((k * 784)..<((k + 1) * 784), with: pixels[(i * 784)..<((i + 1) * 784)]) }
        guard let second = self.probabilities(pixels: images, classes: classes, threads: threads) else { return 0 }
        consultations += unsure.count
        let used = second.classes
        for (k, i) in unsure.enumerated() {
            probabilities.withUnsafeMutableBufferPointer { p in
                second.rows.withUnsafeBufferPointer {
                    Self.combine(UnsafeMutableBufferPointer(rebasing: p[(i * classes)..<((i + 1) * classes)]),
                                 with: UnsafeBufferPointer(rebasing: $0[(k * used)..<((k + 1) * used)]), mix: second.mix)
                }
            }
        }
        return unsure.count
    }
}
