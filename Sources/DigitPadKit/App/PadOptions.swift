import DigitApp
import DigitKit

/// `digitpad`'s command line.
public struct PadOptions: Equatable, Sendable {
    public var weights: String?
    /// A personal profile (`digits adapt`, or the window's Adapt) applied to the weights.
    public var profile: String?
    /// `--second-opinion`: the larger network consulted when unsure (`SecondOpinion.path(choice:weights:)`).
    public var secondOpinion: String?
    public var threshold: Float = 0.9
    public var open: String?
    /// Where S saves and where O looks for files; nil = the working directory.
    public var saveDirectory: String?
    public var replay: String?
    /// Points per second when a replayed drawing has no times; 0 = as fast as possible.
    public var replayRate: Double = 240
    public var printRecognitions = false
    /// One digit per drawing, as before numbers were read.
    public var single = false
    /// The most digits a reading may have (nil: no bound).
    public var maxDigits: Int?
    /// The label every save writes unless digits are typed.
    public var label: String?
    public var screenshot: String?
    public var exitWhenDone = false
    public var frameStats = false
    public var width = 1040
    public var height = 620
    public var help = false

    public init() {}

    public static let help = """
    digitpad — write a number, see what the network reads

    Usage: digitpad [options]

    Write with the mouse, a pen or a finger on the black square. After every stroke (and while
    you write, when reading is fast enough) the drawing is read as a number: a box around each
    digit with its answer above it, `?` in amber when the network is less sure than the
    threshold, a crossed circle when the ink is not a digit at all. The panel shows the number,
    and for the digit under the mouse (else the last) the 28×28 image the network saw and its
    probabilities.

    Keys:   C or right click   clear              Ctrl+Z or Backspace   undo the last stroke
            0-9                type the label     L                     clear the label
            S                  save (stroke JSON) O                     open the next file
            A or Adapt         learn your hand: a personal profile from the labelled drawings of
                               the save folder, written there as profile.safetensors and read
                               with at once (the answer card says "personal"; see --profile)
            Esc                quit
    A file dropped on the window is opened: a drawing, or an image (PNG, JPEG, PGM, PPM).

    Options:
      --weights FILE        network weights (default: $DIGITS_WEIGHTS, else the shipped weights
                            in the digits_DigitWeights.resources folder beside the program)
      --profile FILE        start with a personal profile (made by digits adapt, or by A)
                            applied to the weights; one made for other weights is refused
      --second-opinion F    the larger network consulted when the compact one is unsure
                            (default: the shipped one with the default weights, none with
                            --weights); none: the compact network alone
      --threshold T         confidence needed to answer, 0...1 (default 0.9)
      --open FILE           show the first drawing of FILE (.json, .jsonl, UNIPEN), or an image
                            (PNG, JPEG, PGM, PPM) read as a photo of a number; O steps through
                            its drawings, then through the files of the save folder
      --save-dir DIR        where S saves drawing-YYYYmmdd-HHMMSS.json and A writes
                            profile.safetensors (default: working directory)
      --label TEXT          the label every save writes (1-64 characters: "2026", "A",
                            "scribble"), unless digits are typed
      --single              read each drawing as one digit (the window before it read numbers)
      --max-digits N        read at most N digits (1...1000)
      --replay FILE         animate the first drawing of FILE as if drawn by hand: its strokes
                            go through the mouse input path, scaled into the canvas, at their
                            recorded speed (to watch how a digit was written, or for a picture)
      --replay-rate HZ      points per second for drawings without times (default 240; 0 = at once)
      --print               print each reading after a change (a stroke's end, undo, clear,
                            open) as one JSON line, the line `digits recognize --json` prints
                            (`--single`: that of `digits recognize --single --json`), source "window"
      --screenshot FILE.png once the window shows what --open and --replay asked for, and its
                            answer, save the picture
      --exit                quit once that is done (the replay drawn, its answers printed)
      --frame-stats         at exit, print the frame time (input batch → picture shown) on stderr
      --size WxH            initial window size in pixels (default 1040x620)
      --help                this text

    Exit codes: 0 success; 1 bad input file; 2 bad command line; 3 a file could not be read or
                written; 4 no window could be opened (no display, or SDL failed).
    """

    /// Parses the arguments after the program name. Errors are `.usage` DigitErrors with one-line messages.
    public static func parse(_ arguments: [String]) throws -> PadOptions {
        var args = Arguments(arguments)
        var o = PadOptions()
        o.help = args.flag("--help", "-h")
        o.weights = try args.option("--weights")
        o.profile = try args.option("--profile")
        o.secondOpinion = try args.option("--second-opinion")
        o.threshold = try args.float("--threshold", default: 0.9, range: 0...1)
        o.open = try args.option("--open")
        o.saveDirectory = try args.option("--save-dir")
        o.replay = try args.option("--replay")
        if let rate = try args.option("--replay-rate") {
            guard let v = Double(rate), v.isFinite, v >= 0, v <= 100_000 else {
                throw DigitError(.usage, "--replay-rate must be a number of points per second in 0...100000, got '\(rate)'")
            }
            o.replayRate = v
        }
        o.printRecognitions = args.flag("--print")
        o.single = args.flag("--single")
        if let text = try args.option("--max-digits") {
            guard let n = Int(text), (1...1000).contains(n) else {
                throw DigitError(.usage, "--max-digits must be a whole number in 1...1000, got '\(text)'")
            }
            o.maxDigits = n
        }
        if let label = try args.option("--label") {
            let control = label.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
            guard !label.isEmpty, label.count <= StrokeJSON.maxLabelCharacters, !control else {
                throw DigitError(.usage, "--label must be 1...\(StrokeJSON.maxLabelCharacters) characters without control characters, got "
                                 + (control ? "a control character" : "\(label.count) characters"))
            }
            o.label = label
        }
        o.screenshot = try args.option("--screenshot")
        o.exitWhenDone = args.flag("--exit")
        o.frameStats = args.flag("--frame-stats")
        if let size = try args.option("--size") {
            let parts = size.split(separator: "x", omittingEmptySubsequences: false)
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]),
                  (160...8192).contains(w), (120...8192).contains(h) else {
                throw DigitError(.usage, "--size must be WIDTHxHEIGHT with 160...8192 by 120...8192, got '\(size)'")
            }
            o.width = w
            o.height = h
        }
        let rest = try args.positionals()
        if let extra = rest.first {
            throw DigitError(.usage, "unexpected argument '\(extra)' (digitpad takes options only, see --help)")
        }
        if o.single && o.maxDigits != nil {
            throw DigitError(.usage, "--single reads one digit: it does not go with --max-digits")
        }
        if let shot = o.screenshot, !shot.lowercased().hasSuffix(".png") {
            throw DigitError(.usage, "--screenshot must name a .png file, got '\(shot)'")
        }
        return o
    }
}
