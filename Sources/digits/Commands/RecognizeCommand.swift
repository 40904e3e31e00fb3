import DigitApp
import DigitKit
import Foundation

struct RecognizeCommand: CLICommand {
    static let name = "recognize"
    static let summary = "read the digits or numbers in stroke files and images (answers only when ≥ 90% sure)"
    static let help = """
    Usage: digits recognize FILE... | DIR | - [options]

    Reads each drawing or image as a number (one a line, top to bottom, when written in several:
    "12 34"): its digits left to right, each with its confidence,
    `?` for a digit below the threshold, and for an ink that is not a digit at all (a letter, a
    scribble) "not a digit". Inputs: stroke JSON (.json), JSON Lines (.jsonl), UNIPEN
    (.tra/.tes/.unipen, or any file starting with a .KEYWORD; its .INCLUDE files are followed as
    import-unipen follows them, $UNIPEN_INCLUDE_PATH too), images (.png, .jpg/.jpeg,
    .pgm/.ppm/.pnm: a photo or scan of lines of digits, read top to bottom with a space between
    lines, or a small crop of one digit), a folder (every such file in it, sorted), or - (stdin).

      2026  99.1%                       the number, and the probability that every digit is right
      20?6  digit 3: 2 61.0%, 7 30.2%   a doubtful digit and its candidates
      ?  not a digit (97.0%)
      8?  digit 2: cut by the image's edge: 4 50.0%   the photo's frame runs through a digit

    Options:
      --single            read each drawing as one digit (the whole ink is one digit)
      --max-digits N      read at most N digits
      --json              one JSON object per drawing or image, in input order:
                          {"source":"a.json","index":0,"text":"2026","digit":null,"confidence":0.99,
                           "top":[],"digits":[{"digit":2,"confidence":0.998,"top":[[2,0.998],…],
                           "box":[x0,y0,x1,y1],"strokes":[0,1]},…],"label":"2026"}
                          box: the digit's ink in drawing units or image pixels; strokes: its
                          strokes (none for images); "not_a_digit" when the network has that
                          output and gives it weight; "cut_by_frame":true for a digit the
                          image's frame cuts. For a one-digit reading "digit",
                          "confidence" and "top" are that digit's (null below the threshold);
                          with --single a drawing's object is {"source","index","digit",
                          "confidence","top","label"}. An empty drawing adds "empty":true.
      --overlay PATH      images: write a PNG of the image with a box around each digit's
                          ink, under a band that holds the reading and each digit's answer
                          above its box (nothing covers the image; one under 300 pixels on
                          its long side is scaled up by a whole factor): PATH for one image,
                          or PATH/NAME.png in a folder PATH for several
      --threshold T       confidence needed to answer (default 0.9)
      --weights FILE      weight file (default: $DIGITS_WEIGHTS, else the shipped weights)
      --profile PROFILE   a personal profile for these weights (digits adapt): read with
                          the writer's own last layer
    \(secondOpinionHelp)
    \(rasterOptionsHelp)
    \(paperOptionsHelp)

    A drawing or file that cannot be read is reported on stderr, one line each (file, line, JSON
    path or byte), and the others are still answered; the exit code is then 1 (3 when a file, or
    a UNIPEN .INCLUDE that held its ink, could not be opened at all). An empty drawing is an answer ("? empty drawing"), as is an image
    without ink ("? no ink found"), not an error; a folder with nothing to read in it is an error.

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
        let profilePath = try args.option("--profile")
        let opinionPath = try args.option("--second-opinion")
        let overlay = try args.option("--overlay")
        let overrides = try RasterOverrides(&args)
        let paper = try PaperOverrides(&args)
        let inputs = try args.positionals()
        guard !inputs.isEmpty else { throw DigitError(.usage, "no input: give stroke files, a directory, or - for stdin") }
        let model = try loadModel(weightsPath, profile: profilePath, checksNetwork: false)   // checked as the recognizer builds it
        let options = overrides.applied(to: model.rasterOptions)
        let recognizer = try DigitRecognizer(model: model, threshold: threshold, raster: options)
        recognizer.secondOpinion = try SecondOpinion.load(choice: opinionPath, weights: weightsPath)
        // Every problem is reported and the rest still answered; the exit code is the highest of
        // the problems' codes (1 for a bad drawing or file, 3 for one that could not be read).
        var status = ExitCode.ok
        var out = ""
        var page = ImageOptions()
        page.reader.maxDigits = single ? 1 : reading.maxDigits
        try paper.apply(to: recognizer, page: &page)
        func emit(_ source: String, _ index: Int, _ label: String?, _ answer: String) {
            out += json ? answer + "\n" : "\(source)#\(index): \(answer)" + (label.map { "  (label \($0))" } ?? "") + "\n"
            if out.utf8.count > 1 << 16 { print(out, terminator: ""); out = "" }
        }
        func fail(_ error: DigitError) {
            printError("digits recognize: \(error)")
            status = max(status, ExitCode.of(error))
        }
        var loaded: [Inputs.Item] = []
        for input in inputs {
            do { loaded += try Inputs.load(input) } catch let e as DigitError {
                fail(e)
            }
        }
        let imageCount = loaded.filter { if case .image = $0 { return true }; return false }.count
        if let overlay, imageCount == 0, status == ExitCode.ok {
            throw DigitError(.usage, "--overlay \(overlay): the inputs hold no image to draw on")
        }
        for item in loaded {
            switch item {
            case let .image(path, label):
                do {
                    let r = try recognizer.read(imageAt: path, options: page)
                    emit(path, 0, label, json ? r.jsonLine(source: path, index: 0, label: label)
                                                : r.isEmpty ? "? no ink found" : r.summary)
                    if let overlay {
                        let target = imageCount == 1 ? overlay
                            : (overlay as NSString).appendingPathComponent(((path as NSString).lastPathComponent as NSString).deletingPathExtension + ".png")
                        if imageCount > 1 { try FileManager.default.createDirectory(atPath: overlay, withIntermediateDirectories: true) }
                        let picture = Overlay.draw(r, on: try ImageDecoder.read(path: path, maxSide: 1600))
                        try FileIO.writeAtomically(try Overlay.png(picture), to: target)
                    }
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
        print(out, terminator: "")
        // The shipped second opinion is read when first asked: a file that then failed to load
        // left those drawings unsure ("?"), and is an error of the run.
        if let failure = recognizer.secondOpinion?.failure { fail(failure) }
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
