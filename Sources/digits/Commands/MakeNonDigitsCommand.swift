import DigitApp
import DigitKit
import Foundation

/// `digits make-non-digits`: letters, symbols and scribbles as drawings, for measuring refusals.
struct MakeNonDigitsCommand: CLICommand {
    static let name = "make-non-digits"
    static let summary = "make drawings that are not digits (letters of held-out fonts, scribbles) to measure refusals"
    static let help = """
    Usage: digits make-non-digits --out OUT.jsonl [options]

    Writes drawings that are not digits, one per line of stroke JSON Lines, labelled with what
    they are ("A", "&", "spiral"), so that `digits eval OUT.jsonl` (or `--non-digits OUT.jsonl`
    beside a set of digits) reports how many are refused:

    - letters and symbols of stroke fonts (the Hershey fonts) that look like no digit, each drawn
      as a pen path, rotated, sheared and jittered as in training. By default only the fonts that
      training leaves out (\(GlyphSamples.heldOutFonts.sorted().joined(separator: ", "))), so the shapes are new to the
      shipped model.
    - with --scribbles N, dots, tangles, spirals, zigzags, dashes, crosses and crossings-out from
      the generator training uses (so not new in kind).

    Options:
      --out FILE          the JSON Lines file to write (atomically)
      --glyph-file FILE   the glyph file (default: Fixtures/hershey/glyphs.jsonl)
      --fonts LIST        fonts to take glyphs from, comma-separated (default: the held-out fonts)
      --repeats N         distorted copies of each glyph (default 4)
      --scribbles N       scribbles to add (default 0)
      --seed N            random seed (default 1)

    \(CLI.exitCodesHelp)
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        guard let out = try args.option("--out") else { throw DigitError(.usage, "missing --out FILE (see --help)") }
        let glyphPath = try args.option("--glyph-file")
        let fontList = try args.option("--fonts")
        let repeats = try args.int("--repeats", default: 4, range: 0...1000)
        let scribbles = try args.int("--scribbles", default: 0, range: 0...10_000_000)
        let seed = UInt64(try args.int("--seed", default: 1, range: 0...Int(Int32.max)))
        _ = try args.positionals().first.map { throw DigitError(.usage, "unexpected argument '\($0)'") }
        guard let path = glyphPath ?? Locations.projectFile("Fixtures/hershey/glyphs.jsonl") else {
            throw DigitError(.io, "the glyph file Fixtures/hershey/glyphs.jsonl was not found: pass --glyph-file FILE")
        }
        let glyphs = try GlyphSamples.load(path)
        let fonts = fontList.map { Set($0.split(separator: ",").map(String.init)) } ?? GlyphSamples.heldOutFonts
        let known = Set(glyphs.flatMap(\.fonts))
        if let unknown = fonts.subtracting(known).sorted().first {
            throw DigitError(.usage, "--fonts: no font '\(unknown)' in \(path) (it has \(known.sorted().joined(separator: ", ")))")
        }
        let letters = NonDigitSet.glyphs(glyphs, fonts: fonts, repeats: repeats, seed: seed)
        let shapes = NonDigitSet.scribbles(count: scribbles, seed: seed ^ 0x5C21)
        guard !letters.isEmpty || !shapes.isEmpty else { throw DigitError(.usage, "nothing to write: raise --repeats or --scribbles") }
        let text = (letters + shapes).map { StrokeJSON.encode($0) + "\n" }.joined()
        try FileIO.writeAtomically(text, to: out)
        printError("wrote \(letters.count) glyph drawings from \(fonts.sorted().joined(separator: ",")) and \(shapes.count) scribbles to \(out)")
        return ExitCode.ok
    }
}
