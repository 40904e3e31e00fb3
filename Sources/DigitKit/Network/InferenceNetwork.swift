import Foundation

/// A named tensor as stored in a weight file: PyTorch layout, row-major, F32.
public typealias TensorData = SafetensorsFile.Tensor

extension SafetensorsFile.Tensor {
    public var count: Int { shape.reduce(1, *) }
}

/// Height, width, channels of an activation (NHWC, one image).
public struct ActivationShape: Equatable, Sendable, CustomStringConvertible {
    public var height: Int, width: Int, channels: Int
    public var count: Int { height * width * channels }
    public var description: String { "\(channels)×\(height)×\(width)" }
}

/// The inference network built from a `layers` description and its tensors: batch norm folded
/// into the preceding convolution, ReLU fused into the layer before it, weights packed once for
/// the SIMD kernels, and no allocation per image (each thread reuses one `Workspace`).
///
/// Input: 28×28 pixels in 0…1 (0 = background, 1 = ink), normalized inside as `(x - mean) / std`.
/// Output: 10 logits.
public final class InferenceNetwork: @unchecked Sendable {
    enum Op {
        case conv(ConvOp)
        case affine(scale: FloatBuffer, shift: FloatBuffer, relu: Bool)
        case relu
        case maxPool(kernel: Int, stride: Int)
        case avgPool(kernel: Int, stride: Int)
        case globalAvgPool
        case linear(LinearOp)
    }

    struct ConvOp {
        var geometry: ConvGeometry
        var padding: Int
        var stride: Int
        var weights: FloatBuffer  // (kH, kW, Cin, Cout)
        var bias: FloatBuffer     // (Cout)
        var relu: Bool
        /// Weights transformed for `Winograd.forward` when that kernel runs this convolution.
        var winograd: FloatBuffer?
    }

    struct LinearOp {
        var inCount: Int, outCount: Int, outPadded: Int
        /// `(in [NHWC order], outPadded)` for `linearForward`, or, when `rows`, `(out, in [NHWC
        /// order])` for `linearForwardRows` (fewer than 16 outputs).
        var weights: FloatBuffer
        var rows: Bool
        var bias: FloatBuffer
        var relu: Bool
    }

    public static let inputSize = 28
    public let classCount: Int
    /// The compiled copy of the kernels this network runs (see `KernelVariant`).
    public let kernels: KernelVariant
    public let inputMean: Float
    public let inputStd: Float
    /// Multiply-adds per image and parameter count of the described network.
    public private(set) var multiplyAdds = 0
    public private(set) var parameterCount = 0
    /// A human-readable row per layer: type, output shape, parameters, multiply-adds.
    public private(set) var summary: [(layer: String, output: String, parameters: Int, multiplyAdds: Int)] = []

    private(set) var ops: [(Op, input: ActivationShape, output: ActivationShape)] = []
    private var maxActivation = 0
    /// Size of the zero-bordered input buffer of each op (0 when it needs none). Each padded
    /// convolution owns its buffer so that its border, zeroed once, is never overwritten.
    private var paddedSizes: [Int] = []
    /// `writesPadded[i + 1]` is true when op `i` (or the input normalization, for `i == -1`) writes
    /// its output straight into the interior of op `i + 1`'s zero-bordered input, saving a copy.
    private var writesPadded: [Bool] = []
    /// Scratch floats of the largest Winograd convolution (0 when none runs through it).
    private var winogradScratch = 0

    /// Builds and validates the network. Every tensor is checked against the layer that uses it;
    /// failures name the layer (`layers[2]`) and the tensor.
    ///
    /// Stride-1 3×3 convolutions with channel counts that are multiples of 16 run through
    /// `Winograd.forward` (2.25× fewer multiply-adds) unless `winograd` is false; the others, and all
    /// of them with `winograd: false`, through the direct kernels of `convForward`. `kernels` is the
    /// compiled copy of the kernels that runs (default: the best this CPU runs, `KernelVariant.active`;
    /// a copy this build or CPU does not have falls back to `.builtIn`, which runs everywhere).
    public init(layers: [LayerSpec], tensors: [String: TensorData], inputMean: Float, inputStd: Float,
                file: String = "weights", winograd: Bool = true, kernels: KernelVariant = .active) throws {
        guard inputStd > 0, inputStd.isFinite, inputMean.isFinite else {
            throw DigitError(.format, file: file, at: "metadata", "input_mean/input_std must be finite and std > 0")
        }
        self.kernels = KernelVariant.available.contains(kernels) ? kernels : .builtIn
        self.inputMean = inputMean
        self.inputStd = inputStd
        var shape = ActivationShape(height: Self.inputSize, width: Self.inputSize, channels: 1)
        var flattened = false
        var used = Set<String>()
        maxActivation = shape.count

        func tensor(_ name: String, _ path: String, shape expected: [Int]) throws -> [Float] {
            guard let t = tensors[name] else {
                throw DigitError(.format, file: file, at: path, "tensor '\(name)' is not in the file")
            }
            guard t.shape == expected else {
                throw DigitError(.format, file: file, at: path,
                                 "tensor '\(name)' has shape \(t.shape), expected \(expected)")
            }
            if let bad = t.values.firstIndex(where: { !$0.isFinite }) {
                throw DigitError(.format, file: file, at: path,
                                 "tensor '\(name)' value \(bad) is \(t.values[bad]): weights must be finite")
            }
            used.insert(name)
            return t.values
        }

        var i = 0
        while i < layers.count {
            let path = "layers[\(i)]"
            let input = shape
            let nextIsReLU = i + 1 < layers.count && layers[i + 1] == .relu
            switch layers[i] {
            case let .conv2d(wName, bName, stride, padding):
                guard !flattened else { throw DigitError(.format, file: file, at: path, "conv2d after flatten") }
                guard let w = tensors[wName], w.shape.count == 4 else {
                    throw DigitError(.format, file: file, at: path, "conv2d weight '\(wName)' missing or not 4-D (out, in, kH, kW)")
                }
                let (cout, cin, kh, kw) = (w.shape[0], w.shape[1], w.shape[2], w.shape[3])
                guard cin == shape.channels else {
                    throw DigitError(.format, file: file, at: path,
                                     "conv2d weight '\(wName)' expects \(cin) input channels, the input has \(shape.channels)")
                }
                guard kh == kw, (1...15).contains(kh) else {
                    throw DigitError(.format, file: file, at: path, "only square kernels of size 1...15 are supported, got \(kh)×\(kw)")
                }
                guard (1...1024).contains(cout) else {
                    throw DigitError(.limit, file: file, at: path, "\(cout) output channels, at most 1024 are supported")
                }
                var weights = try tensor(wName, path, shape: [cout, cin, kh, kw])
                var bias = try bName.map { try tensor($0, path + ".bias", shape: [cout]) } ?? Array(repeating: 0, count: cout)
                let hp = shape.height + 2 * padding, wp = shape.width + 2 * padding
                guard hp >= kh, wp >= kw else {
                    throw DigitError(.format, file: file, at: path, "kernel \(kh) is larger than the padded input \(hp)×\(wp)")
                }
                var consumed = 1
                // Fold a following batch norm into this convolution.
                if i + 1 < layers.count, case let .batchnorm2d(g, b, m, v, eps) = layers[i + 1] {
                    let bp = "layers[\(i + 1)]"
                    let gamma = try tensor(g, bp, shape: [cout]), beta = try tensor(b, bp, shape: [cout])
                    let mean = try tensor(m, bp, shape: [cout]), variance = try tensor(v, bp, shape: [cout])
                    for co in 0..<cout {
                        guard variance[co] >= 0 else {
                            throw DigitError(.format, file: file, at: bp, "running_var[\(co)] is negative")
                        }
                        let s = gamma[co] / (variance[co] + Float(eps)).squareRoot()
                        for j in 0..<(cin * kh * kw) { weights[co * cin * kh * kw + j] *= s }
                        bias[co] = (bias[co] - mean[co]) * s + beta[co]
                    }
                    consumed += 1
                }
                let relu = i + consumed < layers.count && layers[i + consumed] == .relu
                if relu { consumed += 1 }
                let ho = (hp - kh) / stride + 1, wo = (wp - kw) / stride + 1
                // Pack (out, in, kH, kW) → (kH, kW, in, out).
                let packed = FloatBuffer(count: weights.count)
                for co in 0..<cout {
                    for ci in 0..<cin {
                        for ky in 0..<kh {
                            for kx in 0..<kw {
                                packed[((ky * kw + kx) * cin + ci) * cout + co] = weights[((co * cin + ci) * kh + ky) * kw + kx]
                            }
                        }
                    }
                }
                let geometry = ConvGeometry(paddedWidth: wp, inChannels: cin, kernel: kh, outChannels: cout,
                                            outHeight: hp - kh + 1, outWidth: wp - kw + 1)
                shape = ActivationShape(height: ho, width: wo, channels: cout)
                var transformed: FloatBuffer?
                if winograd && stride == 1 && Winograd.supports(geometry) {
                    transformed = Winograd.transformWeights(packed.pointer, inChannels: cin, outChannels: cout)
                    winogradScratch = max(winogradScratch, Winograd.scratchFloats(geometry))
                }
                let op = ConvOp(geometry: geometry, padding: padding, stride: stride, weights: packed,
                                bias: FloatBuffer(bias), relu: relu, winograd: transformed)
                ops.append((.conv(op), input, shape))
                paddedSizes.append(padding > 0 ? hp * wp * cin : 0)
                // A strided convolution is computed at stride 1 and subsampled.
                maxActivation = max(maxActivation, stride == 1 ? shape.count : geometry.outHeight * geometry.outWidth * cout)
                let macs = ho * wo * cout * cin * kh * kw
                multiplyAdds += macs
                parameterCount += cout * cin * kh * kw + (bName == nil ? 0 : cout)
                summary.append(("conv2d \(cin)→\(cout) \(kh)×\(kw) s\(stride) p\(padding)" + (consumed > 1 && !(consumed == 2 && relu) ? " + batchnorm" : "") + (relu ? " + relu" : ""),
                                shape.description, cout * cin * kh * kw + (bName == nil ? 0 : cout), macs))
                i += consumed
                continue
            case let .batchnorm2d(g, b, m, v, eps):
                let c = shape.channels
                let gamma = try tensor(g, path, shape: [c]), beta = try tensor(b, path, shape: [c])
                let mean = try tensor(m, path, shape: [c]), variance = try tensor(v, path, shape: [c])
                let scale = FloatBuffer(count: c), shift = FloatBuffer(count: c)
                for k in 0..<c {
                    guard variance[k] >= 0 else { throw DigitError(.format, file: file, at: path, "running_var[\(k)] is negative") }
                    scale[k] = gamma[k] / (variance[k] + Float(eps)).squareRoot()
                    shift[k] = beta[k] - mean[k] * scale[k]
                }
                paddedSizes.append(0); ops.append((.affine(scale: scale, shift: shift, relu: nextIsReLU), input, shape))
                parameterCount += 2 * c
                summary.append(("batchnorm2d \(c)" + (nextIsReLU ? " + relu" : ""), shape.description, 2 * c, 0))
                i += nextIsReLU ? 2 : 1
                continue
            case .relu:
                paddedSizes.append(0); ops.append((.relu, input, shape))
                summary.append(("relu", shape.description, 0, 0))
            case let .maxpool2d(k, s), let .avgpool2d(k, s):
                guard !flattened else { throw DigitError(.format, file: file, at: path, "pooling after flatten") }
                guard shape.height >= k, shape.width >= k else {
                    throw DigitError(.format, file: file, at: path, "pool kernel \(k) is larger than the input \(shape)")
                }
                shape = ActivationShape(height: (shape.height - k) / s + 1, width: (shape.width - k) / s + 1, channels: shape.channels)
                if case .maxpool2d = layers[i] {
                    paddedSizes.append(0); ops.append((.maxPool(kernel: k, stride: s), input, shape))
                    summary.append(("maxpool2d \(k)×\(k) s\(s)", shape.description, 0, 0))
                } else {
                    paddedSizes.append(0); ops.append((.avgPool(kernel: k, stride: s), input, shape))
                    summary.append(("avgpool2d \(k)×\(k) s\(s)", shape.description, 0, 0))
                }
            case .globalAvgPool:
                guard !flattened else { throw DigitError(.format, file: file, at: path, "pooling after flatten") }
                shape = ActivationShape(height: 1, width: 1, channels: shape.channels)
                paddedSizes.append(0); ops.append((.globalAvgPool, input, shape))
                summary.append(("global_avgpool", shape.description, 0, 0))
            case .flatten:
                flattened = true
                summary.append(("flatten", "\(shape.count)", 0, 0))
            case let .linear(wName, bName):
                guard flattened || (shape.height == 1 && shape.width == 1) else {
                    throw DigitError(.format, file: file, at: path, "linear needs a flatten (or global_avgpool) before it")
                }
                guard let w = tensors[wName], w.shape.count == 2 else {
                    throw DigitError(.format, file: file, at: path, "linear weight '\(wName)' missing or not 2-D (out, in)")
                }
                let (outCount, inCount) = (w.shape[0], w.shape[1])
                guard inCount == shape.count else {
                    throw DigitError(.format, file: file, at: path,
                                     "linear weight '\(wName)' expects \(inCount) inputs, the input has \(shape.count)")
                }
                guard (1...65536).contains(outCount) else {
                    throw DigitError(.limit, file: file, at: path, "\(outCount) outputs is out of range")
                }
                let weights = try tensor(wName, path, shape: [outCount, inCount])
                let bias = try bName.map { try tensor($0, path + ".bias", shape: [outCount]) } ?? Array(repeating: 0, count: outCount)
                let rows = outCount < 16
                let outPadded = rows ? outCount : (outCount + 15) / 16 * 16
                guard inCount * outPadded <= Self.maxBufferFloats else {
                    throw DigitError(.limit, file: file, at: path,
                                     "linear \(inCount)→\(outCount) needs \(inCount * outPadded) packed weights, more than the limit of \(Self.maxBufferFloats)")
                }
                let packed = FloatBuffer(count: inCount * outPadded)
                // PyTorch flattens NCHW; our activations are NHWC: permute the columns once here.
                let (h, wd, c) = (shape.height, shape.width, shape.channels)
                for o in 0..<outCount {
                    for ch in 0..<c {
                        for y in 0..<h {
                            for x in 0..<wd {
                                let i = (y * wd + x) * c + ch
                                packed[rows ? o * inCount + i : i * outPadded + o] = weights[o * inCount + (ch * h + y) * wd + x]
                            }
                        }
                    }
                }
                let relu = nextIsReLU
                shape = ActivationShape(height: 1, width: 1, channels: outCount)
                paddedSizes.append(0); ops.append((.linear(LinearOp(inCount: inCount, outCount: outCount, outPadded: outPadded, weights: packed, rows: rows,
                                             bias: FloatBuffer(bias), relu: relu)), input, shape))
                multiplyAdds += inCount * outCount
                parameterCount += inCount * outCount + (bName == nil ? 0 : outCount)
                summary.append(("linear \(inCount)→\(outCount)" + (relu ? " + relu" : ""), "\(outCount)",
                                inCount * outCount + (bName == nil ? 0 : outCount), inCount * outCount))
                i += relu ? 2 : 1
                continue
            }
            maxActivation = max(maxActivation, shape.count)
            i += 1
        }
        maxActivation = max(maxActivation, shape.count)
        guard shape.height == 1, shape.width == 1, shape.channels == 10 else {
            throw DigitError(.format, file: file, at: "layers", "the network must end with 10 outputs, it ends with \(shape)")
        }
        classCount = 10
        if let unused = tensors.keys.filter({ !used.contains($0) }).sorted().first {
            throw DigitError(.format, file: file, at: "tensor '\(unused)'", "is not used by any layer")
        }
        guard multiplyAdds <= 1_000_000_000 else {
            throw DigitError(.limit, file: file, at: "layers", "\(multiplyAdds) multiply-adds per image is beyond the limit of 10^9")
        }
        // The workspace is allocated per thread from these sizes, which a hostile `layers` list
        // (say, many padded 1×1 convolutions) could otherwise blow up to gigabytes.
        let workspaceFloats = 2 * maxActivation + paddedSizes.reduce(0, +) + winogradScratch
        guard workspaceFloats <= Self.maxWorkspaceFloats else {
            throw DigitError(.limit, file: file, at: "layers",
                             "the activations need \(workspaceFloats) floats of scratch memory per thread, more than the limit of \(Self.maxWorkspaceFloats)")
        }
        writesPadded = (-1..<ops.count).map { i in
            guard i + 1 < ops.count, case let .conv(next) = ops[i + 1].0, next.padding > 0 else { return false }
            if i < 0 { return true }
            switch ops[i].0 {
            case let .conv(c): return c.stride == 1
            case let .maxPool(k, s): return k == 2 && s == 2
            default: return false
            }
        }
    }

    /// The most scratch memory one `Workspace` may need, in floats: 2^24 (64 MiB). The shipped
    /// network needs about 89,000 (350 KB), 50,000 of them for the Winograd tiles of its widest layer.
    public static let maxWorkspaceFloats = 1 << 24
    /// The most floats in one packed weight buffer: 2^24 (64 MiB, the weight file's own size limit).
    public static let maxBufferFloats = 1 << 24

    /// Scratch memory for one thread: two activation buffers, the padded-input buffers and the
    /// Winograd kernel's transformed tiles.
    public final class Workspace: @unchecked Sendable {
        let a: FloatBuffer, b: FloatBuffer
        let padded: [FloatBuffer]
        let winograd: FloatBuffer
        init(activation: Int, padded: [Int], winograd: Int) {
            a = FloatBuffer(count: activation)
            b = FloatBuffer(count: activation)
            self.padded = padded.map { FloatBuffer(count: $0) }
            self.winograd = FloatBuffer(count: winograd)
        }
    }

    public func makeWorkspace() -> Workspace { Workspace(activation: maxActivation, padded: paddedSizes, winograd: winogradScratch) }

    /// Logits of one 28×28 image (`pixels`: 784 values in 0…1) into `logits` (10 values).
    /// Allocates nothing; single-threaded.
    public func logits(pixels: UnsafePointer<Float>, workspace ws: Workspace, into logits: UnsafeMutablePointer<Float>) {
        run(pixels: pixels, workspace: ws, into: logits, opNanoseconds: nil)
    }

    /// The interior of op `i`'s padded input buffer and its row stride in floats.
    @inline(__always)
    private func paddedInterior(_ i: Int, _ ws: Workspace) -> (UnsafeMutablePointer<Float>, Int) {
        guard case let .conv(c) = ops[i].0 else { return (ws.padded[i].pointer, 0) }
        let wp = c.geometry.paddedWidth, cin = c.geometry.inChannels
        return (ws.padded[i].pointer + (c.padding * wp + c.padding) * cin, wp * cin)
    }

    /// The forward pass; when `opNanoseconds` is given, adds each op's CPU time on this thread to it
    /// (one entry per op, index 0 also counting the input normalization).
    func run(pixels: UnsafePointer<Float>, workspace ws: Workspace, into logits: UnsafeMutablePointer<Float>,
             opNanoseconds: UnsafeMutablePointer<UInt64>?) {
        var cur = ws.a.pointer, other = ws.b.pointer
        let direct = writesPadded
        var clock = opNanoseconds == nil ? 0 : threadCPUNanoseconds()
        let side = Self.inputSize
        let scale = 1 / inputStd, mean = inputMean
        if direct[0] {
            let (dst, rowStride) = paddedInterior(0, ws)
            for y in 0..<side {
                for x in 0..<side { dst[y * rowStride + x] = (pixels[y * side + x] - mean) * scale }
            }
        } else {
            for i in 0..<(side * side) { cur[i] = (pixels[i] - mean) * scale }
        }
        for index in ops.indices {
            let (op, input, output) = ops[index]
            let toPadded = direct[index + 1]
            switch op {
            case let .conv(c):
                var src = UnsafePointer(cur)
                if direct[index] {
                    src = UnsafePointer(ws.padded[index].pointer)
                } else if c.padding > 0 {
                    // Border stays zero: only the interior is ever written.
                    padImage(cur, height: input.height, width: input.width, channels: input.channels, pad: c.padding,
                             into: ws.padded[index].pointer)
                    src = UnsafePointer(ws.padded[index].pointer)
                }
                let (dst, rowStride) = toPadded ? paddedInterior(index + 1, ws) : (other, c.geometry.outWidth * c.geometry.outChannels)
                if let u = c.winograd {
                    Kernel.winogradForward(c.geometry, input: src, weights: u.pointer, bias: c.bias.pointer, output: dst,
                                           outputRowStride: rowStride, relu: c.relu, scratch: ws.winograd.pointer,
                                           variant: kernels)
                } else {
                    Kernel.convForward(c.geometry, input: src, weights: c.weights.pointer, bias: c.bias.pointer, output: dst,
                                       outputRowStride: rowStride, relu: c.relu, variant: kernels)
                }
                if !toPadded {
                    if c.stride != 1 { subsample(other, geometry: c.geometry, stride: c.stride, output: output) }
                    swap(&cur, &other)
                }
            case let .affine(scale, shift, relu):
                let c = output.channels
                for p in 0..<(output.height * output.width) {
                    for k in 0..<c {
                        let v = cur[p * c + k] * scale[k] + shift[k]
                        cur[p * c + k] = relu ? max(v, 0) : v
                    }
                }
            case .relu:
                for j in 0..<output.count { cur[j] = max(cur[j], 0) }
            case let .maxPool(k, s):
                if toPadded {
                    let (dst, rowStride) = paddedInterior(index + 1, ws)
                    Kernel.maxPool2x2(cur, height: input.height, width: input.width, channels: input.channels,
                                      output: dst, outputRowStride: rowStride, variant: kernels)
                } else if k == 2 && s == 2 {
                    Kernel.maxPool2x2(cur, height: input.height, width: input.width, channels: input.channels,
                                      output: other, outputRowStride: output.width * output.channels, variant: kernels)
                    swap(&cur, &other)
                } else {
                    maxPoolForward(cur, height: input.height, width: input.width, channels: input.channels, kernel: k, stride: s, output: other)
                    swap(&cur, &other)
                }
            case let .avgPool(k, s):
                avgPoolForward(cur, height: input.height, width: input.width, channels: input.channels, kernel: k, stride: s, output: other)
                swap(&cur, &other)
            case .globalAvgPool:
                avgPoolGlobal(cur, input, other)
                swap(&cur, &other)
            case let .linear(l):
                if l.rows {
                    Kernel.linearForwardRows(cur, inCount: l.inCount, weights: l.weights.pointer, bias: l.bias.pointer,
                                             outCount: l.outCount, output: other, relu: l.relu, variant: kernels)
                } else {
                    Kernel.linearForward(cur, inCount: l.inCount, weightsT: l.weights.pointer, bias: l.bias.pointer,
                                         outCount: l.outCount, outPadded: l.outPadded, output: other, relu: l.relu,
                                         variant: kernels)
                }
                swap(&cur, &other)
            }
            if let opNanoseconds {
                let now = threadCPUNanoseconds()
                opNanoseconds[index] += now - clock
                clock = now
            }
        }
        logits.update(from: cur, count: classCount)
    }

    /// Logits of `count` images (784 floats each) into `logits` (10 per image), the batch split in
    /// contiguous parts over `threads` threads. `workspaces`, when it holds one per part, is reused
    /// (no allocation); otherwise fresh workspaces are made for this call. One thread runs on the
    /// caller's thread. Each image's logits are the same bits whatever the batch or thread count.
    public func logits(pixels: UnsafePointer<Float>, count: Int, into logits: UnsafeMutablePointer<Float>,
                       threads: Int = 1, workspaces: [Workspace]? = nil) {
        let parts = Parallel.ranges(count, parts: threads)
        let spaces = workspaces.flatMap { $0.count >= parts.count ? $0 : nil } ?? parts.map { _ in makeWorkspace() }
        Parallel.run(tasks: parts.count, threads: threads) { t in
            let ws = spaces[t]
            for n in parts[t] {
                self.run(pixels: pixels + n * 784, workspace: ws, into: logits + n * self.classCount, opNanoseconds: nil)
            }
        }
    }

    /// The ops as executed (batch norm and ReLU fused into convolutions), one name per op, with the
    /// multiply-adds of each; `profile` reports times in this order.
    public var executedOps: [(name: String, multiplyAdds: Int)] {
        ops.map { op, input, output in
            switch op {
            case let .conv(c):
                let g = c.geometry
                return ("conv \(g.inChannels)→\(g.outChannels) \(g.kernel)×\(g.kernel)" + (c.relu ? " +relu" : "") + " → \(output)",
                        output.height * output.width * g.outChannels * g.inChannels * g.kernel * g.kernel)
            case .affine: return ("batchnorm → \(output)", 0)
            case .relu: return ("relu", 0)
            case let .maxPool(k, _): return ("maxpool \(k)×\(k) → \(output)", 0)
            case let .avgPool(k, _): return ("avgpool \(k)×\(k) → \(output)", 0)
            case .globalAvgPool: return ("global avgpool", 0)
            case let .linear(l): return ("linear \(l.inCount)→\(l.outCount)", l.inCount * l.outCount)
            }
        }
    }

    /// Mean CPU time per image of each executed op in seconds, over `count` images run one at a
    /// time on this thread (input normalization counted in the first op). CPU time of the thread,
    /// not wall time, so other processes on a shared machine do not inflate it; each reading of
    /// the clock adds about 0.1–0.3 µs to the op it ends.
    public func profile(pixels: UnsafePointer<Float>, count: Int) -> [Double] {
        let ws = makeWorkspace()
        var totals = [UInt64](repeating: 0, count: ops.count)
        var out = [Float](repeating: 0, count: classCount)
        totals.withUnsafeMutableBufferPointer { t in
            out.withUnsafeMutableBufferPointer { o in
                for n in 0..<count {
                    run(pixels: pixels + n * 784, workspace: ws, into: o.baseAddress!, opNanoseconds: t.baseAddress!)
                }
            }
        }
        return totals.map { Double($0) / 1e9 / Double(max(count, 1)) }
    }

    private func subsample(_ buffer: UnsafeMutablePointer<Float>, geometry g: ConvGeometry, stride: Int, output: ActivationShape) {
        // In place: output index never exceeds input index.
        let c = g.outChannels
        for y in 0..<output.height {
            for x in 0..<output.width {
                let src = buffer + ((y * stride) * g.outWidth + x * stride) * c
                let dst = buffer + (y * output.width + x) * c
                for k in 0..<c { dst[k] = src[k] }
            }
        }
    }

    private func avgPoolGlobal(_ input: UnsafePointer<Float>, _ shape: ActivationShape, _ output: UnsafeMutablePointer<Float>) {
        let c = shape.channels, n = shape.height * shape.width
        for k in 0..<c { output[k] = 0 }
        for p in 0..<n { for k in 0..<c { output[k] += input[p * c + k] } }
        for k in 0..<c { output[k] /= Float(n) }
    }
}

/// CPU time consumed by the calling thread, in nanoseconds.
func threadCPUNanoseconds() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return UInt64(t.tv_sec) &* 1_000_000_000 &+ UInt64(t.tv_nsec)
}
