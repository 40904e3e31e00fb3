import DigitKit
import Foundation
import DigitTestSupport
import XCTest

/// The shipped weights, `Weights/mnist-cnn.safetensors`, meet the promises of the README on the
/// full MNIST test set (10,000 images, never used in training), within the size budget, and say
/// how they were made.
final class ShippedModelTests: XCTestCase {
    private static let howToGetIt = """
        train it with `swift build -c release && .build/release/digits train` (about 20 epochs; see Weights/README.md), \
        or merge the branch that ships it
        """

    /// The loaded shipped model, or a failure saying how to get it. A missing file fails, never skips.
    private func shippedModel(file: StaticString = #filePath, line: UInt = #line) throws -> (ModelFile, [String: String])? {
        let path = TestPaths.weights.path
        guard FileManager.default.fileExists(atPath: path) else {
            XCTFail("the shipped weights \(path) are missing: \(Self.howToGetIt)", file: file, line: line)
            return nil
        }
        return (try ModelFile.load(path: path), try SafetensorsFile.read(path: path).metadata)
    }

    func testShippedModel_FullMNISTTestSetAccuracyCoverageAndSelectiveError() throws {
        guard let (model, metadata) = try shippedModel(), let dir = TestPaths.requireMNIST() else { return }
        let test = try MNISTSet.load(directory: dir.path, split: .test)
        XCTAssertEqual(test.count, 10_000)
        let start = Date()
        let probabilities = BatchInference.probabilities(try model.makeNetwork(), pixels: BatchInference.pixels(test),
                                                         temperature: model.temperature, threads: 2)
        let report = EvaluationReport(probabilities: probabilities,
                                      labels: test.labels.map(Int.init), threshold: 0.9, temperature: model.temperature)
        let answered = Int((report.coverage * 10_000).rounded())
        let selectiveError = Double(report.answeredWrong) / Double(max(answered, 1))
        print(String(format: "shipped model on 10,000 test images: accuracy %.2f%%, coverage at 0.9 %.2f%%, "
                     + "selective error %.3f%% (%d answered wrong), %.1f s", report.accuracy * 100, report.coverage * 100,
                     selectiveError * 100, report.answeredWrong, Date().timeIntervalSince(start)))
        XCTAssertGreaterThanOrEqual(report.accuracy, 0.995, "top-1 accuracy")
        // What the README promises: at least 98.3% answered, at most 0.1% of the answers wrong
        // (98.44% and 0.071% ship; the issue's goals, 99.3% and 0.05%, are not met: see Weights/README.md).
        XCTAssertGreaterThanOrEqual(report.coverage, 0.983, "share answered at the 0.9 threshold")
        XCTAssertLessThanOrEqual(selectiveError, 0.001, "share of answers that are wrong")
        // The recorded figure is this measurement (up to 5 images: a build with fused multiply-add
        // rounds differently and may flip a borderline image).
        if let recorded = metadata["test_accuracy"].flatMap(Double.init) {
            XCTAssertEqual(recorded, report.accuracy, accuracy: 0.0005, "test_accuracy in the metadata")
        }
    }

    func testShippedModel_FitsTheParameterAndComputeBudget() throws {
        guard let (model, _) = try shippedModel() else { return }
        let network = try model.makeNetwork()
        XCTAssertLessThanOrEqual(network.parameterCount, 150_000)
        XCTAssertLessThanOrEqual(network.multiplyAdds, 5_000_000, "multiply-adds per image")
        XCTAssertGreaterThan(network.parameterCount, 0)
        // The inference network's own weights (batch norm folded away) never outnumber the file's.
        let stored = model.tensors.values.reduce(0) { $0 + $1.count }
        XCTAssertLessThanOrEqual(network.parameterCount, stored)
    }

    func testShippedModel_MetadataHasTheFormatAndProvenanceKeys() throws {
        guard let (model, metadata) = try shippedModel() else { return }
        for key in ["format", "format_version", "classes", "input_mean", "input_std", "temperature", "layers",
                    "training_command", "seed", "threads", "wall_time_seconds", "test_accuracy"] {
            XCTAssertFalse((metadata[key] ?? "").isEmpty, "metadata key '\(key)' is missing or empty")
        }
        XCTAssertEqual(metadata["format"], "digits-cnn")
        XCTAssertEqual(metadata["format_version"], "1")
        XCTAssertEqual(metadata["classes"], "0123456789*", "ten digits and \"not a digit\"")
        XCTAssertTrue(metadata["training_command"]?.hasPrefix("digits train") ?? false, "\(metadata["training_command"] ?? "")")
        XCTAssertNotNil(metadata["seed"].flatMap(UInt64.init), "seed is an integer")
        XCTAssertNotNil(metadata["threads"].flatMap(Int.init), "threads is an integer")
        XCTAssertGreaterThan(metadata["wall_time_seconds"].flatMap(Double.init) ?? 0, 0)
        XCTAssertGreaterThanOrEqual(metadata["test_accuracy"].flatMap(Double.init) ?? 0, 0.995)
        XCTAssertTrue(model.temperature > 0 && model.temperature.isFinite)
    }

    // MARK: - The second opinion

    /// The shipped second opinion, or a failure saying how to get it.
    private func shippedOpinion(file: StaticString = #filePath, line: UInt = #line) throws -> SecondOpinion? {
        let path = TestPaths.secondOpinion.path
        guard FileManager.default.fileExists(atPath: path) else {
            XCTFail("the shipped second opinion \(path) is missing: train it with `digits train --recipe opinion` "
                    + "(Weights/second-opinion.md)", file: file, line: line)
            return nil
        }
        return try SecondOpinion(path: path)
    }

    func testSecondOpinion_FitsItsBudgetAndSaysHowItWasMade() throws {
        guard let opinion = try shippedOpinion() else { return }
        XCTAssertLessThanOrEqual(try opinion.network.parameterCount, 1_000_000)
        XCTAssertLessThanOrEqual(try opinion.network.multiplyAdds, 20_000_000, "multiply-adds per image")
        XCTAssertEqual(try opinion.network.classCount, 11)
        let meta = try opinion.model.provenance
        XCTAssertEqual(meta["recipe"], "opinion")
        XCTAssertTrue(meta["training_command"]?.hasPrefix("digits train --recipe opinion") ?? false, "\(meta["training_command"] ?? "")")
        XCTAssertNotNil(meta["second_opinion_mix"].flatMap(Float.init))
        XCTAssertEqual(meta["raster_pen_width"], (try shippedModel())?.1["raster_pen_width"], "the same pen as the compact network")
    }

    /// On the MNIST test set the pair answers more than the compact network alone and keeps the
    /// README's promise of at most 0.1% of answers wrong.
    func testSecondOpinion_OnMNISTAnswersMoreAndStaysRight() throws {
        guard let (model, _) = try shippedModel(), let opinion = try shippedOpinion(), let dir = TestPaths.requireMNIST() else { return }
        let test = try MNISTSet.load(directory: dir.path, split: .test)
        let pixels = BatchInference.pixels(test), labels = test.labels.map(Int.init)
        let recognizer = try DigitRecognizer(model: model)
        let alone = EvaluationReport(probabilities: recognizer.digitProbabilities(pixels: pixels, threads: 2), labels: labels,
                                     threshold: 0.9, temperature: model.temperature)
        recognizer.secondOpinion = opinion
        let pair = EvaluationReport(probabilities: recognizer.digitProbabilities(pixels: pixels, threads: 2), labels: labels,
                                    threshold: 0.9, temperature: model.temperature)
        print(String(format: "MNIST test: answered %.2f%% alone, %.2f%% with the second opinion; wrong answers %d, %d",
                     alone.coverage * 100, pair.coverage * 100, alone.answeredWrong, pair.answeredWrong))
        XCTAssertGreaterThan(pair.coverage, alone.coverage + 0.003, "the second opinion answers more")
        XCTAssertGreaterThanOrEqual(pair.accuracy, alone.accuracy)
        XCTAssertLessThanOrEqual(Double(pair.answeredWrong) / (pair.coverage * 10_000), 0.001, "share of answers that are wrong")
    }
}
