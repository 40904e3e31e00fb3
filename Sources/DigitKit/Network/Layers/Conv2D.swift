import DigitKernels
import Foundation

/// 2-D convolution with a square kernel, zero padding and a stride. Weight file: `conv2d`, tensors
/// `weight` `(out, in, kH, kW)` and `bias` `(out)` (PyTorch layouts). Training supports stride 1.
public struct Conv2D: Layer {
    public static let typeName: String? = "conv2d"
    public var weight: String
    public var bias: String?
    public var outChannels: Int
    public var kernel: Int
    public var stride: Int
    public var padding: Int

    /// A convolution whose tensors are `name.weight` and `name.bias`.
    public init(_ name: String, outChannels: Int, kernel: Int, padding: Int, stride: Int = 1) {
        weight = name + ".weight"
        bias = name + ".bias"
        self.outChannels = outChannels
        self.kernel = kernel
        self.stride = stride
        self.padding = padding
    }

    public init(entry: LayerEntry) throws {
        weight = try entry.string("weight")
        bias = try entry.optionalString("bias")
        stride = try entry.int("stride", default: 1, range: 1...16)
        padding = try entry.int("padding", default: 0, range: 0...16)
        let shape = try entry.tensorShape(named: weight, key: "weight", rank: 4)
        guard shape[2] == shape[3], (1...15).contains(shape[2]) else {
            throw entry.error("weight", "only square kernels of size 1...15 are supported, got \(shape[2])×\(shape[3])")
        }
        guard (1...1024).contains(shape[0]) else {
            throw DigitError(.limit, file: entry.file, at: entry.path, "\(shape[0]) output channels, at most 1024 are supported")
        }
        outChannels = shape[0]
        kernel = shape[2]
    }

    public var entryFields: [(key: String, value: String)]? {
        [("weight", JSONText.quote(weight))] + (bias.map { [("bias", JSONText.quote($0))] } ?? [])
            + [("stride", "\(stride)"), ("padding", "\(padding)")]
    }

    public var description: String { "conv\(outChannels)k\(kernel)p\(padding)" + (stride == 1 ? "" : "s\(stride)") }

    public func outputShape(for input: ActivationShape) throws -> ActivationShape {
        let hp = input.height + 2 * padding, wp = input.width + 2 * padding
        guard hp >= kernel, wp >= kernel else {
            throw DigitError(.format, "kernel \(kernel) is larger than the padded input \(hp)×\(wp)")
        }
        return ActivationShape(height: (hp - kernel) / stride + 1, width: (wp - kernel) / stride + 1, channels: outChannels)
    }

    public func tensors(for input: ActivationShape) -> [(name: String, shape: [Int])] {
        [(weight, [outChannels, input.channels, kernel, kernel])] + (bias.map { [($0, [outChannels])] } ?? [])
    }

    public func inference(input: ActivationShape, tensors: inout TensorReader) throws -> InferenceOp? {
        let cin = input.channels, k = kernel
        if let t = tensors.tensors[weight], t.shape.count == 4, t.shape[1] != cin {
            throw tensors.error("conv2d weight '\(weight)' expects \(t.shape[1]) input channels, the input has \(cin)")
        }
        let w = try tensors.values(weight, shape: [outChannels, cin, k, k])
        let b = try bias.map { try tensors.values($0, shape: [outChannels]) } ?? Array(repeating: 0, count: outChannels)
        return ConvInference(layer: self, input: input, output: try outputShape(for: input), weights: w, bias: b)
    }

    public func training(input: ActivationShape, capacity: Int, rng: inout SplitMix64) -> TrainingLayer {
        precondition(stride == 1, "training supports stride-1 convolutions only")
        return ConvTraining(layer: self, input: input, capacity: capacity, rng: &rng)
    }

    public func onnx(_ graph: inout ONNXGraph, input: String, tensors: [String: TensorData]) throws -> String {
        graph.node("Conv", [input] + (try graph.initializers([weight, bias], from: tensors)),
                   [.ints("kernel_shape", [kernel, kernel]), .ints("pads", [padding, padding, padding, padding]),
                    .ints("strides", [stride, stride])])
    }

    /// `(out, in, kH, kW)` → `(kH, kW, in, out)`, the kernels' layout.
    static func pack(_ w: [Float], cout: Int, cin: Int, k: Int, into packed: UnsafeMutablePointer<Float>) {
        for co in 0..<cout { for ci in 0..<cin { for ky in 0..<k { for kx in 0..<k {
            packed[((ky * k + kx) * cin + ci) * cout + co] = w[((co * cin + ci) * k + ky) * k + kx]
        } } } }
    }

    static func unpack(_ packed: UnsafePointer<Float>, cout: Int, cin: Int, k: Int) -> [Float] {
        var w = [Float](repeating: 0, count: cout * cin * k * k)
        for co in 0..<cout { for ci in 0..<cin { for ky in 0..<k { for kx in 0..<k {
            w[((co * cin + ci) * k + ky) * k + kx] = packed[((ky * k + kx) * cin + ci) * cout + co]
        } } } }
        return w
    }
}

/// The convolution at inference: a following batch norm folded into the weights and bias, ReLU
/// fused, weights packed for the kernels, and stride-1 3×3 layers with channel counts that are
/// multiples of 16 computed with Winograd's F(2×2, 3×3) (2.25× fewer multiply-adds), or
/// F(4×4, 3×3) (4× fewer) where that does fewer on the layer's output (`dk_winograd4_preferred`:
/// 14×14 and 7×7, not 5×5).
final class ConvInference: InferenceOp {
    let layer: Conv2D
    let geometry: dk_conv_geometry
    private var weights: [Float]   // (out, in, kH, kW) until `prepare`
    private var bias: [Float]
    private var foldedNorm = false
    private var packed: FloatBuffer?
    private var biasBuffer: FloatBuffer?
    private var winograd: FloatBuffer?
    /// Whether stride-1 3×3 convolutions may use Winograd (tests turn it off to compare).
    static var winogradAllowed = true

    init(layer: Conv2D, input: ActivationShape, output: ActivationShape, weights: [Float], bias: [Float]) {
        self.layer = layer
        let wp = input.width + 2 * layer.padding, hp = input.height + 2 * layer.padding
        geometry = dk_conv_geometry(padded_width: wp, in_channels: input.channels, kernel: layer.kernel,
                                    out_channels: layer.outChannels, out_height: hp - layer.kernel + 1,
                                    out_width: wp - layer.kernel + 1)
        self.weights = weights
        self.bias = bias
        super.init(input: input, output: output)
    }

    override var inputPadding: Int { layer.padding }
    override var writesRows: Bool { layer.stride == 1 }
    override var workingOutputFloats: Int { geometry.out_height * geometry.out_width * geometry.out_channels }
    override var scratchFloats: Int {
        switch winogradTile {
        case 4: return dk_winograd4_scratch_floats(geometry)
        case 2: return dk_winograd_scratch_floats(geometry)
        default: return 0
        }
    }
    override var multiplyAdds: Int { output.count * layer.kernel * layer.kernel * input.channels }
    override var parameterCount: Int { weights.count + (layer.bias == nil ? 0 : layer.outChannels) }
    override var name: String {
        "conv \(input.channels)→\(layer.outChannels) \(layer.kernel)×\(layer.kernel)" + (relu ? " +relu" : "") + " → \(output)"
    }
    override var summary: String {
        "conv2d \(input.channels)→\(layer.outChannels) \(layer.kernel)×\(layer.kernel) s\(layer.stride) p\(layer.padding)"
            + (foldedNorm ? " + batchnorm" : "") + (relu ? " + relu" : "")
    }

    /// The output tile of the Winograd kernel this layer runs: 4 (F(4×4, 3×3)), 2 (F(2×2, 3×3)) or
    /// 0 (direct); chosen once, when the network is built.
    private lazy var winogradTile: Int = {
        guard Self.winogradAllowed, layer.stride == 1 else { return 0 }
        if Self.winograd4Allowed, dk_winograd4_preferred(geometry) != 0 { return 4 }
        return dk_winograd_supports(geometry) != 0 ? 2 : 0
    }()
    /// Whether F(4×4, 3×3) may be chosen (tests turn it off to compare the two).
    static var winograd4Allowed = true

    override func fold(_ norm: ChannelNorm) -> Bool {
        guard packed == nil, !relu, !foldedNorm else { return false }
        let per = weights.count / layer.outChannels
        for co in 0..<layer.outChannels {
            let s = norm.scale[co]
            for j in 0..<per { weights[co * per + j] *= s }
            bias[co] = (bias[co] - norm.mean[co]) * s + norm.beta[co]
        }
        foldedNorm = true
        return true
    }

    override var canFuseReLU: Bool { true }

    /// Packs the weights once, on first use.
    private func prepare() {
        let cout = layer.outChannels, cin = input.channels, k = layer.kernel
        let p = FloatBuffer(count: weights.count)
        Conv2D.pack(weights, cout: cout, cin: cin, k: k, into: p.pointer)
        switch winogradTile {
        case 4:
            let u = FloatBuffer(count: 36 * cin * cout)
            dk_winograd4_transform_weights(p.pointer, cin, cout, u.pointer)
            winograd = u
        case 2:
            let u = FloatBuffer(count: 16 * cin * cout)
            dk_winograd_transform_weights(p.pointer, cin, cout, u.pointer)
            winograd = u
        default: break
        }
        packed = p
        biasBuffer = FloatBuffer(bias)
    }

    override func finish() { if packed == nil { prepare() } }

    override func run(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, outputRowStride: Int,
                      kernels: UnsafePointer<dk_kernels>, scratch: UnsafeMutablePointer<Float>) {
        guard let packed, let biasBuffer else { return }
        let k = kernels.pointee
        let g = geometry
        let fullStride = g.out_width * g.out_channels
        let rowStride = layer.stride == 1 ? outputRowStride : fullStride
        if let u = winograd {
            if winogradTile == 4 {
                k.winograd4_forward(g, input, u.pointer, biasBuffer.pointer, output, rowStride, relu ? 1 : 0, scratch)
            } else {
                k.winograd_forward(g, input, u.pointer, biasBuffer.pointer, output, rowStride, relu ? 1 : 0, scratch)
            }
        } else {
            k.conv_forward(g, input, packed.pointer, biasBuffer.pointer, output, rowStride, relu ? 1 : 0)
        }
        if layer.stride != 1 {
            // Computed at stride 1, then subsampled in place (an output index never exceeds its source).
            let c = g.out_channels, s = layer.stride
            for y in 0..<self.output.height {
                for x in 0..<self.output.width {
                    let src = output + ((y * s) * g.out_width + x * s) * c, dst = output + (y * self.output.width + x) * c
                    for j in 0..<c { dst[j] = src[j] }
                }
            }
        }
    }
}

/// The convolution as it trains (stride 1). Weights are kept packed `(kH, kW, Cin, Cout)` for
/// the kernels and exported in PyTorch's `(Cout, Cin, kH, kW)`. He initialization.
final class ConvTraining: TrainingLayer {
    let layer: Conv2D
    let weight: Parameter   // (kH, kW, Cin, Cout)
    let bias: Parameter     // (Cout)
    private let geometry: dk_conv_geometry
    /// The input gradient is a full convolution of the output gradient with the kernel rotated
    /// 180° and the channels swapped.
    private let backGeometry: dk_conv_geometry
    private let paddedCount: Int
    private let paddedInputs: FloatBuffer   // N × (H+2p) × (W+2p) × Cin, borders stay zero
    private let output: FloatBuffer
    private let dInput: FloatBuffer
    private var dOutPadded: [FloatBuffer] = []  // per chunk, (Ho+2q) × (Wo+2q) × Cout, q = k-1-p
    private let flipped: FloatBuffer        // (kH, kW, Cout, Cin)
    private let zeroBias: FloatBuffer

    init(layer: Conv2D, input: ActivationShape, capacity: Int, rng: inout SplitMix64) {
        self.layer = layer
        let k = layer.kernel, p = layer.padding
        let hp = input.height + 2 * p, wp = input.width + 2 * p
        let out = ActivationShape(height: hp - k + 1, width: wp - k + 1, channels: layer.outChannels)
        geometry = dk_conv_geometry(padded_width: wp, in_channels: input.channels, kernel: k, out_channels: out.channels,
                                    out_height: out.height, out_width: out.width)
        let q = k - 1 - p
        backGeometry = dk_conv_geometry(padded_width: out.width + 2 * q, in_channels: out.channels, kernel: k,
                                        out_channels: input.channels, out_height: input.height, out_width: input.width)
        paddedCount = hp * wp * input.channels
        let name = String(layer.weight.dropLast(".weight".count))
        weight = Parameter(name: layer.weight, count: k * k * input.channels * out.channels, decays: true)
        bias = Parameter(name: layer.bias ?? name + ".bias", count: out.channels, decays: false)
        paddedInputs = FloatBuffer(count: capacity * paddedCount)
        output = FloatBuffer(count: capacity * out.count)
        dInput = FloatBuffer(count: capacity * input.count)
        flipped = FloatBuffer(count: weight.count)
        zeroBias = FloatBuffer(count: input.channels)
        super.init(inShape: input, outShape: out, capacity: capacity)
        // He initialization for ReLU networks: N(0, 2 / fan_in).
        let std = (2 / Float(k * k * input.channels)).squareRoot()
        for i in 0..<weight.count { weight.value[i] = rng.normal() * std }
    }

    override var parameters: [Parameter] { [weight, bias] }
    override var multiplyAdds: Int { outShape.count * layer.kernel * layer.kernel * inShape.channels }

    override func forward(_ x: FloatBuffer, _ ctx: BatchContext) -> FloatBuffer {
        let g = geometry, inCount = inShape.count, outCount = outShape.count, k = dk_active()!
        let s = inShape, rowStride = g.out_width * g.out_channels
        ctx.parallel { _, images in
            for n in images {
                let padded = paddedInputs.pointer + n * paddedCount
                dk_pad_image(x.pointer + n * inCount, s.height, s.width, s.channels, layer.padding, padded)
                k.pointee.conv_forward(g, padded, weight.value.pointer, bias.value.pointer, output.pointer + n * outCount, rowStride, 0)
            }
        }
        return output
    }

    override func backward(_ dy: FloatBuffer, _ ctx: BatchContext, needInputGrad: Bool) -> FloatBuffer? {
        let cin = inShape.channels, cout = outShape.channels, k = layer.kernel
        if needInputGrad {
            for ky in 0..<k { for kx in 0..<k { for ci in 0..<cin { for co in 0..<cout {
                flipped[((ky * k + kx) * cout + co) * cin + ci] = weight.value[(((k - 1 - ky) * k + (k - 1 - kx)) * cin + ci) * cout + co]
            } } } }
            let q = k - 1 - layer.padding
            let size = (outShape.height + 2 * q) * (outShape.width + 2 * q) * cout
            while dOutPadded.count < ctx.chunks.count { dOutPadded.append(FloatBuffer(count: size)) }
        }
        let g = geometry, bg = backGeometry, inCount = inShape.count, outCount = outShape.count, kernels = dk_active()!
        let o = outShape
        ctx.parallel { chunk, images in
            let dW = weight.chunkGrads[chunk].pointer, dB = bias.chunkGrads[chunk].pointer
            for n in images {
                let d = dy.pointer + n * outCount
                kernels.pointee.conv_weight_grad(g, paddedInputs.pointer + n * paddedCount, d, dW, dB)
                if needInputGrad {
                    let scratch = dOutPadded[chunk].pointer
                    dk_pad_image(d, o.height, o.width, cout, k - 1 - layer.padding, scratch)
                    kernels.pointee.conv_forward(bg, scratch, flipped.pointer, zeroBias.pointer, dInput.pointer + n * inCount,
                                                 bg.out_width * bg.out_channels, 0)
                }
            }
        }
        return needInputGrad ? dInput : nil
    }

    override func exportTensors() -> [String: TensorData] {
        let cin = inShape.channels, cout = outShape.channels
        return [weight.name: TensorData(shape: [cout, cin, layer.kernel, layer.kernel],
                                        values: Conv2D.unpack(weight.value.pointer, cout: cout, cin: cin, k: layer.kernel)),
                bias.name: TensorData(shape: [cout], values: bias.value.array)]
    }

    override func importTensors(_ tensors: [String: TensorData]) {
        if let w = tensors[weight.name] {
            Conv2D.pack(w.values, cout: outShape.channels, cin: inShape.channels, k: layer.kernel, into: weight.value.pointer)
        }
        if let b = tensors[bias.name] { bias.value.set(b.values) }
    }
}
