// The layers of the training network. Each is a small class with `forward` and `backward` side
// by side; backward accumulates (+=) into the per-chunk gradient buffers of its parameters.
// Activations are NHWC, a batch is N images back to back. Work is split into fixed chunks of
// images (`BatchContext.chunks`) that run in parallel; all cross-image sums are combined in
// chunk order, so a run is deterministic for a given seed whatever the thread count.

/// The batch being processed: its size, its fixed split into chunks, and the thread count.
struct BatchContext {
    var count: Int
    var chunks: [Range<Int>]
    var threads: Int
    var training: Bool
    /// Seeds dropout masks: image `n` of this step uses `SplitMix64(seed: stepSeed).derived(n)`.
    var stepSeed: UInt64

    static let chunkSize = 8

    init(count: Int, threads: Int, training: Bool, stepSeed: UInt64) {
        self.count = count
        chunks = stride(from: 0, to: count, by: Self.chunkSize).map { $0..<min($0 + Self.chunkSize, count) }
        self.threads = threads
        self.training = training
        self.stepSeed = stepSeed
    }

    func parallel(_ body: (_ chunk: Int, _ images: Range<Int>) -> Void) {
        Parallel.run(tasks: chunks.count, threads: threads) { c in body(c, chunks[c]) }
    }
}

class TrainingLayer {
    let inShape: ActivationShape
    let outShape: ActivationShape
    let capacity: Int

    init(inShape: ActivationShape, outShape: ActivationShape, capacity: Int) {
        self.inShape = inShape
        self.outShape = outShape
        self.capacity = capacity
    }

    var parameters: [Parameter] { [] }
    /// Multiply-adds of the forward pass for one image.
    var multiplyAdds: Int { 0 }

    func forward(_ x: FloatBuffer, _ ctx: BatchContext) -> FloatBuffer { x }

    /// Returns the gradient with respect to the input, or nil when `needInputGrad` is false.
    func backward(_ dy: FloatBuffer, _ ctx: BatchContext, needInputGrad: Bool) -> FloatBuffer? { dy }
}

// MARK: - Convolution

/// 2-D convolution, stride 1, zero padding, square kernel. Weights are kept packed as
/// `(kH, kW, Cin, Cout)` for the SIMD kernels and exported in PyTorch's `(Cout, Cin, kH, kW)`.
final class Conv2DLayer: TrainingLayer {
    let kernel: Int, padding: Int
    let weight: Parameter   // (kH, kW, Cin, Cout)
    let bias: Parameter     // (Cout)
    private let geometry: ConvGeometry
    private let backGeometry: ConvGeometry
    private let paddedCount: Int
    private let paddedInputs: FloatBuffer   // N × (H+2p) × (W+2p) × Cin, borders stay zero
    private let output: FloatBuffer
    private let dInput: FloatBuffer
    private var dOutPadded: [FloatBuffer] = []  // per chunk, (Ho+2q) × (Wo+2q) × Cout, q = k-1-p
    private let flipped: FloatBuffer        // (kH, kW, Cout, Cin), rotated 180°
    private let zeroBias: FloatBuffer

    init(name: String, input: ActivationShape, outChannels: Int, kernel: Int, padding: Int, capacity: Int, rng: inout SplitMix64) {
        self.kernel = kernel
        self.padding = padding
        let hp = input.height + 2 * padding, wp = input.width + 2 * padding
        let out = ActivationShape(height: hp - kernel + 1, width: wp - kernel + 1, channels: outChannels)
        geometry = ConvGeometry(paddedWidth: wp, inChannels: input.channels, kernel: kernel, outChannels: outChannels,
                                outHeight: out.height, outWidth: out.width)
        let q = kernel - 1 - padding
        backGeometry = ConvGeometry(paddedWidth: out.width + 2 * q, inChannels: outChannels, kernel: kernel,
                                    outChannels: input.channels, outHeight: input.height, outWidth: input.width)
        paddedCount = hp * wp * input.channels
        weight = Parameter(name: name + ".weight", count: kernel * kernel * input.channels * outChannels, decays: true)
        bias = Parameter(name: name + ".bias", count: outChannels, decays: false)
        paddedInputs = FloatBuffer(count: capacity * paddedCount)
        output = FloatBuffer(count: capacity * out.count)
        dInput = FloatBuffer(count: capacity * input.count)
        flipped = FloatBuffer(count: weight.count)
        zeroBias = FloatBuffer(count: input.channels)
        super.init(inShape: input, outShape: out, capacity: capacity)
        // He initialization for ReLU networks: N(0, 2 / fan_in).
        let std = (2 / Float(kernel * kernel * input.channels)).squareRoot()
        for i in 0..<weight.count { weight.value[i] = rng.normal() * std }
    }

    override var parameters: [Parameter] { [weight, bias] }
    override var multiplyAdds: Int { outShape.count * kernel * kernel * inShape.channels }

    override func forward(_ x: FloatBuffer, _ ctx: BatchContext) -> FloatBuffer {
        let g = geometry, inCount = inShape.count, outCount = outShape.count
        ctx.parallel { _, images in
            for n in images {
                let padded = paddedInputs.pointer + n * paddedCount
                padImage(x.pointer + n * inCount, height: inShape.height, width: inShape.width,
                         channels: inShape.channels, pad: padding, into: padded)
                Kernel.convForward(g, input: padded, weights: weight.value.pointer, bias: bias.value.pointer,
                                   output: output.pointer + n * outCount, relu: false)
            }
        }
        return output
    }

    override func backward(_ dy: FloatBuffer, _ ctx: BatchContext, needInputGrad: Bool) -> FloatBuffer? {
        let cin = inShape.channels, cout = outShape.channels, k = kernel
        if needInputGrad {
            // Full convolution with the kernel rotated 180° and in/out channels swapped.
            for ky in 0..<k {
                for kx in 0..<k {
                    for ci in 0..<cin {
                        for co in 0..<cout {
                            flipped[((ky * k + kx) * cout + co) * cin + ci] =
                                weight.value[(((k - 1 - ky) * k + (k - 1 - kx)) * cin + ci) * cout + co]
                        }
                    }
                }
            }
            let q = k - 1 - padding
            let size = (outShape.height + 2 * q) * (outShape.width + 2 * q) * cout
            while dOutPadded.count < ctx.chunks.count { dOutPadded.append(FloatBuffer(count: size)) }
        }
        let g = geometry, bg = backGeometry, inCount = inShape.count, outCount = outShape.count
        ctx.parallel { chunk, images in
            let dW = weight.chunkGrads[chunk].pointer, dB = bias.chunkGrads[chunk].pointer
            for n in images {
                let d = dy.pointer + n * outCount
                Kernel.convWeightGrad(g, input: paddedInputs.pointer + n * paddedCount, dOutput: d, dWeights: dW, dBias: dB)
                if needInputGrad {
                    let scratch = dOutPadded[chunk].pointer
                    padImage(d, height: outShape.height, width: outShape.width, channels: cout, pad: k - 1 - padding, into: scratch)
                    Kernel.convForward(bg, input: scratch, weights: flipped.pointer, bias: zeroBias.pointer,
                                       output: dInput.pointer + n * inCount, relu: false)
                }
            }
        }
        return needInputGrad ? dInput : nil
    }

    /// The weight in PyTorch layout `(Cout, Cin, kH, kW)`.
    func exportedWeight() -> [Float] {
        let cin = inShape.channels, cout = outShape.channels, k = kernel
        var w = [Float](repeating: 0, count: weight.count)
        for co in 0..<cout { for ci in 0..<cin { for ky in 0..<k { for kx in 0..<k {
            w[((co * cin + ci) * k + ky) * k + kx] = weight.value[((ky * k + kx) * cin + ci) * cout + co]
        } } } }
        return w
    }

    func importWeight(_ w: [Float]) {
        let cin = inShape.channels, cout = outShape.channels, k = kernel
        for co in 0..<cout { for ci in 0..<cin { for ky in 0..<k { for kx in 0..<k {
            weight.value[((ky * k + kx) * cin + ci) * cout + co] = w[((co * cin + ci) * k + ky) * k + kx]
        } } } }
    }
}

// MARK: - Batch normalization

/// Batch normalization over N, H, W per channel (Ioffe & Szegedy 2015), PyTorch conventions:
/// biased variance to normalize, unbiased variance in the running estimate, momentum 0.1.
final class BatchNormLayer: TrainingLayer {
    let gamma: Parameter, beta: Parameter
    let runningMean: FloatBuffer, runningVar: FloatBuffer
    let eps: Float = 1e-5
    let momentum: Float = 0.1
    private let xhat: FloatBuffer, output: FloatBuffer, dInput: FloatBuffer
    private var mean: [Float], invStd: [Float]
    private var partials: [[Double]] = []   // per chunk: 2 × C sums

    init(name: String, shape: ActivationShape, capacity: Int) {
        let c = shape.channels
        gamma = Parameter(name: name + ".weight", count: c, decays: false)
        beta = Parameter(name: name + ".bias", count: c, decays: false)
        for i in 0..<c { gamma.value[i] = 1 }
        runningMean = FloatBuffer(count: c)
        runningVar = FloatBuffer(count: c)
        for i in 0..<c { runningVar[i] = 1 }
        xhat = FloatBuffer(count: capacity * shape.count)
        output = FloatBuffer(count: capacity * shape.count)
        dInput = FloatBuffer(count: capacity * shape.count)
        mean = Array(repeating: 0, count: c)
        invStd = Array(repeating: 1, count: c)
        super.init(inShape: shape, outShape: shape, capacity: capacity)
    }

    override var parameters: [Parameter] { [gamma, beta] }

    private func preparePartials(_ chunks: Int) {
        let c = inShape.channels
        while partials.count < chunks { partials.append(Array(repeating: 0, count: 2 * c)) }
    }

    override func forward(_ x: FloatBuffer, _ ctx: BatchContext) -> FloatBuffer {
        let c = inShape.channels, per = inShape.count, pixels = inShape.height * inShape.width
        if ctx.training {
            preparePartials(ctx.chunks.count)
            ctx.parallel { chunk, images in
                var s = [Double](repeating: 0, count: 2 * c)
                s.withUnsafeMutableBufferPointer { s in
                    for n in images {
                        channelSums(x.pointer + n * per, nil, pixels: pixels, channels: c, into: s.baseAddress!)
                    }
                }
                partials[chunk] = s
            }
            var s = [Double](repeating: 0, count: 2 * c)
            for chunk in 0..<ctx.chunks.count { for k in 0..<(2 * c) { s[k] += partials[chunk][k] } }
            let m = Double(ctx.count * pixels)
            for k in 0..<c {
                let mu = s[k] / m
                let variance = max(s[c + k] / m - mu * mu, 0)
                mean[k] = Float(mu)
                invStd[k] = Float(1 / (variance + Double(eps)).squareRoot())
                runningMean[k] = (1 - momentum) * runningMean[k] + momentum * Float(mu)
                runningVar[k] = (1 - momentum) * runningVar[k] + momentum * Float(variance * m / max(m - 1, 1))
            }
        } else {
            for k in 0..<c {
                mean[k] = runningMean[k]
                invStd[k] = 1 / (runningVar[k] + eps).squareRoot()
            }
        }
        let mu = FloatBuffer(mean), inv = FloatBuffer(invStd)
        ctx.parallel { _, images in
            for n in images {
                let p = x.pointer + n * per, h = xhat.pointer + n * per, o = output.pointer + n * per
                var k0 = 0
                while k0 + 16 <= c {
                    typealias V = SIMD16<Float>
                    let m: V = load(mu.pointer + k0), s: V = load(inv.pointer + k0)
                    let g: V = load(gamma.value.pointer + k0), b: V = load(beta.value.pointer + k0)
                    for i in 0..<pixels {
                        let v = (load(p + i * c + k0) - m) * s
                        store(v, h + i * c + k0)
                        store(v * g + b, o + i * c + k0)
                    }
                    k0 += 16
                }
                for i in 0..<pixels {
                    for k in k0..<c {
                        let v = (p[i * c + k] - mu[k]) * inv[k]
                        h[i * c + k] = v
                        o[i * c + k] = v * gamma.value[k] + beta.value[k]
                    }
                }
            }
        }
        return output
    }

    override func backward(_ dy: FloatBuffer, _ ctx: BatchContext, needInputGrad: Bool) -> FloatBuffer? {
        let c = inShape.channels, per = inShape.count, pixels = inShape.height * inShape.width
        preparePartials(ctx.chunks.count)
        ctx.parallel { chunk, images in
            var s = [Double](repeating: 0, count: 2 * c)
            s.withUnsafeMutableBufferPointer { s in
                for n in images {
                    channelSums(dy.pointer + n * per, xhat.pointer + n * per, pixels: pixels, channels: c, into: s.baseAddress!)
                }
            }
            partials[chunk] = s
            let dBeta = beta.chunkGrads[chunk].pointer, dGamma = gamma.chunkGrads[chunk].pointer
            for k in 0..<c { dBeta[k] += Float(s[k]); dGamma[k] += Float(s[c + k]) }
        }
        guard needInputGrad else { return nil }
        if !ctx.training {
            // Eval mode normalizes with the running statistics, which do not depend on the input:
            // the layer is the affine map x ↦ γ·(x - mean)·invStd + β.
            let a = (0..<c).map { gamma.value[$0] * invStd[$0] }
            ctx.parallel { _, images in
                for n in images {
                    let d = dy.pointer + n * per, o = dInput.pointer + n * per
                    for i in 0..<pixels { for k in 0..<c { o[i * c + k] = a[k] * d[i * c + k] } }
                }
            }
            return dInput
        }
        var s = [Double](repeating: 0, count: 2 * c)
        for chunk in 0..<ctx.chunks.count { for k in 0..<(2 * c) { s[k] += partials[chunk][k] } }
        let m = Float(ctx.count * pixels)
        var a = [Float](repeating: 0, count: c), sumDy = a, sumDyH = a
        for k in 0..<c {
            a[k] = gamma.value[k] * invStd[k] / m
            sumDy[k] = Float(s[k])
            sumDyH[k] = Float(s[c + k])
        }
        let aBuffer = FloatBuffer(a), sumDyBuffer = FloatBuffer(sumDy), sumDyHBuffer = FloatBuffer(sumDyH)
        ctx.parallel { _, images in
            for n in images {
                let d = dy.pointer + n * per, h = xhat.pointer + n * per, o = dInput.pointer + n * per
                var k0 = 0
                while k0 + 16 <= c {
                    typealias V = SIMD16<Float>
                    let av: V = load(aBuffer.pointer + k0), sd: V = load(sumDyBuffer.pointer + k0)
                    let sh: V = load(sumDyHBuffer.pointer + k0), mv = V(repeating: m)
                    for i in 0..<pixels {
                        let j = i * c + k0
                        store(av * (mv * load(d + j) - sd - load(h + j) * sh), o + j)
                    }
                    k0 += 16
                }
                for i in 0..<pixels {
                    for k in k0..<c {
                        o[i * c + k] = a[k] * (m * d[i * c + k] - sumDy[k] - h[i * c + k] * sumDyH[k])
                    }
                }
            }
        }
        return dInput
    }
}

/// For one image (`pixels` × `channels`, NHWC): per channel k, the Float sums over pixels (in
/// pixel order) of `a` and of `a * b` (`a * a` when `b` is nil), each added as a Double into
/// `sums[k]` and `sums[channels + k]`. Channels go 16 at a time in SIMD lanes; every lane adds in
/// the same order as the scalar loop, so the result does not depend on the vector width.
private func channelSums(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>?, pixels: Int, channels c: Int,
                         into sums: UnsafeMutablePointer<Double>) {
    typealias V = SIMD16<Float>
    var k0 = 0
    while k0 + 16 <= c {
        var s1 = V(), s2 = V()
        if let b {
            for i in 0..<pixels {
                let v: V = load(a + i * c + k0)
                s1 += v
                s2 += v * (load(b + i * c + k0) as V)
            }
        } else {
            for i in 0..<pixels {
                let v: V = load(a + i * c + k0)
                s1 += v
                s2 += v * v
            }
        }
        for lane in 0..<16 {
            sums[k0 + lane] += Double(s1[lane])
            sums[c + k0 + lane] += Double(s2[lane])
        }
        k0 += 16
    }
    for k in k0..<c {
        var s1: Float = 0, s2: Float = 0
        for i in 0..<pixels {
            let v = a[i * c + k]
            s1 += v
            s2 += v * (b?[i * c + k] ?? v)
        }
        sums[k] += Double(s1)
        sums[c + k] += Double(s2)
    }
}

// MARK: - Elementwise and pooling

/// ReLU, in place: the output is the input buffer.
final class ReLULayer: TrainingLayer {
    private var last: FloatBuffer?

    override func forward(_ x: FloatBuffer, _ ctx: BatchContext) -> FloatBuffer {
        let per = inShape.count
        ctx.parallel { _, images in
            let p = x.pointer + images.lowerBound * per
            for i in 0..<(images.count * per) { p[i] = max(p[i], 0) }
        }
        last = x
        return x
    }

    override func backward(_ dy: FloatBuffer, _ ctx: BatchContext, needInputGrad: Bool) -> FloatBuffer? {
        guard let y = last else { return dy }
        let per = inShape.count
        ctx.parallel { _, images in
            let d = dy.pointer + images.lowerBound * per, o = y.pointer + images.lowerBound * per
            let count = images.count * per
            var i = 0
            while i + 16 <= count {
                let v: SIMD16<Float> = load(d + i)
                store(v.replacing(with: 0, where: (load(o + i) as SIMD16<Float>) .<= 0), d + i)
                i += 16
            }
            while i < count {
                if o[i] <= 0 { d[i] = 0 }
                i += 1
            }
        }
        return dy
    }
}

final class MaxPoolLayer: TrainingLayer {
    let kernel: Int, stride: Int
    private let output: FloatBuffer, dInput: FloatBuffer
    private var input: FloatBuffer?

    init(input: ActivationShape, kernel: Int, stride: Int, capacity: Int) {
        self.kernel = kernel
        self.stride = stride
        let out = ActivationShape(height: (input.height - kernel) / stride + 1, width: (input.width - kernel) / stride + 1,
                                  channels: input.channels)
        output = FloatBuffer(count: capacity * out.count)
        dInput = FloatBuffer(count: capacity * input.count)
        super.init(inShape: input, outShape: out, capacity: capacity)
    }

    override func forward(_ x: FloatBuffer, _ ctx: BatchContext) -> FloatBuffer {
        input = x
        let s = inShape, inCount = inShape.count, outCount = outShape.count
        ctx.parallel { _, images in
            for n in images {
                maxPoolForward(x.pointer + n * inCount, height: s.height, width: s.width, channels: s.channels,
                               kernel: kernel, stride: stride, output: output.pointer + n * outCount)
            }
        }
        return output
    }

    override func backward(_ dy: FloatBuffer, _ ctx: BatchContext, needInputGrad: Bool) -> FloatBuffer? {
        guard needInputGrad, let x = input else { return nil }
        let s = inShape, inCount = inShape.count, outCount = outShape.count
        ctx.parallel { _, images in
            for n in images {
                let di = dInput.pointer + n * inCount
                di.update(repeating: 0, count: inCount)
                maxPoolBackward(x.pointer + n * inCount, output: output.pointer + n * outCount, dOutput: dy.pointer + n * outCount,
                                height: s.height, width: s.width, channels: s.channels, kernel: kernel, stride: stride, dInput: di)
            }
        }
        return dInput
    }
}

/// Inverted dropout (training only; the identity at inference). It writes its own output buffer
/// rather than working in place: a max-pooling layer before it keeps its output to find, in
/// backward, the input that held each maximum, and scaled or zeroed values would match none.
final class DropoutLayer: TrainingLayer {
    let rate: Float
    private let mask: FloatBuffer
    private let output: FloatBuffer

    init(shape: ActivationShape, rate: Float, capacity: Int) {
        self.rate = rate
        mask = FloatBuffer(count: capacity * shape.count)
        output = FloatBuffer(count: capacity * shape.count)
        super.init(inShape: shape, outShape: shape, capacity: capacity)
    }

    override func forward(_ x: FloatBuffer, _ ctx: BatchContext) -> FloatBuffer {
        guard ctx.training, rate > 0 else { return x }
        let per = inShape.count, keep = 1 - rate, scale = 1 / (1 - rate)
        let base = SplitMix64(seed: ctx.stepSeed)
        ctx.parallel { _, images in
            for n in images {
                var rng = base.derived(UInt64(n))
                let p = x.pointer + n * per, m = mask.pointer + n * per, o = output.pointer + n * per
                for i in 0..<per {
                    m[i] = rng.nextFloat() < keep ? scale : 0
                    o[i] = p[i] * m[i]
                }
            }
        }
        return output
    }

    override func backward(_ dy: FloatBuffer, _ ctx: BatchContext, needInputGrad: Bool) -> FloatBuffer? {
        guard ctx.training, rate > 0 else { return dy }
        let per = inShape.count
        ctx.parallel { _, images in
            let d = dy.pointer + images.lowerBound * per, m = mask.pointer + images.lowerBound * per
            for i in 0..<(images.count * per) { d[i] *= m[i] }
        }
        return dy
    }
}

// MARK: - Linear

/// Fully connected layer on the flattened NHWC activation. The weight is kept transposed and
/// padded, `(in, outPadded)`, for the SIMD kernel; exported as PyTorch `(out, in)` with the input
/// index in NCHW flatten order.
final class LinearLayer: TrainingLayer {
    let inCount: Int, outCount: Int, outPadded: Int
    let weight: Parameter   // (in, outPadded), columns ≥ outCount stay zero
    let bias: Parameter
    private let output: FloatBuffer, dInput: FloatBuffer
    private var input: FloatBuffer?
    /// Shape before flatten, to map NHWC positions to PyTorch's NCHW flatten order.
    let flattenedFrom: ActivationShape

    init(name: String, input: ActivationShape, outCount: Int, capacity: Int, rng: inout SplitMix64) {
        inCount = input.count
        self.outCount = outCount
        outPadded = (outCount + 15) / 16 * 16
        flattenedFrom = input
        weight = Parameter(name: name + ".weight", count: inCount * outPadded, decays: true)
        bias = Parameter(name: name + ".bias", count: outCount, decays: false)
        output = FloatBuffer(count: capacity * outCount)
        dInput = FloatBuffer(count: capacity * inCount)
        super.init(inShape: input, outShape: ActivationShape(height: 1, width: 1, channels: outCount), capacity: capacity)
        // PyTorch's default: U(-1/sqrt(in), 1/sqrt(in)).
        let bound = 1 / Float(inCount).squareRoot()
        for i in 0..<inCount { for o in 0..<outCount { weight.value[i * outPadded + o] = rng.uniform(-bound, bound) } }
        for o in 0..<outCount { bias.value[o] = rng.uniform(-bound, bound) }
    }

    override var parameters: [Parameter] { [weight, bias] }
    override var multiplyAdds: Int { inCount * outCount }

    override func forward(_ x: FloatBuffer, _ ctx: BatchContext) -> FloatBuffer {
        input = x
        ctx.parallel { _, images in
            for n in images {
                Kernel.linearForward(x.pointer + n * inCount, inCount: inCount, weightsT: weight.value.pointer, bias: bias.value.pointer,
                                     outCount: outCount, outPadded: outPadded, output: output.pointer + n * outCount, relu: false)
            }
        }
        return output
    }

    override func backward(_ dy: FloatBuffer, _ ctx: BatchContext, needInputGrad: Bool) -> FloatBuffer? {
        guard let x = input else { return nil }
        let op = outPadded
        ctx.parallel { chunk, images in
            let dW = weight.chunkGrads[chunk].pointer, dB = bias.chunkGrads[chunk].pointer
            for n in images {
                let d = dy.pointer + n * outCount, xi = x.pointer + n * inCount
                for o in 0..<outCount { dB[o] += d[o] }
                if needInputGrad {
                    let di = dInput.pointer + n * inCount
                    for i in 0..<inCount { di[i] = 0 }
                }
                // Sixteen outputs at a time: dW[i, o] += x[i] dy[o]; dx[i] += Σ_o W[i, o] dy[o].
                for g in stride(from: 0, to: op, by: 16) {
                    var dv = SIMD16<Float>()
                    for o in g..<min(g + 16, outCount) { dv[o - g] = d[o] }
                    Kernel.linearWeightGradGroup(dW + g, stride: op, x: xi, inCount: inCount, dy: dv)
                    if needInputGrad {
                        let di = dInput.pointer + n * inCount
                        for i in 0..<inCount {
                            let w: SIMD16<Float> = load(weight.value.pointer + i * op + g)
                            di[i] += (w * dv).sum()
                        }
                    }
                }
            }
        }
        return needInputGrad ? dInput : nil
    }

    /// PyTorch layout `(out, in)`, input index in NCHW order.
    func exportedWeight() -> [Float] {
        let (h, w, c) = (flattenedFrom.height, flattenedFrom.width, flattenedFrom.channels)
        var out = [Float](repeating: 0, count: outCount * inCount)
        for o in 0..<outCount { for ch in 0..<c { for y in 0..<h { for x in 0..<w {
            out[o * inCount + (ch * h + y) * w + x] = weight.value[((y * w + x) * c + ch) * outPadded + o]
        } } } }
        return out
    }

    func importWeight(_ v: [Float]) {
        let (h, w, c) = (flattenedFrom.height, flattenedFrom.width, flattenedFrom.channels)
        for o in 0..<outCount { for ch in 0..<c { for y in 0..<h { for x in 0..<w {
            weight.value[((y * w + x) * c + ch) * outPadded + o] = v[o * inCount + (ch * h + y) * w + x]
        } } } }
    }
}
