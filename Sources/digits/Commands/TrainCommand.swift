import DigitKit
import Foundation

struct TrainCommand: CLICommand {
    static let name = "train"
    static let summary = "train the CNN on MNIST and write a weight file"
    static let help = """
    Usage: digits train [options]

    Trains the network on the MNIST training images (the last --validation of them held out for
    validation and temperature calibration), then writes the weight file atomically. The test set
    is only evaluated once at the end, for the record in the file's metadata.
    A checkpoint is written after every epoch; run the same command again to resume.

    Options:
      --data DIR            MNIST folder (default: $MNIST_DIR, Fixtures/mnist, ../shared/data/mnist)
      --out FILE            weight file to write (default: Weights/mnist-cnn.safetensors)
      --checkpoint FILE     per-epoch checkpoint (default: FILE given by --out + .checkpoint)
      --epochs N            passes over the training images (default 20)
      --batch-size N        images per step (default 128)
      --lr X                peak learning rate, SGD with Nesterov momentum (default 0.05)
      --momentum X          (default 0.9)
      --weight-decay X      L2 on conv/linear weights (default 0.0005)
      --warmup X            epochs of linear warm-up (default 1)
      --schedule S          cosine | constant (default cosine)
      --seed N              random seed (default 1)
      --threads N           worker threads (default: all cores)
      --no-augment          train on the plain images
      --validation N        training images held out for validation (default 5000)
      --limit N             use only the first N training images (quick experiments)
      --clean P             share of MNIST images shown undistorted in each epoch (default 0)
      --arch NAME           standard | wide | tiny (default standard)

    Pen data (optional): labelled drawings rasterized on the fly with random pen width, slant
    and jitter, mixed into every epoch.
      --strokes FILE        UNIPEN file or labelled stroke JSONL/folder (default: none)
      --holdout-writers L   writers never trained on, kept for measuring (default 3,6,...,30)
      --strokes-repeat N    how many times each drawing appears per epoch (default 2)
      --pen-width W         the rasterizer's pen width recorded in the weight file (default 2.0)
      --softness S          the rasterizer's edge softness recorded in the weight file (default 1.0)

    Non-digits (optional): synthetic dots, tangles, stars, spirals, zigzags, dashes and grids,
    trained toward "no class" (uniform probabilities) so the confidence filter refuses them.
      --non-digits N        how many per epoch (default 0)

    Progress goes to stderr: a live bar on a terminal, one line per epoch otherwise.

    Ctrl-C (or SIGTERM) stops at the next batch, leaving the last checkpoint intact, and exits
    with 130; run the same command again to resume from it. The result is then bit for bit the
    weights of an uninterrupted run with the same options (the same holds after a kill -9).
    A second Ctrl-C stops at once.

    \(CLI.exitCodesHelp)
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        var options = TrainingOptions()
        let dataDir = try args.option("--data")
        let out = try args.option("--out") ?? "Weights/mnist-cnn.safetensors"
        let checkpoint = try args.option("--checkpoint") ?? out + ".checkpoint"
        options.epochs = try args.int("--epochs", default: options.epochs, range: 1...1000)
        options.batchSize = try args.int("--batch-size", default: options.batchSize, range: 1...4096)
        options.learningRate = try args.float("--lr", default: options.learningRate, range: 0...10)
        options.momentum = try args.float("--momentum", default: options.momentum, range: 0...0.999)
        options.weightDecay = try args.float("--weight-decay", default: options.weightDecay, range: 0...1)
        options.warmupEpochs = try args.float("--warmup", default: options.warmupEpochs, range: 0...1000)
        if let s = try args.option("--schedule") {
            guard let schedule = TrainingOptions.Schedule(rawValue: s) else {
                throw DigitError(.usage, "--schedule must be cosine or constant, got '\(s)'")
            }
            options.schedule = schedule
        }
        options.seed = UInt64(try args.int("--seed", default: 1, range: 0...Int(Int32.max)))
        options.threads = try args.int("--threads", default: Parallel.processorCount, range: 1...256)
        options.augment = !args.flag("--no-augment")
        let validationCount = try args.int("--validation", default: 5000, range: 1...30000)
        let limit = try args.int("--limit", default: 60000, range: 2...60000)
        switch try args.option("--arch") ?? "standard" {
        case "standard": options.architecture = Architecture.standard
        case "wide": options.architecture = Architecture.wide
        case "tiny": options.architecture = Architecture.tiny
        case let other: throw DigitError(.usage, "--arch must be standard, wide or tiny, got '\(other)'")
        }
        var augmentation = Augmentation()
        augmentation.clean = try args.float("--clean", default: 0, range: 0...1)
        let strokesPath = try args.option("--strokes")
        let holdout = try EvalCommand.parseWriters(try args.option("--holdout-writers"), "--holdout-writers")
        let nonDigits = try args.int("--non-digits", default: 0, range: 0...1_000_000)
        let strokesRepeat = try args.int("--strokes-repeat", default: 2, range: 1...100)
        var raster = RasterOptions()
        raster.penWidth = try args.float("--pen-width", default: raster.penWidth, range: 0.5...8)
        raster.softness = try args.float("--softness", default: raster.softness, range: 0.01...8)
        _ = try args.positionals().first.map { throw DigitError(.usage, "unexpected argument '\($0)'") }

        guard let dir = dataDir ?? Locations.mnistDirectory() else {
            throw DigitError(.io, "MNIST not found: pass --data DIR, set MNIST_DIR, or run scripts/fetch-mnist")
        }
        let trainSet = try MNISTSet.load(directory: dir, split: .train)
        let testSet = try MNISTSet.load(directory: dir, split: .test)
        let used = min(limit, trainSet.count)
        func tooFewImages(_ left: Int) -> DigitError {
            DigitError(.usage, "--validation \(validationCount) leaves \(left) of the \(used) training images "
                + "used, fewer than one batch of \(options.batchSize): lower --validation or --batch-size, or raise --limit")
        }
        guard used > validationCount else { throw tooFewImages(0) }
        guard testSet.count > 0 else { throw DigitError(.format, file: dir, "the MNIST test split has no images") }
        for (set, split) in [(trainSet, "train"), (testSet, "t10k")] where set.images.rows != 28 || set.images.columns != 28 {
            throw DigitError(.format, file: dir, "the \(split) images are \(set.images.rows)×\(set.images.columns), the network needs 28×28")
        }
        let trainRange = 0..<(used - validationCount)
        let validationRange = (used - validationCount)..<used
        var sources: [any SampleSource] = [MNISTSamples(trainSet, range: trainRange, augmentation: augmentation)]
        var strokeNote = ""
        if let strokesPath {
            let isHeldOut: (Int?) -> Bool = { w in holdout.map { set in w.map { set.contains($0) } ?? true } ?? PendigitsSplit.isHeldOut(w) }
            let strokes = StrokeSamples(records: try DrawingLoader.load(strokesPath), raster: raster) { !isHeldOut($0) }
            guard strokes.count > 0 else { throw DigitError(.format, file: strokesPath, "no labelled drawings from training writers") }
            sources += Array(repeating: strokes, count: strokesRepeat)
            strokeNote = "; \(strokes.count) drawings × \(strokesRepeat) from \(strokesPath) (held-out writers: \(holdout.map { $0.sorted().map(String.init).joined(separator: ",") } ?? PendigitsSplit.heldOutList))"
        }
        if nonDigits > 0 {
            sources.append(NonDigitSamples(count: nonDigits, seed: options.seed, raster: raster))
            strokeNote += "; \(nonDigits) synthetic non-digits"
        }
        options.dataTag = "mnist 0..<\(trainRange.upperBound) val \(validationRange.lowerBound)..<\(validationRange.upperBound)"
            + (augmentation.clean > 0 ? " clean \(augmentation.clean)" : "") + strokeNote
            + (strokesPath == nil ? "" : " pen \(raster.penWidth) soft \(raster.softness)")
        guard sources.reduce(0, { $0 + $1.count }) >= options.batchSize else { throw tooFewImages(trainRange.count) }
        let trainer = Trainer(options: options, train: sources.count == 1 ? sources[0] : ConcatenatedSamples(sources),
                              validation: MNISTSamples(trainSet, range: validationRange))
        let progress = ProgressLine()
        Interruption.install()
        func stopIfInterrupted(_ state: String) {
            guard Interruption.wasRequested else { return }
            progress.finish("digits train: interrupted; \(state). Run the same command again to resume.")
            exit(ExitCode.interrupted)
        }
        printError("training: \(trainRange.count) MNIST images\(strokeNote), validation \(validationRange.count), \(options.epochs) epochs, "
            + "batch \(options.batchSize), \(options.threads) threads, \(trainer.parameterCount) parameters, "
            + "\(trainer.multiplyAdds) multiply-adds/image, build \(BuildInfo.kernelMode)")
        var epochsSaved = 0
        let model = try trainer.run(checkpoint: checkpoint) { event in
            switch event {
            case let .batch(epoch, batch, batches, loss, accuracy, rate, eta):
                // The checkpoint of the previous epoch is complete by the time a batch is reported.
                epochsSaved = epoch - 1
                stopIfInterrupted(epochsSaved == 0 ? "no epoch was finished, nothing to resume from"
                                                   : "\(checkpoint) holds \(epochsSaved) finished epoch\(epochsSaved == 1 ? "" : "s")")
                progress.update(String(format: "epoch %d/%d %@ %d/%d  loss %.4f  acc %.2f%%  %.0f img/s  ETA %@",
                                       epoch, options.epochs, ProgressLine.bar(Double(batch) / Double(batches), width: 20),
                                       batch, batches, loss, accuracy * 100, rate, ProgressLine.duration(eta)))
            case let .epoch(s):
                progress.finish(String(format: "epoch %2d/%d  train loss %.4f acc %.2f%%  val loss %.4f acc %.2f%%  lr %.4f  %.0fs  %.0f img/s",
                                       s.epoch, s.epochs, s.trainLoss, s.trainAccuracy * 100, s.validationLoss,
                                       s.validationAccuracy * 100, s.learningRate, s.seconds, s.imagesPerSecond))
            case let .resumed(epoch):
                progress.finish("resuming from \(checkpoint) after epoch \(epoch)")
            }
        }
        stopIfInterrupted("\(checkpoint) holds all \(options.epochs) epochs; the weight file was not written")
        // Calibrate on validation, then measure the test set once for the record.
        var file = ModelFile(layers: model.layers, tensors: model.tensors, inputMean: model.inputMean, inputStd: model.inputStd)
        let network = try file.makeNetwork()
        let validationLogits = BatchInference.logits(network, pixels: BatchInference.pixels(trainSet, range: validationRange),
                                                     threads: options.threads)
        let temperature = Calibration.fitTemperature(logits: validationLogits, labels: validationRange.map { Int(trainSet.labels[$0]) })
        file.temperature = temperature
        let testLogits = BatchInference.logits(network, pixels: BatchInference.pixels(testSet), threads: options.threads)
        let report = EvaluationReport(probabilities: BatchInference.probabilities(testLogits, temperature: temperature),
                                      labels: testSet.labels.map(Int.init), threshold: 0.9, temperature: temperature)
        file.provenance = [
            "training_command": (["digits"] + CommandLine.arguments.dropFirst()).joined(separator: " "),
            "seed": String(options.seed),
            "threads": String(options.threads),
            "wall_time_seconds": String(format: "%.1f", model.seconds),
            "test_accuracy": String(format: "%.4f", report.accuracy),
            "test_coverage_at_0.9": String(format: "%.4f", report.coverage),
            "test_selective_accuracy_at_0.9": String(format: "%.5f", report.selectiveAccuracy),
            "validation_accuracy": String(format: "%.4f", model.history.last?.validationAccuracy ?? 0),
            "training_data": "MNIST train images 0..<\(trainRange.upperBound); validation \(validationRange.lowerBound)..<\(validationRange.upperBound)" + strokeNote,
            "raster_pen_width": "\(raster.penWidth)",
            "raster_softness": "\(raster.softness)",
            "options": options.fingerprint,
            "build": BuildInfo.kernelMode,
            "parameters": String(model.parameterCount),
            "multiply_adds": String(model.multiplyAdds),
        ]
        try file.write(to: out)
        try? FileManager.default.removeItem(atPath: checkpoint)
        print(String(format: "wrote %@: test accuracy %.2f%%, coverage at 0.9 %.2f%%, selective accuracy %.3f%%, temperature %.3f, %.0f s",
                     out, report.accuracy * 100, report.coverage * 100, report.selectiveAccuracy * 100, temperature, model.seconds))
        return ExitCode.ok
    }
}

/// A one-line live progress display on stderr when it is a terminal; otherwise only finished lines.
final class ProgressLine {
    let live = isatty(2) != 0
    private var last = Date.distantPast

    func update(_ text: String) {
        guard live, Date().timeIntervalSince(last) > 0.2 else { return }
        last = Date()
        FileHandle.standardError.write(("\r\u{1B}[2K" + text).data(using: .utf8)!)
    }

    func finish(_ text: String) {
        FileHandle.standardError.write(((live ? "\r\u{1B}[2K" : "") + text + "\n").data(using: .utf8)!)
    }

    static func bar(_ fraction: Double, width: Int) -> String {
        let filled = Int((fraction * Double(width)).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: max(width - filled, 0)) + "]"
    }

    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "--" }
        let s = Int(seconds)
        return s >= 3600 ? String(format: "%dh%02dm", s / 3600, s / 60 % 60) : String(format: "%dm%02ds", s / 60, s % 60)
    }
}
