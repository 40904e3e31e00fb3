import DigitApp
import DigitKit
import Foundation

struct RecognizeCommand: CLICommand {
    static let name = "recognize"
    static let summary = "recognize drawn digits from stroke files (answers only when ≥ 90% sure)"
    static let help = """
    Usage: digits recognize FILE... | DIR | - [options]

    For each drawing: the digit and its confidence, or ? with the best candidates when the top
    probability is below the threshold. Inputs are stroke JSON (.json), JSON Lines (.jsonl),
    UNIPEN (.tra/.tes/.unipen), a directory (all .json/.jsonl in it, sorted), or - (stdin).

    Options:
      --json              one JSON object per drawing, in input order:
                          {"source":"a.jsonl","index":0,"digit":7,"confidence":0.993,
                           "top":[[7,0.993],[1,0.004],[9,0.002]],"label":"7"}
                          digit is null below the threshold; "label" is copied when present;
                          an empty drawing has "digit":null,"confidence":0 and "empty":true
      --threshold T       confidence needed to answer (default 0.9)
      --weights FILE      weight file (default: $DIGITS_WEIGHTS or Weights/mnist-cnn.safetensors)
    \(rasterOptionsHelp)

    A drawing or file that cannot be read is reported on stderr, one line each (file, line, JSON
    path or byte), and the others are still answered; the exit code is then 1 (3 when a file could
    not be opened at all). An empty drawing is an answer ("? empty drawing"), not an error.

    \(CLI.exitCodesHelp)
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        let json = args.flag("--json")
        let single = args.flag("--single")
        var reading = NumberReaderOptions()
        reading.maxDigits = try args.option("--max-digits").map { text in
            guard let n = Int(text), (1...1000).contains(n) else {
                throw DigitError(.usage, "--max-digits must be a whole number in 1...1000, got '\(text)'")
            }
            return n
        }
        let threshold = try args.float("--threshold", default: 0.9, range: 0...1)
        let weightsPath = try args.option("--weights")
        let overrides = try RasterOverrides(&args)
        let inputs = try args.positionals()
        guard !inputs.isEmpty else { throw DigitError(.usage, "no input: give stroke files, a directory, or - for stdin") }
        let model = try loadModel(weightsPath)
        let options = overrides.applied(to: model.rasterOptions)
        let recognizer = try DigitRecognizer(model: model, threshold: threshold, raster: options)
        // Every problem is reported and the rest still answered; the exit code is the highest of
        // the problems' codes (1 for a bad drawing or file, 3 for one that could not be read).
        var status = ExitCode.ok
        var out = ""
        var page = PageOptions()
        page.reader = reading
        if single { page.reader.maxDigits = 1 }
        func emit(_ source: String, _ index: Int, _ label: String?, _ answer: String) {
            out += json ? answer + "\n" : "\(source)#\(index): \(answer)" + (label.map { "  (label \($0))" } ?? "") + "\n"
            if out.utf8.count > 1 << 16 { print(out, terminator: ""); out = "" }
        }
        func fail(_ error: DigitError) {
            printError("digits recognize: \(error)")
            status = max(status, ExitCode.of(error))
        }
        for input in inputs {
            let items: [Inputs.Item]
            do { items = try Inputs.load(input) } catch let e as DigitError {
                fail(e)
                continue
            }
            for item in items {
                switch item {
                case let .image(path, label):
                    do {
                        let r = try recognizer.read(imageAt: path, options: page)
                        emit(path, 0, label, json ? r.jsonLine(source: path, index: 0, label: label) : r.summary)
                    } catch let e as DigitError {
                        fail(e.inFile(path))
                    }
                case let .drawing(record):
                    switch record.result {
                    case let .failure(error):
                        fail(error)
                    case let .success(drawing):
                        if single {
                            let r = recognizer.recognize(drawing)
                            emit(record.source, record.index, drawing.label,
                                 json ? r.jsonLine(source: record.source, index: record.index, label: drawing.label) : describe(r))
                            continue
                        }
                        do {
                            let r = try recognizer.read(drawing, options: reading)
                            emit(record.source, record.index, drawing.label,
                                 json ? r.jsonLine(source: record.source, index: record.index, label: drawing.label) : r.summary)
                        } catch let e as DigitError {
                            fail(DigitError(e.kind, file: record.source, at: "drawing \(record.index)", e.message))
                        }
                    }
                }
            }
        }
        print(out, terminator: "")
        return status
    }

    static func describe(_ r: Recognition) -> String {
        if r.isEmpty { return "? empty drawing" }
        let candidates = r.top.map { "\($0.digit) \(String(format: "%.1f%%", $0.probability * 100))" }.joined(separator: ", ")
        if let d = r.digit { return "\(d)  \(String(format: "%.1f%%", r.confidence * 100))" }
        if r.isNotADigit { return "?  not a digit (\(String(format: "%.1f%%", r.notADigit * 100)))" }
        return "?  not sure: \(candidates)"
    }
}
