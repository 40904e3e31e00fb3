import DigitApp
import DigitKit
import Foundation

struct EvalCommand: CLICommand {
    static let name = "eval"
    static let summary = "measure accuracy on MNIST or labelled drawings"
    static let help = """
    Usage: digits eval [options]                       the MNIST test set (Fixtures/mnist)
           digits eval --data DIR [--split train|test]
           digits eval --images FILE --labels FILE     any IDX pair (raw or .gz)
           digits eval FILE|DIR                        labelled drawings: .jsonl, a folder of
                                                       .json, or a UNIPEN file (.tra; a data file
                                                       of a distribution with its .INCLUDEs)
           digits eval DIR                             labelled images: a folder of images (.png,
                                                       .jpg, .pgm…, any case) with labels.csv or
                                                       labels.tsv

    Labels of images: labels.csv, "filename,label" lines (the header optional; fields may be
    quoted, "12,5" or \"\"\"\" for a lone quote; CRLF and a byte order mark are fine), or labels.tsv,
    FILE<TAB>LABEL lines. A label that is not a number ("Sn", "-", "19a") marks an item that
    must not be answered: it counts as refused when it is not, as wrong when it is. A bad line
    stops the command with the file and line.

    Reports accuracy, per-class precision and recall, the confusion matrix, the confidence
    filter's coverage (share answered) and selective accuracy (share of answers that are right),
    and the expected calibration error. The softmax temperature comes from the weight file (fitted
    on the validation split when it was trained). For numbers: exact match, digit accuracy,
    answered, right among answered, split and merged digits, and why the wrong readings are
    wrong (the right digits among the candidates but scored lower, or not among them), the same
    figures by the number's length (1, 2, 3… digits), and the worst readings with their files:
    up to 10 answered but wrong (a number answered with other digits, or an item that is not a
    number answered), most confident first, then up to 10 not answered whose best reading is
    wrong. "Held back": not answered only because of the "not a digit" output's share (the best
    digit holds at least the threshold of the ten digits' probabilities): what that output costs.

    Options:
      --weights FILE        weight file (default: $DIGITS_WEIGHTS, else the shipped weights)
      --profile PROFILE     a personal profile for these weights (digits adapt): read with
                            the writer's own last layer
      --threshold T         confidence needed to answer (default 0.9)
      --json                print one JSON object instead of the table (numbers: with
                            "by_length" and "worst" arrays)
      --predictions FILE    write a TSV: index, label, predicted, confidence (numbers: source,
                            label, best reading, text, confidence; written atomically)
      --threads N           worker threads (default: all cores)
      --temperature T       override the weight file's softmax temperature (for analysis)

    For drawings and images:
      --writers LIST        only these writers (UNIPEN writer numbers or "writer" fields), e.g. 1,4,7
      --exclude-writers L   all writers but these
      --non-digits FILE     add drawings that are not digits (labelled "A", "scribble", …; see
                            `digits make-non-digits`): the report then gives the share refused
                            beside the figures on digits
      --adapt K             the personal-profile protocol: for each writer, adapt (as
                            `digits adapt`) on their first K drawings of each digit and read
                            the rest as single digits with the base weights and with the
                            profile; prints errors, answered and right among answered for
                            each writer and in total (with --non-digits: refused by each)
      --single              read each drawing as one digit (default: as a number, as `recognize`)
      --numbers             use the number report even when every label is one digit
      --max-digits N        read at most N digits a drawing
      --ignore-not-a-digit  score number candidates on the ten digits alone (for analysis: what
                            the network's "not a digit" output does for reading)
      --not-a-digit-cost C  what reading a candidate as "not a digit" costs, in log-probability,
                            or "off" (for analysis; default 4 for drawings, off for images)
      --seams-only          images: the cutting reader (--cuts), cutting touching digits along
                            seams only, never into their
                            strokes (for analysis: what following strokes does)
    \(secondOpinionHelp)
    \(rasterOptionsHelp)
    \(paperOptionsHelp)

    Drawings that cannot be read are reported on stderr, one line each, and left out of the
    report; the exit code is then 1.

    \(CLI.exitCodesHelp)
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        let weightsPath = try args.option("--weights")
        let profilePath = try args.option("--profile")
        let opinionPath = try args.option("--second-opinion")
        let threshold = try args.float("--threshold", default: 0.9, range: 0...1)
        let json = args.flag("--json")
        let predictionsPath = try args.option("--predictions")
        let threads = try args.int("--threads", default: Parallel.processorCount, range: 1...256)
        let dataDir = try args.option("--data")
        let split = try args.option("--split") ?? "test"
        let imagesPath = try args.option("--images"), labelsPath = try args.option("--labels")
        let keep = try Writers.selection(&args)
        let temperature = try args.float("--temperature", range: 0.01...100)
        let numbersFlag = args.flag("--numbers")
        let single = args.flag("--single")
        let nonDigitsPath = try args.option("--non-digits")
        let adaptK = try args.option("--adapt").map { text -> Int in
            guard let k = Int(text), (1...1000).contains(k) else { throw DigitError(.usage, "--adapt must be a whole number in 1...1000, got '\(text)'") }
            return k
        }
        var reading = NumberReaderOptions()
        if let text = try args.option("--max-digits") {
            guard let n = Int(text), (1...1000).contains(n) else { throw DigitError(.usage, "--max-digits must be a whole number in 1...1000, got '\(text)'") }
            reading.maxDigits = n
        }
        if single { reading.maxDigits = 1 }
        if args.flag("--ignore-not-a-digit") { reading.usesNotADigit = false }
        var page = ImageOptions()
        if let text = try args.option("--not-a-digit-cost") {
            let cost: Float?
            if text == "off" { cost = nil } else {
                guard let c = Float(text), c.isFinite, c >= 0 else {
                    throw DigitError(.usage, "--not-a-digit-cost takes a number ≥ 0 or off, got '\(text)'")
                }
                cost = c
            }
            reading.notADigitCost = cost
            page.reader.notADigitCost = cost
        }
        if args.flag("--seams-only") {
            // Seams and strokes are the cutting reader's: --seams-only reads with it.
            page.followsStrokes = false
            page.readsLinesWhole = false
        }
        page.reader.maxDigits = reading.maxDigits
        page.reader.usesNotADigit = reading.usesNotADigit
        let overrides = try RasterOverrides(&args)
        let paper = try PaperOverrides(&args)
        let rest = try args.positionals()
        guard let splitValue = MNISTSet.Split(rawValue: split) else {
            throw DigitError(.usage, "--split must be train or test, got '\(split)'")
        }
        guard (imagesPath == nil) == (labelsPath == nil) else {
            throw DigitError(.usage, "--images and --labels go together")
        }
        var model = try loadModel(weightsPath, profile: profilePath)
        model.temperature = temperature ?? model.temperature
        let raster = overrides.applied(to: model.rasterOptions)
        let recognizer = try DigitRecognizer(model: model, threshold: threshold, raster: raster)
        recognizer.secondOpinion = try SecondOpinion.load(choice: opinionPath, weights: weightsPath, now: true)

        let labels: [Int]
        let probabilities: [Float]
        var unreadable = false
        if !rest.isEmpty {
            guard rest.count == 1 else { throw DigitError(.usage, "expected one input file or folder, got \(rest.count)") }
            try paper.apply(to: recognizer, page: &page)
            let items = try Inputs.load(rest[0])
            let images = items.compactMap { item -> (String, String?)? in
                if case let .image(path, label) = item { return (path, label) }
                return nil
            }
            if !images.isEmpty {
                return try evaluateImages(images, recognizer: recognizer, numbers: numbersFlag, page: page,
                                          json: json, predictions: predictionsPath, source: rest[0], temperature: model.temperature)
            }
            var records = items.compactMap { item -> DrawingRecord? in
                if case let .drawing(record) = item, keep(record.writer) { return record }
                return nil
            }
            if let adaptK {
                let nonDigits = try nonDigitsPath.map { try DrawingLoader.load($0).compactMap { try? $0.result.get() } } ?? []
                return try evaluateAdaptation(records, k: adaptK, model: model, nonDigits: nonDigits, threshold: threshold,
                                              secondOpinion: SecondOpinion.path(choice: opinionPath, weights: weightsPath), json: json, threads: threads)
            }
            if let nonDigitsPath {
                let extra = try DrawingLoader.load(nonDigitsPath)
                if let numbered = extra.first(where: { (try? $0.result.get().labelDigits) != nil }) {
                    throw DigitError(.usage, file: nonDigitsPath, at: numbered.line.map { "line \($0)" } ?? "drawing \(numbered.index + 1)",
                                     "labelled as a number: --non-digits takes drawings that are not digits")
                }
                records += extra
            }
            // Numbers (labels of several digits, or labels that are not numbers) go through the number reader.
            let drawingLabels = records.compactMap { try? $0.result.get().label }
            if numbersFlag || single || drawingLabels.contains(where: { $0.count != 1 || !("0"..."9").contains($0) }) {
                var rows: [NumberPrediction] = []
                let report = NumberEvaluationReport.evaluate(records, recognizer: recognizer, options: reading, each: { record, r in
                    rows.append(NumberPrediction(source: "\(record.source)#\(record.index)", label: (try? record.result.get())?.label, reading: r))
                })
                if let predictionsPath { try writeNumberPredictions(predictionsPath, rows) }
                for e in records.compactMap({ record -> DigitError? in if case let .failure(e) = record.result { return e }; return nil }) {
                    printError("digits eval: \(e)")
                }
                for e in report.errors { printError("digits eval: \(e)") }
                guard report.numbers + report.nonNumbers > 0 else { throw DigitError(.format, file: rest[0], "no labelled drawings to evaluate") }
                print(json ? report.json : report.table, terminator: json ? "\n" : "")
                return records.contains { if case .failure = $0.result { return true }; return false } ? ExitCode.badInput : ExitCode.ok
            }
            let result = DrawingEvaluation.evaluate(records, recognizer: recognizer)
            for e in result.errors { printError("digits eval: \(e)") }
            unreadable = !result.errors.isEmpty
            if result.unlabelled > 0 { printError("digits eval: \(result.unlabelled) drawings without a digit label were skipped") }
            guard !result.labels.isEmpty else { throw DigitError(.format, file: rest[0], "no labelled drawings to evaluate") }
            labels = result.labels
            probabilities = result.probabilities
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
            probabilities = recognizer.digitProbabilities(pixels: BatchInference.pixels(set), threads: threads)
        }
        let report = EvaluationReport(probabilities: probabilities, labels: labels, threshold: threshold,
                                      temperature: model.temperature)
        if let predictionsPath { try writePredictions(predictionsPath, probabilities: probabilities, labels: labels) }
        print(json ? report.json : report.table, terminator: json ? "\n" : "")
        return unreadable ? ExitCode.badInput : ExitCode.ok
    }

    /// Images with labels (`labels.csv` or `labels.tsv`): single digits (every label one digit) give the
    /// accuracy report of drawings, each image read as one digit; numbers the number report.
    static func evaluateImages(_ images: [(String, String?)], recognizer: DigitRecognizer, numbers: Bool,
                               page: ImageOptions, json: Bool, predictions: String?, source: String,
                               temperature: Float) throws -> Int32 {
        let labelled = images.compactMap { image in image.1.map { (path: image.0, label: $0) } }
        guard !labelled.isEmpty else {
            throw DigitError(.format, file: source, "no labelled images: put a labels.csv (filename,label lines) or a labels.tsv (FILE<TAB>LABEL lines) beside them")
        }
        if labelled.count < images.count {
            let n = images.count - labelled.count
            printError("digits eval: \(n) image\(n == 1 ? " without a label was" : "s without a label were") left out")
        }
        var page = page
        var status = ExitCode.ok
        let singles = !numbers && labelled.allSatisfy { $0.label.count == 1 && ("0"..."9").contains($0.label) }
        if singles {
            page.reader.maxDigits = 1
            var probabilities: [Float] = [], labels: [Int] = []
            for (path, label) in labelled {
                do {
                    let r = try recognizer.read(imageAt: path, options: page)
                    probabilities += r.digits.first?.probabilities ?? Array(repeating: 0.1, count: 10)
                    labels.append(Int(label)!)   // one of "0"…"9" (singles)
                } catch let e as DigitError {
                    printError("digits eval: \(e)")
                    status = ExitCode.badInput
                }
            }
            let report = EvaluationReport(probabilities: probabilities, labels: labels, threshold: recognizer.threshold,
                                          temperature: temperature)
            if let predictions { try writePredictions(predictions, probabilities: probabilities, labels: labels) }
            print(json ? report.json : report.table, terminator: json ? "\n" : "")
            return status
        }
        var rows: [NumberPrediction] = []
        let report = NumberEvaluationReport.evaluate(images: labelled, recognizer: recognizer, options: page,
                                                     each: { image, reading in rows.append(NumberPrediction(source: image.path, label: image.label, reading: reading)) })
        for e in report.errors { printError("digits eval: \(e)") }
        if !report.errors.isEmpty { status = ExitCode.badInput }
        if let predictions { try writeNumberPredictions(predictions, rows) }
        print(json ? report.json : report.table, terminator: json ? "\n" : "")
        return status
    }

    struct NumberPrediction {
        var source: String
        var label: String?
        var reading: NumberReading
    }

    /// The readings of a number report as a TSV: source, label, best reading, text (with `?`),
    /// confidence.
    static func writeNumberPredictions(_ path: String, _ rows: [NumberPrediction]) throws {
        var text = "source\tlabel\tbest\ttext\tconfidence\n"
        for row in rows {
            text += "\(row.source)\t\(row.label ?? "")\t\(row.reading.bestText)\t\(row.reading.text)\t\(String(format: "%.6f", row.reading.confidence))\n"
        }
        try FileIO.writeAtomically(text, to: path)
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

    /// `--adapt K`: the personal-profile protocol (`AdaptationEvaluation`), one line per writer.
    static func evaluateAdaptation(_ records: [DrawingRecord], k: Int, model: ModelFile, nonDigits: [Drawing], threshold: Float,
                                   secondOpinion: String?, json: Bool, threads: Int) throws -> Int32 {
        var protocolRun = AdaptationEvaluation(k: k)
        protocolRun.threshold = threshold
        protocolRun.secondOpinion = secondOpinion
        let progress = ProgressLine()
        let rows = try protocolRun.run(model: model, records: records, nonDigits: nonDigits, threads: threads) { done, all, row in
            progress.update("adapting to writer \(row.writer): \(done)/\(all)")
        }
        progress.finish("")
        guard !rows.isEmpty else { throw DigitError(.usage, "no writer has labelled drawings left to test after the first \(k) of each digit") }
        func pct(_ a: Int, _ b: Int) -> String { String(format: "%.2f", 100 * Double(a) / Double(max(b, 1))) }
        var base = WriterAdaptation.Figures(), adapted = WriterAdaptation.Figures()
        for r in rows { base.add(r.base); adapted.add(r.adapted) }
        let losses = rows.map { $0.adapted.errors - $0.base.errors }
        let worst = rows[losses.indices.max { losses[$0] < losses[$1] || (losses[$0] == losses[$1] && rows[$0].adapted.answered * rows[$1].adapted.count > rows[$1].adapted.answered * rows[$0].adapted.count) }!]
        let refusedShare = rows.map { Double($0.refusedAdapted) / Double(max($0.nonDigits, 1)) }
        if json {
            func f(_ x: WriterAdaptation.Figures) -> JSONValue {
                .object([JSONMember("digits", .number(Double(x.count))), JSONMember("errors", .number(Double(x.errors))), JSONMember("answered", .number(Double(x.answered))),
                         JSONMember("wrong_answered", .number(Double(x.wrongAnswered)))])
            }
            let writers: [JSONValue] = rows.map { r in
                .object([JSONMember("writer", .number(Double(r.writer))), JSONMember("adapted_on", .number(Double(r.adaptedOn))), JSONMember("blend", .number(Double(r.blend))),
                         JSONMember("pull", .number(Double(r.pull))), JSONMember("base", f(r.base)), JSONMember("adapted", f(r.adapted)), JSONMember("non_digits", .number(Double(r.nonDigits))),
                         JSONMember("refused_base", .number(Double(r.refusedBase))), JSONMember("refused_adapted", .number(Double(r.refusedAdapted))),
                         JSONMember("seconds", .number(r.seconds))])
            }
            print(JSONValue.object([JSONMember("k", .number(Double(k))), JSONMember("base", f(base)), JSONMember("adapted", f(adapted)), JSONMember("writers", .array(writers))]).serialized())
            return ExitCode.ok
        }
        print("K = \(k): each writer's first \(k) drawings of each digit adapted on, the rest read as single digits")
        print("writer  adapted  tested   errors base → profile   answered % base → profile   right among answered % base → profile  blend  pull   time")
        for r in rows {
            print(String(format: "%6d  %7d  %6d   %6d → %-13d %8@ → %-15@ %8@ → %-27@ %5.2f  %4.2f  %4.1fs", r.writer, r.adaptedOn, r.base.count,
                         r.base.errors, r.adapted.errors, pct(r.base.answered, r.base.count), pct(r.adapted.answered, r.adapted.count),
                         pct(r.base.rightAnswered, r.base.answered), pct(r.adapted.rightAnswered, r.adapted.answered), r.blend, r.pull, r.seconds))
        }
        print(String(format: "total   %7d  %6d   %6d → %-13d %8@ → %-15@ %8@ → %@", rows.reduce(0) { $0 + $1.adaptedOn }, base.count,
                     base.errors, adapted.errors, pct(base.answered, base.count), pct(adapted.answered, adapted.count),
                     pct(base.rightAnswered, base.answered), pct(adapted.rightAnswered, adapted.answered)))
        let fewer = base.errors == 0 ? "no errors to remove"
            : adapted.errors > base.errors ? "\(pct(adapted.errors - base.errors, base.errors))% more top-1 errors"
            : "\(pct(base.errors - adapted.errors, base.errors))% fewer top-1 errors"
        print("\(rows.count) writers: \(fewer); mean answered per writer \(String(format: "%.2f", rows.reduce(0.0) { $0 + 100 * Double($1.adapted.answered) / Double(max($1.adapted.count, 1)) } / Double(rows.count)))%")
        print("worst writer: \(worst.writer), \(worst.adapted.errors - worst.base.errors >= 0 ? "+" : "")\(worst.adapted.errors - worst.base.errors) errors with the profile, answered \(pct(worst.adapted.answered, worst.adapted.count))%")
        if !nonDigits.isEmpty {
            print("not digits refused: base \(pct(rows[0].refusedBase, rows[0].nonDigits))%, with each writer's profile \(String(format: "%.2f", 100 * refusedShare.min()!))% to \(String(format: "%.2f", 100 * refusedShare.max()!))% (of \(nonDigits.count))")
        }
        return ExitCode.ok
    }
}
