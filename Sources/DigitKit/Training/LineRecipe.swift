import Foundation

/// Everything that makes the paper reader's line model (`digits train --recipe paper`): the real
/// lines of a training folder (the parish registers' train split), synthetic photos of numbers by
/// the pen writers (`SyntheticLines`), the network (`Architecture.line()`), the optimizer's
/// settings, and the calibration of its softmax temperature on the validation folder's lines
/// (never trained on).
public struct LineRecipe: Sendable {
    public var name = "paper"
    public var options = TrainingOptions(architecture: Architecture.line(), epochs: 50, batchSize: 32, learningRate: 0.002,
                                         weightDecay: 0.0001, warmupEpochs: 0.5, inputMean: 0.08, inputStd: 0.22)
    /// The training input's width (lines wider are squeezed to it).
    public var width = 160
    /// How many times wider than cut the lines are drawn for the model (`ModelFile.lineStretch`):
    /// a strip's digits are 9–15 pixels apart, one to two of the model's 8-pixel columns, too
    /// few for CTC to read two equal digits that touch (a blank column must part them).
    public var stretch: Float = 2
    /// Synthetic lines of `syntheticLengths` digits, made once per run.
    public var synthetic = 8000
    public var syntheticLengths = 1...6
    public var syntheticSeed: UInt64 = 11
    /// Further synthetic lines whose digits touch or overlap (`touchingGap` line heights apart),
    /// made like the others with their own seed.
    public var touching = 4000
    public var touchingGap: ClosedRange<Float> = -0.15...0.02
    /// What real paper carries, added to the synthetic photos at `artefactRate` each (print and
    /// signs need the glyph file: `Data.glyphs`).
    public var artefacts: Set<PaperArtefacts.Kind> = [.margin, .rules, .print, .pattern, .light, .small, .signs]
    public var artefactRate: Float = 0.25
    /// Pen writers whose digits the synthetic lines never use (a fold model, for figures on
    /// synthetic photos by writers it never saw); empty: all of them, as the shipped model.
    public var heldOutWriters: Set<Int> = []
    /// The synthetic photos' pens, a share of the writing's height (0.16–0.22 is a marker).
    public var penWidth: ClosedRange<Float> = PaperRenderer().penWidth
    /// `penWidth` when it is not the renderer's own (the cache's and the record's tags name it).
    private var customPen: ClosedRange<Float>? { penWidth == PaperRenderer().penWidth ? nil : penWidth }
    /// The share of the synthetic numbers of four digits or more written with separators between
    /// their digits, as amounts are (`1.250.000`, `12'500`, `1250,00`; labelled as marks).
    public var separators: Float = 0
    /// The share of the synthetic numbers written in another hand than their writer's
    /// (`WritingStyle`: slant, width, turned and bent digits, variant forms); 0 for none.
    public var writingStyles: Float = 0
    /// The share of the real training images also shown as a soft copy (`ScanDegradation`:
    /// blurred and recompressed, then cut like the others), made once per run with its own seed;
    /// 0 for none. The real crops are sharp: without soft copies the model read blurred numbers
    /// wrong and sure of them (docs/images.md, "Blur").
    public var softScans: Float = 0.25
    /// How often each real training line is shown per epoch.
    public var realRepeats = 1
    /// A line model of the same architecture to start from (fine-tuning), or nil for fresh weights.
    public var start: String?

    public init() {}

    /// The recipe's data: `real` folders with labels (`LabelFile`), the pen writers' digits for
    /// the synthetic lines, and the validation folder. `cache` names a folder for the strips.
    public struct Data: Sendable {
        public var real: [String]
        public var validation: String
        public var strokes: String?
        public var glyphs: String?
        public var cache: String?
        public init(real: [String], validation: String, strokes: String?, glyphs: String? = nil, cache: String?) {
            self.real = real
            self.validation = validation
            self.strokes = strokes
            self.glyphs = glyphs
            self.cache = cache
        }
    }

    /// The training and validation lines.
    public func prepare(_ data: Data, threads: Int, progress: (String) -> Void) throws -> (train: LineSet, validation: LineSet) {
        func cacheFile(_ folder: String, _ tag: String) -> String? {
            data.cache.map { ($0 as NSString).appendingPathComponent("strips-\(tag)-\((folder as NSString).lastPathComponent).bin") }
        }
        if let cache = data.cache { try? FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true) }
        var train = LineSet()
        for (k, folder) in data.real.enumerated() {
            let set = try LineSet.load(folder: folder, threads: threads, cache: cacheFile(folder, "real\(k)"), progress: { done, all in
                progress("cutting lines of \(folder): \(done)/\(all)")
            })
            for _ in 0..<realRepeats { train.append(contentsOf: set) }
            progress("\(set.count) real lines from \(folder)")
            if softScans > 0 {
                let share = softScans, seed = options.seed &+ 0x50F7_5CA7 &+ UInt64(k), degradation = ScanDegradation()
                let soft = try LineSet.load(folder: folder, threads: threads, cache: cacheFile(folder, "soft\(k)-\(share)-\(options.seed)"),
                                            variant: "soft \(share) seed \(seed)", change: { i, image in
                    var rng = SplitMix64(seed: seed &+ UInt64(i) &* 0x9E37_79B9_7F4A_7C15)
                    guard rng.nextFloat() < share else { return nil }
                    return degradation.apply(to: image, rng: &rng)
                }, progress: { done, all in progress("softening and cutting the lines of \(folder): \(done)/\(all)") })
                train.append(contentsOf: soft)
                progress("\(soft.count) soft copies of them (blurred, recompressed)")
            }
        }
        if synthetic > 0, let strokes = data.strokes {
            let made = try syntheticLines(strokes: strokes, data: data, count: synthetic, lengths: syntheticLengths, seed: syntheticSeed,
                                          gap: nil, tag: "synthetic", threads: threads, progress: progress)
            train.append(contentsOf: made)
            progress("\(made.count) synthetic lines")
        }
        if touching > 0, let strokes = data.strokes {
            let lengths = max(2, syntheticLengths.lowerBound)...max(2, syntheticLengths.upperBound)
            let made = try syntheticLines(strokes: strokes, data: data, count: touching, lengths: lengths, seed: syntheticSeed &+ 0x70C4,
                                          gap: touchingGap, tag: "touching", threads: threads, progress: progress)
            train.append(contentsOf: made)
            progress("\(made.count) synthetic lines of touching digits")
        }
        return (train, try validationLines(data, threads: threads, progress: progress))
    }

    /// `count` synthetic lines of `lengths` digits by the pen writers of `strokes`, `gap` line
    /// heights between digits (nil: `NumberComposer`'s own), with the recipe's artefacts; made
    /// once and kept in the cache folder under `tag`.
    private func syntheticLines(strokes: String, data: Data, count: Int, lengths: ClosedRange<Int>, seed: UInt64,
                                gap: ClosedRange<Float>?, tag: String, threads: Int, progress: (String) -> Void) throws -> LineSet {
        let kindsTag = artefacts.map(\.rawValue).sorted().joined(separator: "+")
        let gapTag = gap.map { "-gap\($0.lowerBound)..\($0.upperBound)" } ?? ""
            + (customPen.map { "-pen\($0.lowerBound)..\($0.upperBound)" } ?? "")
            + (separators > 0 ? "-sep\(separators)" : "")
            + (writingStyles > 0 ? "-style\(writingStyles)" : "")
            + (heldOutWriters.isEmpty ? "" : "-without\(heldOutWriters.sorted().map(String.init).joined(separator: "."))")
        let file = data.cache.map {
            ($0 as NSString).appendingPathComponent("strips-\(tag)-v\(LineImage.version)-\(kindsTag)\(artefactRate)-\(count)\(gapTag)"
                + "-\(lengths.lowerBound)-\(lengths.upperBound)-\(seed).bin")
        }
        if let file, let cached = try? LineSet.read(cache: file, tag: tag) { return cached }
        let records = usable(try DrawingLoader.load(strokes))
        var kinds = artefacts
        var glyphs: [GlyphSamples.Glyph] = []
        if let file = data.glyphs { glyphs = try GlyphSamples.load(file) } else { kinds.subtract([.print, .signs]) }
        var composer = NumberComposer()
        if let gap { composer.gap = gap }
        if writingStyles > 0 { composer.style = WritingStyle(share: writingStyles) }
        let made = try SyntheticLines.make(records: records, count: count, lengths: lengths, seed: seed, composer: composer,
                                           artefacts: PaperArtefacts(kinds: kinds, rate: artefactRate, glyphs: glyphs),
                                           penWidth: penWidth, separatorShare: separators, threads: threads) { done, all in progress("making \(tag) lines: \(done)/\(all)") }
        if let file { try made.write(cache: file, tag: tag) }
        return made
    }

    /// The drawings the synthetic lines may use: all but those of `heldOutWriters` (a drawing
    /// without a writer is used).
    func usable(_ records: [DrawingRecord]) -> [DrawingRecord] {
        records.filter { record in record.writer.map { !heldOutWriters.contains($0) } ?? true }
    }

    /// The validation lines (cut from `data.validation`, cached like the training lines).
    public func validationLines(_ data: Data, threads: Int, progress: (String) -> Void) throws -> LineSet {
        let cache = data.cache.map {
            ($0 as NSString).appendingPathComponent("strips-validation-\((data.validation as NSString).lastPathComponent).bin")
        }
        return try LineSet.load(folder: data.validation, threads: threads, cache: cache, progress: { done, all in
            progress("cutting lines of \(data.validation): \(done)/\(all)")
        })
    }

    /// `model` with its temperature calibrated on the validation data: the log-loss choice on the
    /// lines (`LineCalibration`), then moved to the lowest at which the whole reader's answers on
    /// the images are still right 99% of the time, one standard error to spare
    /// (`LineCalibration.honestTemperature`); both steps' figures recorded in its metadata.
    public static func calibrated(_ model: ModelFile, validation: LineSet, folder: String, threads: Int,
                                  progress: (String) -> Void = { _ in }) throws -> ModelFile {
        var model = model
        let calibration = try LineCalibration(model: model, validation: validation, threads: threads)
        let honest = try LineCalibration.honestTemperature(model: model, folder: folder, start: calibration.temperature,
                                                           progress: progress)
        model.temperature = honest.temperature
        for (k, v) in calibration.record { model.provenance[k] = v }
        for (k, v) in honest.record { model.provenance[k] = v }
        return model
    }

    /// A description of the data for the weight file's record.
    public func dataTag(_ data: Data) -> String {
        "real=\(data.real.map { ($0 as NSString).lastPathComponent }.joined(separator: "+"))x\(realRepeats) synthetic=\(synthetic)"
            + (touching > 0 ? " touching=\(touching)@\(touchingGap.lowerBound)..\(touchingGap.upperBound)" : "")
            + (start.map { " start=\(($0 as NSString).lastPathComponent)" } ?? "")
            + " lengths=\(syntheticLengths.lowerBound)-\(syntheticLengths.upperBound) seed=\(syntheticSeed) width=\(width)"
            + (stretch != 1 ? " stretch=\(stretch)" : "")
            + " artefacts=\(artefacts.map(\.rawValue).sorted().joined(separator: "+"))@\(artefactRate)"
            + (customPen.map { " pen=\($0.lowerBound)-\($0.upperBound)" } ?? "")
            + (softScans > 0 ? " soft-scans=\(softScans)" : "")
            + (separators > 0 ? " separators=\(separators)" : "")
            + (writingStyles > 0 ? " writing-styles=\(writingStyles)" : "")
            + (heldOutWriters.isEmpty ? "" : " held-out-writers=\(heldOutWriters.sorted().map(String.init).joined(separator: ","))")
    }

    /// Trains (resuming from `checkpoint` when it exists and matches, and writing it after every
    /// epoch), calibrates the temperature on the validation lines, and returns the weight file.
    public func train(train: LineSet, validation: LineSet, data: Data, threads: Int, checkpoint: String? = nil,
                      record: [String: String], report: (TrainingEvent) -> Void) throws -> ModelFile {
        var o = options
        o.threads = threads
        o.dataTag = dataTag(data)
        let trainer = try LineTrainer(options: o, width: width, train: LineSamples(train, width: width, stretch: stretch),
                                      validation: LineSamples(validation, width: width, stretch: stretch))
        if let start {
            do { try trainer.start(from: try ModelFile.load(path: start).tensors) } catch let e as DigitError { throw e.inFile(start) }
        }
        let trained = try trainer.run(checkpoint: checkpoint, report: report)
        var model = ModelFile(layers: trained.layers, tensors: trained.tensors, inputMean: trained.inputMean, inputStd: trained.inputStd)
        model.classes = LineSymbols.classes
        model.lineStretch = stretch
        model = try Self.calibrated(model, validation: validation, folder: data.validation, threads: threads)
        var p = model.provenance.merging(record) { _, new in new }
        p["recipe"] = name
        p["data"] = o.dataTag
        p["fingerprint"] = o.fingerprint
        p["parameters"] = String(trained.parameterCount)
        p["multiply_adds_32x256"] = String(try model.makeNetwork(width: 256).multiplyAdds)
        p["train_lines"] = String(train.count)
        p["validation_lines"] = String(validation.count)
        p["wall_time_seconds"] = String(format: "%.0f", trained.seconds)
        p["history"] = trained.history.map { String(format: "%d:%.4f/%.4f/%.4f", $0.epoch, $0.trainLoss, $0.validationLoss, $0.validationAccuracy) }
            .joined(separator: " ")
        model.provenance = p
        return model
    }
}

/// The temperature of a line model chosen on labelled lines it never trained on: the one that
/// minimizes the log loss of a reading's confidence (the product of its digits') as the
/// probability that the number is read exactly, looked for on a grid from 0.25 to 3 by 0.25 and
/// then by 0.05 around the best; and the validation figures at the 0.9 filter with it.
public struct LineCalibration: Sendable {
    public var temperature: Float
    public var record: [String: String] = [:]

    public init(model: ModelFile, validation: LineSet, threads: Int) throws {
        var m = model
        var best: (Float, Double) = (1, .infinity)
        var strips: [LineImage] = []
        for i in 0..<validation.count { strips.append(validation.strip(i)) }
        func logLoss(_ t: Float) throws -> Double {
            m.temperature = t
            let reader = try LineReader(model: m)
            var loss = 0.0
            for (i, strip) in strips.enumerated() {
                let reading = try reader.read(strip)
                let right = reading.bestText == validation.labels[i] && !reading.digits.contains { $0.isNotADigit }
                let c = Double(min(max(reading.confidence, 1e-6), 1 - 1e-6))
                loss -= right ? log(c) : log(1 - c)
            }
            return loss
        }
        for t in stride(from: Float(0.25), through: 3.0, by: 0.25) {
            let loss = try logLoss(t)
            if loss < best.1 { best = (t, loss) }
        }
        let coarse = best.0
        for k in -4...4 where k != 0 {
            let t = ((coarse + 0.05 * Float(k)) * 100).rounded() / 100
            guard t >= 0.1 else { continue }
            let loss = try logLoss(t)
            if loss < best.1 { best = (t, loss) }
        }
        temperature = best.0
        m.temperature = temperature
        let reader = try LineReader(model: m)
        var tally = Tally()
        for (i, strip) in strips.enumerated() { tally.add(try reader.read(strip), label: validation.labels[i]) }
        record = tally.record(prefix: "validation")
    }

    /// Readings against labels, at the 0.9 filter: numbers read exactly (answered and right),
    /// answered and right among answered; how many labels that are no number were answered.
    struct Tally {
        var numbers = 0, exact = 0, answered = 0, right = 0, others = 0, othersAnswered = 0
        var rightShare: Double { Double(right) / Double(max(answered, 1)) }
        /// `rightShare` less `errors` of its standard errors (√(p(1 − p)/answered)).
        func rightShare(less errors: Double) -> Double {
            let p = rightShare
            return p - errors * (p * (1 - p) / Double(max(answered, 1))).squareRoot()
        }

        mutating func add(_ reading: NumberReading, label: String) {
            let text = reading.text.replacingOccurrences(of: " ", with: "")
            if label.allSatisfy({ $0.isASCII && $0.isNumber }) {
                numbers += 1
                if reading.isAnswered { answered += 1; if text == label { right += 1; exact += 1 } }
            } else {
                others += 1
                if reading.isAnswered { othersAnswered += 1 }
            }
        }

        func record(prefix: String) -> [String: String] {
            func pct(_ a: Int, _ b: Int) -> String { String(format: "%.4f", Double(a) / Double(max(b, 1))) }
            return ["\(prefix)_numbers": String(numbers), "\(prefix)_exact": pct(exact, numbers),
                    "\(prefix)_answered": pct(answered, numbers), "\(prefix)_right_among_answered": pct(right, answered),
                    "\(prefix)_non_numbers": String(others), "\(prefix)_non_numbers_answered": String(othersAnswered)]
        }
    }
}

extension LineCalibration {
    /// The temperature at which the paper reader answers the most while keeping its promise on
    /// real images: the numbers it answers among the labelled images of `folder` — read whole, as
    /// `DigitRecognizer.read(imageAt:)` reads them, lines, marks and frame included — must be
    /// right at least `target` of the time with `margin` standard errors to spare (the share is
    /// measured on the very images the temperature is chosen on, so the share at the floor is an
    /// optimistic figure for other paper: at 99% over 2,000 answers one standard error is 0.22
    /// points). From `start` (the log-loss choice) it steps by 0.05:
    /// down while the promise still holds (a lower temperature answers more; at least 0.1), or,
    /// where it does not hold at `start`, up until it does (at most 3). The strips alone are not
    /// enough: the whole reader answers a few numbers the strips do not show (a further line,
    /// another band). Also returns that folder's figures at the temperature chosen.
    public static func honestTemperature(model: ModelFile, folder: String, start: Float, target: Double = 0.99,
                                         margin: Double = 1, digitWeights: String? = nil, progress: (String) -> Void = { _ in }) throws
        -> (temperature: Float, record: [String: String]) {
        guard margin >= 0, margin.isFinite, target > 0, target.isFinite else {
            throw DigitError(.usage, "the calibration's target share (\(target)) must be above 0 and its margin (\(margin)) at least 0")
        }
        let entries = try Inputs.labelEntries(folder)
        let recognizer = try DigitRecognizer(weightsPath: digitWeights)
        let images = try entries.map { e -> DecodedImage in
            let path = (folder as NSString).appendingPathComponent(e.file)
            do { return try ImageDecoder.read(path: path, maxSide: ImageOptions().workingSide) } catch let error as DigitError { throw error.inFile(path) }
        }
        func tally(at t: Float) throws -> Tally {
            var m = model
            m.temperature = t
            recognizer.lineReader = try LineReader(model: m)
            var tally = Tally()
            for (e, image) in zip(entries, images) { tally.add(try recognizer.read(image: image), label: e.label) }
            progress(String(format: "temperature %.2f: %d of %d numbers answered, %.2f%% right", t, tally.answered, tally.numbers,
                            100 * tally.rightShare))
            return tally
        }
        func step(_ t: Float, _ by: Float) -> Float { ((t + by) * 100).rounded() / 100 }
        var t = start, kept = try tally(at: t)
        func keeps(_ tally: Tally) -> Bool { tally.rightShare(less: margin) >= target }
        if keeps(kept) {
            while step(t, -0.05) >= 0.1 {
                let lower = step(t, -0.05), there = try tally(at: lower)
                guard keeps(there) else { break }
                (t, kept) = (lower, there)
            }
        } else {
            while !keeps(kept) && t < 3 {
                t = step(t, 0.05)
                kept = try tally(at: t)
            }
        }
        return (t, kept.record(prefix: "images").merging(["temperature_log_loss": String(start)]) { a, _ in a })
    }
}
