@testable import DigitKit
import Foundation
import DigitTestSupport
import XCTest

/// The trainer: it learns, it is reproducible bit for bit (seed, thread count, resume), and its
/// learning-rate schedule and temperature calibration do what they say.
final class TrainingTests: XCTestCase {
    private static var cachedTrainSet: MNISTSet?

    private func trainSet() throws -> MNISTSet? {
        if let set = Self.cachedTrainSet { return set }
        guard let dir = TestPaths.requireMNIST() else { return nil }
        let set = try MNISTSet.load(directory: dir.path, split: .train)
        Self.cachedTrainSet = set
        return set
    }

    /// Small runs for the reproducibility tests: 192 images, 2 epochs of 6 batches of 32 (4 chunks
    /// of 8 images each), augmentation on, and a network with every layer type including dropout
    /// after pooling, so every source of randomness and every parallel reduction is exercised.
    private func smallOptions(threads: Int = 1) -> TrainingOptions {
        TrainingOptions(architecture: [Conv2D("conv1", outChannels: 16, kernel: 3, padding: 1), BatchNorm2D("bn1"), ReLU(), MaxPool2D(),
                                       Conv2D("conv2", outChannels: 16, kernel: 3, padding: 1), BatchNorm2D("bn2"), ReLU(), MaxPool2D(),
                                       Flatten(), Dropout(0.3), Linear("fc", outCount: 10)],
                        epochs: 2, batchSize: 32, warmupEpochs: 0.5, seed: 17, threads: threads)
    }

    private func smallTrainer(_ options: TrainingOptions, _ set: MNISTSet) throws -> Trainer {
        try Trainer(options: options, train: MNISTSamples(set, range: 0..<192), validation: MNISTSamples(set, range: 192..<224))
    }

    private func assertBitIdentical(_ a: TrainedModel, _ b: TrainedModel, _ what: String,
                                    file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(Set(a.tensors.keys), Set(b.tensors.keys), what, file: file, line: line)
        for (name, t) in a.tensors {
            guard let u = b.tensors[name] else { continue }
            XCTAssertEqual(bits(t.values), bits(u.values), "\(what): tensor \(name) differs", file: file, line: line)
        }
    }

    // MARK: - Learning

    func testTraining_TinyNetworkReachesNinetyPercentOnHeldOutImagesInSeconds() throws {
        guard let set = try trainSet() else { return }
        let options = TrainingOptions(architecture: Architecture.tiny(), epochs: 2, batchSize: 32, warmupEpochs: 0.3, seed: 1, threads: 2)
        // 3,000 training images; 1,000 other training images held out (never seen in training).
        let trainer = try Trainer(options: options, train: MNISTSamples(set, range: 0..<3000),
                              validation: MNISTSamples(set, range: 59000..<60000))
        let start = Date()
        var epochs: [EpochSummary] = []
        let model = try trainer.run { if case let .epoch(s) = $0 { epochs.append(s) } }
        let seconds = Date().timeIntervalSince(start)
        print("tiny network, 3,000 images × 2 epochs: \(String(format: "%.1f", seconds)) s, held-out accuracy "
              + epochs.map { String(format: "%.2f%%", $0.validationAccuracy * 100) }.joined(separator: " → "))

        // Measured independently of the trainer's own validation figure: the shipped inference path.
        let network = try ModelFile(layers: model.layers, tensors: model.tensors, inputMean: model.inputMean,
                                    inputStd: model.inputStd).makeNetwork()
        let probabilities = BatchInference.probabilities(network, pixels: BatchInference.pixels(set, range: 59000..<60000),
                                                         temperature: 1, threads: 2)
        let report = EvaluationReport(probabilities: probabilities,
                                      labels: (59000..<60000).map { Int(set.labels[$0]) }, threshold: 0.9, temperature: 1)
        XCTAssertGreaterThanOrEqual(report.accuracy, 0.90, "accuracy on 1,000 held-out images")
        XCTAssertEqual(Double(epochs.last?.validationAccuracy ?? 0), report.accuracy, accuracy: 1e-6)
        XCTAssertEqual(epochs.map(\.epoch), [1, 2])
        XCTAssertLessThan(epochs.last?.trainLoss ?? .infinity, epochs.first?.trainLoss ?? 0, "training loss goes down")
        XCTAssertLessThan(seconds, 60)
    }

    // MARK: - Reproducibility

    func testTraining_SameSeedTwiceGivesBitIdenticalWeights() throws {
        guard let set = try trainSet() else { return }
        let a = try smallTrainer(smallOptions(), set).run { _ in }
        let b = try smallTrainer(smallOptions(), set).run { _ in }
        assertBitIdentical(a, b, "same seed")
        var other = smallOptions()
        other.seed = 18
        let c = try smallTrainer(other, set).run { _ in }
        XCTAssertNotEqual(a.tensors["fc.weight"].map { bits($0.values) }, c.tensors["fc.weight"].map { bits($0.values) },
                          "another seed gives other weights")
    }

    func testTraining_OneAndTwoThreadsGiveBitIdenticalWeights() throws {
        guard let set = try trainSet() else { return }
        let one = try smallTrainer(smallOptions(threads: 1), set).run { _ in }
        let two = try smallTrainer(smallOptions(threads: 2), set).run { _ in }
        let three = try smallTrainer(smallOptions(threads: 3), set).run { _ in }
        assertBitIdentical(one, two, "1 vs 2 threads")
        assertBitIdentical(one, three, "1 vs 3 threads")
    }

    func testTraining_ResumingFromTheEpochOneCheckpointGivesTheUninterruptedWeights() throws {
        guard let set = try trainSet() else { return }
        let folder = try temporaryFolder(self)
        let checkpoint = folder.appendingPathComponent("run.checkpoint").path
        let saved = folder.appendingPathComponent("after-epoch-1.checkpoint").path
        // The trainer rewrites its checkpoint after every epoch; keep the one written after epoch 1
        // (it is on disk when epoch 2 starts).
        var copied = false
        let uninterrupted = try smallTrainer(smallOptions(), set).run(checkpoint: checkpoint) { event in
            if case let .batch(epoch, batch, _, _, _, _, _) = event, epoch == 2, batch == 1 {
                copied = (try? FileManager.default.copyItem(atPath: checkpoint, toPath: saved)) != nil
            }
        }
        XCTAssertTrue(copied, "the epoch-1 checkpoint was not there when epoch 2 started")
        XCTAssertEqual(try SafetensorsFile.read(path: saved).metadata["epochs_done"], "1")

        var resumedFrom: Int?
        var epochsRun: [Int] = []
        let resumed = try smallTrainer(smallOptions(threads: 2), set).run(checkpoint: saved) { event in
            if case let .resumed(epoch) = event { resumedFrom = epoch }
            if case let .epoch(s) = event { epochsRun.append(s.epoch) }
        }
        XCTAssertEqual(resumedFrom, 1)
        XCTAssertEqual(epochsRun, [2], "only the remaining epoch runs")
        XCTAssertEqual(resumed.history.map(\.epoch), [1, 2], "the history of epoch 1 comes from the checkpoint")
        XCTAssertGreaterThanOrEqual(resumed.seconds, resumed.history[0].seconds + resumed.history[1].seconds,
                                    "the wall time counts the epoch done before the interruption")
        assertBitIdentical(uninterrupted, resumed, "resumed vs uninterrupted")
    }

    func testTraining_CheckpointFromOtherOptionsIsRefused() throws {
        guard let set = try trainSet() else { return }
        let folder = try temporaryFolder(self)
        let checkpoint = folder.appendingPathComponent("run.checkpoint").path
        var one = smallOptions()
        one.epochs = 1
        _ = try smallTrainer(one, set).run(checkpoint: checkpoint) { _ in }
        var other = one
        other.learningRate = 0.01
        XCTAssertThrowsError(try smallTrainer(other, set).run(checkpoint: checkpoint) { _ in }) { e in
            XCTAssertEqual((e as? DigitError)?.kind, .usage, "\(e)")
            XCTAssertTrue("\(e)".contains(checkpoint) && "\(e)".contains("other training options"), "\(e)")
        }
    }

    // MARK: - Augmentation

    func testAugmentation_CleanShareLeavesThatShareUndistortedAndZeroDrawsNothingExtra() {
        var rng = SplitMix64(seed: 9)
        let image = (0..<784).map { i in Float((i * 37) % 11) / 10 }
        var out = [Float](repeating: 0, count: 784)
        func apply(_ a: Augmentation, _ r: inout SplitMix64) -> [Float] {
            image.withUnsafeBufferPointer { src in out.withUnsafeMutableBufferPointer { a.apply(src.baseAddress!, into: $0.baseAddress!, rng: &r) } }
            return out
        }
        var always = Augmentation()
        always.clean = 1
        XCTAssertEqual(apply(always, &rng), image, "clean 1: every image as it is")
        // clean 0 draws no extra random number: the same stream gives the same distortion as before.
        var r1 = SplitMix64(seed: 4), r2 = SplitMix64(seed: 4)
        let plain = apply(Augmentation(), &r1)
        XCTAssertNotEqual(plain, image)
        XCTAssertEqual(apply(Augmentation(), &r2), plain)
        XCTAssertEqual(r1.next(), r2.next())
        // clean 0.5: about half of the images are untouched.
        var half = Augmentation()
        half.clean = 0.5
        var untouched = 0
        for _ in 0..<400 where apply(half, &rng) == image { untouched += 1 }
        XCTAssertTrue((160...240).contains(untouched), "\(untouched) of 400 undistorted")
    }

    func testAugmentation_ElasticWarpMovesInkByAtMostItsAmplitudeAndZeroDrawsNothingExtra() {
        // A 3×3 dot at (9, 18); no affine distortion, no thickness change.
        var image = [Float](repeating: 0, count: 784)
        for y in 17...19 { for x in 8...10 { image[y * 28 + x] = 1 } }
        var still = Augmentation()
        (still.rotationDegrees, still.scale, still.aspect, still.shear, still.shift) = (0, 1...1, 1...1, 0, 0)
        (still.thicken, still.thin) = (0, 0)
        var out = [Float](repeating: 0, count: 784)
        func apply(_ a: Augmentation, _ r: inout SplitMix64) -> [Float] {
            image.withUnsafeBufferPointer { src in out.withUnsafeMutableBufferPointer { a.apply(src.baseAddress!, into: $0.baseAddress!, rng: &r) } }
            return out
        }
        func centre(_ p: [Float]) -> (x: Float, y: Float) {
            var (m, sx, sy): (Float, Float, Float) = (0, 0, 0)
            for i in 0..<784 { m += p[i]; sx += p[i] * Float(i % 28); sy += p[i] * Float(i / 28) }
            return (sx / m, sy / m)
        }
        var r1 = SplitMix64(seed: 4), r2 = SplitMix64(seed: 4)
        XCTAssertEqual(apply(still, &r1), image, "no distortion at all: the image as it is")
        var warp = still
        warp.elastic = 1
        warp.elasticAmplitude = 0
        XCTAssertEqual(apply(warp, &r2), image, "a warp of amplitude 0 moves nothing")
        // Without a warp the map draws 7 numbers (angle, scale, aspect, shear, two shifts, thickness);
        // elastic 0 draws nothing more. A warp draws one for the choice and 32 for its field.
        var plain = SplitMix64(seed: 4)
        for _ in 0..<7 { _ = plain.next() }
        XCTAssertEqual(r1.next(), plain.next())
        for _ in 0..<32 { _ = plain.next() }
        XCTAssertEqual(r2.next(), plain.next())

        warp.elasticAmplitude = 2
        var rng = SplitMix64(seed: 7)
        var moved = 0
        let most: Float = 2 * Float(2).squareRoot() + 0.01
        for _ in 0..<200 {
            let c = centre(apply(warp, &rng))
            let d = ((c.x - 9) * (c.x - 9) + (c.y - 18) * (c.y - 18)).squareRoot()
            XCTAssertLessThanOrEqual(d, most, "the dot moved \(d) pixels")
            if d > 0.5 { moved += 1 }
        }
        XCTAssertGreaterThan(moved, 100, "most warps move the dot")
    }

    // MARK: - Schedule

    func testLearningRate_WarmsUpLinearlyThenFollowsAHalfCosineToZero() {
        var o = TrainingOptions()
        o.learningRate = 0.1
        o.epochs = 10
        o.warmupEpochs = 2
        // Warm-up: lr·t/warmup, but never below 2% of the peak.
        XCTAssertEqual(o.learningRate(at: 0), 0.002, accuracy: 1e-9)
        XCTAssertEqual(o.learningRate(at: 0.5), 0.025, accuracy: 1e-7)
        XCTAssertEqual(o.learningRate(at: 1), 0.05, accuracy: 1e-7)
        XCTAssertEqual(o.learningRate(at: 2), 0.1, accuracy: 1e-7, "the peak at the end of warm-up")
        // Cosine over the remaining 8 epochs: half way (t = 6) is half the peak, the end is 0.
        XCTAssertEqual(o.learningRate(at: 6), 0.05, accuracy: 1e-6)
        XCTAssertEqual(o.learningRate(at: 4), 0.1 * 0.5 * (1 + Float(cos(Double.pi / 4))), accuracy: 1e-6)
        XCTAssertEqual(o.learningRate(at: 10), 0, accuracy: 1e-7)
        XCTAssertEqual(o.learningRate(at: 12), 0, accuracy: 1e-7, "stays at zero past the end")
        // Monotone: up during warm-up, down after.
        let ts = stride(from: Float(0), through: 10, by: 0.05).map { $0 }
        for (a, b) in zip(ts, ts.dropFirst()) {
            if b <= 2 { XCTAssertLessThanOrEqual(o.learningRate(at: a), o.learningRate(at: b), "t \(a)…\(b)") }
            else { XCTAssertGreaterThanOrEqual(o.learningRate(at: a), o.learningRate(at: b), "t \(a)…\(b)") }
        }
        o.schedule = .constant
        XCTAssertEqual(o.learningRate(at: 1), 0.05, accuracy: 1e-7)
        XCTAssertEqual(o.learningRate(at: 2), 0.1)
        XCTAssertEqual(o.learningRate(at: 9.9), 0.1)
        o.warmupEpochs = 0
        XCTAssertEqual(o.learningRate(at: 0), 0.1, "no warm-up: the peak from the start")
    }

    // MARK: - Calibration

    func testCalibration_FitTemperatureRecoversTheTemperatureThatMadeTheLabels() {
        var rng = SplitMix64(seed: 51)
        for trueT in [0.5, 1.0, 2.5] {
            // Labels drawn from softmax(z / T): the maximum-likelihood T is close to the true one.
            let n = 4000
            var logits = [Float](), labels = [Int]()
            for _ in 0..<n {
                let z = (0..<10).map { _ in rng.normal() * 3 }
                let e = z.map { exp(Double($0) / trueT) }
                var u = Double(rng.nextFloat()) * e.reduce(0, +)
                var label = 9
                for c in 0..<10 { u -= e[c]; if u < 0 { label = c; break } }
                logits += z
                labels.append(label)
            }
            let fitted = Double(Calibration.fitTemperature(logits: logits, labels: labels))
            // 4,000 samples: the estimate's standard error is a few percent of T; allow 10%.
            XCTAssertEqual(fitted, trueT, accuracy: 0.1 * trueT, "true temperature \(trueT)")
        }
    }

    func testCalibration_OverconfidentLogitsGetATemperatureAboveOne() {
        // Always 10 logits apart but right only 70% of the time: the fitted temperature softens them.
        var logits = [Float](), labels = [Int]()
        for i in 0..<1000 {
            var z = [Float](repeating: 0, count: 10)
            z[i % 10] = 10
            logits += z
            labels.append(i % 10 < 7 ? i % 10 : (i + 1) % 10)
        }
        let t = Calibration.fitTemperature(logits: logits, labels: labels)
        // The other nine logits are equal, so the likelihood is best when the top probability
        // 1 / (1 + 9·e^(-10/T)) equals the 70% accuracy.
        let p: (Float) -> Double = { T in 1 / (1 + 9 * exp(-10 / Double(T))) }
        XCTAssertGreaterThan(t, 1)
        XCTAssertEqual(p(t), 0.7, accuracy: 0.01, "calibrated top probability equals the accuracy")
    }
}
