import DigitKit
import Foundation

struct EvalCommand: CLICommand {
    static let name = "eval"
    static let summary = "measure accuracy on MNIST or labelled drawings"
    static let help = """
    Usage: digits eval [options]                       the MNIST test set (Fixtures/mnist)
           digits eval --data DIR [--split train|test]
           digits eval --images FILE --labels FILE     any IDX pair (raw or .gz)

    Reports accuracy, per-class precision and recall, the confusion matrix, the confidence
    filter's coverage (share answered) and selective accuracy (share of answers that are right),
    and the expected calibration error. The softmax temperature comes from the weight file (fitted
    on the validation split when it was trained).

    Options:
      --weights FILE        weight file (default: $DIGITS_WEIGHTS or Weights/mnist-cnn.safetensors)
      --threshold T         confidence needed to answer (default 0.9)
      --json                print one JSON object instead of the table
      --predictions FILE    write a TSV: index, label, predicted, confidence (written atomically)
      --threads N           worker threads (default: all cores)

    \(CLI.exitCodesHelp)
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        let weightsPath = try args.option("--weights")
        let threshold = try args.float("--threshold", default: 0.9, range: 0...1)
        let json = args.flag("--json")
        let predictionsPath = try args.option("--predictions")
        let threads = try args.int("--threads", default: Parallel.processorCount, range: 1...256)
        let dataDir = try args.option("--data")
        let split = try args.option("--split") ?? "test"
        let imagesPath = try args.option("--images"), labelsPath = try args.option("--labels")
        let rest = try args.positionals()
        guard let splitValue = MNISTSet.Split(rawValue: split) else {
            throw DigitError(.usage, "--split must be train or test, got '\(split)'")
        }
        guard (imagesPath == nil) == (labelsPath == nil) else {
            throw DigitError(.usage, "--images and --labels go together")
        }
        let model = try loadModel(weightsPath)
        let network = try model.makeNetwork()

        let labels: [Int]
        let logits: [Float]
        if !rest.isEmpty {
            throw DigitError(.usage, "unexpected argument '\(rest[0])'")
        } else {
            let set: MNISTSet
            if let imagesPath, let labelsPath {
                set = try MNISTSet.load(images: imagesPath, labels: labelsPath)
            } else {
                guard let dir = dataDir ?? Locations.mnistDirectory() else {
                    throw DigitError(.io, "MNIST not found: pass --data DIR, set MNIST_DIR, or run scripts/fetch-mnist")
                }
                set = try MNISTSet.load(directory: dir, split: splitValue)
            }
            guard set.images.rows == 28, set.images.columns == 28 else {
                throw DigitError(.format, file: imagesPath, "images are \(set.images.rows)×\(set.images.columns), the network needs 28×28")
            }
            labels = set.labels.map(Int.init)
            logits = BatchInference.logits(network, pixels: BatchInference.pixels(set), threads: threads)
        }
        let probabilities = BatchInference.probabilities(logits, temperature: model.temperature)
        let report = EvaluationReport(probabilities: probabilities, labels: labels, threshold: threshold,
                                      temperature: model.temperature)
        if let predictionsPath { try writePredictions(predictionsPath, probabilities: probabilities, labels: labels) }
        print(json ? report.json : report.table, terminator: json ? "\n" : "")
        return ExitCode.ok
    }

    static func writePredictions(_ path: String, probabilities: [Float], labels: [Int]) throws {
        var text = "index\tlabel\tpredicted\tconfidence\n"
        text.reserveCapacity(labels.count * 24)
        for i in 0..<labels.count {
            var best = 0
            for c in 1..<10 where probabilities[i * 10 + c] > probabilities[i * 10 + best] { best = c }
            text += "\(i)\t\(labels[i])\t\(best)\t\(String(format: "%.6f", probabilities[i * 10 + best]))\n"
        }
        try FileIO.writeAtomically(text, to: path)
    }
}

/// Loads the weight file named by `--weights`, or the default one.
func loadModel(_ path: String?) throws -> ModelFile {
    guard let path = path ?? Locations.defaultWeights() else {
        throw DigitError(.io, "no weight file: pass --weights FILE or set DIGITS_WEIGHTS (default Weights/mnist-cnn.safetensors)")
    }
    return try ModelFile.load(path: path)
}
