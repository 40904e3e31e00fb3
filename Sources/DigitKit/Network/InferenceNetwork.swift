import DigitKernels
import Foundation

/// The inference network built from a list of layers and their tensors: batch norm folded into the
/// convolution before it, ReLU fused into the operation before it, weights packed once for the
/// kernels, convolutions writing straight into the next one's zero-bordered input, and no
/// allocation per image (each thread reuses one `Workspace`).
///
/// Input: 28×28 pixels in 0…1 (0 = background, 1 = ink), normalized inside as `(x - mean) / std`;
/// a line model takes `input` pixels (32 rows and any width) instead.
/// Output: one logit per class; a line model's, one per class for each column it ends with
/// (`outputShape`: 1 × columns × classes).
public final class InferenceNetwork: @unchecked Sendable {
    public static let inputSize = 28
    public let classCount: Int
    /// The image the network takes (28×28×1 for a digit model).
    public let inputShape: ActivationShape
    /// What it gives per image: 1×1×classes, or 1×columns×classes for a line model.
    public let outputShape: ActivationShape
    /// The compiled copy of the kernels this network runs.
    public let kernels: KernelVariant
    public let inputMean: Float
    public let inputStd: Float
    /// Multiply-adds per image and parameters of the network as it runs (batch norm folded).
    public let multiplyAdds: Int
    public let parameterCount: Int
    /// A row per operation: what it is, its output shape, parameters, multiply-adds.
    public let summary: [(layer: String, output: String, parameters: Int, multiplyAdds: Int)]

    let ops: [InferenceOp]
    private let table: UnsafePointer<dk_kernels>
    private let maxActivation: Int
    private let scratchFloats: Int
    /// Size of each op's zero-bordered input buffer (0 when it needs none). Each padded op owns its
    /// buffer, so that its border, zeroed once, is never overwritten.
    private let paddedSizes: [Int]
    /// `writesPadded[i + 1]`: op `i` (or the input normalization, for `i == -1`) writes its output
    /// straight into the interior of op `i + 1`'s zero-bordered input.
    private let writesPadded: [Bool]

    /// The most scratch memory one `Workspace` may need, in floats: 2^24 (64 MiB). The shipped
    /// network needs about 89,000 (350 KB), 50,000 of them for the Winograd tiles of its widest layer.
    public static let maxWorkspaceFloats = 1 << 24
    /// The most floats in one packed weight buffer: 2^24 (64 MiB, the weight file's own size limit).
    public static let maxBufferFloats = 1 << 24

    /// Builds and validates the network: every tensor is checked against the layer that uses it
    /// (errors name the file, the layer `layers[2]` and the tensor), every tensor must be used, and
    /// the network must end with `outputs` values. `kernels` is the copy that runs (default the
    /// best this CPU runs; one it cannot run falls back to `.portable`).
    public convenience init(layers: [any Layer], tensors: [String: TensorData], inputMean: Float, inputStd: Float,
                            outputs: Int = 10, file: String = "weights", kernels: KernelVariant = .active,
                            input: ActivationShape = ActivationShape(height: inputSize, width: inputSize, channels: 1)) throws {
        try self.init(layers: layers, tensors: tensors, inputMean: inputMean, inputStd: inputStd, outputs: outputs, file: file,
                      kernels: kernels, input: input, prepares: true)
    }

    /// Checks what `init` checks (and throws the same errors) without packing any weights: what
    /// loading a weight file does, before the network that runs is built.
    static func validate(layers: [any Layer], tensors: [String: TensorData], inputMean: Float, inputStd: Float,
                         outputs: Int, file: String, input: ActivationShape) throws {
        _ = try InferenceNetwork(layers: layers, tensors: tensors, inputMean: inputMean, inputStd: inputStd, outputs: outputs,
                                 file: file, kernels: .portable, input: input, prepares: false)
    }

    /// `prepares`: pack each op's weights for its kernels (false only for `validate`: such a
    /// network is checked, never run).
    private init(layers: [any Layer], tensors: [String: TensorData], inputMean: Float, inputStd: Float,
                 outputs: Int, file: String, kernels: KernelVariant, input: ActivationShape, prepares: Bool) throws {
        guard inputStd > 0, inputStd.isFinite, inputMean.isFinite else {
            throw DigitError(.format, file: file, at: "metadata", "input_mean/input_std must be finite and std > 0")
        }
        self.kernels = KernelVariant.available.contains(kernels) ? kernels : .portable
        table = self.kernels.kernels ?? dk_active()
        self.inputMean = inputMean
        self.inputStd = inputStd
        var reader = TensorReader(tensors: tensors, file: file)
        inputShape = input
        var logical = input
        var layout = logical
        var ops: [InferenceOp] = []
        var entryIndex = 0
        for layer in layers {
            let path = "layers[\(entryIndex)]"
            if type(of: layer).typeName != nil { entryIndex += 1 }
            reader.path = path
            do { logical = try layer.outputShape(for: logical) } catch let e as DigitError {
                throw DigitError(e.kind, file: file, at: path, e.message)
            }
            guard let op = try layer.inference(input: layout, tensors: &reader) else { continue }
            layout = op.output
            if let norm = (op as? AffineInference)?.norm, let last = ops.last, last.fold(norm) { continue }
            if op is ReLUInference, let last = ops.last, last.fuseReLU() { continue }
            ops.append(op)
        }
        let isLine = input.height != Self.inputSize || input.width != Self.inputSize
        guard logical.height == 1, logical.width == 1 || isLine, logical.channels == outputs else {
            throw DigitError(.format, file: file, at: "layers", "the network must end with \(outputs) outputs, it ends with \(logical)")
        }
        outputShape = logical
        if let unused = tensors.keys.filter({ !reader.used.contains($0) }).sorted().first {
            throw DigitError(.format, file: file, at: "tensor '\(unused)'", "is not used by any layer")
        }
        classCount = outputs
        multiplyAdds = ops.reduce(0) { $0 + $1.multiplyAdds }
        parameterCount = ops.reduce(0) { $0 + $1.parameterCount }
        guard multiplyAdds <= 1_000_000_000 else {
            throw DigitError(.limit, file: file, at: "layers", "\(multiplyAdds) multiply-adds per image is beyond the limit of 10^9")
        }
        // The workspace is allocated per thread from these sizes, which a hostile `layers` list
        // (say, many padded 1×1 convolutions) could otherwise blow up to gigabytes.
        let paddedSizes = ops.map { op in
            op.inputPadding > 0
                ? (op.input.height + 2 * op.inputPadding) * (op.input.width + 2 * op.inputPadding) * op.input.channels : 0
        }
        let maxActivation = ops.reduce(input.count) { max($0, $1.input.count, $1.workingOutputFloats) }
        let scratch = ops.map(\.scratchFloats).max() ?? 0
        let workspaceFloats = 2 * maxActivation + paddedSizes.reduce(0, +) + scratch
        guard workspaceFloats <= Self.maxWorkspaceFloats else {
            throw DigitError(.limit, file: file, at: "layers",
                             "the activations need \(workspaceFloats) floats of scratch memory per thread, more than the limit of \(Self.maxWorkspaceFloats)")
        }
        if prepares { for op in ops { op.finish() } }
        self.ops = ops
        self.paddedSizes = paddedSizes
        self.maxActivation = maxActivation
        scratchFloats = scratch
        writesPadded = (-1..<ops.count).map { i in
            guard i + 1 < ops.count, ops[i + 1].inputPadding > 0 else { return false }
            return i < 0 || ops[i].writesRows
        }
        summary = ops.map { ($0.summary, $0.output.height == 1 && $0.output.width == 1 ? "\($0.output.channels)" : $0.output.description,
                             $0.parameterCount, $0.multiplyAdds) }
    }

    /// Scratch memory for one thread: two activation buffers, the padded-input buffers and the
    /// kernels' scratch (Winograd tiles).
    public final class Workspace: @unchecked Sendable {
        let a: FloatBuffer, b: FloatBuffer
        let padded: [FloatBuffer]
        let scratch: FloatBuffer
        init(activation: Int, padded: [Int], scratch: Int) {
            a = FloatBuffer(count: activation)
            b = FloatBuffer(count: activation)
            self.padded = padded.map { FloatBuffer(count: $0) }
            self.scratch = FloatBuffer(count: scratch)
        }
    }

    public func makeWorkspace() -> Workspace { Workspace(activation: maxActivation, padded: paddedSizes, scratch: scratchFloats) }

    /// Logits of one 28×28 image (`pixels`: 784 values in 0…1) into `logits` (`classCount` values).
    /// Allocates nothing; single-threaded.
    public func logits(pixels: UnsafePointer<Float>, workspace ws: Workspace, into logits: UnsafeMutablePointer<Float>) {
        run(pixels: pixels, workspace: ws, into: logits, opNanoseconds: nil)
    }

    /// The interior of op `i`'s padded input buffer and its row stride in floats.
    private func paddedInterior(_ i: Int, _ ws: Workspace) -> (UnsafeMutablePointer<Float>, Int) {
        let op = ops[i], p = op.inputPadding, wp = op.input.width + 2 * p, c = op.input.channels
        return (ws.padded[i].pointer + (p * wp + p) * c, wp * c)
    }

    /// The forward pass; when `opNanoseconds` is given, adds each op's CPU time on this thread to it
    /// (one entry per op, index 0 also counting the input normalization).
    func run(pixels: UnsafePointer<Float>, workspace ws: Workspace, into logits: UnsafeMutablePointer<Float>,
             opNanoseconds: UnsafeMutablePointer<UInt64>?) {
        var cur = ws.a.pointer, other = ws.b.pointer
        var clock = opNanoseconds == nil ? 0 : threadCPUNanoseconds()
        let rows = inputShape.height, side = inputShape.width, scale = 1 / inputStd, mean = inputMean
        if writesPadded[0] {
            let (dst, rowStride) = paddedInterior(0, ws)
            for y in 0..<rows { for x in 0..<side { dst[y * rowStride + x] = (pixels[y * side + x] - mean) * scale } }
        } else {
            for i in 0..<(rows * side) { cur[i] = (pixels[i] - mean) * scale }
        }
        for (index, op) in ops.enumerated() {
            var src = UnsafePointer(cur)
            if op.inputPadding > 0 {
                let buffer = ws.padded[index].pointer
                if !writesPadded[index] {
                    // The border stays zero: only the interior is ever written.
                    dk_pad_image(cur, op.input.height, op.input.width, op.input.channels, op.inputPadding, buffer)
                }
                src = UnsafePointer(buffer)
            }
            if writesPadded[index + 1] {
                let (dst, rowStride) = paddedInterior(index + 1, ws)
                op.run(src, dst, outputRowStride: rowStride, kernels: table, scratch: ws.scratch.pointer)
            } else if op.inPlace {
                op.run(src, cur, outputRowStride: op.output.width * op.output.channels, kernels: table, scratch: ws.scratch.pointer)
            } else {
                op.run(src, other, outputRowStride: op.output.width * op.output.channels, kernels: table, scratch: ws.scratch.pointer)
                swap(&cur, &other)
            }
            if let opNanoseconds {
                let now = threadCPUNanoseconds()
                opNanoseconds[index] += now - clock
                clock = now
            }
        }
        logits.update(from: cur, count: outputShape.count)
    }

    /// Logits of `count` images (784 floats each) into `logits` (`classCount` per image), the batch
    /// split in contiguous parts over `threads` threads. `workspaces`, when it holds one per part, is
    /// reused (no allocation); otherwise fresh workspaces are made for this call. One thread runs on
    /// the caller's thread. Each image's logits are the same bits whatever the batch or thread count.
    public func logits(pixels: UnsafePointer<Float>, count: Int, into logits: UnsafeMutablePointer<Float>,
                       threads: Int = 1, workspaces: [Workspace]? = nil) {
        let parts = Parallel.ranges(count, parts: threads)
        let spaces = workspaces.flatMap { $0.count >= parts.count ? $0 : nil } ?? parts.map { _ in makeWorkspace() }
        Parallel.run(tasks: parts.count, threads: threads) { t in
            let ws = spaces[t]
            for n in parts[t] {
                self.run(pixels: pixels + n * self.inputShape.count, workspace: ws, into: logits + n * self.outputShape.count,
                         opNanoseconds: nil)
            }
        }
    }

    /// The ops as executed (batch norm and ReLU fused into convolutions), one name per op, with the
    /// multiply-adds of each; `profile` reports times in this order.
    public var executedOps: [(name: String, multiplyAdds: Int)] { ops.map { ($0.name, $0.multiplyAdds) } }

    /// Mean CPU time per image of each executed op in seconds, over `count` images run one at a
    /// time on this thread (input normalization counted in the first op). CPU time of the thread,
    /// not wall time, so other processes on a shared machine do not inflate it; each reading of
    /// the clock adds about 0.1–0.3 µs to the op it ends.
    public func profile(pixels: UnsafePointer<Float>, count: Int) -> [Double] {
        let ws = makeWorkspace()
        var totals = [UInt64](repeating: 0, count: ops.count)
        var out = [Float](repeating: 0, count: outputShape.count)
        totals.withUnsafeMutableBufferPointer { t in
            out.withUnsafeMutableBufferPointer { o in
                for n in 0..<count {
                    run(pixels: pixels + n * inputShape.count, workspace: ws, into: o.baseAddress!, opNanoseconds: t.baseAddress!)
                }
            }
        }
        return totals.map { Double($0) / 1e9 / Double(max(count, 1)) }
    }

    /// Runs `iterations` steps of 16 independent 16-lane multiply-add chains with this network's
    /// kernels (256 multiply-adds a step, no memory traffic), for the bench's compute peak.
    public func maddPeak(iterations: Int, scale: Float = 0.999_999) -> Float {
        table.pointee.madd_peak(iterations, scale)
    }
}
