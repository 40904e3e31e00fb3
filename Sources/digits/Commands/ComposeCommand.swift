import DigitApp
import DigitKit
import Foundation

/// `digits compose`: drawings of numbers made from single digits of one writer each.
struct ComposeCommand: CLICommand {
    static let name = "compose"
    static let summary = "make drawings of numbers from single-digit drawings (for training and tests)"
    static let help = """
    Usage: digits compose --strokes FILE --out OUT.jsonl [options]

    Writes drawings of numbers, one per line of stroke JSON Lines, each made from single-digit
    drawings of one writer, the way a person writes on a line: digits of about the same height
    left to right, gaps from a slight overlap to wide, the baseline and the size wandering a
    little, writing order kept and time stamps continued. The label is the number ("2026"), the
    writer is kept. The same inputs and seed give the same file.

    Options:
      --strokes FILE      labelled single digits: UNIPEN (pendigits), stroke JSON Lines or a folder
      --out FILE          the JSON Lines file to write (atomically)
      --count N           how many numbers (default 1000)
      --lengths A-B       digits per number, drawn uniformly (default 2-6)
      --writers LIST      only these writers, e.g. 3,6,9 or 1-10 (default: all)
      --exclude-writers L all writers but these
      --seed N            random seed (default 1)

    \(CLI.exitCodesHelp)
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        guard let strokes = try args.option("--strokes") else { throw DigitError(.usage, "missing --strokes FILE (see --help)") }
        guard let out = try args.option("--out") else { throw DigitError(.usage, "missing --out FILE (see --help)") }
        let count = try args.int("--count", default: 1000, range: 1...10_000_000)
        let lengths = try Self.range(try args.option("--lengths") ?? "2-6")
        let keep = try Writers.selection(&args)
        let seed = UInt64(try args.int("--seed", default: 1, range: 0...Int(Int32.max)))
        _ = try args.positionals().first.map { throw DigitError(.usage, "unexpected argument '\($0)'") }
        let records = try DrawingLoader.load(strokes)
        let byWriter = NumberComposer.byWriter(records, keep: keep)
        guard !byWriter.isEmpty else { throw DigitError(.format, file: strokes, "no labelled single digits from the chosen writers") }
        let numbers = NumberComposer().composeSet(byWriter, count: count, lengths: lengths, seed: seed)
        var text = ""
        for number in numbers { text += StrokeJSON.encode(number.drawing) + "\n" }
        try FileIO.writeAtomically(text, to: out)
        printError("wrote \(numbers.count) numbers of \(lengths.lowerBound)-\(lengths.upperBound) digits by \(byWriter.count) writers to \(out)")
        return ExitCode.ok
    }

    static func range(_ text: String, flag: String = "--lengths", most: Int = 64) throws -> ClosedRange<Int> {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        if parts.count == 1, let a = parts[0], (1...most).contains(a) { return a...a }
        guard parts.count == 2, let a = parts[0], let b = parts[1], 1 <= a, a <= b, b <= most else {
            throw DigitError(.usage, "\(flag) takes A-B with 1 ≤ A ≤ B ≤ \(most), got '\(text)'")
        }
        return a...b
    }
}
