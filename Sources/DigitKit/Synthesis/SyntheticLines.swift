import Foundation

/// Photos of numbers made for training the paper reader's line model: numbers composed from one
/// writer's pen digits (`NumberComposer`), rendered on paper as a camera takes them
/// (`PaperRenderer`: grain, light, shadow, tilt, pen widths, blur, noise, JPEG), then decoded and
/// cut to their line exactly as a real photo is (`LineImage`). Some carry marks written with
/// amounts after the number (`.`, `,-`, `=`, `/-`), and some of four digits or more separators
/// between their digits as amounts are written (`1.250.000`, `1250,00`), labelled as marks.
public enum SyntheticLines {
    /// `count` lines of `lengths` digits by the writers of `records` (labelled single digits),
    /// reproducible from `seed`; images are made on `threads` threads.
    /// `artefacts` adds what real paper carries (`PaperArtefacts`: margins, rules, print, patterns,
    /// harsh light, tiny crops) to some of the photos; `penWidth` is the renderer's pen, a share
    /// of the writing's height; `separatorShare` of the numbers of four digits or more are written
    /// with separators (`PaperArtefacts.withSeparators`, labelled `.` where they stand).
    public static func make(records: [DrawingRecord], count: Int, lengths: ClosedRange<Int>, seed: UInt64,
                            composer: NumberComposer = NumberComposer(), artefacts: PaperArtefacts = PaperArtefacts(),
                            penWidth: ClosedRange<Float> = PaperRenderer().penWidth, separatorShare: Float = 0,
                            threads: Int = Parallel.processorCount, progress: (Int, Int) -> Void = { _, _ in }) throws -> LineSet {
        let byWriter = NumberComposer.byWriter(records, keep: { _ in true })
        guard !byWriter.isEmpty else { throw DigitError(.format, "no labelled single digits to compose numbers from") }
        let numbers = composer.composeSet(byWriter, count: count, lengths: lengths, seed: seed)
        var renderer = PaperRenderer()
        renderer.width = 360
        renderer.height = 200
        renderer.digitHeight = 24...90
        renderer.penWidth = penWidth
        let base = SplitMix64(seed: seed ^ 0x6C69_6E65)  // "line"
        let strips = try Parallel.map(numbers.count, threads: threads, progress: progress) { k -> (LineImage, String) in
            var rng = base.derived(UInt64(k))
            let number = numbers[k]
            var label = number.drawing.label ?? ""
            var drawn = number
            if separatorShare > 0, rng.nextFloat() < separatorShare,
               let separated = artefacts.withSeparators(number, markIndex: nil, rng: &rng) {
                drawn = separated.number
                var marked = ""
                for (i, c) in label.enumerated() { marked.append(c); if separated.after.contains(i) { marked += "." } }
                label = marked
            }
            if rng.nextFloat() < 0.25 { (drawn, label) = withMark(drawn, label: label, rng: &rng) }
            let image = try artefacts.render(drawn, with: renderer, rng: &rng)
            return (LineImage(image: try ImageDecoder.decode(try image.encoded(.jpeg), file: "synthetic")), label)
        }
        var set = LineSet()
        for (strip, label) in strips { set.append(strip, label: label) }
        return set
    }

    /// The number with a mark drawn after it as pen strokes: a dot, a comma and dash, an equals
    /// sign or a slash and dash, as amounts are closed; the label gains `.` for each mark stroke group.
    static func withMark(_ number: NumberComposer.Number, label: String, rng: inout SplitMix64) -> (NumberComposer.Number, String) {
        var drawing = number.drawing
        let xs = drawing.strokes.flatMap { $0.map(\.x) }, ys = drawing.strokes.flatMap { $0.map(\.y) }
        guard let maxX = xs.max(), let minY = ys.min(), let maxY = ys.max() else { return (number, label) }
        let h = maxY - minY
        let x = maxX + h * rng.uniform(0.12, 0.3)
        func line(_ x0: Float, _ y0: Float, _ x1: Float, _ y1: Float) -> [StrokePoint] {
            (0...6).map { i in
                let t = Float(i) / 6
                return StrokePoint(x: x0 + (x1 - x0) * t, y: y0 + (y1 - y0) * t)
            }
        }
        var marks: [[StrokePoint]] = []
        switch Int(rng.next() % 4) {
        case 0: marks = [line(x, maxY - 0.05 * h, x + 0.05 * h, maxY)]   // a dot
        case 1: marks = [line(x, maxY - 0.1 * h, x - 0.04 * h, maxY + 0.1 * h), line(x + 0.15 * h, minY + 0.5 * h, x + 0.5 * h, minY + 0.5 * h)]  // ,-
        case 2: marks = [line(x, minY + 0.4 * h, x + 0.45 * h, minY + 0.4 * h), line(x, minY + 0.65 * h, x + 0.45 * h, minY + 0.65 * h)]   // =
        default: marks = [line(x, maxY, x + 0.3 * h, minY + 0.1 * h), line(x + 0.3 * h, minY + 0.55 * h, x + 0.65 * h, minY + 0.55 * h)]  // /-
        }
        drawing.strokes += marks
        var marked = number
        marked.drawing = drawing
        marked.strokeDigit += marks.map { _ in number.strokeDigit.last ?? 0 }
        return (marked, label + ".")
    }
}
