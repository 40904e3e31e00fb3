import Foundation

/// Everything that makes a weight file: the network and optimizer (`options`), which data is
/// shown and how, calibration and the record written into the file. `shipped` is the recipe of
/// `Weights/mnist-cnn.safetensors`; `digits train` runs it (or a variant of it built from flags).
/// The same recipe, data and kernels give the same file bit for bit, whatever the thread count.
public struct TrainingRecipe: Sendable {
    /// A name for reports: `shipped`, `quick`, or `custom`.
    public var name: String
    /// The architecture's name, for the record (`wide`).
    public var architectureName: String
    public var options: TrainingOptions
    /// MNIST training images held out (the last ones) for validation and the softmax temperature.
    public var validationCount = 5000
    /// Use only the first N MNIST training images (quick experiments).
    public var mnistLimit = 60000
    /// Distortion of the MNIST images; `clean` is the share shown undistorted.
    public var augmentation = Augmentation()
    /// Pen drawings (pendigits or other labelled strokes), rasterized on the fly.
    public var pen = PenData()
    /// Synthetic non-digits per epoch (dots, tangles, spirals, zigzags; with `refusalClass` also
    /// dashes, crosses and crossings-out), trained toward "unsure" or "not a digit".
    public var nonDigits = 0
    /// An eleventh output, "not a digit", trained on the non-digit sources below.
    public var refusalClass = false
    /// Wrong pieces of composed numbers (two digits together, fragments) per epoch, "not a digit"
    /// (`NumberPartSamples`); needs `refusalClass` and pen data.
    public var numberParts = 0
    /// Synthetic photos of numbers whose candidates, cut as the page reader cuts them, are trained
    /// on (`PaperPartSamples`: whole digits as digits, merged digits and fragments as "not a
    /// digit"); needs `refusalClass` and pen data.
    public var paperPhotos = 0
    /// Stroke-font glyphs (letters and symbols as "not a digit", digits as digits), and how many
    /// times each appears per epoch.
    public var glyphRepeats = 0
    /// Stroke fonts whose glyphs are never trained on (kept for measuring refusals).
    public var heldOutFonts = GlyphSamples.heldOutFonts
    /// Share of pen 0s, 1s and 7s drawn in a variant form (slashed zero, crossed seven, European one).
    public var variantRate: Float = 0
    /// For a second opinion (`SecondOpinion`): how much it counts when consulted, recorded in the
    /// weight file as `second_opinion_mix`; nil for a network that answers alone.
    public var secondOpinionMix: Float?
    /// MNIST training images drawn again as pen strokes (their skeletons, `MNISTStrokeSamples`),
    /// how many per epoch, drawn with the pen of `pen.raster`.
    public var mnistStrokes = 0

    public struct PenData: Sendable {
        /// Writers never trained on (kept for measuring); nil: `PendigitsSplit` (every third
        /// writer); empty: train on every writer.
        public var heldOutWriters: Set<Int>?
        /// How many times each drawing appears per epoch.
        public var repeats = 2
        /// The rasterizer's settings, recorded in the weight file for recognition.
        public var raster = RasterOptions()
        public init() {}

        public func isHeldOut(_ writer: Int?) -> Bool {
            heldOutWriters.map { set in writer.map { set.contains($0) } ?? true } ?? PendigitsSplit.isHeldOut(writer)
        }

        public var heldOutList: String {
            guard let set = heldOutWriters else { return PendigitsSplit.heldOutList }
            return set.isEmpty ? "none" : set.sorted().map(String.init).joined(separator: ",")
        }
    }

    public init(name: String = "custom", architecture: String = "standard", classes: Int = 10) throws {
        guard let layers = Architecture.named(architecture, classes: classes) else {
            throw DigitError(.usage, "unknown architecture '\(architecture)' (\(Architecture.names.joined(separator: ", ")))")
        }
        self.name = name
        architectureName = architecture
        refusalClass = classes == 11
        options = TrainingOptions(architecture: layers)
    }

    /// The shipped model (Weights/README.md): the wide network with an eleventh output, "not a
    /// digit"; 50 epochs; half of the MNIST images undistorted; the pendigits drawings of all 30
    /// writers twice per epoch with a 2.5-pixel pen, 15% of the 0s, 1s and 7s in a variant form;
    /// 3,000 synthetic scribbles, 8,000 wrong pieces of composed numbers, the candidates cut from
    /// 2,000 synthetic photos of numbers (what the cutting reader, `--cuts`, reads with), and the
    /// stroke-font glyphs (but those of `heldOutFonts`) three times per epoch.
    public static var shipped: TrainingRecipe {
        // `try!` is safe: "wide" is a built-in architecture.
        var r = try! TrainingRecipe(name: "shipped", architecture: "wide", classes: 11)
        r.options.epochs = 50
        r.augmentation.clean = 0.5
        r.pen.repeats = 2
        r.pen.raster.penWidth = 2.5
        r.pen.heldOutWriters = []
        r.variantRate = 0.15
        r.nonDigits = 3000
        r.numberParts = 8000
        r.paperPhotos = 2000
        r.glyphRepeats = 3
        return r
    }

    /// The second opinion (Weights/second-opinion.safetensors), consulted when the compact network
    /// is unsure of a digit: the shipped recipe's ink (no pieces of photos: the compact network
    /// reads those for the cutting reader) on the larger `opinion` network, 30 epochs, its vote
    /// mixed half and half with the compact network's.
    public static var secondOpinion: TrainingRecipe {
        var r = shipped
        r.name = "opinion"
        r.paperPhotos = 0
        r.architectureName = "opinion"
        r.options.architecture = Architecture.opinion(classes: 11)
        r.options.epochs = 30
        r.secondOpinionMix = 0.5
        return r
    }

    /// The data a recipe trains on, found by the caller.
    public struct Data {
        public var mnistDirectory: String
        /// Labelled drawings (a UNIPEN file, JSON Lines or a folder), or nil for MNIST only.
        public var strokes: String?
        /// The stroke-font glyph file (Fixtures/hershey/glyphs.jsonl), needed when `glyphRepeats > 0`.
        public var glyphs: String?
        public init(mnistDirectory: String, strokes: String? = nil, glyphs: String? = nil) {
            self.mnistDirectory = mnistDirectory
            self.strokes = strokes
            self.glyphs = glyphs
        }
    }

    /// The network's outputs: 10 digits, or 11 with "not a digit".
    public var classes: Int { refusalClass ? 11 : 10 }

    /// What `prepare` found: the trainer and what to tell the user before it runs.
    public struct Run {
        public let trainer: Trainer
        /// One line: images, drawings, validation, epochs, batch, threads, parameters.
        public let description: String
        let trainSet: MNISTSet, testSet: MNISTSet
        let validationRange: Range<Int>
        let dataNote: String
    }

    /// Loads the data and builds the trainer. Errors name what is missing or inconsistent.
    public func prepare(_ data: Data, threads: Int) throws -> Run {
        var options = self.options
        options.threads = threads
        let dir = data.mnistDirectory
        let trainSet = try MNISTSet.load(directory: dir, split: .train)
        let testSet = try MNISTSet.load(directory: dir, split: .test)
        let used = min(mnistLimit, trainSet.count)
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
        var note = ""
        let refusal = refusalClass ? 10 : NonDigitSamples.label
        var penRecords: [DrawingRecord] = []
        if let path = data.strokes {
            penRecords = try DrawingLoader.load(path)
            var strokes = StrokeSamples(records: penRecords, raster: pen.raster) { !pen.isHeldOut($0) }
            strokes.variantRate = variantRate
            guard strokes.count > 0 else { throw DigitError(.format, file: path, "no labelled drawings from training writers") }
            sources += Array(repeating: strokes, count: pen.repeats)
            note = "; \(strokes.count) drawings × \(pen.repeats) from \(path) (held-out writers: \(pen.heldOutList))"
                + (variantRate > 0 ? ", variant forms \(variantRate)" : "")
        }
        if mnistStrokes > 0 {
            let drawn = MNISTStrokeSamples(trainSet, range: trainRange, count: mnistStrokes, seed: options.seed ^ 0x5E1E,
                                           raster: pen.raster)
            sources.append(drawn)
            note += "; \(drawn.count) MNIST images drawn as pen strokes"
        }
        if nonDigits > 0 {
            var shapes = NonDigitSamples(count: nonDigits, seed: options.seed, raster: pen.raster)
            if refusalClass {
                shapes.target = refusal
                shapes.kinds = 7
            }
            sources.append(shapes)
            note += "; \(nonDigits) synthetic non-digits"
        }
        if numberParts > 0 {
            guard refusalClass, !penRecords.isEmpty else {
                throw DigitError(.usage, "number parts need the \"not a digit\" output and pen data (--strokes)")
            }
            let byWriter = NumberComposer.byWriter(penRecords) { !pen.isHeldOut($0) }
            sources.append(NumberPartSamples(count: numberParts, seed: options.seed ^ 0x9A27, byWriter: byWriter,
                                             raster: pen.raster, label: refusal))
            note += "; \(numberParts) wrong pieces of composed numbers"
        }
        if paperPhotos > 0 {
            guard refusalClass, !penRecords.isEmpty else {
                throw DigitError(.usage, "paper parts need the \"not a digit\" output and pen data (--strokes)")
            }
            let byWriter = NumberComposer.byWriter(penRecords) { !pen.isHeldOut($0) }
            let parts = PaperPartSamples(photos: paperPhotos, seed: options.seed ^ 0x9A9E, byWriter: byWriter, refusalLabel: refusal)
            sources.append(parts)
            note += "; \(parts.count) candidates cut from \(paperPhotos) synthetic photos (\(parts.kinds.digits) digits, "
                + "\(parts.kinds.merged) merged, \(parts.kinds.fragments) fragments)"
        }
        if glyphRepeats > 0 {
            guard let path = data.glyphs else { throw DigitError(.usage, "glyphs need the glyph file (Fixtures/hershey/glyphs.jsonl)") }
            let kept = try GlyphSamples.load(path).filter { !$0.isIn(heldOutFonts) }
            var glyphs = GlyphSamples(kept, refusalLabel: refusal, refusals: refusalClass, raster: pen.raster)
            glyphs.strokes.rotationDegrees = 12
            sources += Array(repeating: glyphs, count: glyphRepeats)
            note += "; \(glyphs.count) stroke-font glyphs × \(glyphRepeats) from \(path)"
                + " (held-out fonts: \(heldOutFonts.sorted().joined(separator: ",")))"
        }
        options.dataTag = "mnist 0..<\(trainRange.upperBound) val \(validationRange.lowerBound)..<\(validationRange.upperBound)"
            + (augmentation.clean > 0 ? " clean \(augmentation.clean)" : "") + augmentation.elasticDescription + note
            + (data.strokes == nil ? "" : " pen \(pen.raster.penWidth) soft \(pen.raster.softness)")
        guard sources.reduce(0, { $0 + $1.count }) >= options.batchSize else { throw tooFewImages(trainRange.count) }
        let trainer = try Trainer(options: options, train: sources.count == 1 ? sources[0] : ConcatenatedSamples(sources),
                                  validation: MNISTSamples(trainSet, range: validationRange))
        let description = "\(trainRange.count) MNIST images\(note), validation \(validationRange.count), \(options.epochs) epochs, "
            + "batch \(options.batchSize), \(threads) threads, \(trainer.parameterCount) parameters, "
            + "\(trainer.multiplyAdds) multiply-adds/image"
        return Run(trainer: trainer, description: description, trainSet: trainSet, testSet: testSet,
                   validationRange: validationRange, dataNote: note)
    }

    /// Trains (resuming from `checkpoint` when it exists and matches), fits the softmax temperature
    /// on the validation images, measures the MNIST test set once for the record, and returns the
    /// weight file with its metadata. `record` adds provenance keys (the command line, the build).
    public func train(_ run: Run, checkpoint: String?, record: [String: String] = [:],
                      report: (TrainingEvent) -> Void) throws -> ModelFile {
        let model = try run.trainer.run(checkpoint: checkpoint, report: report)
        let options = run.trainer.options
        var file = ModelFile(layers: model.layers, tensors: model.tensors, inputMean: model.inputMean, inputStd: model.inputStd)
        file.classes = refusalClass ? ModelFile.digitAndRefusalClasses : ModelFile.digitClasses
        let network = try file.makeNetwork()
        let validationLogits = BatchInference.logits(network, pixels: BatchInference.pixels(run.trainSet, range: run.validationRange),
                                                     threads: options.threads)
        let temperature = Calibration.fitTemperature(logits: validationLogits,
                                                     labels: run.validationRange.map { Int(run.trainSet.labels[$0]) },
                                                     classes: classes)
        file.temperature = temperature
        let testLogits = BatchInference.logits(network, pixels: BatchInference.pixels(run.testSet), threads: options.threads)
        let report = EvaluationReport(probabilities: BatchInference.probabilities(testLogits, temperature: temperature, classes: classes),
                                      labels: run.testSet.labels.map(Int.init), threshold: 0.9, temperature: temperature)
        var provenance = [
            "recipe": name,
            "seed": String(options.seed),
            "threads": String(options.threads),
            "wall_time_seconds": String(format: "%.1f", model.seconds),
            "test_accuracy": String(format: "%.4f", report.accuracy),
            "test_coverage_at_0.9": String(format: "%.4f", report.coverage),
            "test_selective_accuracy_at_0.9": String(format: "%.5f", report.selectiveAccuracy),
            "validation_accuracy": String(format: "%.4f", model.history.last?.validationAccuracy ?? 0),
            "training_data": "MNIST train images 0..<\(run.validationRange.lowerBound); validation "
                + "\(run.validationRange.lowerBound)..<\(run.validationRange.upperBound)" + run.dataNote,
            "raster_pen_width": "\(pen.raster.penWidth)",
            "raster_softness": "\(pen.raster.softness)",
            "options": options.fingerprint,
            "parameters": String(model.parameterCount),
            "multiply_adds": String(model.multiplyAdds),
        ]
        if let mix = secondOpinionMix { provenance["second_opinion_mix"] = String(mix) }
        provenance.merge(record) { _, new in new }
        file.provenance = provenance
        return file
    }
}
