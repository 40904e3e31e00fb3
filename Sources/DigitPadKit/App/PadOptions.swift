import DigitApp
import DigitKit

/// `digitpad`'s command line.
public struct PadOptions: Equatable, Sendable {
    public var weights: String?
    public var threshold: Float = 0.9
    public var open: String?
    /// Where S saves and where O looks for files; nil = the working directory.
    public var saveDirectory: String?
    public var replay: String?
    /// Points per second when a replayed drawing has no times; 0 = as fast as possible.
    public var replayRate: Double = 240
    public var printRecognitions = false
    public var screenshot: String?
    public var exitWhenDone = false
    public var frameStats = false
    public var width = 1040
    public var height = 620
    public var help = false

    public init() {}

    public static let help = """
    digitpad — draw a digit, see what the network answers

    Usage: digitpad [options]

    Draw with the mouse, a pen or a finger on the black square. After every stroke (and while
    you draw, when recognition is fast enough) the panel shows the answer, `?` when the network
    is less sure than the threshold, the ten probabilities and the 28×28 image the network saw.

    Keys:   C or right click   clear              Ctrl+Z or Backspace   undo the last stroke
            0-9                set the label      S                     save (stroke JSON)
            O                  open the next file Esc                   quit
    A file dropped on the window is opened.

    Options:
      --weights FILE        network weights (default: $DIGITS_WEIGHTS, else
                            Weights/mnist-cnn.safetensors near the working directory or the program)
      --threshold T         confidence needed to answer, 0...1 (default 0.9)
      --open FILE           show the first drawing of FILE (.json, .jsonl, UNIPEN); O steps through
                            its drawings, then through the files of the save folder
      --save-dir DIR        where S saves drawing-YYYYmmdd-HHMMSS.json (default: working directory)
      --replay FILE         animate the first drawing of FILE as if drawn by hand: its strokes
                            go through the mouse input path, scaled into the canvas, at their
                            recorded speed (to watch how a digit was written, or for a picture)
      --replay-rate HZ      points per second for drawings without times (default 240; 0 = at once)
      --print               print each recognition made at the end of a stroke as one JSON line
                            (the schema of `digits recognize --json`, source "window")
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
        if let shot = o.screenshot, !shot.lowercased().hasSuffix(".png") {
            throw DigitError(.usage, "--screenshot must name a .png file, got '\(shot)'")
        }
        return o
    }
}
