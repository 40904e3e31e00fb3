import DigitFormats
@testable import DigitKit
import DigitTestSupport
import XCTest

/// The line model's trainer (`LineTrainer`): the same options give the same weights, and an
/// interrupted run resumes from its checkpoint to the weights of an uninterrupted one.
final class LineTrainingTests: XCTestCase {
    /// A tiny line network (32 rows pooled to 4, flattened to one row of 8 columns at width 64)
    /// and tiny lines, so the debug build trains it in a second.
    private func options(epochs: Int = 2, threads: Int = 1) -> TrainingOptions {
        TrainingOptions(architecture: [Conv2D("conv1", outChannels: 8, kernel: 3, padding: 1), BatchNorm2D("bn1"), ReLU(), MaxPool2D(),
                                       MaxPool2D(), MaxPool2D(), HeightFlatten(), Dropout(0.2),
                                       Conv2D("conv2", outChannels: LineSymbols.classes.count, kernel: 1, padding: 0)],
                        epochs: epochs, batchSize: 4, learningRate: 0.002, weightDecay: 0.0001, warmupEpochs: 0.5, seed: 5,
                        threads: threads, inputMean: 0.08, inputStd: 0.22, dataTag: "test lines")
    }

    /// Lines of upright bars: `n` bars for the label of `n` ones, a box for a zero.
    private func lines(count: Int) -> LineSet {
        var set = LineSet()
        for i in 0..<count {
            let h = LineImage.height, w = 40
            var pixels = [Float](repeating: 0, count: h * w)
            let ones = i % 3 + 1
            let label: String
            if i % 4 == 3 {
                for y in 6..<26 { for x in 10..<30 where y < 8 || y > 23 || x < 12 || x > 27 { pixels[y * w + x] = 1 } }
                label = "0"
            } else {
                for k in 0..<ones { for y in 6..<26 { for x in (6 + 12 * k)..<(8 + 12 * k) { pixels[y * w + x] = 1 } } }
                label = String(repeating: "1", count: ones)
            }
            set.append(LineImage(pixels: pixels, width: w), label: label)
        }
        return set
    }

    private func trainer(_ o: TrainingOptions) throws -> LineTrainer {
        try LineTrainer(options: o, width: 64, train: LineSamples(lines(count: 16), width: 64), validation: LineSamples(lines(count: 4), width: 64))
    }

    private func assertBitIdentical(_ a: TrainedModel, _ b: TrainedModel, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(Set(a.tensors.keys), Set(b.tensors.keys), what, file: file, line: line)
        for (name, t) in a.tensors {
            XCTAssertEqual(bits(t.values), b.tensors[name].map { bits($0.values) }, "\(what): tensor \(name) differs", file: file, line: line)
        }
    }

    func testLineRecipe_AFoldModelsSyntheticLinesNeverUseItsHeldOutWriters() {
        let drawing = Drawing(strokes: [[StrokePoint(x: 0, y: 0), StrokePoint(x: 0, y: 10)]], label: "1")
        let records = [3, 4, 6, 7, nil].enumerated().map { k, w in
            DrawingRecord(source: "pen", index: k, line: nil, writer: w, result: .success(drawing))
        }
        var recipe = LineRecipe()
        XCTAssertEqual(recipe.usable(records).map(\.writer), [3, 4, 6, 7, nil], "the shipped recipe: every writer")
        recipe.heldOutWriters = [3, 6]
        XCTAssertEqual(recipe.usable(records).map(\.writer), [4, 7, nil])
        XCTAssertTrue(recipe.dataTag(.init(real: [], validation: "v", strokes: "pen", cache: nil)).hasSuffix(" held-out-writers=3,6"))
        recipe.writingStyles = 0
        XCTAssertFalse(recipe.dataTag(.init(real: [], validation: "v", strokes: "pen", cache: nil)).contains("writing-styles"))
        recipe.writingStyles = 0.25
        XCTAssertTrue(recipe.dataTag(.init(real: [], validation: "v", strokes: "pen", cache: nil)).contains(" writing-styles=0.25 "),
                      "the record names the share of other hands")
    }

    func testLineTraining_TheSameOptionsGiveTheSameWeightsAndTheLossFalls() throws {
        let a = try trainer(options(epochs: 3)).run { _ in }
        let b = try trainer(options(epochs: 3)).run { _ in }
        assertBitIdentical(a, b, "two runs")
        XCTAssertLessThan(a.history[2].trainLoss, a.history[0].trainLoss, "the CTC loss falls: \(a.history.map(\.trainLoss))")
    }

    func testLineTraining_ResumingFromTheEpochOneCheckpointGivesTheUninterruptedWeights() throws {
        let folder = try temporaryFolder(self)
        let checkpoint = folder.appendingPathComponent("lines.checkpoint").path
        let saved = folder.appendingPathComponent("after-epoch-1.checkpoint").path
        // The checkpoint is rewritten after every epoch; the one of epoch 1 is on disk when epoch 2 starts.
        var copied = false
        let uninterrupted = try trainer(options()).run(checkpoint: checkpoint) { event in
            if case let .batch(epoch, batch, _, _, _, _, _) = event, epoch == 2, batch == 1 {
                copied = (try? FileManager.default.copyItem(atPath: checkpoint, toPath: saved)) != nil
            }
        }
        XCTAssertTrue(copied, "the epoch-1 checkpoint was not there when epoch 2 started")
        let file = try SafetensorsFile.read(path: saved)
        XCTAssertEqual(file.metadata["epochs_done"], "1")
        XCTAssertNotNil(file.tensors["adam.m.conv1.weight"], "Adam's first moment is kept: \(file.tensors.keys.sorted())")
        XCTAssertNotNil(file.tensors["adam.v.conv2.bias"], "Adam's second moment is kept: \(file.tensors.keys.sorted())")

        var resumedFrom: Int?
        var epochsRun: [Int] = []
        let resumed = try trainer(options()).run(checkpoint: saved) { event in
            if case let .resumed(epoch) = event { resumedFrom = epoch }
            if case let .epoch(s) = event { epochsRun.append(s.epoch) }
        }
        XCTAssertEqual(resumedFrom, 1)
        XCTAssertEqual(epochsRun, [2], "only the remaining epoch runs")
        XCTAssertEqual(resumed.history.map(\.epoch), [1, 2], "the history of epoch 1 comes from the checkpoint")
        assertBitIdentical(uninterrupted, resumed, "resumed vs uninterrupted")
    }

    func testLineTraining_ACheckpointOfOtherOptionsOrAnotherFileIsRefused() throws {
        let folder = try temporaryFolder(self)
        let checkpoint = folder.appendingPathComponent("lines.checkpoint").path
        _ = try trainer(options(epochs: 1)).run(checkpoint: checkpoint) { _ in }
        var other = options(epochs: 1)
        other.learningRate = 0.001
        XCTAssertThrowsError(try trainer(other).run(checkpoint: checkpoint) { _ in }) { e in
            XCTAssertEqual((e as? DigitError)?.kind, .usage, "\(e)")
            XCTAssertTrue("\(e)".contains(checkpoint) && "\(e)".contains("other training options"), "\(e)")
        }
        // A weight file is no checkpoint.
        let weights = folder.appendingPathComponent("weights.safetensors").path
        try SafetensorsFile(tensors: ["w": TensorData(shape: [1], values: [0])], metadata: [:]).write(to: weights)
        XCTAssertThrowsError(try trainer(options(epochs: 1)).run(checkpoint: weights) { _ in }) { e in
            XCTAssertEqual((e as? DigitError)?.kind, .format, "\(e)")
            XCTAssertTrue("\(e)".contains("not a digits training checkpoint"), "\(e)")
        }
    }
}
