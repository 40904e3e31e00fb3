import Foundation

/// Things real paper carries that `PaperRenderer`'s photos do not, added to its renders so that a
/// reader of paper is trained and tested on them. Each kind in `kinds` is given to an image with
/// probability `rate`, drawn per image and per kind:
///
/// - `margin`: a scanner's margin or a dark border: a near-black band (`marginTone`) along one
///   side, `marginWidth` of the image across, with a soft, slightly slanted edge. It never covers
///   the writing: a side without room is not used, and with no side there is no band.
/// - `rules`: thin printed rules (`ruleWidth` pixels, as light as `ruleTone` of the paper) every
///   `ruleSpacing` writing heights, turned with the writing: one runs through the writing, or just
///   under it as an underline, or the writing sits between two; `ruleDottedShare` of the sets are
///   dotted. With probability `columnShare`, vertical column lines near the sides, clear of it.
/// - `print`: a word or two of `words` in a printed stroke font (`printFonts` among `glyphs`),
///   capitals `printHeight` × the writing's height tall, as thin strokes of one width, left of,
///   under or above the writing or in the bottom left corner, clear of it; none without room.
/// - `pattern`: a cheque's security background over the whole image, in a light colour: wavy
///   guilloche lines, a screen of dots or fine hatching.
/// - `marks`: one of `marks` (".", ",", "=", "-", "/-") written after the number in the writer's
///   pen, as amounts have them. They are drawn with the number, so placed, turned and inked alike,
///   and are reported in `PaperImage.marks`, not in its `label` or `digitBoxes`. An image with
///   marks is not frame-cut (`PaperRenderer.frameCutShare`).
/// - `separators`: a number of four digits or more written as an amount is: a thousands separator
///   (`.`, `,` or `'`) before each group of three digits from the right, or a decimal separator
///   (`.` or `,`) before the last two, in the writer's pen, the digits after it moved right to
///   make room (`separatorRoom` writing heights). Reported with the marks in `PaperImage.marks`,
///   not in the label. An image with separators is not frame-cut.
/// - `light`: a strong gradient (`lightGradient`) or a lamp's spot (`lightSpot`: the renderer's
///   vignette, around a random centre), heavier blur (`lightBlur`, at most 5% of the smallest digit
///   height unless that is below its lower bound) and stronger JPEG compression (`lightQuality`).
/// - `small`: the image cut tight around the writing (6–30% of its height left on each side) and
///   scaled so the digits' ink is `smallHeight` pixels tall.
/// - `closeup`: a number of one digit in one line (others are left as they are) drawn large and
///   framed so that the digit's height is `closeupFill` of the frame's; above 1 it runs off the top
///   or the bottom. The image is the frame, smaller than the renderer's size. Excludes `small` and
///   `marks`.
/// - `signs`: a printed sign before the number on the writing's line, as forms and cheques print
///   one before the amount's box — a currency sign (`$`, `R$`, `US$`, `Rs`) or a number sign
///   (`No`, `Nr`; `signs`) — `signHeight` × the writing's height tall, `signGap` writing heights
///   to the left of it (nearer and smaller where the writing leaves less room; none where even
///   the smallest does not fit). Printed, so never in the label.
/// - `grid`: squared paper, as school and lab notebooks have it: thin lines both ways
///   (`ruleWidth` pixels, as light as `gridTone` of the paper) every `gridSpacing` writing heights,
///   turned with the writing and at a random phase, so they run through the digits; a
///   `gridDottedShare` of the sheets are dot grids (a dot where the lines would cross).
///
/// Rules, grid, print and pattern are printed on the paper: they darken it by multiplication (ink over
/// them darker still), under the same light, and are blurred as the photo was; a dark board
/// (`PaperEffects.inverted`) gets none of them. Labels never change: only marks are handwritten,
/// and print uses letters alone. `PaperEffects.artefacts` lists what an image got; pixel sizes in
/// `PaperEffects` (digit height, pen width, blur) are those of the final image.
///
/// Reproducible: every choice comes from a generator derived from the `rng` given to `render`,
/// and the renderer uses `rng` as it would alone. So without `marks`, `light` or `closeup` the
/// photo under the artefacts is the renderer's own, and with no kinds (or none chosen) `render`
/// gives the renderer's image byte for byte and leaves `rng` in the same state.
public struct PaperArtefacts: Sendable {
    /// The kinds of artefact, in the order they are drawn and listed.
    public enum Kind: String, CaseIterable, Sendable {
        case margin, rules, print, pattern, marks, light, small, closeup, signs, grid, separators
    }

    /// The kinds that may be added.
    public var kinds: Set<Kind> = []
    /// Probability of each kind in `kinds`, per image, 0…1.
    public var rate: Float = 0.5
    /// Stroke-font glyphs for `print` and `signs` (`GlyphSamples.load`, the file
    /// `Fixtures/hershey/glyphs.jsonl`); needed when `kinds` holds either.
    public var glyphs: [GlyphSamples.Glyph] = []

    // MARK: Margin
    /// Width of the band as a share of the image across it (of the width for a band on the left).
    public var marginWidth: ClosedRange<Float> = 0.05...0.3
    /// Reflectance of the band, 0…1.
    public var marginTone: ClosedRange<Float> = 0.02...0.12

    // MARK: Rules
    /// Thickness of a rule in pixels.
    public var ruleWidth: ClosedRange<Float> = 0.8...2
    /// Luminance of the printing relative to the paper under it (1: invisible).
    public var ruleTone: ClosedRange<Float> = 0.35...0.7
    /// Distance between rules in writing heights (the median height of a digit's box).
    public var ruleSpacing: ClosedRange<Float> = 1.15...1.8
    /// Share of images whose rules are dotted.
    public var ruleDottedShare: Float = 0.2
    /// Share of images with rules that also get vertical column lines.
    public var columnShare: Float = 0.6

    // MARK: Grid
    /// Luminance of the grid's lines relative to the paper under them (1: invisible).
    public var gridTone: ClosedRange<Float> = 0.45...0.85
    /// Side of a square in writing heights (a digit fills one square, or two).
    public var gridSpacing: ClosedRange<Float> = 0.5...1.2
    /// Share of sheets that are dot grids.
    public var gridDottedShare: Float = 0.15

    // MARK: Print
    /// Words printed beside the writing (letters and colons only: nothing a digit reader should
    /// answer). One or two per image.
    public var words = ["Total", "Amount", "Date", "Sum", "Pay", "Paid", "Due", "Balance", "Signature", "Cash",
                        "Received", "Account", "Ref", "Item", "Qty", "Price", "Name", "Page", "Invoice", "Cheque",
                        "Rupees", "Euro", "Dollars", "Betrag", "Summe", "Datum", "Montant", "Total:", "Amount:", "Date:"]
    /// Fonts of `glyphs` to print in: sans-serif, roman and Times, none of them held out of training
    /// (`GlyphSamples.heldOutFonts`; shapes shared with those are not used either).
    public var printFonts = ["futural", "rowmans", "timesr"]
    /// Height of a capital as a share of the writing's height; at least 6 pixels.
    public var printHeight: ClosedRange<Float> = 0.22...0.45

    // MARK: Signs
    /// The signs one is drawn from (in `printFonts`: `#` and `*` are left out, as their glyphs are
    /// shared with fonts held out of training; a sign no font has is skipped).
    public var signs = ["$", "$", "$", "R$", "US$", "No", "Nr", "Rs"]
    /// Height of a capital as a share of the writing's height.
    public var signHeight: ClosedRange<Float> = 0.45...1
    /// Room between the sign and the writing, in writing heights.
    public var signGap: ClosedRange<Float> = 0.1...0.6

    // MARK: Pattern
    /// How strongly the pattern's colour shows, 0…1 (1: the full pale tint).
    public var patternStrength: ClosedRange<Float> = 0.6...1

    // MARK: Marks
    /// The marks one is drawn from.
    public var marks = [".", ",", "=", "-", "/-"]
    /// The marks `marks` may hold.
    public static let knownMarks: Set<String> = [".", ",", "=", "-", "/-"]

    // MARK: Separators
    /// Room made for a separator between two digits, in writing heights.
    public var separatorRoom: ClosedRange<Float> = 0.22...0.38
    /// Share of the numbers with separators that get a decimal separator (the rest: thousands).
    public var decimalShare: Float = 0.4

    // MARK: Light
    /// The renderer's `gradient` for a strong gradient (half of the images with `light`).
    public var lightGradient: ClosedRange<Float> = 0.45...0.75
    /// The renderer's `vignette` for a lamp's spot (the other half).
    public var lightSpot: ClosedRange<Float> = 0.45...0.8
    /// The renderer's `blur` in pixels; the upper end is cut to 5% of the smallest digit height.
    public var lightBlur: ClosedRange<Float> = 1.2...2.4
    /// The renderer's `jpegQuality`.
    public var lightQuality: ClosedRange<Int> = 15...40

    // MARK: Small and close-up
    /// Height of the digits' ink in pixels after scaling.
    public var smallHeight: ClosedRange<Float> = 30...60
    /// The digit's height over the frame's height.
    public var closeupFill: ClosedRange<Float> = 0.9...1.1

    public init(kinds: Set<Kind> = [], rate: Float = 0.5, glyphs: [GlyphSamples.Glyph] = []) {
        self.kinds = kinds
        self.rate = rate
        self.glyphs = glyphs
    }

    /// `number` (of `lines` lines stacked `lineGap` apart, as `PaperRenderer.render(note:…)` takes
    /// them) rendered by `renderer`, with the artefacts chosen for it. Throws `.usage` for settings
    /// out of range (and what `renderer` throws).
    public func render(_ number: NumberComposer.Number, lines: Int = 1, lineGap: Float = NumberComposer().lineGap,
                       with renderer: PaperRenderer, rng: inout SplitMix64) throws -> PaperImage {
        try validate()
        func draw(_ r: PaperRenderer, _ n: NumberComposer.Number, _ rng: inout SplitMix64) throws -> PaperImage {
            lines > 1 ? try r.render(note: n, lines: lines, lineGap: lineGap, rng: &rng) : try r.render(n, rng: &rng)
        }
        guard !kinds.isEmpty else { return try draw(renderer, number, &rng) }

        // One generator for the choices and one per kind, so a kind's draws do not depend on
        // which other kinds are on.
        let base = rng.derived(0x6172_7465_6661_6374)  // "artefact"
        func generator(_ kind: Kind) -> SplitMix64 { base.derived(UInt64(Kind.allCases.firstIndex(of: kind)! + 1)) }
        var pick = base.derived(0)
        var chosen = Set(Kind.allCases.filter { kinds.contains($0) && pick.nextFloat() < rate })
        if chosen.contains(.closeup) {
            if lines == 1 && Set(number.strokeDigit).count == 1 { chosen.subtract([.small, .marks]) } else { chosen.remove(.closeup) }
        }
        var applied: Set<Kind> = chosen.intersection([.light, .closeup])

        // Before rendering: what is drawn with the number, and the renderer's own ranges.
        var r = renderer, n = number, marksText: String?
        if chosen.contains(.marks) {
            var g = generator(.marks)
            if let marked = withMarks(number, rng: &g) {
                n = marked.number
                marksText = marked.mark
                r.frameCutShare = 0
                applied.insert(.marks)
            }
        }
        if chosen.contains(.separators), lines == 1 {
            var g = generator(.separators)
            let markIndex = marksText == nil ? nil : n.strokeDigit.max()
            if let separated = withSeparators(n, markIndex: markIndex, rng: &g) {
                n = separated.number
                marksText = separated.text + (marksText ?? "")
                r.frameCutShare = 0
                applied.insert(.separators)
            }
        }
        if chosen.contains(.closeup) {
            let side = Float(min(r.width, r.height))
            r.digitHeight = (0.6 * side)...(0.75 * side)
        }
        if chosen.contains(.light) {
            var g = generator(.light)
            if g.nextFloat() < 0.5 { r.gradient = lightGradient } else { r.vignette = lightSpot }
            let most = max(lightBlur.lowerBound, min(lightBlur.upperBound, 0.05 * r.digitHeight.lowerBound))
            r.blur = lightBlur.lowerBound...most
            r.jpegQuality = lightQuality
        }
        var image = try draw(r, n, &rng)
        // The marks' box stays last among the boxes until the end, for the writing's extent.
        let digitCount = image.digitBoxes.count - (marksText == nil ? 0 : 1)

        // Framing.
        var scale: Float = 1
        if chosen.contains(.closeup) {
            var g = generator(.closeup)
            image = closeup(image, rng: &g)
        }
        if chosen.contains(.small) {
            var g = generator(.small)
            if let framed = small(image, digitCount: digitCount, rng: &g) {
                image = framed.image
                scale = framed.scale
                applied.insert(.small)
            }
        }

        // Printing on the paper, then the scanner's border over everything.
        let printed: [Kind] = [.pattern, .rules, .grid, .print, .signs, .margin]
        if !chosen.isDisjoint(with: printed) {
            var canvas = ArtefactCanvas(image)
            let writing = image.digitBoxes.filter { !$0.isEmpty }
            let heights = image.digitBoxes.prefix(digitCount).filter { !$0.isEmpty }.map(\.height).sorted()
            let lineHeight = Float(heights.isEmpty ? image.height / 3 : heights[heights.count / 2])
            let sigma = image.effects.blur * scale
            let angle = image.effects.rotation
            if !image.effects.inverted {
                if chosen.contains(.pattern) {
                    var g = generator(.pattern)
                    pattern(on: &canvas, sigma: sigma, rng: &g)
                    applied.insert(.pattern)
                }
                if chosen.contains(.rules) {
                    var g = generator(.rules)
                    rules(on: &canvas, writing: writing, lineHeight: lineHeight, angle: angle, sigma: sigma, rng: &g)
                    applied.insert(.rules)
                }
                if chosen.contains(.grid) {
                    var g = generator(.grid)
                    grid(on: &canvas, writing: writing, lineHeight: lineHeight, angle: angle, sigma: sigma, rng: &g)
                    applied.insert(.grid)
                }
                if chosen.contains(.print) {
                    var g = generator(.print)
                    if printWords(on: &canvas, writing: writing, lineHeight: lineHeight, angle: angle, sigma: sigma, rng: &g) {
                        applied.insert(.print)
                    }
                }
                if chosen.contains(.signs) {
                    var g = generator(.signs)
                    if printSign(on: &canvas, writing: writing, lineHeight: lineHeight, angle: angle, sigma: sigma, rng: &g) {
                        applied.insert(.signs)
                    }
                }
            }
            if chosen.contains(.margin) {
                var g = generator(.margin)
                if margin(on: &canvas, writing: writing, rng: &g) { applied.insert(.margin) }
            }
            canvas.write(into: &image)
        }
        if marksText != nil { image.digitBoxes.removeLast() }
        image.marks = marksText
        image.effects.artefacts = Kind.allCases.filter(applied.contains).map(\.rawValue)
        return image
    }

    // MARK: - Marks

    /// `number` with a mark after its last digit, in the drawing's units: the mark's strokes
    /// belong to a digit index after every other, so the renderer gives it the last box. Nil for
    /// an empty drawing.
    func withMarks(_ number: NumberComposer.Number, rng: inout SplitMix64) -> (number: NumberComposer.Number, mark: String)? {
        guard let last = number.strokeDigit.max() else { return nil }
        let points = zip(number.drawing.strokes, number.strokeDigit).filter { $0.1 == last }.flatMap(\.0)
            .filter { $0.x.isFinite && $0.y.isFinite }
        guard let first = points.first else { return nil }
        var x0 = first.x, x1 = first.x, y0 = first.y, y1 = first.y
        for p in points {
            x0 = min(x0, p.x); x1 = max(x1, p.x)
            y0 = min(y0, p.y); y1 = max(y1, p.y)
        }
        let h = max(y1 - y0, 1e-3)
        let mark = marks[Int(rng.next() % UInt64(marks.count))]
        let x = x1 + h * rng.uniform(0.1, 0.3)
        let mid = (y0 + y1) / 2 + h * rng.uniform(-0.08, 0.08)
        func jitter() -> Float { h * rng.uniform(-0.02, 0.02) }
        // A pen line a–b as a few points, bowed a little, so the renderer's pressure varies along it.
        func line(_ ax: Float, _ ay: Float, _ bx: Float, _ by: Float) -> [StrokePoint] {
            let bow = h * rng.uniform(-0.03, 0.03)
            let length = max(((bx - ax) * (bx - ax) + (by - ay) * (by - ay)).squareRoot(), 1e-6)
            return (0...5).map { k in
                let t = Float(k) / 5, b = bow * 4 * t * (1 - t)
                return StrokePoint(x: ax + (bx - ax) * t - b * (by - ay) / length, y: ay + (by - ay) * t + b * (bx - ax) / length)
            }
        }
        var strokes: [[StrokePoint]]
        switch mark {
        case ".":
            strokes = [dot(x + 0.03 * h, y1 - 0.04 * h + jitter(), 0.025 * h)]
        case ",":
            let cy = y1 - 0.03 * h + jitter()
            strokes = [dot(x + 0.05 * h, cy, 0.02 * h) + line(x + 0.06 * h, cy, x - 0.02 * h, cy + h * rng.uniform(0.14, 0.22))]
        case "=":
            let width = h * rng.uniform(0.3, 0.55), gap = h * rng.uniform(0.16, 0.26)
            strokes = [line(x, mid - gap / 2 + jitter(), x + width, mid - gap / 2 + jitter()),
                       line(x + jitter(), mid + gap / 2 + jitter(), x + width + jitter(), mid + gap / 2 + jitter())]
        case "-":
            let width = h * rng.uniform(0.3, 0.55)
            strokes = [line(x, mid + jitter(), x + width, mid + jitter())]
        default:  // "/-"
            let topX = x + h * rng.uniform(0.25, 0.4), topY = y0 + h * rng.uniform(0, 0.15)
            let dash = topX + h * rng.uniform(0.04, 0.12)
            strokes = [line(x, y1 + 0.02 * h, topX, topY), line(dash, mid + jitter(), dash + h * rng.uniform(0.3, 0.45), mid + jitter())]
        }
        var out = number
        out.drawing.strokes += strokes
        out.strokeDigit += Array(repeating: last + 1, count: strokes.count)
        return (out, mark)
    }

    /// `number` written as an amount (`separators`): the separators' strokes belong to the index
    /// `markIndex` (the marks' own, when the number has marks) or one after every other, so the
    /// renderer gives them the last box; `after` holds the positions of the digits a separator
    /// follows. Nil for fewer than four digits.
    func withSeparators(_ number: NumberComposer.Number, markIndex: Int?, rng: inout SplitMix64)
        -> (number: NumberComposer.Number, text: String, after: [Int])? {
        let digits = Array(Set(number.strokeDigit)).filter { $0 != markIndex }.sorted()
        guard digits.count >= 4 else { return nil }
        // Each digit's extent, in the drawing's units.
        let found = digits.compactMap { digit in
            Segmentation.box(zip(number.drawing.strokes, number.strokeDigit).filter { $0.1 == digit }.flatMap(\.0))
        }
        guard found.count == digits.count else { return nil }
        let heights = found.map { $0.y1 - $0.y0 }.sorted()
        let h = max(heights[heights.count / 2], 1e-3)
        // After which digits a separator stands, and which.
        let n = digits.count
        let decimal = rng.nextFloat() < decimalShare
        let after = decimal ? [n - 3] : (0..<(n - 1)).filter { (n - 1 - $0) % 3 == 0 }
        let sign = decimal ? [".", ","][Int(rng.next() % 2)] : [".", ",", "'"][Int(rng.next() % 3)]
        let rooms = after.map { _ in h * rng.uniform(separatorRoom.lowerBound, separatorRoom.upperBound) }
        // How far each digit moves: the room of every separator before it; the marks move with the last.
        func shift(ofSlot slot: Int) -> Float { zip(after, rooms).reduce(0) { $0 + ($1.0 < slot ? $1.1 : 0) } }
        var out = number
        for (k, owner) in number.strokeDigit.enumerated() {
            let dx = shift(ofSlot: digits.firstIndex(of: owner) ?? n)
            out.drawing.strokes[k] = number.drawing.strokes[k].map { var p = $0; p.x += dx; return p }
        }
        func jitter() -> Float { h * rng.uniform(-0.02, 0.02) }
        var strokes: [[StrokePoint]] = []
        for i in after {
            let left = found[i], right = found[i + 1]
            let x1 = left.x1 + shift(ofSlot: i), x2 = right.x0 + shift(ofSlot: i + 1)
            let x = (x1 + x2) / 2 + jitter()
            let bottom = max(left.y1, right.y1), top = min(left.y0, right.y0)
            switch sign {
            case ".":
                strokes.append(dot(x, bottom - 0.04 * h + jitter(), 0.025 * h))
            case ",":
                let cy = bottom - 0.03 * h + jitter()
                strokes.append(dot(x, cy, 0.02 * h) + [StrokePoint(x: x + 0.01 * h, y: cy),
                                                      StrokePoint(x: x - 0.05 * h, y: cy + h * rng.uniform(0.14, 0.22))])
            default:  // "'"
                let y = top + h * rng.uniform(-0.02, 0.08)
                strokes.append([StrokePoint(x: x + 0.03 * h, y: y), StrokePoint(x: x - 0.01 * h, y: y + h * rng.uniform(0.15, 0.25))])
            }
        }
        out.drawing.strokes += strokes
        out.strokeDigit += Array(repeating: markIndex ?? ((number.strokeDigit.max() ?? 0) + 1), count: strokes.count)
        return (out, String(repeating: sign, count: after.count), after)
    }

    /// A pen's dot: a small circle of points around (`cx`, `cy`).
    private func dot(_ cx: Float, _ cy: Float, _ radius: Float) -> [StrokePoint] {
        (0...6).map { k in
            let a = Float(k) / 6 * 2 * .pi
            return StrokePoint(x: cx + radius * cos(a), y: cy + radius * sin(a))
        }
    }

    // MARK: - Framing

    /// The frame around the one digit: `closeupFill` of its height, as wide as 0.75–1.3 of that
    /// but never cutting more than a tenth of the digit's width.
    func closeup(_ image: PaperImage, rng: inout SplitMix64) -> PaperImage {
        guard let b = image.digitBoxes.first, !b.isEmpty else { return image }
        let fill = rng.uniform(closeupFill.lowerBound, closeupFill.upperBound)
        let frameHeight = Float(b.height) / fill
        let frameWidth = max(frameHeight * rng.uniform(0.75, 1.3), Float(b.width) / max(1, closeupFill.upperBound))
        let w = min(image.width, max(8, Int(frameWidth.rounded()))), h = min(image.height, max(8, Int(frameHeight.rounded())))
        // Anywhere from the frame's edge on the digit's one side to the other.
        let x0 = min(max(0, b.x + Int((Float(b.width - w) * rng.nextFloat()).rounded())), image.width - w)
        let y0 = min(max(0, b.y + Int((Float(b.height - h) * rng.nextFloat()).rounded())), image.height - h)
        return image.cropped(to: PixelRect(x0: x0, y0: y0, x1: x0 + w, y1: y0 + h))
    }

    /// The image cut tight around the writing (its first `digitCount` boxes and any marks) and
    /// scaled so the digits are `smallHeight` tall, and the scale; nil when there is no ink.
    func small(_ image: PaperImage, digitCount: Int, rng: inout SplitMix64) -> (image: PaperImage, scale: Float)? {
        guard let digits = Self.union(image.digitBoxes.prefix(digitCount)), let all = Self.union(image.digitBoxes) else { return nil }
        let scale = rng.uniform(smallHeight.lowerBound, smallHeight.upperBound) / Float(digits.height)
        let unit = Float(digits.height)
        func pad() -> Float { unit * rng.uniform(0.06, 0.3) }
        let crop = PixelRect(x0: Int((Float(all.x) - pad()).rounded(.down)), y0: Int((Float(all.y) - pad()).rounded(.down)),
                            x1: Int((Float(all.maxX) + pad()).rounded(.up)), y1: Int((Float(all.maxY) + pad()).rounded(.up)))
        let cut = image.cropped(to: crop)
        let width = max(8, Int((Float(cut.width) * scale).rounded())), height = max(8, Int((Float(cut.height) * scale).rounded()))
        var out = Self.resized(cut, width: width, height: height)
        out.effects.digitHeight *= scale
        out.effects.penWidth *= scale
        out.effects.blur *= scale
        return (out, scale)
    }

    /// The smallest box holding every non-empty box of `boxes`, or nil.
    static func union<S: Sequence>(_ boxes: S) -> PixelRect? where S.Element == PixelRect {
        let u = boxes.reduce(PixelRect.zero) { $0.union($1) }
        return u.isEmpty ? nil : u
    }

    /// `image` resampled to `width` × `height`: an area average when shrinking, linear
    /// interpolation when enlarging. Boxes are scaled outward (a box still holds its ink); gray
    /// comes from the RGB bytes when there is colour, as the renderer makes it.
    static func resized(_ image: PaperImage, width: Int, height: Int) -> PaperImage {
        let wx = weights(from: image.width, to: width), wy = weights(from: image.height, to: height)
        func resample(_ bytes: [UInt8], channels: Int) -> [UInt8] {
            let w = image.width
            // Rows first: (image.height, width, channels).
            var rows = [Float](repeating: 0, count: image.height * width * channels)
            for y in 0..<image.height {
                for x in 0..<width {
                    for (j, weight) in wx[x] {
                        for c in 0..<channels { rows[(y * width + x) * channels + c] += weight * Float(bytes[(y * w + j) * channels + c]) }
                    }
                }
            }
            var out = [UInt8](repeating: 0, count: width * height * channels)
            for y in 0..<height {
                for x in 0..<width {
                    for c in 0..<channels {
                        var v: Float = 0
                        for (j, weight) in wy[y] { v += weight * rows[(j * width + x) * channels + c] }
                        out[(y * width + x) * channels + c] = UInt8(min(255, max(0, v + 0.5)))
                    }
                }
            }
            return out
        }
        var out = image
        out.width = width
        out.height = height
        out.rgb = image.rgb.map { resample($0, channels: 3) }
        out.gray = out.rgb.map(PaperPixels.gray(fromRGB:)) ?? resample(image.gray, channels: 1)
        out.inkMask = image.inkMask.map { resample($0, channels: 1) }
        let sx = Float(width) / Float(image.width), sy = Float(height) / Float(image.height)
        out.digitBoxes = image.digitBoxes.map { b in
            guard !b.isEmpty else {
                let x = min(width, Int(Float(b.x) * sx)), y = min(height, Int(Float(b.y) * sy))
                return PixelRect(x0: x, y0: y, x1: x, y1: y)
            }
            return PixelRect(x0: max(0, Int((Float(b.x) * sx).rounded(.down))), y0: max(0, Int((Float(b.y) * sy).rounded(.down))),
                            x1: min(width, Int((Float(b.maxX) * sx).rounded(.up))), y1: min(height, Int((Float(b.maxY) * sy).rounded(.up))))
        }
        return out
    }

    /// For each of `m` output pixels, the source pixels of `n` and their weights (summing to 1).
    static func weights(from n: Int, to m: Int) -> [[(Int, Float)]] {
        let f = Float(n) / Float(m)  // source pixels per output pixel
        return (0..<m).map { o in
            if f > 1 {
                let a = Float(o) * f, b = Float(o + 1) * f
                return (Int(a.rounded(.down))..<min(n, Int(b.rounded(.up)))).map { j in
                    (j, (min(Float(j + 1), b) - max(Float(j), a)) / f)
                }
            }
            let c = (Float(o) + 0.5) * f - 0.5
            let j = Int(c.rounded(.down)), t = c - Float(j)
            return [(min(n - 1, max(0, j)), 1 - t), (min(n - 1, max(0, j + 1)), t)]
        }
    }

    // MARK: - Printing on the paper

    /// Colours of printed rules, relative to the paper: grey, dark grey, blue, cyan, red.
    static let ruleColours = [PaperColour(1, 1, 1), PaperColour(0.92, 0.92, 0.96), PaperColour(0.62, 0.75, 1),
                              PaperColour(0.6, 0.9, 1), PaperColour(1, 0.62, 0.62)]
    /// Pale tints of security paper: blue, green, pink, beige, lilac.
    static let patternColours = [PaperColour(0.6, 0.74, 0.95), PaperColour(0.64, 0.86, 0.68), PaperColour(0.95, 0.66, 0.76),
                                 PaperColour(0.88, 0.78, 0.6), PaperColour(0.76, 0.7, 0.95)]

    /// Horizontal rules across the image and maybe column lines near its sides.
    fileprivate func rules(on canvas: inout ArtefactCanvas, writing: [PixelRect], lineHeight: Float, angle: Float, sigma: Float,
               rng: inout SplitMix64) {
        let w = Float(canvas.width), h = Float(canvas.height)
        let u = Self.union(writing) ?? PixelRect(x0: canvas.width / 2, y0: canvas.height / 2, x1: canvas.width / 2, y1: canvas.height / 2)
        let slope = tan(angle * .pi / 180)
        let cx = Float(u.x + u.maxX) / 2, cy = Float(u.y + u.maxY) / 2
        let spacing = max(4, lineHeight * rng.uniform(ruleSpacing.lowerBound, ruleSpacing.upperBound))
        let anchor: Float
        switch rng.next() % 3 {
        case 0: anchor = Float(u.maxY) + lineHeight * rng.uniform(0, 0.12)  // an underline
        case 1: anchor = Float(u.y) + Float(u.height) * rng.uniform(0.35, 0.8)  // through the writing
        default: anchor = Float(u.maxY) + lineHeight * rng.uniform(0.25, 0.5)  // the writing between two rules
        }
        let radius = rng.uniform(ruleWidth.lowerBound, ruleWidth.upperBound) / 2
        let colour = Self.printing(Self.ruleColours[Int(rng.next() % UInt64(Self.ruleColours.count))],
                                   tone: rng.uniform(ruleTone.lowerBound, ruleTone.upperBound))
        let dotted = rng.nextFloat() < ruleDottedShare
        let dotStep = radius * 2 * rng.uniform(2, 3.5)
        var ink = PaperInk(width: canvas.width, height: canvas.height)
        let reach = abs(slope) * w + spacing
        var y = anchor - (((anchor + reach) / spacing).rounded(.down)) * spacing
        while y < h + reach {
            let ya = y + (0 - cx) * slope, yb = y + (w - cx) * slope
            if dotted {
                var x: Float = dotStep / 2
                while x < w {
                    let yx = y + (x - cx) * slope
                    ink.capsule(x, yx, x, yx, radius: radius)
                    x += dotStep
                }
            } else {
                ink.capsule(-2, ya, w + 2, yb, radius: radius)
            }
            y += spacing
        }
        // Column lines, perpendicular to the rules, in the outer fifth of a side and clear of the writing.
        if rng.nextFloat() < columnShare {
            let sides = [[true], [false], [true, false]][Int(rng.next() % 3)]
            for left in sides {
                let x = left ? w * rng.uniform(0.03, 0.2) : w * (1 - rng.uniform(0.03, 0.2))
                func at(_ y: Float) -> Float { x - (y - cy) * slope }
                let clear = writing.allSatisfy { b in
                    let xs = [at(Float(b.y)), at(Float(b.maxY))]
                    return xs.max()! + radius + 2 < Float(b.x) || xs.min()! - radius - 2 > Float(b.maxX)
                }
                if clear { ink.capsule(at(-2), -2, at(h + 2), h + 2, radius: radius) }
            }
        }
        canvas.overprint(ink.coverage, colour: colour, sigma: sigma)
    }

    /// Squared paper: lines both ways every `gridSpacing` writing heights at a random phase, turned
    /// with the writing (or a dot where they would cross).
    fileprivate func grid(on canvas: inout ArtefactCanvas, writing: [PixelRect], lineHeight: Float, angle: Float, sigma: Float,
                          rng: inout SplitMix64) {
        let w = Float(canvas.width), h = Float(canvas.height)
        let u = Self.union(writing) ?? PixelRect(x0: canvas.width / 2, y0: canvas.height / 2, x1: canvas.width / 2, y1: canvas.height / 2)
        let c = cos(angle * .pi / 180), s = sin(angle * .pi / 180)
        let cx = Float(u.x + u.maxX) / 2, cy = Float(u.y + u.maxY) / 2
        let spacing = max(5, lineHeight * rng.uniform(gridSpacing.lowerBound, gridSpacing.upperBound))
        let phaseX = rng.uniform(0, spacing), phaseY = rng.uniform(0, spacing)
        let radius = rng.uniform(ruleWidth.lowerBound, ruleWidth.upperBound) / 2
        let colour = Self.printing(Self.ruleColours[Int(rng.next() % UInt64(Self.ruleColours.count))],
                                   tone: rng.uniform(gridTone.lowerBound, gridTone.upperBound))
        let dotted = rng.nextFloat() < gridDottedShare
        var ink = PaperInk(width: canvas.width, height: canvas.height)
        // The sheet's own axes (u along the lines of writing, v down), turned by the angle about
        // the writing's middle: a point (u, v) of the sheet is (cx + u·c − v·s, cy + u·s + v·c).
        func point(_ a: Float, _ b: Float) -> (Float, Float) { (cx + a * c - b * s, cy + a * s + b * c) }
        let reach = (w + h) + spacing
        let first = -((reach + phaseX) / spacing).rounded(.down) * spacing + phaseX
        var k = first
        while k < reach {
            if dotted {
                var m = -((reach + phaseY) / spacing).rounded(.down) * spacing + phaseY
                while m < reach {
                    let (x, y) = point(k, m)
                    if x > -2, x < w + 2, y > -2, y < h + 2 { ink.capsule(x, y, x, y, radius: radius * 1.4) }
                    m += spacing
                }
            } else {
                // A line down the sheet at u = k, and one across it at v = k − phaseX + phaseY.
                let (ax, ay) = point(k, -reach), (bx, by) = point(k, reach)
                ink.capsule(ax, ay, bx, by, radius: radius)
                let v = k - phaseX + phaseY
                let (dx, dy) = point(-reach, v), (ex, ey) = point(reach, v)
                ink.capsule(dx, dy, ex, ey, radius: radius)
            }
            k += spacing
        }
        canvas.overprint(ink.coverage, colour: colour, sigma: sigma)
    }

    /// A word or two in a printed font beside the writing; false when no place is free.
    fileprivate func printWords(on canvas: inout ArtefactCanvas, writing: [PixelRect], lineHeight: Float, angle: Float, sigma: Float,
               rng: inout SplitMix64) -> Bool {
        let count = rng.nextFloat() < 0.4 ? 2 : 1
        var text = (0..<count).map { _ in words[Int(rng.next() % UInt64(words.count))] }.joined(separator: " ")
        if rng.nextFloat() < 0.25 { text = text.uppercased() }
        guard let typeset = typeset(text, rng: &rng) else { return false }
        // Hershey units: capitals from y = -12 to the baseline at 9, 21 units.
        let cap = max(6, lineHeight * rng.uniform(printHeight.lowerBound, printHeight.upperBound))
        let radius = max(0.35, cap * rng.uniform(0.035, 0.055))
        let gap = lineHeight * rng.uniform(0.15, 0.5)
        let w = Float(canvas.width), h = Float(canvas.height)
        let u = Self.union(writing) ?? PixelRect(x0: canvas.width / 2, y0: canvas.height / 2, x1: canvas.width / 2, y1: canvas.height / 2)
        let scale = cap / 21
        let width = typeset.width * scale, ascent = typeset.ascent * scale, descent = typeset.descent * scale
        // Left ends of the baseline: left of the writing, under it, above it, the bottom left corner.
        let places: [(Float, Float)] = [
            (Float(u.x) - gap - width, Float(u.maxY) - lineHeight * rng.uniform(0, 0.25)),
            (Float(u.x) + lineHeight * rng.uniform(-0.5, 0.5), Float(u.maxY) + gap + ascent),
            (Float(u.x) + lineHeight * rng.uniform(-0.5, 0.3), Float(u.y) - gap - descent),
            (w * rng.uniform(0.02, 0.08), h * rng.uniform(0.9, 0.97) - descent),
        ]
        let first = Int(rng.next() % UInt64(places.count))
        return overprint(typeset.strokes, cap: cap, radius: radius, places: (0..<places.count).map { places[(first + $0) % places.count] },
                         on: &canvas, writing: writing, angle: angle, sigma: sigma, rng: &rng)
    }

    /// A sign of `signs` printed left of the writing, on its line; false without room.
    fileprivate func printSign(on canvas: inout ArtefactCanvas, writing: [PixelRect], lineHeight: Float, angle: Float, sigma: Float,
                               rng: inout SplitMix64) -> Bool {
        let sign = signs[Int(rng.next() % UInt64(signs.count))]
        guard let typeset = typeset(sign, rng: &rng), let u = Self.union(writing) else { return false }
        var cap = max(6, lineHeight * rng.uniform(signHeight.lowerBound, signHeight.upperBound))
        var gap = lineHeight * rng.uniform(signGap.lowerBound, signGap.upperBound)
        let baseline = Float(u.maxY) - lineHeight * rng.uniform(0, 0.15)
        // Where the writing leaves too little room on its left, the nearest and largest that fits,
        // down to the smallest sign.
        let room = Float(u.x) - 3 - 0.06 * cap
        if gap + typeset.width * cap / 21 > room {
            gap = lineHeight * signGap.lowerBound
            cap = min(cap, (room - gap) * 21 / max(typeset.width, 1))
            guard cap >= max(6, lineHeight * signHeight.lowerBound) else { return false }
        }
        let radius = max(0.35, cap * rng.uniform(0.035, 0.055))
        return overprint(typeset.strokes, cap: cap, radius: radius, places: [(Float(u.x) - gap - typeset.width * cap / 21, baseline)],
                         on: &canvas, writing: writing, angle: angle, sigma: sigma, rng: &rng)
    }

    /// `text` typeset in the first of `printFonts`, from a random one on, that has every letter:
    /// its strokes from x = 0 (Hershey units, baseline at y = 9), width, and extent above and below
    /// the baseline. Nil when no font has them all.
    private func typeset(_ text: String, rng: inout SplitMix64) -> (strokes: [[(Float, Float)]], width: Float, ascent: Float, descent: Float)? {
        let start = Int(rng.next() % UInt64(printFonts.count))
        for k in 0..<printFonts.count {
            guard let strokes = Self.typeset(text, font: printFonts[(start + k) % printFonts.count], glyphs: glyphs),
                  !strokes.isEmpty else { continue }
            let points = strokes.joined()
            let minX = points.map(\.0).min()!, maxX = points.map(\.0).max()!
            let minY = points.map(\.1).min()!, maxY = points.map(\.1).max()!
            return (strokes.map { $0.map { ($0.0 - minX, $0.1) } }, maxX - minX, 9 - minY, maxY - 9)
        }
        return nil
    }

    /// Typeset strokes printed with capitals `cap` pixels tall in strokes `radius` pixels thick, the
    /// baseline's left end at the first of `places` where the print stays inside the image and
    /// clear of the writing; false when none.
    private func overprint(_ strokes: [[(Float, Float)]], cap: Float, radius: Float, places: [(Float, Float)], on canvas: inout ArtefactCanvas,
                           writing: [PixelRect], angle: Float, sigma: Float, rng: inout SplitMix64) -> Bool {
        let scale = cap / 21
        let w = Float(canvas.width), h = Float(canvas.height)
        let c = cos(angle * .pi / 180), s = sin(angle * .pi / 180)
        for (ox, oy) in places {
            let placed = strokes.map { stroke in
                stroke.map { p -> (Float, Float) in
                    let x = p.0 * scale, y = (p.1 - 9) * scale
                    return (ox + c * x - s * y, oy + s * x + c * y)
                }
            }
            let all = placed.joined()
            let bx0 = all.map(\.0).min()! - radius - 1, bx1 = all.map(\.0).max()! + radius + 1
            let by0 = all.map(\.1).min()! - radius - 1, by1 = all.map(\.1).max()! + radius + 1
            guard bx0 >= 1, by0 >= 1, bx1 <= w - 1, by1 <= h - 1 else { continue }
            let clear = writing.allSatisfy { b in
                bx1 + 2 < Float(b.x) || bx0 - 2 > Float(b.maxX) || by1 + 2 < Float(b.y) || by0 - 2 > Float(b.maxY)
            }
            guard clear else { continue }
            var ink = PaperInk(width: canvas.width, height: canvas.height)
            for stroke in placed {
                for i in 0..<max(1, stroke.count - 1) {
                    let a = stroke[i], b = stroke[min(i + 1, stroke.count - 1)]
                    ink.capsule(a.0, a.1, b.0, b.1, radius: radius)
                }
            }
            let tone = rng.uniform(0.1, 0.3)
            let hue = [PaperColour(1, 1, 1), PaperColour(0.8, 0.85, 1.4), PaperColour(1.1, 1, 0.9)][Int(rng.next() % 3)]
            canvas.overprint(ink.coverage, colour: Self.printing(hue, tone: tone), sigma: sigma)
            return true
        }
        return false
    }

    /// The strokes of `text` in `font` (Hershey units, y downward, baseline at 9), letters side by
    /// side; nil when a letter has no glyph in that font outside the held-out fonts.
    static func typeset(_ text: String, font: String, glyphs: [GlyphSamples.Glyph]) -> [[(Float, Float)]]? {
        var strokes: [[(Float, Float)]] = []
        var cursor: Float = 0
        for character in text {
            if character == " " {
                cursor += 9
                continue
            }
            guard let glyph = glyphs.first(where: {
                $0.drawing.label == String(character) && $0.fonts.contains(font) && !$0.isIn(GlyphSamples.heldOutFonts)
            }) else { return nil }
            let points = glyph.drawing.strokes.joined().filter { $0.x.isFinite && $0.y.isFinite }
            guard let left = points.map(\.x).min(), let right = points.map(\.x).max() else { return nil }
            strokes += glyph.drawing.strokes.map { $0.map { (cursor + $0.x - left, $0.y) } }
            cursor += right - left + 4
        }
        return strokes.isEmpty ? nil : strokes
    }

    /// `hue` scaled to luminance `tone`, each channel at most 1: a printing ink relative to the paper.
    static func printing(_ hue: PaperColour, tone: Float) -> PaperColour {
        let k = tone / max(hue.luminance, 1e-3)
        return PaperColour(min(1, hue.r * k), min(1, hue.g * k), min(1, hue.b * k))
    }

    /// Fine guilloche lines, a dot screen or hatching over the whole image in a pale colour.
    fileprivate func pattern(on canvas: inout ArtefactCanvas, sigma: Float, rng: inout SplitMix64) {
        let tint = Self.patternColours[Int(rng.next() % UInt64(Self.patternColours.count))]
        let k = rng.uniform(patternStrength.lowerBound, patternStrength.upperBound)
        let colour = PaperColour(1 - (1 - tint.r) * k, 1 - (1 - tint.g) * k, 1 - (1 - tint.b) * k)
        let width = canvas.width, height = canvas.height
        var cover = [Float](repeating: 0, count: width * height)
        // Coverage of a line `lineWidth` wide whose centre is `distance` away.
        func line(_ distance: Float, _ lineWidth: Float) -> Float { min(1, max(0, lineWidth / 2 + 0.5 - distance)) }
        switch rng.next() % 3 {
        case 0:
            // Two families of parallel waves of different wavelengths crossing each other.
            for _ in 0..<2 {
                let theta = rng.uniform(-0.35, 0.35), spacing = rng.uniform(4, 10)
                let amplitude = spacing * rng.uniform(0.4, 1.5), wavelength = rng.uniform(15, 60)
                let phase = rng.uniform(0, 2 * .pi), lineWidth = rng.uniform(0.6, 1.4)
                let c = cos(theta), s = sin(theta), waveNumber = 2 * Float.pi / wavelength
                for y in 0..<height {
                    for x in 0..<width {
                        let px = Float(x) + 0.5, py = Float(y) + 0.5
                        let u = px * c + py * s, v = -px * s + py * c
                        let r = v - amplitude * sin(waveNumber * u + phase)
                        let m = r - spacing * (r / spacing).rounded()
                        let slope = amplitude * waveNumber * cos(waveNumber * u + phase)
                        let i = y * width + x
                        cover[i] = max(cover[i], line(abs(m) / (1 + slope * slope).squareRoot(), lineWidth))
                    }
                }
            }
        case 1:
            let spacing = rng.uniform(4, 8), radius = rng.uniform(0.7, 1.5), theta = rng.uniform(0, .pi / 2)
            let c = cos(theta), s = sin(theta)
            for y in 0..<height {
                for x in 0..<width {
                    let px = Float(x) + 0.5, py = Float(y) + 0.5
                    let u = px * c + py * s, v = -px * s + py * c
                    let du = u - spacing * (u / spacing).rounded(), dv = v - spacing * (v / spacing).rounded()
                    cover[y * width + x] = line((du * du + dv * dv).squareRoot(), 2 * radius)
                }
            }
        default:
            let directions = rng.nextFloat() < 0.5 ? 1 : 2
            let theta = rng.uniform(0, .pi), spacing = rng.uniform(3, 7), lineWidth = rng.uniform(0.5, 1.1)
            for d in 0..<directions {
                let a = theta + Float(d) * .pi / 2
                let c = cos(a), s = sin(a)
                for y in 0..<height {
                    for x in 0..<width {
                        let v = -(Float(x) + 0.5) * s + (Float(y) + 0.5) * c
                        let i = y * width + x
                        cover[i] = max(cover[i], line(abs(v - spacing * (v / spacing).rounded()), lineWidth))
                    }
                }
            }
        }
        canvas.overprint(cover, colour: colour, sigma: sigma)
    }

    /// A near-black band with a soft edge along a side that has room beside the writing; false
    /// when none has.
    fileprivate func margin(on canvas: inout ArtefactCanvas, writing: [PixelRect], rng: inout SplitMix64) -> Bool {
        let width = canvas.width, height = canvas.height
        let u = Self.union(writing)
        let first = Int(rng.next() % 4)
        let want = rng.uniform(marginWidth.lowerBound, marginWidth.upperBound)
        let tone = rng.uniform(marginTone.lowerBound, marginTone.upperBound)
        let slant = rng.uniform(-0.02, 0.02)
        let shade = rng.uniform(-0.3, 0.3)
        let seed = rng.next()
        for k in 0..<4 {
            // 0 left, 1 right, 2 top, 3 bottom.
            let side = (first + k) % 4
            let across = Float(side < 2 ? width : height), along = Float(side < 2 ? height : width)
            let room: Float
            switch side {
            case 0: room = Float(u?.x ?? width)
            case 1: room = Float(width - (u?.maxX ?? 0))
            case 2: room = Float(u?.y ?? height)
            default: room = Float(height - (u?.maxY ?? 0))
            }
            let soft = 1 + 0.015 * across
            let most = room - soft / 2 - 2 - abs(slant) * along / 2
            guard most >= marginWidth.lowerBound * across else { continue }
            let band = min(want * across, most)
            var alpha = [Float](repeating: 0, count: width * height)
            var value = [Float](repeating: 0, count: width * height)
            for y in 0..<height {
                for x in 0..<width {
                    let px = Float(x) + 0.5, py = Float(y) + 0.5
                    let depth: Float
                    switch side {
                    case 0: depth = px
                    case 1: depth = Float(width) - px
                    case 2: depth = py
                    default: depth = Float(height) - py
                    }
                    let position = side < 2 ? py : px
                    let edge = band + slant * (position - along / 2)
                    let t = min(1, max(0, (edge - depth) / soft + 0.5))
                    let i = y * width + x
                    alpha[i] = t * t * (3 - 2 * t)
                    value[i] = tone * (1 + shade * (position / along - 0.5)) + 0.012 * PaperPixels.gaussian(seed, i)
                }
            }
            canvas.cover(alpha, with: value)
            return true
        }
        return false
    }
}

/// The image as planes of Float 0…1 (R, G, B or gray) while artefacts are printed on it.
private struct ArtefactCanvas {
    let width: Int
    let height: Int
    var planes: [[Float]]

    init(_ image: PaperImage) {
        width = image.width
        height = image.height
        if let rgb = image.rgb {
            planes = (0..<3).map { c in (0..<(image.width * image.height)).map { Float(rgb[3 * $0 + c]) / 255 } }
        } else {
            planes = [image.gray.map { Float($0) / 255 }]
        }
    }

    /// Printing of reflectance `colour` (relative to the paper) where `cover` says (0…1), blurred
    /// by `sigma` pixels: each channel multiplied by 1 − cover × (1 − colour).
    mutating func overprint(_ cover: [Float], colour: PaperColour, sigma: Float) {
        var cover = cover
        PaperPixels.blur(&cover, width: width, height: height, sigma: sigma)
        let channels = planes.count == 3 ? [colour.r, colour.g, colour.b] : [colour.luminance]
        for ch in planes.indices {
            let q = 1 - channels[ch]
            for i in cover.indices where cover[i] > 0 { planes[ch][i] *= 1 - cover[i] * q }
        }
    }

    /// `value` (gray, the same on every channel) laid over the image with opacity `alpha`.
    mutating func cover(_ alpha: [Float], with value: [Float]) {
        for ch in planes.indices {
            for i in alpha.indices where alpha[i] > 0 { planes[ch][i] += (value[i] - planes[ch][i]) * alpha[i] }
        }
    }

    /// The planes back into `image`'s bytes, gray from RGB as the renderer makes it.
    func write(into image: inout PaperImage) {
        if planes.count == 3 {
            var rgb = [UInt8](repeating: 0, count: 3 * width * height)
            for i in 0..<(width * height) {
                for c in 0..<3 { rgb[3 * i + c] = PaperPixels.byte(planes[c][i]) }
            }
            image.rgb = rgb
            image.gray = PaperPixels.gray(fromRGB: rgb)
        } else {
            image.gray = planes[0].map(PaperPixels.byte)
        }
    }
}

extension PaperArtefacts {
    /// Throws `.usage` naming a setting out of range.
    func validate() throws {
        guard (0...1).contains(rate) else { throw DigitError(.usage, "artefact rate \(rate) is outside 0…1") }
        let ranges: [(String, ClosedRange<Float>, ClosedRange<Float>)] = [
            ("marginWidth", marginWidth, 0.01...0.5), ("marginTone", marginTone, 0...1), ("ruleWidth", ruleWidth, 0.2...10),
            ("ruleTone", ruleTone, 0...1), ("ruleSpacing", ruleSpacing, 0.3...10),
            ("gridTone", gridTone, 0...1), ("gridSpacing", gridSpacing, 0.2...10), ("printHeight", printHeight, 0.05...2),
            ("signHeight", signHeight, 0.05...2), ("signGap", signGap, 0...5),
            ("patternStrength", patternStrength, 0...1), ("lightGradient", lightGradient, 0...1), ("lightSpot", lightSpot, 0...1),
            ("lightBlur", lightBlur, 0...50), ("smallHeight", smallHeight, 8...4096), ("closeupFill", closeupFill, 0.5...2),
        ]
        for (name, value, allowed) in ranges where !(allowed.contains(value.lowerBound) && allowed.contains(value.upperBound)) {
            throw DigitError(.usage, "\(name) \(value) is outside \(allowed)")
        }
        for (name, value) in [("ruleDottedShare", ruleDottedShare), ("columnShare", columnShare), ("gridDottedShare", gridDottedShare)] where !(0...1).contains(value) {
            throw DigitError(.usage, "\(name) \(value) is outside 0…1")
        }
        guard (1...100).contains(lightQuality.lowerBound), (1...100).contains(lightQuality.upperBound) else {
            throw DigitError(.usage, "lightQuality \(lightQuality) is outside 1…100")
        }
        guard !marks.isEmpty, marks.allSatisfy(Self.knownMarks.contains) else {
            throw DigitError(.usage, "marks \(marks) must be some of \(Self.knownMarks.sorted())")
        }
        if !kinds.isDisjoint(with: [.print, .signs]) {
            guard !words.isEmpty, !signs.isEmpty, !printFonts.isEmpty else { throw DigitError(.usage, "print and signs need words, signs and printFonts") }
            guard glyphs.contains(where: { g in printFonts.contains { g.fonts.contains($0) } }) else {
                throw DigitError(.usage, "print and signs need stroke-font glyphs of \(printFonts.joined(separator: ", ")) (GlyphSamples.load)")
            }
        }
    }
}
