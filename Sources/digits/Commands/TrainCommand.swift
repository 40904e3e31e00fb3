import DigitApp
import DigitKit
import Foundation

struct TrainCommand: CLICommand {
    static let name = "train"
    static let summary = "train the CNN on MNIST and write a weight file"
    static let help = """
    Usage: digits train [options]

    Trains the network on the MNIST training images (the last --validation of them held out for
    validation and temperature calibration) and, by default, the recipe of the shipped model,
    then writes the weight file atomically. The test set is only evaluated once at the end, for
    the record in the file's metadata. A checkpoint is written after every epoch; run the same
    command again to resume.

    Recipes (every option below changes one part of the chosen recipe):
      shipped  (default) the shipped model: wide network with a "not a digit" output, 50 epochs,
               --clean 0.5, pendigits of all 30 writers ×2 with a 2.5-pixel pen, --variants 0.15,
               --non-digits 3000, --number-parts 8000, --paper-parts 2000, --glyphs 3 (held-out fonts: \(GlyphSamples.heldOutFonts.sorted().joined(separator: ",")))
      opinion  the second opinion (Weights/second-opinion.safetensors), consulted when the
               compact network is unsure of a digit: the shipped recipe's data but the pieces
               of photos (--paper-parts 0) on the larger "opinion" network, 30 epochs, its
               vote mixed half and half (second_opinion_mix 0.5)
      plain    the standard network, 20 epochs, MNIST only
      paper    the paper reader's line model (Weights/paper-lines.safetensors): real lines
               of the parish registers' train split and synthetic photos of numbers by the
               pen writers, CTC; see "The paper model" below
      --recipe NAME         shipped | opinion | plain | paper

    Optimizer and data:
      --data DIR            MNIST folder (default: $MNIST_DIR, Fixtures/mnist, ../shared/data/mnist)
      --out FILE            weight file to write (default: Weights/mnist-cnn.safetensors;
                            --recipe opinion: Weights/second-opinion.safetensors)
      --checkpoint FILE     per-epoch checkpoint (default: FILE given by --out + .checkpoint)
      --epochs N            passes over the training images
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
      --clean P             share of MNIST images shown undistorted in each epoch
      --elastic P           share of the distorted MNIST images also warped elastically (a
                            smooth random displacement field; default 0)
      --elastic-amplitude X largest displacement of the elastic warp's grid points, in
                            pixels (default 2)
      --arch NAME           \(Architecture.names.joined(separator: " | "))
      --refusal-class       add the eleventh output, "not a digit" (the shipped recipe has it)

    Pen data: labelled drawings rasterized on the fly with random pen width, slant and jitter.
      --strokes FILE        UNIPEN file or labelled stroke JSONL/folder (shipped: pendigits)
      --no-strokes          no pen data
      --holdout-writers L   writers never trained on, kept for measuring (shipped: none;
                            e.g. 3,6,9,12,15,18,21,24,27,30 for one fold of writers)
      --all-writers         train on every writer
      --strokes-repeat N    how many times each drawing appears per epoch
      --pen-width W         the rasterizer's pen width recorded in the weight file
      --softness S          the rasterizer's edge softness recorded in the weight file (default 1.0)
      --variants P          share of pen 0s, 1s and 7s drawn slashed, crossed or with a flag
      --mnist-strokes N     MNIST training images drawn again as pen strokes (their ink
                            thinned to a skeleton, rasterized like the drawings), N per epoch

    What is not a digit (trained toward the "not a digit" output, or toward uniform
    probabilities for a network without it):
      --non-digits N        synthetic dots, tangles, spirals, zigzags, dashes, crosses and
                            crossings-out per epoch
      --number-parts N      wrong pieces of composed numbers per epoch (two digits together,
                            fragments), what the number reader must score low
      --paper-parts N       synthetic photos of numbers whose candidates, cut as the page
                            reader cuts them, are trained on (digits, and merged digits and
                            fragments as "not a digit"), made once per run
      --glyphs N            stroke-font letters and symbols (and the fonts' digits, as digits)
                            N times per epoch; the glyphs of the held-out fonts are never used
      --glyph-file FILE     the glyph file (default: Fixtures/hershey/glyphs.jsonl)

    The paper model (--recipe paper; the options above that apply: --out, --checkpoint,
    --epochs, --batch-size, --lr (Adam's), --weight-decay, --warmup, --seed, --threads,
    --no-augment, --strokes):
      --real DIR            a folder of labelled images (labels.csv or labels.tsv) to train
                            on; repeat for more (default: the parish train split, from
                            $PARISH_DIR or Fixtures/parish, which scripts/fetch-parish fills)
      --validation-dir DIR  labelled images to report on and calibrate the temperature on,
                            never trained on (default: the parish validation split)
      --synthetic N         synthetic photos of 1-6 digit numbers by the pen writers, made
                            once per run (default 8000; 0 for none), a quarter of them with
                            each of a scanner margin, rules, print (--glyph-file), a
                            patterned background, harsh light, a tiny crop and a printed
                            sign before the number, and a quarter with a mark after it
      --touching N          further synthetic photos of 2-6 digit numbers whose digits touch
                            or overlap (gaps of -0.15 to 0.02 line heights), made the same
                            way (default 4000; 0 for none)
      --artefacts LIST      what the synthetic photos get, each at --artefact-rate, as in
                            digits make-paper (default margin,rules,print,pattern,light,small,
                            signs; marks are added to a quarter whatever this says)
      --artefact-rate P     each artefact's share of the synthetic photos, 0…1 (default 0.25)
      --pen-width A-B       the synthetic photos' pens, a share of the writing's height
                            (default 0.045-0.11; 0.16-0.22 is a marker)
      --soft-scans P        also train on a soft copy of this share of the real images:
                            blurred by 0.8-1.8% of the crop's shorter side (1-2.4 pixels
                            on a parish crop) and recompressed as JPEG at quality 20-60,
                            then cut like the others (default 0.25; 0 for none)
      --separators P        this share of the synthetic numbers of 4 digits or more is
                            written with separators between digit groups, as amounts are
                            (1.250.000, 12'500, 1250,00), labelled as marks (default 0)
      --writing-styles P    this share of the synthetic numbers is written in another hand
                            than its writer's: slanted, wider or narrower, digits turned
                            and bent, some 0s, 1s and 7s in variant forms (default 0)
      --lengths A-B         digits per synthetic number (default 1-6; the touching ones
                            at least 2)
      --holdout-writers L   pen writers the synthetic lines never use (a fold model for
                            figures on photos by writers it never saw; default: none)
      --stretch F           draw the lines F times wider than cut for the model, when
                            training and reading (default 2: two equal digits that touch
                            get the blank column CTC needs between them; 1 as before)
      --cache DIR           keep the lines cut from the images here, so a second run starts
                            at once (default runs/cache)
      --start FILE          start from this line model's weights (same architecture) instead
                            of fresh ones: a second stage of training
      --calibrate FILE      only calibrate the trained line model FILE as training ends:
                            the temperature of least log loss on the validation lines,
                            moved to the lowest at which the numbers it answers on the
                            validation images are right 99% of the time, one standard
                            error to spare; written to --out

    Progress goes to stderr: a live bar on a terminal, one line per epoch otherwise.

    Ctrl-C (or SIGTERM) stops at the next batch, leaving the last checkpoint intact, and exits
    with 130; run the same command again to resume from it. The result is then bit for bit the
    weights of an uninterrupted run with the same options (the same holds after a kill -9).
    A second Ctrl-C stops at once.

    \(CLI.exitCodesHelp)
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        let recipeName = try args.option("--recipe") ?? "shipped"
        var recipe: TrainingRecipe
        switch recipeName {
        case "shipped": recipe = .shipped
        case "plain": recipe = try TrainingRecipe(name: "plain", architecture: "standard")
        case "opinion": recipe = .secondOpinion
        case "paper": return try trainPaper(&args)
        default: throw DigitError(.usage, "--recipe must be shipped, opinion, plain or paper, got '\(recipeName)'")
        }
        let dataDir = try args.option("--data")
        let out = try args.option("--out") ?? (recipeName == "opinion" ? "Weights/\(SecondOpinion.fileName)" : "Weights/mnist-cnn.safetensors")
        let checkpoint = try args.option("--checkpoint") ?? out + ".checkpoint"
        var o = recipe.options
        try readOptimizer(&args, into: &o, sgd: true)
        let threads = try args.int("--threads", default: Parallel.processorCount, range: 1...256)
        if args.flag("--no-augment") { o.augment = false }
        if args.flag("--refusal-class") { recipe.refusalClass = true }
        if let layers = Architecture.named(recipe.architectureName, classes: recipe.classes) { o.architecture = layers }
        if let arch = try args.option("--arch") {
            guard let layers = Architecture.named(arch, classes: recipe.classes) else {
                throw DigitError(.usage, "--arch must be \(Architecture.names.joined(separator: ", ")), got '\(arch)'")
            }
            o.architecture = layers
            recipe.architectureName = arch
        }
        recipe.options = o
        recipe.validationCount = try args.int("--validation", default: recipe.validationCount, range: 1...30000)
        recipe.mnistLimit = try args.int("--limit", default: recipe.mnistLimit, range: 2...60000)
        recipe.augmentation.clean = try args.float("--clean", default: recipe.augmentation.clean, range: 0...1)
        recipe.augmentation.elastic = try args.float("--elastic", default: recipe.augmentation.elastic, range: 0...1)
        recipe.augmentation.elasticAmplitude = try args.float("--elastic-amplitude", default: recipe.augmentation.elasticAmplitude,
                                                              range: 0...8)
        let noStrokes = args.flag("--no-strokes")
        var strokesPath = try args.option("--strokes")
        if let holdout = try Writers.parse(try args.option("--holdout-writers"), "--holdout-writers") {
            recipe.pen.heldOutWriters = holdout
        }
        recipe.nonDigits = try args.int("--non-digits", default: recipe.nonDigits, range: 0...1_000_000)
        recipe.numberParts = try args.int("--number-parts", default: recipe.numberParts, range: 0...1_000_000)
        recipe.paperPhotos = try args.int("--paper-parts", default: recipe.paperPhotos, range: 0...100_000)
        recipe.glyphRepeats = try args.int("--glyphs", default: recipe.glyphRepeats, range: 0...100)
        recipe.variantRate = try args.float("--variants", default: recipe.variantRate, range: 0...1)
        recipe.mnistStrokes = try args.int("--mnist-strokes", default: recipe.mnistStrokes, range: 0...60000)
        let glyphsPath = try args.option("--glyph-file")
        if args.flag("--all-writers") { recipe.pen.heldOutWriters = [] }
        recipe.pen.repeats = try args.int("--strokes-repeat", default: recipe.pen.repeats, range: 1...100)
        recipe.pen.raster.penWidth = try args.float("--pen-width", default: recipe.pen.raster.penWidth, range: 0.5...8)
        recipe.pen.raster.softness = try args.float("--softness", default: recipe.pen.raster.softness, range: 0.01...8)
        _ = try args.positionals().first.map { throw DigitError(.usage, "unexpected argument '\($0)'") }

        guard let dir = dataDir ?? Locations.mnistDirectory() else {
            throw DigitError(.io, "MNIST not found: pass --data DIR, set MNIST_DIR, or run scripts/fetch-mnist")
        }
        if noStrokes {
            strokesPath = nil
        } else if strokesPath == nil && ["shipped", "opinion"].contains(recipe.name) {
            guard let found = Locations.pendigitsFile() else {
                throw DigitError(.io, "pendigits not found: pass --strokes FILE (or --no-strokes), set PENDIGITS_FILE, or run scripts/fetch-pendigits")
            }
            strokesPath = found
        }
        var glyphs = glyphsPath
        if recipe.glyphRepeats > 0 && glyphs == nil {
            guard let found = Locations.projectFile("Fixtures/hershey/glyphs.jsonl") else {
                throw DigitError(.io, "the glyph file Fixtures/hershey/glyphs.jsonl was not found: pass --glyph-file FILE")
            }
            glyphs = found
        }
        let run = try recipe.prepare(.init(mnistDirectory: dir, strokes: strokesPath, glyphs: glyphs), threads: threads)
        let epochs = recipe.options.epochs
        let progress = ProgressLine()
        let stop = Stop(progress: progress, checkpoint: checkpoint)
        printError("training (recipe \(recipe.name)): \(run.description), \(BuildInfo.kernelMode)")
        let record = [
            "training_command": (["digits"] + CommandLine.arguments.dropFirst()).joined(separator: " "),
            "build": BuildInfo.kernelMode,
        ]
        let file = try recipe.train(run, checkpoint: checkpoint, record: record) { event in
            switch event {
            case let .batch(epoch, batch, batches, loss, accuracy, rate, eta):
                stop.duringEpoch(epoch)
                progress.update(String(format: "epoch %d/%d %@ %d/%d  loss %.4f  acc %.2f%%  %.0f img/s  ETA %@",
                                       epoch, epochs, ProgressLine.bar(Double(batch) / Double(batches), width: 20),
                                       batch, batches, loss, accuracy * 100, rate, ProgressLine.duration(eta)))
            case let .epoch(s):
                progress.finish(String(format: "epoch %2d/%d  train loss %.4f acc %.2f%%  val loss %.4f acc %.2f%%  lr %.4f  %.0fs  %.0f img/s",
                                       s.epoch, s.epochs, s.trainLoss, s.trainAccuracy * 100, s.validationLoss,
                                       s.validationAccuracy * 100, s.learningRate, s.seconds, s.imagesPerSecond))
            case let .resumed(epoch):
                progress.finish("resuming from \(checkpoint) after epoch \(epoch)")
            }
        }
        stop.ifRequested("\(checkpoint) holds all \(epochs) epochs; the weight file was not written")
        try file.write(to: out)
        try? FileManager.default.removeItem(atPath: checkpoint)
        let p = file.provenance
        print("wrote \(out): test accuracy \(p["test_accuracy"] ?? "?"), coverage at 0.9 \(p["test_coverage_at_0.9"] ?? "?"), "
            + "selective accuracy \(p["test_selective_accuracy_at_0.9"] ?? "?"), temperature \(file.temperature), "
            + "\(p["wall_time_seconds"] ?? "?") s")
        return ExitCode.ok
    }

    /// The optimizer's options of both recipes, read into `o` (which holds the recipe's values), in
    /// this order: --epochs, --batch-size, --lr, --weight-decay, --warmup, --seed, and with `sgd`
    /// (not the paper model's Adam) --momentum after --lr and --schedule before --seed.
    static func readOptimizer(_ args: inout Arguments, into o: inout TrainingOptions, sgd: Bool) throws {
        o.epochs = try args.int("--epochs", default: o.epochs, range: 1...1000)
        o.batchSize = try args.int("--batch-size", default: o.batchSize, range: 1...4096)
        o.learningRate = try args.float("--lr", default: o.learningRate, range: 0...10)
        if sgd { o.momentum = try args.float("--momentum", default: o.momentum, range: 0...0.999) }
        o.weightDecay = try args.float("--weight-decay", default: o.weightDecay, range: 0...1)
        o.warmupEpochs = try args.float("--warmup", default: o.warmupEpochs, range: 0...1000)
        if sgd, let s = try args.option("--schedule") {
            guard let schedule = TrainingOptions.Schedule(rawValue: s) else {
                throw DigitError(.usage, "--schedule must be cosine or constant, got '\(s)'")
            }
            o.schedule = schedule
        }
        o.seed = UInt64(try args.int("--seed", default: Int(o.seed), range: 0...Int(Int32.max)))
    }

    /// Ctrl-C (or SIGTERM) during training: stop at the next batch with one line saying what the
    /// checkpoint holds, and exit 130; the same command resumes from it.
    struct Stop {
        let progress: ProgressLine
        let checkpoint: String

        init(progress: ProgressLine, checkpoint: String) {
            (self.progress, self.checkpoint) = (progress, checkpoint)
            Interruption.install()
        }

        func ifRequested(_ state: String) {
            guard Interruption.wasRequested else { return }
            progress.finish("digits train: interrupted; \(state). Run the same command again to resume.")
            exit(ExitCode.interrupted)
        }

        /// During epoch `epoch` (1-based): the checkpoint of the epoch before is complete by the
        /// time one of its batches is reported.
        func duringEpoch(_ epoch: Int) {
            let saved = epoch - 1
            ifRequested(saved == 0 ? "no epoch was finished, nothing to resume from"
                                   : "\(checkpoint) holds \(saved) finished epoch\(saved == 1 ? "" : "s")")
        }
    }

    /// `--recipe paper`: the paper reader's line model.
    static func trainPaper(_ args: inout Arguments) throws -> Int32 {
        var recipe = LineRecipe()
        var o = recipe.options
        let out = try args.option("--out") ?? "Weights/paper-lines.safetensors"
        let checkpoint = try args.option("--checkpoint") ?? out + ".checkpoint"
        try readOptimizer(&args, into: &o, sgd: false)
        if args.flag("--no-augment") { o.augment = false }
        recipe.options = o
        let threads = try args.int("--threads", default: Parallel.processorCount, range: 1...256)
        recipe.synthetic = try args.int("--synthetic", default: recipe.synthetic, range: 0...1_000_000)
        recipe.touching = try args.int("--touching", default: recipe.touching, range: 0...1_000_000)
        recipe.stretch = try args.float("--stretch", default: recipe.stretch, range: ModelFile.lineStretches)
        if let list = try args.option("--artefacts") { recipe.artefacts = try PaperCommand.artefacts(list) }
        recipe.artefactRate = try args.float("--artefact-rate", default: recipe.artefactRate, range: 0...1)
        if let pen = try args.option("--pen-width") { recipe.penWidth = try PaperCommand.floatRange(pen, flag: "--pen-width", allowed: 0.005...0.5) }
        recipe.softScans = try args.float("--soft-scans", default: recipe.softScans, range: 0...1)
        recipe.separators = try args.float("--separators", default: recipe.separators, range: 0...1)
        recipe.writingStyles = try args.float("--writing-styles", default: recipe.writingStyles, range: 0...1)
        if let lengths = try args.option("--lengths") { recipe.syntheticLengths = try ComposeCommand.range(lengths, most: 16) }
        if let holdout = try Writers.parse(try args.option("--holdout-writers"), "--holdout-writers") { recipe.heldOutWriters = holdout }
        recipe.start = try args.option("--start")
        var real: [String] = []
        while let r = try args.option("--real") { real.append(r) }
        let validationDir = try args.option("--validation-dir")
        let cache = try args.option("--cache") ?? "runs/cache"
        let strokes = try args.option("--strokes") ?? Locations.pendigitsFile()
        let glyphs = try args.option("--glyph-file") ?? Locations.projectFile("Fixtures/hershey/glyphs.jsonl")
        let calibrate = try args.option("--calibrate")
        _ = try args.positionals().first.map { throw DigitError(.usage, "unexpected argument '\($0)'") }
        let parish = Locations.parishDirectory()
        if let calibrate {
            // Only the temperature: the trained line model `calibrate`, its temperature moved to
            // the lowest at which its answers on the validation images are right 99% of the time,
            // one standard error to spare.
            guard let validation = validationDir ?? parish.map({ ($0 as NSString).appendingPathComponent("validation") }) else {
                throw DigitError(.io, "no validation folder: pass --validation-dir DIR, set PARISH_DIR, or run scripts/fetch-parish")
            }
            var model = try ModelFile.load(path: calibrate)
            guard model.isLineModel else { throw DigitError(.usage, file: calibrate, "not a line model (--calibrate takes a paper model)") }
            let progress = ProgressLine()
            let data = LineRecipe.Data(real: [], validation: validation, strokes: nil, glyphs: nil, cache: cache)
            let lines = try recipe.validationLines(data, threads: threads) { progress.update($0) }
            model = try LineRecipe.calibrated(model, validation: lines, folder: validation, threads: threads) { progress.finish($0) }
            model.provenance["calibration_command"] = (["digits"] + CommandLine.arguments.dropFirst()).joined(separator: " ")
            try model.write(to: out)
            let m = model.provenance
            print("wrote \(out): temperature \(model.temperature), on the images of \(validation): exact \(m["images_exact"] ?? "?"), "
                  + "answered \(m["images_answered"] ?? "?"), right among answered \(m["images_right_among_answered"] ?? "?")")
            return ExitCode.ok
        }
        if real.isEmpty {
            guard let parish else { throw DigitError(.io, "the parish scans were not found: pass --real DIR, set PARISH_DIR, or run scripts/fetch-parish") }
            real = [(parish as NSString).appendingPathComponent("train")]
        }
        guard let validation = validationDir ?? parish.map({ ($0 as NSString).appendingPathComponent("validation") }) else {
            throw DigitError(.io, "no validation folder: pass --validation-dir DIR, set PARISH_DIR, or run scripts/fetch-parish")
        }
        if recipe.synthetic > 0 && strokes == nil {
            throw DigitError(.io, "pendigits not found for the synthetic lines: pass --strokes FILE (or --synthetic 0), or run scripts/fetch-pendigits")
        }
        // The calibration that ends the run reads the validation images with the digit network too
        // (close-ups): a missing or broken one stops the command now, not after the training.
        _ = try DigitRecognizer()
        let data = LineRecipe.Data(real: real, validation: validation, strokes: strokes, glyphs: glyphs, cache: cache)
        let progress = ProgressLine()
        let stop = Stop(progress: progress, checkpoint: checkpoint)
        let (train, val) = try recipe.prepare(data, threads: threads) { progress.update($0) }
        stop.ifRequested("no epoch was started, nothing to resume from; the lines cut are kept in \(cache)")
        progress.finish("training the paper model: \(train.count) lines, validation \(val.count), \(BuildInfo.kernelMode)")
        let record = [
            "training_command": (["digits"] + CommandLine.arguments.dropFirst()).joined(separator: " "),
            "build": BuildInfo.kernelMode,
        ]
        let epochs = recipe.options.epochs
        let model = try recipe.train(train: train, validation: val, data: data, threads: threads, checkpoint: checkpoint,
                                     record: record) { event in
            switch event {
            case let .batch(epoch, batch, batches, loss, _, rate, eta):
                stop.duringEpoch(epoch)
                progress.update(String(format: "epoch %d/%d %@ %d/%d  CTC loss %.4f  %.0f lines/s  ETA %@",
                                       epoch, epochs, ProgressLine.bar(Double(batch) / Double(batches), width: 20),
                                       batch, batches, loss, rate, ProgressLine.duration(eta)))
            case let .epoch(s):
                progress.finish(String(format: "epoch %2d/%d  train loss %.4f  val loss %.4f  val exact %.2f%%  lr %.5f  %.0fs  %.0f lines/s",
                                       s.epoch, s.epochs, s.trainLoss, s.validationLoss, s.validationAccuracy * 100,
                                       s.learningRate, s.seconds, s.imagesPerSecond))
            case let .resumed(epoch):
                progress.finish("resuming from \(checkpoint) after epoch \(epoch)")
            }
        }
        // The calibration after the last epoch does not look at Ctrl-C; the checkpoint holds every epoch.
        stop.ifRequested("\(checkpoint) holds all \(epochs) epochs; the weight file was not written")
        try model.write(to: out)
        try? FileManager.default.removeItem(atPath: checkpoint)
        let p = model.provenance
        print("wrote \(out): validation exact \(p["validation_exact"] ?? "?"), answered \(p["validation_answered"] ?? "?"), "
            + "right among answered \(p["validation_right_among_answered"] ?? "?"), temperature \(model.temperature), "
            + "\(p["parameters"] ?? "?") parameters, \(p["multiply_adds_32x256"] ?? "?") multiply-adds per 32×256 line")
        return ExitCode.ok
    }
}
