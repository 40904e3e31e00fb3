import DigitKit
import Foundation
import DigitTestSupport
import XCTest

/// `EvaluationReport` on hand-made probabilities whose figures are worked out in the comments.
final class EvaluationTests: XCTestCase {
    /// A probability row: `top` gets the listed mass, the rest is shared equally by the other classes.
    private func row(_ mass: [Int: Float]) -> [Float] {
        let rest = (1 - mass.values.reduce(0, +)) / Float(10 - mass.count)
        return (0..<10).map { mass[$0] ?? rest }
    }

    /// Five items, threshold 0.9:
    ///
    ///     item  label  prediction (confidence)  right  answered
    ///     0     3      3 (0.95)                 yes    yes
    ///     1     5      5 (0.60)                 yes    no
    ///     2     1      7 (0.92), p(1) = 0.05    no     yes  → answered wrong
    ///     3     0      0 (0.99)                 yes    yes
    ///     4     7      1 (0.50), p(7) = 0.30    no     no
    private let labels = [3, 5, 1, 0, 7]
    private var probabilities: [Float] {
        row([3: 0.95]) + row([5: 0.6]) + row([7: 0.92, 1: 0.05]) + row([0: 0.99]) + row([1: 0.5, 7: 0.3])
    }
    private var report: EvaluationReport {
        EvaluationReport(probabilities: probabilities, labels: labels, threshold: 0.9, temperature: 1.25)
    }

    func testReport_AccuracyCoverageAndSelectiveAccuracy() {
        let r = report
        XCTAssertEqual(r.count, 5)
        XCTAssertEqual(r.accuracy, 3.0 / 5, accuracy: 1e-12, "items 0, 1, 3 are right")
        XCTAssertEqual(r.coverage, 3.0 / 5, accuracy: 1e-12, "items 0, 2, 3 are answered")
        XCTAssertEqual(r.selectiveAccuracy, 2.0 / 3, accuracy: 1e-12, "of the answered, 0 and 3 are right")
        XCTAssertEqual(r.answeredWrong, 1)
    }

    func testReport_ConfusionPrecisionAndRecall() {
        let r = report
        var expected = Array(repeating: Array(repeating: 0, count: 10), count: 10)
        expected[3][3] = 1; expected[5][5] = 1; expected[1][7] = 1; expected[0][0] = 1; expected[7][1] = 1
        XCTAssertEqual(r.confusion, expected, "confusion[label][predicted]")
        // Predicted 0, 3, 5 once each and right; predicted 1 and 7 once each and wrong; others never (0).
        XCTAssertEqual(r.precision, [1, 0, 0, 1, 0, 1, 0, 0, 0, 0])
        // Labels 0, 3, 5 found; labels 1 and 7 missed; others absent (0).
        XCTAssertEqual(r.recall, [1, 0, 0, 1, 0, 1, 0, 0, 0, 0])
    }

    func testReport_ExpectedCalibrationErrorAndNLLOnAHandComputedCase() {
        let r = report
        // 15 bins of width 1/15: 0.95 and 0.99 → bin 14 (mean confidence 0.97, accuracy 1);
        // 0.60 → bin 9 (accuracy 1); 0.92 → bin 13 (accuracy 0); 0.50 → bin 7 (accuracy 0).
        // ECE = 2/5·|1 - 0.97| + 1/5·|1 - 0.6| + 1/5·|0 - 0.92| + 1/5·|0 - 0.5| = 0.012 + 0.08 + 0.184 + 0.1.
        XCTAssertEqual(r.expectedCalibrationError, 0.376, accuracy: 1e-6)
        let nll = -(log(0.95) + log(0.6) + log(0.05) + log(0.99) + log(0.3)) / 5
        XCTAssertEqual(r.negativeLogLikelihood, nll, accuracy: 1e-6)
    }

    func testReport_ThresholdIsInclusiveAndZeroAnswersEverything() {
        let exact = EvaluationReport(probabilities: row([4: 0.9]), labels: [4], threshold: 0.9, temperature: 1)
        XCTAssertEqual(exact.coverage, 1, "a confidence equal to the threshold is answered")
        let all = EvaluationReport(probabilities: probabilities, labels: labels, threshold: 0, temperature: 1)
        XCTAssertEqual(all.coverage, 1)
        XCTAssertEqual(all.selectiveAccuracy, all.accuracy, accuracy: 1e-12)
        XCTAssertEqual(all.answeredWrong, 2)
        let none = EvaluationReport(probabilities: probabilities, labels: labels, threshold: 1, temperature: 1)
        XCTAssertEqual(none.coverage, 0)
        XCTAssertEqual(none.selectiveAccuracy, 1, "nothing answered, nothing answered wrong")
    }

    func testReport_TiesPredictTheLowestDigitAndEmptyInputIsZero() {
        let tie = EvaluationReport(probabilities: [Float](repeating: 0.1, count: 10), labels: [0], threshold: 0.9, temperature: 1)
        XCTAssertEqual(tie.accuracy, 1)
        XCTAssertEqual(tie.confusion[0][0], 1)
        let empty = EvaluationReport(probabilities: [], labels: [], threshold: 0.9, temperature: 1)
        XCTAssertEqual(empty.count, 0)
        XCTAssertEqual(empty.accuracy, 0)
        XCTAssertEqual(empty.coverage, 0)
        XCTAssertEqual(empty.expectedCalibrationError, 0)
    }

    func testReport_JSONIsOneObjectWithTheDocumentedKeysAndValues() throws {
        let text = report.json
        XCTAssertFalse(text.contains("\n"), "one line")
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        for key in ["accuracy", "coverage", "selective_accuracy", "threshold", "count", "temperature", "answered_wrong",
                    "ece", "nll", "precision", "recall", "confusion"] {
            XCTAssertNotNil(object[key], "missing key \(key) in \(text)")
        }
        XCTAssertEqual(object["count"] as? Int, 5)
        XCTAssertEqual((object["threshold"] as? NSNumber)?.doubleValue ?? .nan, 0.9, accuracy: 1e-7)
        XCTAssertEqual((object["temperature"] as? NSNumber)?.doubleValue, 1.25)
        XCTAssertEqual((object["accuracy"] as? NSNumber)?.doubleValue, 0.6)
        XCTAssertEqual((object["coverage"] as? NSNumber)?.doubleValue, 0.6)
        XCTAssertEqual((object["selective_accuracy"] as? NSNumber)?.doubleValue ?? .nan, 2.0 / 3, accuracy: 1e-6)
        XCTAssertEqual(object["answered_wrong"] as? Int, 1)
        XCTAssertEqual((object["confusion"] as? [[Int]])?[1][7], 1)
        XCTAssertEqual((object["recall"] as? [NSNumber])?.count, 10)
    }

    /// With an eleventh output, the ten digits' probabilities sum to less than 1. Threshold 0.9:
    ///
    ///     item  best digit  digits' sum  "not a digit"  counted
    ///     0     0.85        0.93         0.07           held back (0.85 ≥ 0.9 × 0.93 = 0.837)
    ///     1     0.80        0.93         0.07           not sure among the digits (0.80 < 0.837)
    ///     2     0.40        0.42         0.58           not a digit (0.58 > 0.40)
    ///     3     0.95        0.96         0.04           answered
    func testReport_CountsDigitsHeldBackOnlyByTheNotADigitShare() throws {
        func row(_ best: Int, _ p: Float, _ other: Int, _ q: Float) -> [Float] {
            (0..<10).map { $0 == best ? p : $0 == other ? q : 0 }
        }
        let probabilities = row(2, 0.85, 3, 0.08) + row(2, 0.80, 3, 0.13) + row(4, 0.40, 1, 0.02) + row(5, 0.95, 6, 0.01)
        let r = EvaluationReport(probabilities: probabilities, labels: [2, 2, 4, 5], threshold: 0.9, temperature: 1)
        XCTAssertEqual(r.coverage, 0.25, accuracy: 1e-12)
        XCTAssertEqual(r.heldBackByNotADigit, 1)
        XCTAssertTrue(r.table.contains("held back            1   (by the \"not a digit\" share"), r.table)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.json.utf8)) as? [String: Any])
        XCTAssertEqual(object["held_back_by_not_a_digit"] as? Int, 1)
        XCTAssertEqual(report.heldBackByNotADigit, 0, "ten outputs: the digits' probabilities sum to 1")
        XCTAssertFalse(report.table.contains("held back"))
    }

    func testReport_TableShowsTheHeadlineFigures() {
        let table = report.table
        XCTAssertTrue(table.contains("accuracy (top-1)     60.00%"), table)
        XCTAssertTrue(table.contains("coverage             60.00%   (answered 3 of 5)"), table)
        XCTAssertTrue(table.contains("selective accuracy   66.667%   (1 answered wrong)"), table)
    }
}
