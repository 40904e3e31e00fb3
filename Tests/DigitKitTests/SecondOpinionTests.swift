@testable import DigitKit
import DigitTestSupport
import Foundation
import XCTest

/// The second opinion: consulted only when the compact network is unsure, its vote mixed
/// geometrically, the same in a batch as one image at a time.
final class SecondOpinionTests: XCTestCase {
    private func mixed(_ first: [Float], _ second: [Float], mix: Float) -> [Float] {
        var p = first
        p.withUnsafeMutableBufferPointer { f in second.withUnsafeBufferPointer { SecondOpinion.combine(f, with: $0, mix: mix) } }
        return p
    }

    /// A second opinion made of the small test network with other seeded weights.
    private func opinion(seed: UInt64 = 9, mix: String? = nil) throws -> SecondOpinion {
        var model = SmallModel.refusingModel
        var rng = SplitMix64(seed: seed)
        model.tensors["fc.weight"] = TensorData(shape: [11, 196], values: rng.floats(11 * 196, -0.3, 0.3))
        if let mix { model.provenance["second_opinion_mix"] = mix }
        return try SecondOpinion(model: model)
    }

    func testCombine_MixZeroKeepsTheFirstAndMixOneTakesTheSecond() {
        let first: [Float] = [0.7, 0.2, 0.1], second: [Float] = [0.1, 0.1, 0.8]
        for (got, want) in [(mixed(first, second, mix: 0), first), (mixed(first, second, mix: 1), second)] {
            for (g, w) in zip(got, want) { XCTAssertEqual(g, w, accuracy: 1e-6) }
        }
        let half = mixed(first, second, mix: 0.5)
        XCTAssertEqual(half.reduce(0, +), 1, accuracy: 1e-6, "a distribution again")
        // √(0.7·0.1) : √(0.2·0.1) : √(0.1·0.8)
        let raw: [Float] = [(0.07 as Float).squareRoot(), (0.02 as Float).squareRoot(), (0.08 as Float).squareRoot()]
        for (g, r) in zip(half, raw) { XCTAssertEqual(g, r / raw.reduce(0, +), accuracy: 1e-6) }
    }

    func testCombine_TwoThatAgreeMakeASureAnswerTwoThatDisagreeStayUnsure() {
        // The compact network leans to 3 at 80%; a second opinion sure of 3 makes it sure.
        let compact: [Float] = [0.02, 0.02, 0.02, 0.80, 0.02, 0.06, 0.02, 0.02, 0.01, 0.01, 0.00]
        var agree = [Float](repeating: 0.005, count: 11)
        agree[3] = 0.955
        XCTAssertGreaterThan(mixed(compact, agree, mix: 0.5)[3], 0.9)
        // A second opinion sure of 5 leaves neither 3 nor 5 at 0.9.
        var disagree = [Float](repeating: 0.005, count: 11)
        disagree[5] = 0.955
        let both = mixed(compact, disagree, mix: 0.5)
        XCTAssertLessThan(both.max()!, 0.9)
    }

    func testRevise_ConsultsOnlyWhenTheLikeliestClassIsADigitBelowTheThreshold() throws {
        let opinion = try opinion()
        var rng = SplitMix64(seed: 3)
        let pixels = rng.floats(784, 0, 1)
        var sure = [Float](repeating: 0.005, count: 11)
        sure[10] = 0.95   // sure it is not a digit
        let before = sure
        let consulted = sure.withUnsafeMutableBufferPointer { opinion.revise($0, pixels: pixels, threshold: 0.9) }
        XCTAssertFalse(consulted)
        XCTAssertEqual(sure, before)
        // Leaning toward "not a digit" without reaching the threshold: the compact network's own.
        var leaning = [Float](repeating: 0.03, count: 11)
        leaning[10] = 0.7
        let kept = leaning
        XCTAssertFalse(leaning.withUnsafeMutableBufferPointer { opinion.revise($0, pixels: pixels, threshold: 0.9) })
        XCTAssertEqual(leaning, kept)
        var unsure = [Float](repeating: 0.05, count: 11)
        unsure[4] = 0.5
        let revised = unsure.withUnsafeMutableBufferPointer { opinion.revise($0, pixels: pixels, threshold: 0.9) }
        XCTAssertTrue(revised)
        XCTAssertNotEqual(unsure[4], 0.5)
        XCTAssertEqual(unsure.reduce(0, +), 1, accuracy: 1e-5)
        XCTAssertEqual(opinion.consultations, 1, "only the unsure one was taken to it")
    }

    func testPath_TheDefaultGoesWithTheDefaultWeightsOnly() {
        XCTAssertNil(SecondOpinion.path(choice: "none", weights: nil))
        XCTAssertEqual(SecondOpinion.path(choice: "x.safetensors", weights: "w.safetensors"), "x.safetensors")
        XCTAssertNil(SecondOpinion.path(choice: nil, weights: "w.safetensors"), "weights named apart: no default second opinion")
        XCTAssertEqual(SecondOpinion.path(choice: nil, weights: nil), SecondOpinion.defaultPath())
    }

    func testRecognizer_BatchAndOneAtATimeGiveTheSameProbabilities() throws {
        // A high temperature makes the compact network unsure of most images.
        var compact = SmallModel.refusingModel
        compact.temperature = 8
        let recognizer = try DigitRecognizer(model: compact, threshold: 0.9)
        recognizer.secondOpinion = try opinion(mix: "0.75")
        XCTAssertEqual(try recognizer.secondOpinion?.mix, 0.75)
        var rng = SplitMix64(seed: 17)
        let count = 40
        let pixels = rng.floats(count * 784, 0, 1)
        let batch = recognizer.digitProbabilities(pixels: pixels, threads: 2)
        var consulted = 0
        let alone = try DigitRecognizer(model: compact, threshold: 0.9)
        for i in 0..<count {
            let image = Array(pixels[(i * 784)..<((i + 1) * 784)])
            let r = recognizer.recognize(pixels: image)
            for c in 0..<10 { XCTAssertEqual(batch[i * 10 + c], r.probabilities[c], accuracy: 1e-5, "image \(i) class \(c)") }
            if alone.recognize(pixels: image).probabilities != r.probabilities { consulted += 1 }
        }
        XCTAssertGreaterThan(consulted, count / 2, "the second opinion was asked")
        // Counted once for the batch and once for the images read one at a time.
        XCTAssertEqual(recognizer.secondOpinion?.consultations, 2 * consulted)
    }

    func testSecondOpinion_RefusesABadMixAndANetworkThatDoesNotReadOneDigit() throws {
        XCTAssertThrowsError(try opinion(mix: "1.5")) { error in
            XCTAssertTrue("\(error)".contains("second_opinion_mix"), "\(error)")
        }
        XCTAssertThrowsError(try opinion(mix: "nan"))
        let lineLike = ModelFile(layers: [Conv2D("conv", outChannels: 10, kernel: 3, padding: 1)],
                                 tensors: ["conv.weight": TensorData(shape: [10, 1, 3, 3], values: [Float](repeating: 0.1, count: 90)),
                                           "conv.bias": TensorData(shape: [10], values: [Float](repeating: 0, count: 10))],
                                 inputMean: 0, inputStd: 1)
        XCTAssertThrowsError(try SecondOpinion(model: lineLike, file: "line.safetensors")) { error in
            XCTAssertTrue("\(error)".contains("line.safetensors"), "\(error)")
        }
    }

    func testDeferred_ReadsTheFileWhenFirstAskedAndAnswersAsTheLoadedOne() throws {
        var compact = SmallModel.refusingModel
        compact.temperature = 8   // unsure of most images
        let folder = try temporaryFolder(self)
        let path = folder.appendingPathComponent("opinion.safetensors").path
        try opinion(mix: "0.75").model.write(to: path)
        let eager = try DigitRecognizer(model: compact)
        eager.secondOpinion = try SecondOpinion(path: path)
        let deferred = try DigitRecognizer(model: compact)
        deferred.secondOpinion = SecondOpinion.deferred(path: path)
        var rng = SplitMix64(seed: 5)
        for _ in 0..<5 {
            let image = rng.floats(784, 0, 1)
            XCTAssertEqual(deferred.recognize(pixels: image).probabilities, eager.recognize(pixels: image).probabilities)
        }
        XCTAssertGreaterThan(deferred.secondOpinion?.consultations ?? 0, 0)
        XCTAssertNil(deferred.secondOpinion?.failure)
        XCTAssertEqual(try deferred.secondOpinion?.mix, 0.75)
    }

    func testDeferred_AFileThatFailsToLoadLeavesTheDrawingUnsureAndSaysWhy() throws {
        var compact = SmallModel.refusingModel
        compact.temperature = 8
        let folder = try temporaryFolder(self)
        let path = folder.appendingPathComponent("broken.safetensors").path
        try Data("not a weight file".utf8).write(to: URL(fileURLWithPath: path))
        let alone = try DigitRecognizer(model: compact)
        let recognizer = try DigitRecognizer(model: compact)
        recognizer.secondOpinion = SecondOpinion.deferred(path: path)   // not read yet: no error
        XCTAssertNil(recognizer.secondOpinion?.failure)
        var rng = SplitMix64(seed: 6)
        var unsure = 0
        for _ in 0..<5 {
            let image = rng.floats(784, 0, 1)
            let got = recognizer.recognize(pixels: image), base = alone.recognize(pixels: image)
            XCTAssertEqual(got.probabilities, base.probabilities, "the compact network's answer stands")
            if base.digit == nil { unsure += 1; XCTAssertNil(got.digit) }
        }
        XCTAssertGreaterThan(unsure, 0)
        let failure = try XCTUnwrap(recognizer.secondOpinion?.failure)
        XCTAssertTrue("\(failure)".contains("broken.safetensors"), "\(failure)")
        XCTAssertThrowsError(try SecondOpinion(path: path), "named by the user, it is read at once")
    }
}
