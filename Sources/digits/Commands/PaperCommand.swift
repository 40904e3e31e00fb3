import DigitApp
import DigitKit
import Foundation

/// `digits make-paper`: synthetic photographs of numbers on paper, with their labels and boxes.
struct PaperCommand: CLICommand {
    static let name = "make-paper"
    static let summary = "make synthetic photos of numbers on paper with labels and digit boxes (a test set)"
    static let help = """
    Usage: digits make-paper --strokes FILE --out DIR [options]

    Writes images of handwritten numbers on paper as a phone camera might take them: paper
    grain and fibres, a light gradient, a soft shadow, a few degrees of rotation and tilt, pen
    widths from a fine ballpoint to a felt pen, blur, sensor noise and JPEG compression. Each
    number is composed from single digits of one writer (as `digits compose` does). Some images
    can have light ink on a dark board (--inverted-share).

    With --artefacts, images also get things real paper carries: a scanner's dark margin,
    ruled lines, printed words, a cheque's patterned background, marks after the number,
    uneven light, or a tiny or close-up frame.

    DIR/labels.tsv gets one line per image:
      FILE<TAB>LABEL<TAB>x0,y0,x1,y1;x0,y0,x1,y1;…[<TAB>MARKS]
    the box of each digit, left to right, in pixels: columns x0..<x1 and rows y0..<y1 from
    the top left, holding all of that digit's ink before blur; MARKS only for an image with
    marks after its number (see --artefacts). The same inputs and seed give the same files.

    Options:
      --strokes FILE        labelled single digits: UNIPEN (pendigits), stroke JSON Lines or a folder
      --out DIR             the folder to write (created if needed; files are written atomically)
      --writers LIST        only these writers, e.g. 3,6,9 or 1-10 (default: all)
      --exclude-writers L   all writers but these
      --count N             how many images (default 100)
      --lengths A-B         digits per number, drawn uniformly; 1-1 gives single digits (default 1-6)
      --lines A-B           lines of numbers per image, one under another, drawn uniformly,
                            1…16 (default 1-1); the label is the lines' numbers separated by spaces
      --format F            jpeg, png or pgm (default jpeg; pgm is gray)
      --size WxH            image size in pixels (default 640x480)
      --digit-height A-B    height of the writing in pixels, drawn uniformly (default 40-160;
                            smaller when a long number would not fit)
      --gray                gray images instead of colour
      --pen-width A-B       pen width as a share of one line's writing height, drawn
                            uniformly, 0.005…0.5 (default 0.045-0.11; 0.16-0.22 is a marker)
      --ink KIND            pens: black, blue and dark blue ballpoint, pencil (default);
                            light: hard or worn pencil, a pale ballpoint, faded ink
      --writing-styles P    this share of the numbers written in another hand than the
                            writer's: slanted, wider or narrower, digits turned and bent,
                            some 0s, 1s and 7s in variant forms, as the paper model's
                            training lines can be (default 0: the writers' own hands)
      --gap A-B             space between the digits of a number in line heights, drawn
                            uniformly, -0.5…2; negative overlaps (default -0.1-0.6;
                            -0.2--0.05 makes touching digits)
      --inverted-share P    share of images with light ink on a dark board, 0…1 (default 0.1)
      --frame-cut P         share of images of two or more digits framed through the first
                            or last digit (a hurried photo; the image is narrower, the label
                            stays the whole number, the cut digit's box is clipped; default 0)
      --quality A-B         JPEG quality, drawn uniformly per image, 1…100 (default 60-90)
      --artefacts LIST      comma-separated, or all; each is added to an image with
                            probability --artefact-rate (default: none):
                              margin   a scanner's near-black border along one side
                                       (5-30% of the image, soft edge, clear of the writing)
                              rules    thin printed rules, one through or just under the
                                       writing, and column lines near the sides
                              print    a printed word or two beside the writing, smaller
                                       than it (stroke fonts of --glyph-file)
                              pattern  a cheque's pale security background: guilloche
                                       waves, dots or hatching
                              marks    . , = - or /- after the number in the writer's pen:
                                       the label stays the digits, the marks go to MARKS
                              light    a strong gradient or a lamp's spot, heavy blur,
                                       JPEG quality 15-40 (instead of --quality)
                              small    cut tight around the writing, scaled so it is
                                       30-60 px tall (the image is that small)
                              closeup  single digits only: the digit fills 90-110% of the
                                       frame's height, running off it above 100%
                              signs    a printed $, R$, US$, Rs, No or Nr just left of the
                                       number, on its line, as forms print before an amount
                              grid     squared paper: thin lines both ways through the
                                       writing, a square half to once again the digits'
                                       height (or dots)
                              separators  numbers of 4 digits or more as amounts are
                                       written: 1.250.000, 12'500 or 1250,00 (the
                                       separators go to MARKS, not the label)
      --artefact-rate P     probability of each of --artefacts per image, 0…1 (default 0.5)
      --glyph-file FILE     stroke-font glyphs for print and signs (default:
                            Fixtures/hershey/glyphs.jsonl)
      --append              add to the images and labels.tsv already in DIR, numbering on
                            (to build one set from runs with different options)
      --seed N              random seed (default 1)

    \(CLI.exitCodesHelp)
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        guard let strokes = try args.option("--strokes") else { throw DigitError(.usage, "missing --strokes FILE (see --help)") }
        guard let out = try args.option("--out") else { throw DigitError(.usage, "missing --out DIR (see --help)") }
        let keep = try Writers.selection(&args)
        let count = try args.int("--count", default: 100, range: 1...1_000_000)
        let lengths = try ComposeCommand.range(try args.option("--lengths") ?? "1-6")
        let lineCounts = try ComposeCommand.range(try args.option("--lines") ?? "1-1", flag: "--lines", most: 16)
        let formatText = try args.option("--format") ?? "jpeg"
        guard let format = PaperFormat(rawValue: formatText.lowercased() == "jpg" ? "jpeg" : formatText.lowercased()) else {
            throw DigitError(.usage, "--format takes jpeg, png or pgm, got '\(formatText)'")
        }
        let size = try Self.size(try args.option("--size") ?? "640x480")
        let heights = try Self.heights(try args.option("--digit-height") ?? "40-160")
        let gray = args.flag("--gray")
        let inverted = try args.float("--inverted-share", default: 0.1, range: 0...1)
        let frameCut = try args.float("--frame-cut", default: 0, range: 0...1)
        let quality = try Self.quality(try args.option("--quality") ?? "60-90")
        let penWidth = try Self.floatRange(try args.option("--pen-width") ?? "0.045-0.11", flag: "--pen-width", allowed: 0.005...0.5)
        let inkText = try args.option("--ink") ?? "pens"
        guard let inks = ["pens": PaperRenderer.pens, "light": PaperRenderer.lightPens][inkText] else {
            throw DigitError(.usage, "--ink takes pens or light, got '\(inkText)'")
        }
        let gap = try Self.floatRange(try args.option("--gap") ?? "-0.1-0.6", flag: "--gap", allowed: -0.5...2)
        let styles = try args.float("--writing-styles", default: 0, range: 0...1)
        var artefacts = PaperArtefacts(kinds: try Self.artefacts(try args.option("--artefacts") ?? ""))
        artefacts.rate = try args.float("--artefact-rate", default: 0.5, range: 0...1)
        let glyphPath = try args.option("--glyph-file")
        let append = args.flag("--append")
        let seed = UInt64(try args.int("--seed", default: 1, range: 0...Int(Int32.max)))
        _ = try args.positionals().first.map { throw DigitError(.usage, "unexpected argument '\($0)'") }

        var renderer = PaperRenderer()
        renderer.width = size.width
        renderer.height = size.height
        renderer.digitHeight = heights
        renderer.colour = !gray && format != .pgm
        renderer.invertedShare = inverted
        renderer.frameCutShare = frameCut
        renderer.jpegQuality = quality
        renderer.penWidth = penWidth
        renderer.inkColours = inks
        if !artefacts.kinds.isDisjoint(with: [.print, .signs]) {
            guard let path = glyphPath ?? Locations.projectFile("Fixtures/hershey/glyphs.jsonl") else {
                throw DigitError(.io, "the glyph file Fixtures/hershey/glyphs.jsonl was not found: pass --glyph-file FILE")
            }
            artefacts.glyphs = try GlyphSamples.load(path)
        }

        let records = try DrawingLoader.load(strokes)
        let byWriter = NumberComposer.byWriter(records, keep: keep)
        guard !byWriter.isEmpty else { throw DigitError(.format, file: strokes, "no labelled single digits from the chosen writers") }
        do {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        } catch {
            throw DigitError(.io, file: out, "cannot create the folder")
        }

        let labels = (out as NSString).appendingPathComponent("labels.tsv")
        var lines: [String] = []
        if append, FileManager.default.fileExists(atPath: labels) {
            let text = String(decoding: try FileIO.read(labels, limit: 256 << 20), as: UTF8.self)
            lines = try PaperLabels.parse(text, file: labels).map(PaperLabels.line)
        }
        // One line: the sets of earlier versions, image for image.
        var composer = NumberComposer()
        composer.gap = gap
        if styles > 0 { composer.style = WritingStyle(share: styles) }
        let numbers = lineCounts == 1...1 ? composer.composeSet(byWriter, count: count, lengths: lengths, seed: seed)
            : composer.composeNotes(byWriter, count: count, lengths: lengths, lines: lineCounts, seed: seed)
        // One generator per image, derived from the seed: image k does not depend on how the
        // others were drawn.
        let base = SplitMix64(seed: seed ^ 0x7061_7065_72)  // "paper"
        let digitsWide = max(4, String(lines.count + count).count)
        let progress = ProgressLine()
        let start = Date()
        let first = lines.count + 1
        for (k, number) in numbers.enumerated() {
            var rng = base.derived(UInt64(k))
            let lineCount = (number.drawing.label ?? "").split(separator: " ").count
            let image = try artefacts.render(number, lines: max(1, lineCount), lineGap: composer.lineGap, with: renderer, rng: &rng)
            let index = String(first + k)
            let file = "paper-" + String(repeating: "0", count: max(0, digitsWide - index.count)) + index + "." + format.fileExtension
            try FileIO.writeAtomically(try image.encoded(format), to: (out as NSString).appendingPathComponent(file))
            lines.append(PaperLabels.line(.init(file: file, label: image.label ?? "", boxes: image.digitBoxes, marks: image.marks)))
            progress.update("\(ProgressLine.bar(Double(k + 1) / Double(numbers.count), width: 30)) \(k + 1)/\(numbers.count) images")
        }
        try FileIO.writeAtomically(lines.joined(separator: "\n") + "\n", to: labels)
        let seconds = Date().timeIntervalSince(start)
        let lineNote = lineCounts == 1...1 ? "" : " in \(lineCounts.lowerBound)-\(lineCounts.upperBound) lines"
        let framed = !artefacts.kinds.isDisjoint(with: [.small, .closeup]) ? " (or smaller)" : frameCut > 0 ? " (or narrower)" : ""
        let artefactNote = artefacts.kinds.isEmpty ? ""
            : " with artefacts " + PaperArtefacts.Kind.allCases.filter(artefacts.kinds.contains).map(\.rawValue).joined(separator: ",")
                + " (each at \(artefacts.rate))"
        progress.finish("wrote \(numbers.count) \(size.width)×\(size.height)\(framed) \(format.rawValue) images of \(lengths.lowerBound)-\(lengths.upperBound) digits\(lineNote)\(artefactNote) by \(byWriter.count) writers and \(labels) in \(String(format: "%.1f", seconds)) s")
        return ExitCode.ok
    }

    static func size(_ text: String) throws -> (width: Int, height: Int) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 2, let w = parts[0], let h = parts[1], (16...8192).contains(w), (16...8192).contains(h) else {
            throw DigitError(.usage, "--size takes WxH with each side in 16...8192, got '\(text)'")
        }
        return (w, h)
    }

    static func quality(_ text: String) throws -> ClosedRange<Int> {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        if parts.count == 1, let a = parts[0], (1...100).contains(a) { return a...a }
        guard parts.count == 2, let a = parts[0], let b = parts[1], 1 <= a, a <= b, b <= 100 else {
            throw DigitError(.usage, "--quality takes A-B with 1 ≤ A ≤ B ≤ 100, got '\(text)'")
        }
        return a...b
    }

    /// `--artefacts`: names separated by commas, or `all`; empty for none.
    static func artefacts(_ text: String) throws -> Set<PaperArtefacts.Kind> {
        if text == "all" { return Set(PaperArtefacts.Kind.allCases) }
        var kinds: Set<PaperArtefacts.Kind> = []
        for name in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            guard let kind = PaperArtefacts.Kind(rawValue: name) else {
                let known = PaperArtefacts.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                throw DigitError(.usage, "--artefacts takes \(known) or all, got '\(name)'")
            }
            kinds.insert(kind)
        }
        return kinds
    }

    /// `A-B` of decimals, either of which may be negative (`-0.2--0.05`), or one number.
    static func floatRange(_ text: String, flag: String, allowed: ClosedRange<Float>) throws -> ClosedRange<Float> {
        let characters = Array(text)
        // The dash between the two numbers is one that follows a digit or a point.
        let split = characters.indices.first { i in i > 0 && characters[i] == "-" && (characters[i - 1].isNumber || characters[i - 1] == ".") }
        let parts = split.map { [String(characters[..<$0]), String(characters[($0 + 1)...])] } ?? [text]
        let values = parts.map { Float($0) }
        let bad = DigitError(.usage, "\(flag) takes A-B with \(allowed.lowerBound) ≤ A ≤ B ≤ \(allowed.upperBound), got '\(text)'")
        guard values.allSatisfy({ $0.map { $0.isFinite && allowed.contains($0) } ?? false }) else { throw bad }
        let a = values[0]!, b = values[values.count - 1]!
        guard a <= b else { throw bad }
        return a...b
    }

    static func heights(_ text: String) throws -> ClosedRange<Float> {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Float($0) }
        if parts.count == 1, let a = parts[0], a.isFinite, (4...4096).contains(a) { return a...a }
        guard parts.count == 2, let a = parts[0], let b = parts[1], a.isFinite, b.isFinite, 4 <= a, a <= b, b <= 4096 else {
            throw DigitError(.usage, "--digit-height takes A-B pixels with 4 ≤ A ≤ B ≤ 4096, got '\(text)'")
        }
        return a...b
    }
}
