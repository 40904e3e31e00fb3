import DigitKernels
import Foundation

/// A kind of layer. Each kind is one file in `Network/Layers/`: what the layer is (its settings,
/// its entry in a weight file's `layers` list and the names of its tensors), how it runs at
/// inference, how it trains (forward and backward) and its ONNX operators. A network is a list of layers
/// (`Architecture`), and `LayerKinds.all` lists the kinds a weight file may name.
public protocol Layer: Sendable, CustomStringConvertible {
    /// The `type` of the layer in a weight file, or nil for a layer that acts only in training
    /// (dropout), which the file leaves out.
    static var typeName: String? { get }

    /// Reads the layer from its entry in a weight file (never called for kinds without a type name).
    init(entry: LayerEntry) throws

    /// The entry's keys after `"type"`, in a fixed order, each with its value as JSON text
    /// (`JSONText.quote` for a string; a number's own text, which the file keeps as it was written);
    /// nil for training-only layers.
    var entryFields: [(key: String, value: String)]? { get }

    /// The activation this layer makes from `input`; throws a message (the caller adds the file and
    /// the layer) when the input does not fit.
    func outputShape(for input: ActivationShape) throws -> ActivationShape

    /// The tensors the layer owns and their shapes for this input: what training exports and what a
    /// weight file must hold.
    func tensors(for input: ActivationShape) -> [(name: String, shape: [Int])]

    /// The operation that runs the layer at inference, from its tensors; nil when it does nothing
    /// at inference (flatten of an NHWC activation, dropout).
    func inference(input: ActivationShape, tensors: inout TensorReader) throws -> InferenceOp?

    /// The layer as it trains, with freshly initialized parameters.
    func training(input: ActivationShape, capacity: Int, rng: inout SplitMix64) -> TrainingLayer

    /// Appends the layer to an ONNX graph as the operators PyTorch would export (NCHW, the weight
    /// file's tensors unchanged, added from `tensors`); `input` names its input value. Returns the
    /// name of its output value (`input` itself for a layer that does nothing at inference).
    /// No default: a new kind states its export, so `ModelFile.onnx()` never skips one silently.
    func onnx(_ graph: inout ONNXGraph, input: String, tensors: [String: TensorData]) throws -> String
}

extension Layer {
    public func tensors(for input: ActivationShape) -> [(name: String, shape: [Int])] { [] }

    /// The JSON object of the layer's entry: `{"type":"conv2d","weight":"conv1.weight",…}`.
    public var entryJSON: String? {
        guard let type = Self.typeName, let fields = entryFields else { return nil }
        var writer = JSONWriter()
        writer.object { o in
            o.member("type", type)
            for field in fields { o.member(field.key, json: field.value) }
        }
        return writer.text
    }
}

/// Height, width, channels of an activation (NHWC, one image).
public struct ActivationShape: Equatable, Sendable, CustomStringConvertible {
    public var height: Int, width: Int, channels: Int
    public init(height: Int, width: Int, channels: Int) {
        self.height = height
        self.width = width
        self.channels = channels
    }
    public var count: Int { height * width * channels }
    public var description: String { "\(channels)×\(height)×\(width)" }
}

/// One entry of a weight file's `layers` list being read: typed access to its keys, with errors
/// that name the file and the key (`layers[3].kernel`), and the shapes of the file's tensors.
public struct LayerEntry {
    public let fields: [JSONMember]
    /// `layers[3]`.
    public let path: String
    public let file: String
    public let tensors: [String: TensorData]

    public func value(_ key: String) -> JSONValue? { fields.first { $0.key == key }?.value }

    public func error(_ key: String?, _ message: String) -> DigitError {
        DigitError(.format, file: file, at: key.map { "\(path).\($0)" } ?? path, message)
    }

    public func optionalString(_ key: String) throws -> String? {
        guard let v = value(key) else { return nil }
        guard case let .string(s) = v else { throw error(key, "expected a string") }
        return s
    }

    public func string(_ key: String) throws -> String {
        guard let s = try optionalString(key) else { throw error(key, "missing") }
        return s
    }

    public func int(_ key: String, default fallback: Int? = nil, range: ClosedRange<Int>) throws -> Int {
        guard let v = value(key) else {
            if let fallback { return fallback }
            throw error(key, "missing")
        }
        guard case let .number(d) = v, d == d.rounded(), let n = Int(exactly: d), range.contains(n) else {
            throw error(key, "expected an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return n
    }

    public func number(_ key: String, default fallback: Double, range: ClosedRange<Double>) throws -> Double {
        guard let v = value(key) else { return fallback }
        guard case let .number(d) = v, range.contains(d) else {
            throw error(key, "expected a number in \(range.lowerBound)...\(range.upperBound)")
        }
        return d
    }

    /// The shape of the tensor named by the string at `key`, which must be in the file with `rank` dimensions.
    public func tensorShape(named name: String, key: String, rank: Int) throws -> [Int] {
        guard let t = tensors[name] else { throw error(key, "tensor '\(name)' is not in the file") }
        guard t.shape.count == rank else {
            throw error(key, "tensor '\(name)' has shape \(t.shape), not \(rank)-D")
        }
        return t.shape
    }
}

/// The tensors of a weight file as the inference network reads them: each read checks the shape
/// and that every value is finite, and marks the tensor used (a tensor no layer uses is an error).
public struct TensorReader {
    public let tensors: [String: TensorData]
    public let file: String
    /// The layer being read, for errors: `layers[2]`.
    public var path = ""
    public private(set) var used = Set<String>()

    public init(tensors: [String: TensorData], file: String) {
        self.tensors = tensors
        self.file = file
    }

    public func error(_ message: String, kind: DigitError.Kind = .format) -> DigitError {
        DigitError(kind, file: file, at: path, message)
    }

    public mutating func values(_ name: String, shape expected: [Int]) throws -> [Float] {
        guard let t = tensors[name] else { throw error("tensor '\(name)' is not in the file") }
        guard t.shape == expected else { throw error("tensor '\(name)' has shape \(t.shape), expected \(expected)") }
        if let bad = t.values.firstIndex(where: { !$0.isFinite }) {
            throw error("tensor '\(name)' value \(bad) is \(t.values[bad]): weights must be finite")
        }
        used.insert(name)
        return t.values
    }
}

/// One operation of the inference network. The network hands each op its input and output
/// buffers: an op with `inputPadding > 0` reads a zero-bordered copy of its input (which the
/// op before may write straight into, when `writesRows`), and ops write rows `outputRowStride`
/// floats apart.
public class InferenceOp {
    public let input: ActivationShape
    public let output: ActivationShape
    public init(input: ActivationShape, output: ActivationShape) {
        self.input = input
        self.output = output
    }

    /// Zero border the op wants around its input (a padded convolution).
    public var inputPadding: Int { 0 }
    /// Whether `run` can write output rows at any stride (so straight into the next op's padded buffer).
    public var writesRows: Bool { false }
    /// Whether `run` may be given the same buffer as input and output.
    public var inPlace: Bool { false }
    /// Scratch floats `run` needs beyond its input and output.
    public var scratchFloats: Int { 0 }
    /// Floats the output buffer needs while `run` works (a strided convolution computes every
    /// position first).
    public var workingOutputFloats: Int { output.count }
    public var multiplyAdds: Int { 0 }
    public var parameterCount: Int { 0 }
    /// `conv 16→32 3×3 +relu`.
    public var name: String { "op" }
    /// The row of `digits info`: `conv2d 16→32 3×3 s1 p1 + batchnorm + relu`.
    public var summary: String { name }

    /// Absorbs a per-channel affine map that follows (a batch norm); false when it cannot.
    public func fold(_ norm: ChannelNorm) -> Bool { false }
    /// Whether the op can apply ReLU to its own output (`fuseReLU`).
    public var canFuseReLU: Bool { false }
    /// Set when a ReLU that followed was fused into this op.
    public internal(set) var relu = false
    /// Applies ReLU to its own output from now on; false when it cannot (or already does).
    public func fuseReLU() -> Bool {
        guard canFuseReLU, !relu else { return false }
        relu = true
        return true
    }
    /// Called once after fusion, before the first image (packs weights).
    public func finish() {}

    public func run(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, outputRowStride: Int,
                    kernels: UnsafePointer<dk_kernels>, scratch: UnsafeMutablePointer<Float>) {}
}

/// A per-channel map `y = (x - mean) * scale + beta`: a batch norm at inference, which the
/// operation before it may absorb.
public struct ChannelNorm: Sendable {
    public var mean: [Float], scale: [Float], beta: [Float]
    public init(mean: [Float], scale: [Float], beta: [Float]) {
        self.mean = mean
        self.scale = scale
        self.beta = beta
    }
}

/// A layer as it trains: `forward` and `backward` side by side; backward accumulates (+=) into the
/// per-chunk gradient buffers of its parameters. Activations are NHWC, a batch is N images back to
/// back, split into fixed chunks (`BatchContext`) that run in parallel.
public class TrainingLayer {
    public let inShape: ActivationShape
    public let outShape: ActivationShape
    public let capacity: Int

    public init(inShape: ActivationShape, outShape: ActivationShape, capacity: Int) {
        self.inShape = inShape
        self.outShape = outShape
        self.capacity = capacity
    }

    public var parameters: [Parameter] { [] }
    /// Multiply-adds of the forward pass for one image.
    public var multiplyAdds: Int { 0 }

    public func forward(_ x: FloatBuffer, _ ctx: BatchContext) -> FloatBuffer { x }

    /// The gradient with respect to the input, or nil when `needInputGrad` is false.
    public func backward(_ dy: FloatBuffer, _ ctx: BatchContext, needInputGrad: Bool) -> FloatBuffer? { dy }

    /// Its tensors in the weight file's layouts.
    public func exportTensors() -> [String: TensorData] { [:] }
    /// Loads tensors written by `exportTensors` (shapes already checked by the caller).
    public func importTensors(_ tensors: [String: TensorData]) {}
}

/// The batch being processed: its size, its fixed split into chunks, and the thread count.
/// All cross-image sums are combined in chunk order, so a run is deterministic for a given seed
/// whatever the thread count.
public struct BatchContext {
    public var count: Int
    public var chunks: [Range<Int>]
    public var threads: Int
    public var training: Bool
    /// Seeds dropout masks: image `n` of this step uses `SplitMix64(seed: stepSeed).derived(n)`.
    public var stepSeed: UInt64

    public static let chunkSize = 8

    public init(count: Int, threads: Int, training: Bool, stepSeed: UInt64) {
        self.count = count
        chunks = stride(from: 0, to: count, by: Self.chunkSize).map { $0..<min($0 + Self.chunkSize, count) }
        self.threads = threads
        self.training = training
        self.stepSeed = stepSeed
    }

    public func parallel(_ body: (_ chunk: Int, _ images: Range<Int>) -> Void) {
        Parallel.run(tasks: chunks.count, threads: threads) { c in body(c, chunks[c]) }
    }
}

/// A trainable tensor with its gradient. Each chunk of the batch accumulates into its own gradient
/// buffer (so threads never share one); `reduce` sums the chunks in chunk order, which makes the
/// result independent of the thread count.
public final class Parameter {
    public let name: String
    public let value: FloatBuffer
    public let grad: FloatBuffer
    public private(set) var chunkGrads: [FloatBuffer] = []
    /// Weight decay applies to conv and linear weights, not to biases or batch-norm parameters.
    public let decays: Bool

    public init(name: String, count: Int, decays: Bool) {
        self.name = name
        value = FloatBuffer(count: count)
        grad = FloatBuffer(count: count)
        self.decays = decays
    }

    public var count: Int { value.count }

    func prepare(chunks: Int) {
        while chunkGrads.count < chunks { chunkGrads.append(FloatBuffer(count: count)) }
        for g in chunkGrads { g.zero() }
    }

    func reduce(chunks: Int) {
        grad.zero()
        for c in 0..<chunks { dk_add(grad.pointer, chunkGrads[c].pointer, count) }
    }
}
