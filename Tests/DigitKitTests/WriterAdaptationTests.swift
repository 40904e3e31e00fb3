import DigitKit
import DigitTestSupport
import Foundation
import XCTest

/// Personal profiles (`WriterProfile`) and how they are learned (`WriterAdaptation`).
final class WriterAdaptationTests: XCTestCase {
    private func profile(for model: ModelFile, scale: Float = 1.1) -> WriterProfile {
        let w = model.tensors["fc.weight"]!, b = model.tensors["fc.bias"]!
        return WriterProfile(baseWeights: model.weightsID, layerWeight: "fc.weight", layerBias: "fc.bias",
                             weight: .init(shape: w.shape, values: w.values.map { $0 * scale }),
                             bias: .init(shape: b.shape, values: b.values.map { $0 + 0.01 }), blend: 0.5, record: ["drawings": "20"])
    }

    func testProfile_WritesAndReadsBackTheSame() throws {
        let folder = try temporaryFolder(self)
        let path = folder.appendingPathComponent("me.profile").path
        let made = profile(for: FuzzChecks.profileBase)
        try made.write(to: path)
        let read = try WriterProfile.load(path: path)
        XCTAssertEqual(read.weight, made.weight)
        XCTAssertEqual(read.bias, made.bias)
        XCTAssertEqual(read.blend, 0.5)
        XCTAssertEqual(read.baseWeights, FuzzChecks.profileBase.weightsID)
        XCTAssertEqual(read.drawingCount, 20)
        XCTAssertLessThan(try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int, WriterProfile.maxFileBytes)
    }

    func testProfile_AValueFarOutOfRangeIsRefusedNamingItsPlace() throws {
        // Finite but huge (8.5e37, found by the profiles fuzz target): the logits overflowed and
        // the adapted model answered NaN. Refused on load, naming the tensor and the index.
        let folder = try temporaryFolder(self)
        let path = folder.appendingPathComponent("huge.profile").path
        var made = profile(for: FuzzChecks.profileBase)
        made.weight.values[1610] = 8.457e37
        try made.write(to: path)
        XCTAssertThrowsError(try WriterProfile.load(path: path)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("huge.profile") && text.contains("tensor 'weight'[1610]") && text.contains("out of range"), text)
        }
        made.weight.values[1610] = WriterProfile.largestValue
        try made.write(to: path)
        XCTAssertNoThrow(try WriterProfile.load(path: path))
    }

    func testProfile_AppliedReplacesOnlyTheLastLayer() throws {
        let base = FuzzChecks.profileBase
        let adapted = try profile(for: base).apply(to: base, file: "me.profile")
        for name in base.tensors.keys where !name.hasPrefix("fc.") { XCTAssertEqual(adapted.tensors[name], base.tensors[name], name) }
        XCTAssertNotEqual(adapted.tensors["fc.weight"], base.tensors["fc.weight"])
        XCTAssertEqual(try DigitRecognizer(model: adapted).profileName, "me.profile")
        XCTAssertNil(try DigitRecognizer(model: base).profileName)
    }

    func testProfile_ForOtherWeightsIsRefusedNamingTheFile() throws {
        var other = FuzzChecks.profileBase
        other.tensors["conv.bias"] = TensorData(shape: [2], values: [0.2, -0.1])
        XCTAssertNotEqual(other.weightsID, FuzzChecks.profileBase.weightsID)
        XCTAssertThrowsError(try profile(for: FuzzChecks.profileBase).apply(to: other, file: "me.profile")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("me.profile") && text.contains("digits adapt"), text)
        }
    }

    func testLastLayer_FeaturesTimesTheLayerAreTheNetworksLogits() throws {
        // The refit works on features in the network's own (NHWC) order; the file's columns are
        // PyTorch's (NCHW): a wrong permutation would show here.
        let model = try ModelFile.load(path: TestPaths.weights.path)
        let recognizer = try DigitRecognizer(model: model)
        var rng = SplitMix64(seed: 3)
        let pixels = (0..<(3 * 784)).map { _ in rng.nextFloat() < 0.2 ? rng.nextFloat() : 0 }
        let same = try WriterAdaptation.checkLayerOrder(model: model, pixels: pixels)
        for (i, (mine, network)) in same.enumerated() { XCTAssertEqual(mine, network, accuracy: 1e-3, "logit \(i)") }
        XCTAssertEqual(recognizer.network.classCount, 11)
    }

    /// A hand the base model reads poorly: pendigits writers' digits slanted hard and squeezed.
    private func slantedHand() throws -> [Drawing] {
        let records = try DrawingLoader.load(TestPaths.pendigits.path)
        return records.compactMap { r -> Drawing? in
            guard r.writer == 7, case var .success(d) = r.result, d.labelDigit != nil else { return nil }
            d.strokes = d.strokes.map { $0.map { StrokePoint(x: 0.45 * ($0.x + 0.9 * $0.y), y: $0.y) } }
            return d
        }
    }

    func testAdapt_FiveDrawingsADigitHalveTheErrorsOfAStrangeHandAndLettersStayRefused() throws {
        let model = try ModelFile.load(path: TestPaths.weights.path)
        let drawings = try slantedHand()
        XCTAssertGreaterThan(drawings.count, 200)
        let base = try DigitRecognizer(model: model)
        var learn: [WriterAdaptation.Example] = [], test: [Drawing] = []
        var seen = [Int](repeating: 0, count: 10)
        var pixels = [Float](repeating: 0, count: 784)
        for (i, d) in drawings.enumerated() {
            let label = d.labelDigit!
            if seen[label] < 5 {
                seen[label] += 1
                pixels.withUnsafeMutableBufferPointer { base.rasterizer.rasterize(d, into: $0) }
                learn.append(.init(pixels: pixels, label: label, group: i))
            } else { test.append(d) }
        }
        let (profile, report) = try WriterAdaptation().adapt(model: model, examples: learn, threads: 2)
        XCTAssertEqual(report.perDigit, [Int](repeating: 5, count: 10))
        XCTAssertGreaterThan(report.blend, 0, "cross-validation found no gain: \(report.before) → \(report.after)")
        let mine = try DigitRecognizer(model: try profile.apply(to: model))
        let baseErrors = test.filter { base.recognize($0).bestGuess != $0.labelDigit }.count
        let myErrors = test.filter { mine.recognize($0).bestGuess != $0.labelDigit }.count
        XCTAssertGreaterThan(baseErrors, 10, "the hand is not strange enough to test with")
        XCTAssertLessThanOrEqual(2 * myErrors, baseErrors, "errors \(baseErrors) → \(myErrors)")
        let glyphs = try GlyphSamples.load(TestPaths.fixtures.appendingPathComponent("hershey/glyphs.jsonl").path)
        let letters = NonDigitSet.glyphs(glyphs, fonts: GlyphSamples.heldOutFonts, repeats: 1, seed: 1)
        let refused = letters.filter { mine.recognize($0).digit == nil }.count
        XCTAssertGreaterThanOrEqual(Double(refused), 0.95 * Double(letters.count), "\(refused) of \(letters.count) letters refused")
    }

    func testAdapt_KeepsTheBaseWhenTheHandIsAlreadyRead() throws {
        let model = try ModelFile.load(path: TestPaths.weights.path)
        let base = try DigitRecognizer(model: model)
        let records = try DrawingLoader.load(TestPaths.pendigits.path).filter { $0.writer == 3 }
        let (examples, skipped) = WriterAdaptation.examples(from: Array(records.prefix(40)), recognizer: base)
        XCTAssertEqual(skipped, [])
        let (profile, report) = try WriterAdaptation().adapt(model: model, examples: examples, threads: 2)
        XCTAssertLessThanOrEqual(report.after.errors, report.before.errors)
        XCTAssertLessThanOrEqual(report.after.wrongAnswered, report.before.wrongAnswered)
        if report.blend == 0 { XCTAssertEqual(try profile.apply(to: model).tensors, model.tensors) }
    }

    func testChoice_AnswersMadeSureCountAsAGainButNeverAWrongAnswerMore() {
        // Blend 0 (the base) first, then four blends of one pull, as `adapt` lays them out.
        func f(errors: Int = 1, answered: Int = 48, wrong: Int = 0, sure: Int = 40, loss: Double) -> WriterAdaptation.Figures {
            var x = WriterAdaptation.Figures()
            x.count = 50; x.errors = errors; x.answered = answered; x.wrongAnswered = wrong; x.rightSure = sure; x.logLoss = loss
            return x
        }
        let adaptation = WriterAdaptation()
        let base = f(loss: 10)
        // The same counts, a lower log loss: no counted gain, the base stays.
        XCTAssertEqual(adaptation.choice([base, f(loss: 9), f(loss: 8), f(loss: 7), f(loss: 6)], blendsPerPull: 5), 0)
        // One more drawing right and sure is not enough; two are (Options.sureGain).
        XCTAssertEqual(adaptation.choice([base, f(sure: 41, loss: 6), f(loss: 9), f(loss: 9), f(loss: 9)], blendsPerPull: 5), 0)
        XCTAssertEqual(adaptation.choice([base, f(sure: 41, loss: 6), f(sure: 42, loss: 8), f(loss: 9), f(loss: 9)], blendsPerPull: 5), 2)
        // Surer answers never pay for a wrong answer, a top-1 error or a right answer lost.
        XCTAssertEqual(adaptation.choice([base, f(answered: 49, wrong: 1, sure: 45, loss: 5), f(errors: 2, sure: 45, loss: 5),
                                          f(answered: 47, sure: 45, loss: 5), f(loss: 9)], blendsPerPull: 5), 0)
        // A gain in answers is still a gain, and the lowest log loss among the gains is kept.
        XCTAssertEqual(adaptation.choice([base, f(answered: 49, loss: 8), f(answered: 50, loss: 7), f(sure: 44, loss: 7.5), f(loss: 6)],
                                         blendsPerPull: 5), 2)
    }

    func testAdapt_WithASecondOpinionTheBaseFiguresAreThePairsAndAPullIsChosen() throws {
        // Cross-validated as recognize reads: the base's figures (blend 0) are the pair's own
        // answers on the writer's drawings.
        let model = try ModelFile.load(path: TestPaths.weights.path)
        let pair = try DigitRecognizer(model: model)
        pair.secondOpinion = try SecondOpinion(path: TestPaths.secondOpinion.path)
        let (examples, _) = WriterAdaptation.examples(from: Array(try slantedHand().prefix(40)).map {
            DrawingRecord(source: "hand", index: 0, line: nil, writer: 7, result: .success($0))
        }, recognizer: pair)
        var options = WriterAdaptation.Options()
        options.copies = 1
        let (_, report) = try WriterAdaptation(options: options).adapt(model: model, examples: examples,
                                                                       opinion: pair.secondOpinion, threads: 2)
        var want = WriterAdaptation.Figures()
        for e in examples {
            let r = pair.recognize(pixels: e.pixels)
            want.count += 1
            if r.bestGuess != e.label { want.errors += 1 }
            if let d = r.digit { want.answered += 1; if d != e.label { want.wrongAnswered += 1 } }
        }
        XCTAssertEqual(report.before.count, want.count)
        XCTAssertEqual(report.before.errors, want.errors)
        XCTAssertEqual(report.before.answered, want.answered)
        XCTAssertEqual(report.before.wrongAnswered, want.wrongAnswered)
        XCTAssertTrue(options.pulls.contains(report.pull), "\(report.pull)")
        XCTAssertGreaterThan(want.errors + (want.count - want.answered), 0, "a hand the pair reads perfectly tests nothing")
    }

    func testExamples_ANumberGivesItsDigitsWhenCutIntoAsMany() throws {
        let base = try DigitRecognizer(model: try ModelFile.load(path: TestPaths.weights.path))
        let records = try DrawingLoader.load(TestPaths.pendigits.path).filter { $0.writer == 3 }
        let one = try records[0].result.get(), two = try records[1].result.get()
        func box(_ d: Drawing) -> (Float, Float) {
            let xs = d.strokes.flatMap { $0.map(\.x) }
            return (xs.min()!, xs.max()!)
        }
        let shift = box(one).1 - box(two).0 + 60
        var number = one
        number.strokes += two.strokes.map { $0.map { StrokePoint(x: $0.x + shift, y: $0.y) } }
        number.label = "\(one.labelDigit!)\(two.labelDigit!)"
        let (examples, skipped) = WriterAdaptation.examples(
            from: [DrawingRecord(source: "n.jsonl", index: 0, line: 1, writer: 3, result: .success(number)),
                   DrawingRecord(source: "n.jsonl", index: 1, line: 2, writer: 3, result: .success(Drawing(strokes: [])))],
            recognizer: base)
        XCTAssertEqual(examples.map(\.label), [one.labelDigit!, two.labelDigit!])
        XCTAssertEqual(Set(examples.map(\.group)), [0])
        XCTAssertEqual(skipped.count, 1)
    }
}
