import DigitKernels
import Foundation

/// Everything that determines a training run. Two runs with the same options and data give the
/// same weights bit for bit (whatever the thread count: work is split into fixed chunks).
public struct TrainingOptions: Sendable {
    public var architecture: [any Layer]
    public var epochs: Int
    public var batchSize: Int
    /// Peak learning rate of SGD with Nesterov momentum.
    public var learningRate: Float
    public var momentum: Float
    public var weightDecay: Float
    /// Linear warm-up length, then cosine decay to zero (`schedule == "cosine"`), or constant.
    public var warmupEpochs: Float
    public var schedule: Schedule
    public var seed: UInt64
    public var threads: Int
    public var augment: Bool
    /// Input normalization: MNIST training-set mean and standard deviation of p/255.
    public var inputMean: Float
    public var inputStd: Float
    /// Describes the training data (sources, ranges, repeats); part of the fingerprint.
    public var dataTag: String

    public enum Schedule: String, Sendable { case cosine, constant }

    /// The options given, and the defaults (the home of each option's default) for the rest.
    public init(architecture: [any Layer] = Architecture.standard(), epochs: Int = 20, batchSize: Int = 128,
                learningRate: Float = 0.05, momentum: Float = 0.9, weightDecay: Float = 5e-4, warmupEpochs: Float = 1,
                schedule: Schedule = .cosine, seed: UInt64 = 1, threads: Int = Parallel.processorCount, augment: Bool = true,
                inputMean: Float = 0.1307, inputStd: Float = 0.3081, dataTag: String = "") {
        self.architecture = architecture
        self.epochs = epochs
        self.batchSize = batchSize
        self.learningRate = learningRate
        self.momentum = momentum
        self.weightDecay = weightDecay
        self.warmupEpochs = warmupEpochs
        self.schedule = schedule
        self.seed = seed
        self.threads = threads
        self.augment = augment
        self.inputMean = inputMean
        self.inputStd = inputStd
        self.dataTag = dataTag
    }

    /// The learning rate at fractional epoch `t` (0 ≤ t ≤ epochs).
    public func learningRate(at t: Float) -> Float {
        if t < warmupEpochs { return learningRate * max(t / warmupEpochs, 0.02) }
        switch schedule {
        case .constant: return learningRate
        case .cosine:
            let span = max(Float(epochs) - warmupEpochs, 1e-6)
            let progress = min((t - warmupEpochs) / span, 1)
            return learningRate * 0.5 * (1 + cos(.pi * progress))
        }
    }

    /// A stable text of every option that shapes the result, stored in checkpoints so a resume
    /// with different options is refused.
    public var fingerprint: String {
        "arch=\(architecture.map(\.description).joined(separator: ",")) epochs=\(epochs) batch=\(batchSize) lr=\(learningRate) momentum=\(momentum) "
            + "wd=\(weightDecay) warmup=\(warmupEpochs) schedule=\(schedule.rawValue) seed=\(seed) augment=\(augment) "
            + "mean=\(inputMean) std=\(inputStd) data=\(dataTag)"
    }
}

/// What the trainer reports while it runs.
public enum TrainingEvent: Sendable {
    case batch(epoch: Int, batch: Int, batches: Int, loss: Float, accuracy: Float, imagesPerSecond: Double, etaSeconds: Double)
    case epoch(EpochSummary)
    case resumed(fromEpoch: Int)

    /// The event after batch `batch` (0-based) of `epoch` (0-based) of `epochs`, `batches` batches
    /// of `batchSize` an epoch: `seen` images since `epochStart`, their rate, and the time the
    /// rest of the run takes at that rate.
    static func batch(epoch: Int, of epochs: Int, batch: Int, of batches: Int, batchSize n: Int, seen: Int, since epochStart: Date,
                      loss: Float, accuracy: Float) -> TrainingEvent {
        let elapsed = Date().timeIntervalSince(epochStart)
        let rate = Double(seen) / max(elapsed, 1e-9)
        let remaining = Double((epochs - epoch - 1) * batches * n + (batches - batch - 1) * n) / rate
        return .batch(epoch: epoch + 1, batch: batch + 1, batches: batches, loss: loss, accuracy: accuracy,
                      imagesPerSecond: rate, etaSeconds: remaining)
    }
}

public struct EpochSummary: Sendable {
    public var epoch: Int, epochs: Int
    public var trainLoss: Float, trainAccuracy: Float
    public var validationLoss: Float, validationAccuracy: Float
    public var learningRate: Float
    public var seconds: Double
    public var imagesPerSecond: Double

    package init(epoch: Int, epochs: Int, trainLoss: Float, trainAccuracy: Float, validationLoss: Float, validationAccuracy: Float,
                 learningRate: Float, seconds: Double, imagesPerSecond: Double) {
        (self.epoch, self.epochs, self.trainLoss, self.trainAccuracy) = (epoch, epochs, trainLoss, trainAccuracy)
        (self.validationLoss, self.validationAccuracy, self.learningRate) = (validationLoss, validationAccuracy, learningRate)
        (self.seconds, self.imagesPerSecond) = (seconds, imagesPerSecond)
    }
}

/// The outcome of training: the inference description and tensors, ready for `ModelFile`.
public struct TrainedModel: Sendable {
    public var layers: [any Layer]
    public var tensors: [String: TensorData]
    public var inputMean: Float, inputStd: Float
    public var history: [EpochSummary]
    public var seconds: Double
    public var parameterCount: Int
    public var multiplyAdds: Int
}

/// Mini-batch SGD with Nesterov momentum and L2 weight decay on conv/linear weights, softmax
/// cross-entropy loss, per-epoch validation and checkpoints.
public final class Trainer {
    public let options: TrainingOptions
    let train: any SampleSource
    let validation: any SampleSource
    let network: TrainingNetwork
    private var velocity: [FloatBuffer]
    private let input: FloatBuffer
    private let dLogits: FloatBuffer
    private let labels: UnsafeMutablePointer<Int>

    public init(options: TrainingOptions, train: any SampleSource, validation: any SampleSource) throws {
        self.options = options
        self.train = train
        self.validation = validation
        network = try TrainingNetwork(architecture: options.architecture, capacity: options.batchSize, seed: options.seed)
        velocity = network.parameters.map { FloatBuffer(count: $0.count) }
        input = FloatBuffer(count: options.batchSize * 784)
        dLogits = FloatBuffer(count: options.batchSize * network.outputs)
        labels = .allocate(capacity: options.batchSize)
    }

    /// Outputs of the network (10 digits, or 11 with a "not a digit" class).
    public var outputs: Int { network.outputs }

    deinit { labels.deallocate() }

    /// Trainable parameters (batch-norm running statistics are not parameters).
    public var parameterCount: Int {
        network.exportTensors().filter { !$0.key.hasSuffix(".running_mean") && !$0.key.hasSuffix(".running_var") }
            .values.reduce(0) { $0 + $1.count }
    }
    public var multiplyAdds: Int { network.multiplyAdds }

    /// Trains for `options.epochs` epochs, resuming from `checkpoint` when it exists and matches,
    /// and writing it (atomically) after every epoch.
    public func run(checkpoint: String? = nil, report: (TrainingEvent) -> Void) throws -> TrainedModel {
        let start = Date()
        var history: [EpochSummary] = []
        var firstEpoch = 0
        if let checkpoint, FileManager.default.fileExists(atPath: checkpoint) {
            (firstEpoch, history) = try loadCheckpoint(checkpoint)
            report(.resumed(fromEpoch: firstEpoch))
        }
        let batches = train.count / options.batchSize   // the last partial batch is dropped
        let n = options.batchSize
        for epoch in firstEpoch..<options.epochs {
            let epochStart = Date()
            let order = permutation(epoch: epoch)
            var lossSum: Double = 0, correct = 0, seen = 0, digitsSeen = 0
            for b in 0..<batches {
                let t = Float(epoch) + Float(b) / Float(batches)
                let lr = options.learningRate(at: t)
                var dropoutRNG = SplitMix64(seed: options.seed).derived(UInt64(epoch * batches + b) | 1 << 40)
                let ctx = BatchContext(count: n, threads: options.threads, training: true, stepSeed: dropoutRNG.next())
                let stepBase = SplitMix64(seed: options.seed).derived(UInt64(epoch) << 32)
                ctx.parallel { _, images in
                    for k in images {
                        let sample = order[b * n + k]
                        var rng = stepBase.derived(UInt64(b * n + k))
                        let px = input.pointer + k * 784
                        train.render(sample, augment: options.augment, rng: &rng, into: px)
                        labels[k] = train.label(sample)
                        for j in 0..<784 { px[j] = (px[j] - options.inputMean) / options.inputStd }
                    }
                }
                let logits = network.forward(input, ctx)
                let (loss, right) = softmaxCrossEntropy(logits, count: n)
                lossSum += Double(loss) * Double(n)
                correct += right
                seen += n
                for k in 0..<n where labels[k] >= 0 { digitsSeen += 1 }
                network.backward(dLogits, ctx)
                step(learningRate: lr)
                report(.batch(epoch: epoch, of: options.epochs, batch: b, of: batches, batchSize: n, seen: seen, since: epochStart,
                              loss: Float(lossSum / Double(seen)), accuracy: Float(correct) / Float(max(digitsSeen, 1))))
            }
            let trainSeconds = Date().timeIntervalSince(epochStart)
            let (vLoss, vAcc) = try evaluateValidation()
            let summary = EpochSummary(epoch: epoch + 1, epochs: options.epochs, trainLoss: Float(lossSum / Double(max(seen, 1))),
                                       trainAccuracy: Float(correct) / Float(max(digitsSeen, 1)), validationLoss: vLoss,
                                       validationAccuracy: vAcc, learningRate: options.learningRate(at: Float(epoch + 1)),
                                       seconds: Date().timeIntervalSince(epochStart), imagesPerSecond: Double(seen) / trainSeconds)
            history.append(summary)
            report(.epoch(summary))
            if let checkpoint { try saveCheckpoint(checkpoint, epochsDone: epoch + 1, history: history) }
        }
        // Epochs done by an earlier, interrupted run count too: `seconds` is the training's wall time,
        // not this process's.
        let earlierSeconds = history.prefix(firstEpoch).reduce(0) { $0 + $1.seconds }
        return TrainedModel(layers: network.architecture.filter { type(of: $0).typeName != nil }, tensors: network.exportTensors(),
                            inputMean: options.inputMean,
                            inputStd: options.inputStd, history: history,
                            seconds: earlierSeconds + Date().timeIntervalSince(start),
                            parameterCount: parameterCount, multiplyAdds: multiplyAdds)
    }

    /// A seeded Fisher–Yates shuffle of the training indices for `epoch`.
    func permutation(epoch: Int) -> [Int] {
        var rng = SplitMix64(seed: options.seed).derived(0xE90C << 20 | UInt64(epoch))
        return rng.shuffled(Array(0..<train.count))
    }

    /// Mean loss and the number of correct predictions; writes dLoss/dLogits into `dLogits`.
    /// A sample labelled `NonDigitSamples.label` (-1) is trained toward the uniform distribution
    /// over the ten digits (outlier exposure) and is not counted in the accuracy.
    private func softmaxCrossEntropy(_ logits: FloatBuffer, count n: Int) -> (Float, Int) {
        var loss: Float = 0
        var correct = 0
        let classes = network.outputs
        for k in 0..<n {
            let z = logits.pointer + k * classes, d = dLogits.pointer + k * classes
            softmax(z, count: classes, into: d)
            let label = labels[k]
            if label < 0 {
                for c in 0..<classes {
                    let target: Float = c < 10 ? 0.1 : 0
                    if target > 0 { loss -= target * log(max(d[c], 1e-30)) }
                    d[c] = (d[c] - target) / Float(n)
                }
                continue
            }
            var best = 0
            for c in 1..<classes where z[c] > z[best] { best = c }
            if best == label { correct += 1 }
            loss -= log(max(d[label], 1e-30))
            d[label] -= 1
            for c in 0..<classes { d[c] /= Float(n) }
        }
        return (loss / Float(n), correct)
    }

    /// SGD with Nesterov momentum: v ← μv + g; w ← w − lr (g + μv), with g including L2 decay.
    private func step(learningRate lr: Float) {
        for (p, v) in zip(network.parameters, velocity) {
            dk_sgd_nesterov(p.value.pointer, p.grad.pointer, v.pointer, p.count, lr, options.momentum,
                            p.decays ? options.weightDecay : 0)
        }
    }

    /// Loss and accuracy on the validation images through the inference network, exactly as it
    /// will be shipped (batch norm folded).
    func evaluateValidation() throws -> (Float, Float) {
        let net = try InferenceNetwork(layers: network.architecture, tensors: network.exportTensors(),
                                       inputMean: options.inputMean, inputStd: options.inputStd, outputs: network.outputs)
        let count = validation.count
        var pixels = [Float](repeating: 0, count: count * 784)
        var rng = SplitMix64(seed: 0)
        pixels.withUnsafeMutableBufferPointer { p in
            for i in 0..<count { validation.render(i, augment: false, rng: &rng, into: p.baseAddress! + i * 784) }
        }
        let classes = network.outputs
        var logits = [Float](repeating: 0, count: count * classes)
        pixels.withUnsafeBufferPointer { p in
            logits.withUnsafeMutableBufferPointer { l in
                net.logits(pixels: p.baseAddress!, count: count, into: l.baseAddress!, threads: options.threads)
            }
        }
        var loss: Double = 0
        var correct = 0
        var prob = [Float](repeating: 0, count: classes)
        for i in 0..<count {
            logits.withUnsafeBufferPointer { l in
                prob.withUnsafeMutableBufferPointer { softmax(l.baseAddress! + i * classes, count: classes, into: $0.baseAddress!) }
            }
            let label = validation.label(i)
            loss -= Double(log(max(prob[label], 1e-30)))
            if prob.indices.max(by: { prob[$0] < prob[$1] }) == label { correct += 1 }
        }
        return (Float(loss / Double(max(count, 1))), Float(correct) / Float(max(count, 1)))
    }

    // MARK: - Checkpoints

    private func saveCheckpoint(_ path: String, epochsDone: Int, history: [EpochSummary]) throws {
        try TrainingCheckpoint(epochsDone: epochsDone, history: history, network: network.exportTensors(),
                               optimizer: ["velocity": velocity.arrays])
            .write(to: path, parameterNames: network.parameters.map(\.name), options: options)
    }

    private func loadCheckpoint(_ path: String) throws -> (Int, [EpochSummary]) {
        let saved = try TrainingCheckpoint.read(path: path, options: options, parameters: network.parameterLayout, prefixes: ["velocity"])
        do { try network.importTensors(saved.network) } catch let e as DigitError { throw e.inFile(path) }
        velocity.load(saved.optimizer["velocity"] ?? [])
        return (saved.epochsDone, saved.history)
    }
}
