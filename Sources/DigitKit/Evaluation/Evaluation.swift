import Foundation

/// Accuracy report of a classifier with a confidence filter: it answers when the top softmax
/// probability is at least `threshold`, and says "not sure" otherwise.
public struct EvaluationReport: Sendable {
    public var count: Int
    public var threshold: Float
    public var temperature: Float
    /// Share of all items whose top-1 prediction is right.
    public var accuracy: Double
    /// Share of items answered (top probability ≥ threshold).
    public var coverage: Double
    /// Share of answered items that are right (1 when nothing is answered).
    public var selectiveAccuracy: Double
    public var answeredWrong: Int
    /// Items not answered only because of the "not a digit" output's share: the best digit holds
    /// at least `threshold` of the ten digits' probabilities, and at least what "not a digit" has
    /// (0 for a network without that output). What that output costs in coverage.
    public var heldBackByNotADigit = 0
    /// Expected calibration error over 15 equal-width confidence bins (Guo et al. 2017).
    public var expectedCalibrationError: Double
    /// Mean negative log-likelihood of the true class.
    public var negativeLogLikelihood: Double
    /// `confusion[label][predicted]`.
    public var confusion: [[Int]]
    public var precision: [Double]
    public var recall: [Double]

    public init(probabilities: [Float], labels: [Int], threshold: Float, temperature: Float) {
        let n = labels.count
        count = n
        self.threshold = threshold
        self.temperature = temperature
        var confusion = Array(repeating: Array(repeating: 0, count: 10), count: 10)
        var correct = 0, answered = 0, answeredRight = 0, heldBack = 0
        var nll = 0.0
        let bins = 15
        var binCount = [Int](repeating: 0, count: bins), binConf = [Double](repeating: 0, count: bins),
            binRight = [Double](repeating: 0, count: bins)
        for i in 0..<n {
            let p = probabilities[(i * 10)..<(i * 10 + 10)]
            var best = 0
            for c in 1..<10 where p[i * 10 + c] > p[i * 10 + best] { best = c }
            let conf = p[i * 10 + best]
            let right = best == labels[i]
            confusion[labels[i]][best] += 1
            if right { correct += 1 }
            if conf >= threshold {
                answered += 1
                if right { answeredRight += 1 }
            } else {
                let digits = p.reduce(0, +)
                if digits > 0, conf >= threshold * digits, 1 - digits <= conf { heldBack += 1 }
            }
            nll -= log(max(Double(p[i * 10 + labels[i]]), 1e-30))
            let b = min(Int(Double(conf) * Double(bins)), bins - 1)
            binCount[b] += 1
            binConf[b] += Double(conf)
            binRight[b] += right ? 1 : 0
        }
        self.confusion = confusion
        accuracy = n == 0 ? 0 : Double(correct) / Double(n)
        coverage = n == 0 ? 0 : Double(answered) / Double(n)
        selectiveAccuracy = answered == 0 ? 1 : Double(answeredRight) / Double(answered)
        answeredWrong = answered - answeredRight
        heldBackByNotADigit = heldBack
        var ece = 0.0
        for b in 0..<bins where binCount[b] > 0 {
            ece += Double(binCount[b]) / Double(max(n, 1)) * abs(binRight[b] / Double(binCount[b]) - binConf[b] / Double(binCount[b]))
        }
        expectedCalibrationError = ece
        negativeLogLikelihood = nll / Double(max(n, 1))
        precision = (0..<10).map { c in
            let predicted = (0..<10).reduce(0) { $0 + confusion[$1][c] }
            return predicted == 0 ? 0 : Double(confusion[c][c]) / Double(predicted)
        }
        recall = (0..<10).map { c in
            let actual = confusion[c].reduce(0, +)
            return actual == 0 ? 0 : Double(confusion[c][c]) / Double(actual)
        }
    }

    /// One JSON object (keys in a fixed order).
    public var json: String {
        func f(_ v: Double) -> String { String(format: "%.6f", v) }
        var writer = JSONWriter()
        writer.object { o in
            o.member("count", count)
            o.member("threshold", .number(Double(threshold)))
            o.member("temperature", .number(Double(temperature)))
            o.member("accuracy", number: f(accuracy))
            o.member("coverage", number: f(coverage))
            o.member("selective_accuracy", number: f(selectiveAccuracy))
            o.member("answered_wrong", answeredWrong)
            o.member("held_back_by_not_a_digit", heldBackByNotADigit)
            o.member("ece", number: f(expectedCalibrationError))
            o.member("nll", number: f(negativeLogLikelihood))
            o.member("precision", array: { for v in precision { $0.number(text: f(v)) } })
            o.member("recall", array: { for v in recall { $0.number(text: f(v)) } })
            o.member("confusion", array: { rows in
                for row in confusion { rows.array { for n in row { $0.int(n) } } }
            })
        }
        return writer.text
    }

    /// The human-readable report: headline figures, per-class table, confusion matrix.
    public var table: String {
        var s = ""
        func pct(_ v: Double) -> String { String(format: "%.2f%%", v * 100) }
        s += "images               \(count)\n"
        s += "accuracy (top-1)     \(pct(accuracy))   (\(count - Int((accuracy * Double(count)).rounded())) wrong)\n"
        s += "threshold            \(threshold)   (temperature \(temperature))\n"
        s += "coverage             \(pct(coverage))   (answered \(Int((coverage * Double(count)).rounded())) of \(count))\n"
        if heldBackByNotADigit > 0 {
            s += "held back            \(heldBackByNotADigit)   (by the \"not a digit\" share: the best digit holds ≥ \(threshold) of the digits')\n"
        }
        s += "selective accuracy   \(String(format: "%.3f%%", selectiveAccuracy * 100))   (\(answeredWrong) answered wrong)\n"
        s += "calibration error    \(String(format: "%.4f", expectedCalibrationError)) (ECE, 15 bins)   NLL \(String(format: "%.4f", negativeLogLikelihood))\n\n"
        s += "class  precision  recall   count\n"
        for c in 0..<10 {
            s += "  \(c)     \(String(format: "%6.2f%%", precision[c] * 100))  \(String(format: "%6.2f%%", recall[c] * 100))  \(String(format: "%6d", confusion[c].reduce(0, +)))\n"
        }
        s += "\nconfusion (rows: label, columns: predicted)\n      " + (0..<10).map { String(format: "%6d", $0) }.joined() + "\n"
        for c in 0..<10 {
            s += "  \(c)   " + confusion[c].map { String(format: "%6d", $0) }.joined() + "\n"
        }
        return s
    }
}

public enum Calibration {
    /// The softmax temperature T > 0 minimizing the negative log-likelihood of `labels` under
    /// softmax(logits / T) (Guo et al. 2017), by golden-section search on log T in [-3, 3].
    /// Fit it on validation data only, never on the test set.
    /// `logits` holds `classes` values per item.
    public static func fitTemperature(logits: [Float], labels: [Int], classes: Int = 10) -> Float {
        func nll(_ t: Double) -> Double {
            var total = 0.0
            for i in 0..<labels.count {
                var m = -Double.infinity
                for c in 0..<classes { m = max(m, Double(logits[i * classes + c]) / t) }
                var sum = 0.0
                for c in 0..<classes { sum += exp(Double(logits[i * classes + c]) / t - m) }
                total -= Double(logits[i * classes + labels[i]]) / t - m - log(sum)
            }
            return total
        }
        var a = -3.0, b = 3.0
        let g = (sqrt(5.0) - 1) / 2
        var c = b - g * (b - a), d = a + g * (b - a)
        var fc = nll(exp(c)), fd = nll(exp(d))
        for _ in 0..<60 {
            if fc < fd { b = d; d = c; fd = fc; c = b - g * (b - a); fc = nll(exp(c)) }
            else { a = c; c = d; fc = fd; d = a + g * (b - a); fd = nll(exp(d)) }
        }
        return Float(exp((a + b) / 2))
    }
}

/// Runs a network over many images.
public enum BatchInference {
    /// Logits (N × classes) of `count` images of 784 pixels in 0…1.
    public static func logits(_ network: InferenceNetwork, pixels: [Float], threads: Int) -> [Float] {
        let count = pixels.count / 784
        var logits = [Float](repeating: 0, count: count * network.classCount)
        pixels.withUnsafeBufferPointer { p in
            logits.withUnsafeMutableBufferPointer { l in
                network.logits(pixels: p.baseAddress!, count: count, into: l.baseAddress!, threads: threads)
            }
        }
        return logits
    }

    /// The ten digits' probabilities of `count` images of 784 pixels in 0…1, at `temperature`:
    /// `logits` then `probabilities(_:temperature:classes:)` with the network's class count.
    public static func probabilities(_ network: InferenceNetwork, pixels: [Float], temperature: Float, threads: Int) -> [Float] {
        probabilities(logits(network, pixels: pixels, threads: threads), temperature: temperature, classes: network.classCount)
    }

    /// The ten digits' probabilities of every row of `logits` (`classes` values a row), softmax
    /// at `temperature` over all the classes: with a "not a digit" output the ten do not sum to 1.
    public static func probabilities(_ logits: [Float], temperature: Float, classes: Int) -> [Float] {
        digits(of: classProbabilities(logits, temperature: temperature, classes: classes), classes: classes)
    }

    /// Every class's probability (`classes` values a row) of each row of `logits`, at `temperature`.
    public static func classProbabilities(_ logits: [Float], temperature: Float, classes: Int) -> [Float] {
        var out = logits
        var row = [Float](repeating: 0, count: classes)
        out.withUnsafeMutableBufferPointer { o in
            row.withUnsafeMutableBufferPointer { r in
                for i in 0..<(o.count / classes) {
                    let at = o.baseAddress! + i * classes
                    softmax(at, count: classes, temperature: temperature, into: r.baseAddress!)
                    at.update(from: r.baseAddress!, count: classes)
                }
            }
        }
        return out
    }

    /// The first ten values (the digits) of each row of `classes` values.
    public static func digits(of rows: [Float], classes: Int) -> [Float] {
        guard classes != 10 else { return rows }
        var out = [Float](repeating: 0, count: rows.count / classes * 10)
        for i in 0..<(rows.count / classes) { for c in 0..<10 { out[i * 10 + c] = rows[i * classes + c] } }
        return out
    }

    /// MNIST images as floats in 0…1.
    public static func pixels(_ set: MNISTSet, range: Range<Int>? = nil) -> [Float] {
        let r = range ?? 0..<set.count
        return set.images.pixels[(r.lowerBound * 784)..<(r.upperBound * 784)].map { Float($0) / 255 }
    }
}

/// Evaluation of labelled drawings (stroke JSON, JSONL, UNIPEN).
public enum DrawingEvaluation {
    public struct Result: Sendable {
        public var probabilities: [Float] = []
        public var labels: [Int] = []
        /// Records that could not be read (with their errors) and drawings without a digit label.
        public var errors: [DigitError] = []
        public var unlabelled = 0
    }

    /// Rasterizes and scores every labelled drawing of `records` whose writer passes `writers`.
    public static func evaluate(_ records: [DrawingRecord], recognizer: DigitRecognizer,
                                writers: ((Int?) -> Bool)? = nil) -> Result {
        var result = Result()
        for record in records {
            if let writers, !writers(record.writer) { continue }
            switch record.result {
            case let .failure(e): result.errors.append(e)
            case let .success(drawing):
                guard let label = drawing.labelDigit else {
                    result.unlabelled += 1
                    continue
                }
                let r = recognizer.recognize(drawing)
                result.probabilities += r.isEmpty ? Array(repeating: 0.1, count: 10) : r.probabilities
                result.labels.append(label)
            }
        }
        return result
    }
}
