import DigitKernels
import Foundation

/// Trains a line model: a convolutional network over a whole line of writing (32 rows, a fixed
/// training width) whose last layers give one row of columns, each scoring `LineSymbols.classes`,
/// with the CTC loss (Graves et al. 2006), so no cut between digits is ever needed (a CRNN
/// without the recurrent part: Shi, Bai & Yao 2016 read lines the same way). Adam (Kingma & Ba
/// 2015) with decoupled weight decay, the learning rate warmed up then cosine-decayed as
/// `TrainingOptions.learningRate(at:)` gives it. The same options and data give the same weights.
public final class LineTrainer {
    public let options: TrainingOptions
    public let width: Int
    let train: LineSamples
    let validation: LineSamples
    let network: TrainingNetwork
    private var moment1: [FloatBuffer], moment2: [FloatBuffer]
    private var steps = 0
    private let input: FloatBuffer
    private let dLogits: FloatBuffer

    public init(options: TrainingOptions, width: Int, train: LineSamples, validation: LineSamples) throws {
        self.options = options
        self.width = width
        self.train = train
        self.validation = validation
        network = try TrainingNetwork(architecture: options.architecture, capacity: options.batchSize, seed: options.seed,
                                      input: ActivationShape(height: LineImage.height, width: width, channels: 1))
        guard network.outputs == LineSymbols.classes.count else {
            throw DigitError(.usage, "a line model ends with \(LineSymbols.classes.count) outputs per column, this one with \(network.outputs)")
        }
        moment1 = network.parameters.map { FloatBuffer(count: $0.count) }
        moment2 = network.parameters.map { FloatBuffer(count: $0.count) }
        input = FloatBuffer(count: options.batchSize * LineImage.height * width)
        dLogits = FloatBuffer(count: options.batchSize * network.outputShape.count)
    }

    /// Starts from the tensors of a model of the same architecture (fine-tuning) instead of fresh ones.
    public func start(from tensors: [String: TensorData]) throws { try network.importTensors(tensors) }

    /// Columns per line and the multiply-adds of one line of the training width.
    public var columns: Int { network.outputShape.width }
    public var multiplyAdds: Int { network.multiplyAdds }
    public var parameterCount: Int {
        network.exportTensors().filter { !$0.key.hasSuffix(".running_mean") && !$0.key.hasSuffix(".running_var") }
            .values.reduce(0) { $0 + $1.count }
    }

    /// Trains for `options.epochs` epochs; after each, the exact-match rate of greedy decoding on
    /// the validation lines is reported as its accuracy. Resumes from `checkpoint` when it exists
    /// and was made with the same options, and writes it (atomically) after every epoch.
    public func run(checkpoint: String? = nil, report: (TrainingEvent) -> Void) throws -> TrainedModel {
        let start = Date()
        var history: [EpochSummary] = []
        let n = options.batchSize, pixels = LineImage.height * width
        let batches = train.count / n
        let outCount = network.outputShape.count, t = network.outputShape.width, c = network.outputs
        var losses = [Float](repeating: 0, count: n)
        var firstEpoch = 0
        if let checkpoint, FileManager.default.fileExists(atPath: checkpoint) {
            let saved = try TrainingCheckpoint.read(path: checkpoint, options: options, parameters: network.parameterLayout,
                                                    prefixes: ["adam.m", "adam.v"])
            do { try network.importTensors(saved.network) } catch let e as DigitError { throw e.inFile(checkpoint) }
            moment1.load(saved.optimizer["adam.m"] ?? [])
            moment2.load(saved.optimizer["adam.v"] ?? [])
            (firstEpoch, history) = (saved.epochsDone, saved.history)
            steps = firstEpoch * batches   // Adam's bias correction counts every step taken
            report(.resumed(fromEpoch: firstEpoch))
        }
        for epoch in firstEpoch..<options.epochs {
            let epochStart = Date()
            let order = permutation(epoch: epoch)
            var lossSum: Double = 0, seen = 0
            for b in 0..<batches {
                let lr = options.learningRate(at: Float(epoch) + Float(b) / Float(batches))
                var stepRNG = SplitMix64(seed: options.seed).derived(UInt64(epoch * batches + b) | 1 << 40)
                let ctx = BatchContext(count: n, threads: options.threads, training: true, stepSeed: stepRNG.next())
                let stepBase = SplitMix64(seed: options.seed).derived(UInt64(epoch) << 32)
                ctx.parallel { _, images in
                    for k in images {
                        var rng = stepBase.derived(UInt64(b * n + k))
                        let px = input.pointer + k * pixels
                        train.render(order[b * n + k], augment: options.augment, rng: &rng, into: px)
                        for j in 0..<pixels { px[j] = (px[j] - options.inputMean) / options.inputStd }
                    }
                }
                let logits = network.forward(input, ctx)
                ctx.parallel { _, images in
                    for k in images {
                        let l = CTC.loss(logits: logits.pointer + k * outCount, frames: t, classes: c,
                                         label: train.label(order[b * n + k]), scale: 1 / Float(n),
                                         grad: dLogits.pointer + k * outCount)
                        losses[k] = l.isFinite ? l : 0
                    }
                }
                lossSum += Double(losses.reduce(0, +))
                seen += n
                network.backward(dLogits, ctx)
                step(learningRate: lr)
                report(.batch(epoch: epoch, of: options.epochs, batch: b, of: batches, batchSize: n, seen: seen, since: epochStart,
                              loss: Float(lossSum / Double(seen)), accuracy: 0))
            }
            let trainSeconds = Date().timeIntervalSince(epochStart)
            let (vLoss, vExact) = try evaluateValidation()
            let summary = EpochSummary(epoch: epoch + 1, epochs: options.epochs, trainLoss: Float(lossSum / Double(max(seen, 1))),
                                       trainAccuracy: 0, validationLoss: vLoss, validationAccuracy: vExact,
                                       learningRate: options.learningRate(at: Float(epoch + 1)),
                                       seconds: Date().timeIntervalSince(epochStart), imagesPerSecond: Double(seen) / trainSeconds)
            history.append(summary)
            report(.epoch(summary))
            if let checkpoint {
                try TrainingCheckpoint(epochsDone: epoch + 1, history: history, network: network.exportTensors(),
                                       optimizer: ["adam.m": moment1.arrays, "adam.v": moment2.arrays])
                    .write(to: checkpoint, parameterNames: network.parameters.map(\.name), options: options)
            }
        }
        // Epochs of an earlier, interrupted run count too: `seconds` is the training's wall time.
        let earlierSeconds = history.prefix(firstEpoch).reduce(0) { $0 + $1.seconds }
        return TrainedModel(layers: network.architecture.filter { type(of: $0).typeName != nil }, tensors: network.exportTensors(),
                            inputMean: options.inputMean, inputStd: options.inputStd, history: history,
                            seconds: earlierSeconds + Date().timeIntervalSince(start), parameterCount: parameterCount,
                            multiplyAdds: multiplyAdds)
    }

    func permutation(epoch: Int) -> [Int] {
        var rng = SplitMix64(seed: options.seed).derived(0x11E5 << 20 | UInt64(epoch))
        return rng.shuffled(Array(0..<train.count))
    }

    /// Adam with bias correction; weight decay on conv and linear weights, decoupled (AdamW).
    private func step(learningRate lr: Float) {
        steps += 1
        let b1: Float = 0.9, b2: Float = 0.999, eps: Float = 1e-8
        let c1 = 1 - pow(b1, Float(steps)), c2 = 1 - pow(b2, Float(steps))
        for (k, p) in network.parameters.enumerated() {
            let m = moment1[k].pointer, v = moment2[k].pointer, w = p.value.pointer, g = p.grad.pointer
            let decay = p.decays ? options.weightDecay : 0
            for i in 0..<p.count {
                m[i] = b1 * m[i] + (1 - b1) * g[i]
                v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i]
                w[i] -= lr * ((m[i] / c1) / ((v[i] / c2).squareRoot() + eps) + decay * w[i])
            }
        }
    }

    /// Mean CTC loss and the share of lines read exactly (greedy decoding) on the validation set,
    /// through the inference network as it will ship.
    func evaluateValidation() throws -> (Float, Float) {
        guard validation.count > 0 else { return (0, 0) }
        let net = try InferenceNetwork(layers: network.architecture, tensors: network.exportTensors(), inputMean: options.inputMean,
                                       inputStd: options.inputStd, outputs: network.outputs,
                                       input: ActivationShape(height: LineImage.height, width: width, channels: 1))
        let count = validation.count, pixels = LineImage.height * width, out = net.outputShape.count
        var images = [Float](repeating: 0, count: count * pixels)
        var logits = [Float](repeating: 0, count: count * out)
        var rng = SplitMix64(seed: 0)
        images.withUnsafeMutableBufferPointer { p in
            for i in 0..<count { validation.render(i, augment: false, rng: &rng, into: p.baseAddress! + i * pixels) }
        }
        images.withUnsafeBufferPointer { p in
            logits.withUnsafeMutableBufferPointer { l in net.logits(pixels: p.baseAddress!, count: count, into: l.baseAddress!, threads: options.threads) }
        }
        var loss: Double = 0, exact = 0
        var grad = [Float](repeating: 0, count: out)
        let t = net.outputShape.width, c = net.classCount
        for i in 0..<count {
            let label = validation.label(i)
            logits.withUnsafeBufferPointer { l in
                grad.withUnsafeMutableBufferPointer { g in
                    let v = CTC.loss(logits: l.baseAddress! + i * out, frames: t, classes: c, label: label, scale: 1, grad: g.baseAddress!)
                    if v.isFinite { loss += Double(v) }
                }
                let decoded = LineDecoding.greedy(l.baseAddress! + i * out, frames: t, classes: c, temperature: 1)
                if decoded.map(\.symbol) == label { exact += 1 }
            }
        }
        return (Float(loss / Double(count)), Float(exact) / Float(count))
    }
}
