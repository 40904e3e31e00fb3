import DigitWeights
import Foundation

/// The symbols a line model spells, one class each after the CTC blank: the ten digits, `*` for
/// any other character (a letter: the line is then not a number) and `.` for the marks written
/// with numbers and amounts (`.`, `,`, `-`, `=`, `/`, a ditto `"`), which are never digits.
public enum LineSymbols {
    /// The classes of a line model's outputs, in order: blank, digits, other, mark.
    public static let classes = "_0123456789*."
    public static let blank = 0, other = 11, mark = 12
    static let marks: Set<Character> = [".", ",", "-", "=", "/", "\"", "'", ":", "+", "_", "—", "–"]

    /// The class of one character of a label, nil for a space.
    public static func symbol(_ c: Character) -> Int? {
        if c == " " || c == "\t" { return nil }
        if let d = c.wholeNumberValue, c.isASCII { return 1 + d }
        return marks.contains(c) ? mark : other
    }

    /// A label as the classes it spells.
    public static func classes(of label: String) -> [Int] { label.compactMap(symbol) }
}

/// One symbol of a decoded line: its class (`LineSymbols`), the columns it was read in, and the
/// class probabilities at the column where it was surest.
struct LineSymbol {
    var symbol: Int
    var first: Int, last: Int
    var probability: Float
    var probabilities: [Float]
}

/// Decoding a line model's columns (Graves et al. 2006, best path): each column's best class,
/// repeats merged and blanks dropped.
enum LineDecoding {
    /// The best path's symbols and `gap`: the largest probability of any symbol in a column the
    /// path reads as blank, away from the symbols' own columns (where a symbol the path missed
    /// would be).
    static func decode(_ logits: UnsafePointer<Float>, frames t: Int, classes c: Int, temperature: Float)
        -> (symbols: [LineSymbol], gap: Float) {
        var symbols: [LineSymbol] = []
        var p = [Float](repeating: 0, count: c)
        var previous = LineSymbols.blank
        var blankColumns: [(column: Int, other: Float)] = []
        for f in 0..<t {
            p.withUnsafeMutableBufferPointer { softmax(logits + f * c, count: c, temperature: temperature, into: $0.baseAddress!) }
            var best = 0
            for k in 1..<c where p[k] > p[best] { best = k }
            if best == LineSymbols.blank {
                // A mark the path missed changes no digit: only digits and letters count.
                blankColumns.append((f, 1 - p[0] - (LineSymbols.mark < c ? p[LineSymbols.mark] : 0)))
            } else if best == previous, var last = symbols.popLast() {
                last.last = f
                if p[best] > last.probability { last.probability = p[best]; last.probabilities = p }
                symbols.append(last)
            } else {
                symbols.append(LineSymbol(symbol: best, first: f, last: f, probability: p[best], probabilities: p))
            }
            previous = best
        }
        let gap = blankColumns.filter { col in !symbols.contains { abs($0.first - col.column) <= 1 || abs($0.last - col.column) <= 1 } }
            .map(\.other).max() ?? 0
        return (symbols, gap)
    }

    /// The first look's symbols with the further looks' (the same strip read moved aside)
    /// combined: when every look spells the same digits and letters in the same order (marks
    /// aside), each of them gets the mean of its looks' probabilities; when any look spells
    /// otherwise, every symbol keeps half its probabilities, so nothing of it is answered.
    static func combined(_ first: [LineSymbol], further: [[LineSymbol]]) -> [LineSymbol] {
        let looks = further.map(spelling)
        var symbols = first
        guard agree(first, further: further) else {
            for i in symbols.indices { symbols[i].probabilities = symbols[i].probabilities.map { $0 * 0.5 } }
            return symbols
        }
        let share = 1 / Float(1 + looks.count)
        var k = 0
        for i in symbols.indices where symbols[i].symbol != LineSymbols.mark {
            for c in symbols[i].probabilities.indices {
                symbols[i].probabilities[c] = looks.reduce(symbols[i].probabilities[c]) { $0 + $1[k].probabilities[c] } * share
            }
            k += 1
        }
        return symbols
    }

    /// Whether the further looks spell the same digits and letters as the first (marks aside).
    static func agree(_ first: [LineSymbol], further: [[LineSymbol]]) -> Bool {
        let spelled = spelling(first).map(\.symbol)
        return further.allSatisfy { spelling($0).map(\.symbol) == spelled }
    }

    /// A look's symbols other than marks.
    private static func spelling(_ look: [LineSymbol]) -> [LineSymbol] { look.filter { $0.symbol != LineSymbols.mark } }

    /// The best path's symbols (for training's validation).
    static func greedy(_ logits: UnsafePointer<Float>, frames t: Int, classes c: Int, temperature: Float) -> [LineSymbol] {
        decode(logits, frames: t, classes: c, temperature: temperature).symbols
    }
}

/// Reads a line of writing on paper with a line model (`ModelFile.isLineModel`): the line is cut
/// out of the image (`LineImage`), scaled to 32 pixels tall, drawn as many times as wide as the
/// model trained on (`ModelFile.lineStretch`), and the model reads it whole, column by column, so
/// digits that touch or overlap need no cut between them. Each digit is as sure as
/// its surest column, averaged over three looks (`read(_:marksCutDigits:)`); a number is answered
/// only when every digit is at least `threshold` sure,
/// nothing in the line reads as a letter, and no column read as empty between them held a symbol
/// with more than 1 − `threshold` of the probability (a digit the path may have missed).
/// Marks written with numbers (`.`, `,`, `-`, `=`, `/-`) are read as marks and left out of the text.
public final class LineReader: @unchecked Sendable {
    public let model: ModelFile
    public var threshold: Float
    /// The widths networks are made for: a strip is centred in the narrowest that holds it.
    public static let widths = [160, 256, 384, LineImage.maxWidth]
    private var networks: [Int: (InferenceNetwork, InferenceNetwork.Workspace)] = [:]
    private let lock = NSLock()

    public init(model: ModelFile, threshold: Float = 0.9) throws {
        guard model.isLineModel else {
            throw DigitError(.usage, "not a line model: its classes are '\(model.classes)', a line model's '\(LineSymbols.classes)'")
        }
        self.model = model
        self.threshold = threshold
    }

    /// The shipped paper model (`ShippedWeights.paperPath`), or the file `weightsPath` names, or
    /// `$DIGITS_PAPER_WEIGHTS` when set.
    public convenience init(weightsPath: String? = nil, threshold: Float = 0.9) throws {
        let path = try weightsPath ?? Self.defaultWeightsPath()
        try self.init(model: try ModelFile.load(path: path), threshold: threshold)
    }

    public static func defaultWeightsPath() throws -> String {
        if let env = ProcessEnvironment.value("DIGITS_PAPER_WEIGHTS") { return env }
        if let path = ShippedWeights.paperPath { return path }
        throw DigitError(.io, "no paper model found: DIGITS_PAPER_WEIGHTS is not set and the shipped one is not at "
            + ShippedWeights.candidates(ShippedWeights.paperFileName).joined(separator: " or "))
    }

    /// The network and workspace for lines `width` wide, made once.
    private func network(width: Int) throws -> (InferenceNetwork, InferenceNetwork.Workspace) {
        lock.lock()
        defer { lock.unlock() }
        if let n = networks[width] { return n }
        let net = try model.makeNetwork(width: width)
        let made = (net, net.makeWorkspace())
        networks[width] = made
        return made
    }

    /// A strip as the model reads it: widened by the model's `lineStretch` (as far as the widest
    /// network allows), the strip's pixels sampled linearly between columns.
    struct Drawn {
        var pixels: [Float]
        var width: Int
        var stretch: Float
    }

    func drawn(_ strip: LineImage) -> Drawn {
        let stretch = min(model.lineStretch, Float(LineImage.maxWidth) / Float(strip.width))
        guard stretch != 1 else { return Drawn(pixels: strip.pixels, width: strip.width, stretch: 1) }
        let h = LineImage.height, width = min(LineImage.maxWidth, Int((Float(strip.width) * stretch).rounded()))
        var pixels = [Float](repeating: 0, count: h * width)
        for y in 0..<h {
            for x in 0..<width {
                pixels[y * width + x] = LineImage.sample(strip.pixels, width: strip.width, height: h, x: (Float(x) + 0.5) / stretch,
                                                         y: Float(y) + 0.5, radius: 0.5)
            }
        }
        return Drawn(pixels: pixels, width: width, stretch: stretch)
    }

    /// The per-column logits of a strip (drawn as the model reads it, centred in the narrowest
    /// network width that holds it, moved `shift` pixels right), with the strip's x of column 0
    /// and the strip pixels per column.
    func logits(_ strip: LineImage, shift: Int = 0) throws -> (logits: [Float], columns: Int, x0: Float, step: Float) {
        try logits(drawn(strip), shift: shift)
    }

    func logits(_ drawn: Drawn, shift: Int = 0) throws -> (logits: [Float], columns: Int, x0: Float, step: Float) {
        let width = Self.widths.first { $0 >= drawn.width + shift } ?? LineImage.maxWidth
        let (net, ws) = try network(width: width)
        let h = LineImage.height, stretch = drawn.stretch
        var input = [Float](repeating: 0, count: h * width)
        let offset = min(max(0, (width - drawn.width) / 2 + shift), max(0, width - drawn.width))
        for y in 0..<h { for x in 0..<min(drawn.width, width) { input[y * width + offset + x] = drawn.pixels[y * drawn.width + x] } }
        var out = [Float](repeating: 0, count: net.outputShape.count)
        lock.lock()   // the workspace is one per width
        input.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { net.logits(pixels: i.baseAddress!, workspace: ws, into: $0.baseAddress!) } }
        lock.unlock()
        let step = Float(width) / Float(net.outputShape.width) / stretch
        return (out, net.outputShape.width, -Float(offset) / stretch, step)
    }

    /// Reads the line of writing in `image`.
    public func read(image: DecodedImage) throws -> NumberReading {
        try read(LineImage(image: image))
    }

    /// Each symbol's span on the strip (its columns, in strip pixels) widened to the ink around
    /// it: a symbol is often read at one column, narrower than its digit. The ink taken is the
    /// columns holding a pixel at 0.25 or more, no further than half-way to the next symbol on
    /// either side and than `reach` pixels beyond the symbol's columns (about half a digit).
    static func inkSpans(_ spans: [(Float, Float)], strip: LineImage, reach: Float = 12) -> [(Float, Float)] {
        guard !spans.isEmpty, strip.width > 0 else { return spans }
        let h = LineImage.height
        let ink = (0..<strip.width).map { x in (0..<h).contains { strip.pixels[$0 * strip.width + x] >= 0.25 } }
        return spans.indices.map { i in
            let (a, b) = spans[i]
            let lo = max(a - reach, i > 0 ? (spans[i - 1].1 + a) / 2 : -.infinity)
            let hi = min(b + reach, i + 1 < spans.count ? (b + spans[i + 1].0) / 2 : .infinity)
            let from = max(0, Int(lo.rounded(.up))), to = min(strip.width, Int(hi.rounded(.down)))
            guard from < to, let first = (from..<to).first(where: { ink[$0] }), let last = (from..<to).last(where: { ink[$0] }) else {
                return (a, b)
            }
            return (min(a, Float(first)), max(b, Float(last + 1)))
        }
    }

    /// The shifts of the further looks, in strip pixels: a third and two thirds of a column.
    static let furtherLooks = [3, 5]

    /// Reads a strip: digits left to right with their boxes in the image's pixels.
    ///
    /// The strip is read three times, moved a third of a column to the side each time, so that
    /// the model's columns fall elsewhere on the writing each time (an ensemble of one model).
    /// A reading the looks do not agree on (other symbols, in another order) is not answered:
    /// its digits keep half their probability. Where they agree, each digit's probabilities are
    /// the mean of its three looks', and so is the probability of a symbol missed between them
    /// (`LineDecoding.decode`'s gap), which scales every digit. With `marksCutDigits`, a digit
    /// whose ink runs into the image's top or bottom is marked as cut by the frame
    /// (`ReadDigit.isCutByFrame`).
    public func read(_ strip: LineImage, marksCutDigits: Bool = true) throws -> NumberReading {
        guard !strip.isEmpty else { return .empty(threshold: threshold) }
        let drawn = drawn(strip)   // once for the three looks
        let (logits, columns, x0, step) = try logits(drawn)
        let classes = LineSymbols.classes.count
        var (symbols, gap) = logits.withUnsafeBufferPointer {
            LineDecoding.decode($0.baseAddress!, frames: columns, classes: classes, temperature: model.temperature)
        }
        var looks: [[LineSymbol]] = []
        for shift in Self.furtherLooks {
            let look = try self.logits(drawn, shift: shift)
            let (read, lookGap) = look.logits.withUnsafeBufferPointer {
                LineDecoding.decode($0.baseAddress!, frames: look.columns, classes: classes, temperature: model.temperature)
            }
            gap += lookGap
            looks.append(read)
        }
        gap /= Float(1 + looks.count)   // like the digits' probabilities, the mean of the looks'
        let firstLook = symbols
        let looksAgree = LineDecoding.agree(symbols, further: looks)
        symbols = LineDecoding.combined(symbols, further: looks)
        let missed = 1 - gap   // the share of the reading's probability that no symbol was missed
        var digits: [ReadDigit] = []
        var marks: [InkBox] = []
        // A symbol's own columns, in strip pixels.
        func span(_ s: LineSymbol) -> (a: Float, b: Float) { (x0 + Float(s.first) * step, x0 + Float(s.last + 1) * step) }
        let spans = Self.inkSpans(symbols.map { span($0) }, strip: strip)
        for (s, (sx0, sx1)) in zip(symbols, spans) {
            let box = strip.digitBox(sx0..<sx1)
            if s.symbol == LineSymbols.mark {
                marks.append(box)
                continue
            }
            // The ten digits' probabilities at the surest column, as a share of the reading's.
            let ten = (0..<10).map { s.probabilities[1 + $0] * missed }
            let order = (0..<10).sorted { ten[$0] > ten[$1] }
            let notADigit = s.probabilities[LineSymbols.other]
            let confidence = ten[order[0]]
            let isDigit = s.symbol != LineSymbols.other
            digits.append(ReadDigit(digit: isDigit && confidence >= threshold ? order[0] : nil, confidence: confidence,
                                    notADigit: isDigit ? notADigit : max(notADigit, confidence + 1e-6),
                                    top: order.prefix(3).map { ($0, ten[$0]) }, probabilities: ten, box: box, strokes: []))
        }
        if digits.isEmpty {
            // Ink, but nothing the model reads as a digit or a letter in it (a lone mark, a smudge):
            // not sure, never empty, so nothing is answered.
            let box = strip.clamped(InkBox(x0: strip.originX, y0: strip.originY, x1: strip.originX + Float(strip.width) * strip.scale,
                                           y1: strip.originY + Float(LineImage.height) * strip.scale))
            digits = [ReadDigit(digit: nil, confidence: gap * missed, notADigit: 0, top: [], probabilities: [], box: box, strokes: [])]
        }
        let nothingRead = symbols.allSatisfy { $0.symbol == LineSymbols.mark }
        var reading = NumberReading(digits: digits, threshold: threshold)
        reading.marks = marks
        reading.isNothingRead = nothingRead
        reading.looksDisagree = !looksAgree
        // A digit whose own columns hold ink that runs into the top or bottom of the image may be
        // more than the photo shows: never answered, its probabilities halved. (A digit read
        // where the line runs into the image's side is not marked: on real scans that is mostly a
        // tight crop's whole digit or a rule's remains. Slices there are `sideSlices`'.)
        if marksCutDigits, !strip.cutByFrame.isEmpty, !nothingRead {
            // The digits are the symbols other than marks, in order.
            // Each cut pixel column goes to the nearest digit's columns, within one column of
            // them (a digit's symbol may stand on a column beside the ink the frame cuts).
            let spans = symbols.filter { $0.symbol != LineSymbols.mark }.map(span)
            var cut = Set<Int>()
            for x in strip.cutByFrame.indices where strip.cutByFrame[x] {
                let c = Float(x) + 0.5
                let distances = spans.map { max(0, $0.a - c, c - $0.b) }
                if let k = distances.indices.min(by: { distances[$0] < distances[$1] }), distances[k] <= step { cut.insert(k) }
            }
            reading.markCutByFrame(at: cut.sorted())
        }
        if marksCutDigits, !nothingRead, !strip.cutBySides.isEmpty {
            let markSpans = symbols.filter { $0.symbol == LineSymbols.mark }.map(span)
            // A slice read as a mark is passed over only in a crop cut around the writing (an
            // amount's `/-` running into its edge); where the writing is small in the frame, a
            // photo cut through a digit leaves a piece that reads as a mark just as well.
            let sides = try sideSlices(strip, drawn: drawn, read: firstLook, markSpans: strip.fillsFrame ? markSpans : [])
            reading.addCutBySides(strip, sides.skipped)
            // A slice read as a digit, where the writing is small in the frame (no crop cut
            // around it): that digit may be more than the photo shows.
            if !strip.fillsFrame, !reading.digits.isEmpty {
                // The digits at the ends, past a `?` just added there.
                let first = sides.skipped.contains(where: strip.isAtLeft) ? 1 : 0
                let last = reading.digits.count - 1 - (sides.skipped.contains { !strip.isAtLeft($0) } ? 1 : 0)
                let cut = sides.read.map { strip.isAtLeft($0) ? first : last }
                reading.markCutByFrame(at: Set(cut.filter { reading.digits.indices.contains($0) }).sorted())
            }
        }
        return reading
    }

    /// The slices of digits that the image's left or right side cuts (`LineImage.cutBySides`),
    /// by what the model made of them: `skipped`, when the strip read again (one look) with the
    /// slice's columns blank reads the same digits as `read` (the first look's symbols); `read`,
    /// when it reads other digits (the slice was read as a digit, or as part of one). A slice
    /// where a mark was read (`markSpans`, strip pixels: the caller's choice) is neither.
    private func sideSlices(_ strip: LineImage, drawn: Drawn, read: [LineSymbol], markSpans: [(a: Float, b: Float)]) throws
        -> (skipped: [Range<Float>], read: [Range<Float>]) {
        let digits = read.map(\.symbol).filter { $0 != LineSymbols.mark }
        var slices: (skipped: [Range<Float>], read: [Range<Float>]) = ([], [])
        for side in strip.cutBySides where !markSpans.contains(where: { $0.a <= side.upperBound && $0.b >= side.lowerBound }) {
            var blank = drawn
            let from = max(0, Int((side.lowerBound * drawn.stretch).rounded(.down)))
            let to = min(drawn.width, Int((side.upperBound * drawn.stretch).rounded(.up)))
            guard from < to else { continue }
            for y in 0..<LineImage.height { for x in from..<to { blank.pixels[y * drawn.width + x] = 0 } }
            let (logits, columns, _, _) = try logits(blank)
            let again = logits.withUnsafeBufferPointer {
                LineDecoding.decode($0.baseAddress!, frames: columns, classes: LineSymbols.classes.count, temperature: model.temperature).symbols
            }
            if again.map(\.symbol).filter({ $0 != LineSymbols.mark }) == digits { slices.skipped.append(side) } else { slices.read.append(side) }
        }
        return slices
    }
}

extension NumberReading {
    /// Slices of digits that the image's left or right side cuts and the model skipped (`slices`,
    /// strip pixels: `LineReader.sideSlices`): the rest of the number would be answered
    /// without them. Each becomes a digit of its own, cut by the frame, with no guess: "?" at
    /// that end, so the number is not answered.
    mutating func addCutBySides(_ strip: LineImage, _ slices: [Range<Float>]) {
        guard !slices.isEmpty else { return }
        // One digit a side: the slices at the left, then those at the right, each side's joined.
        let atLeft = slices.filter(strip.isAtLeft), atRight = slices.filter { !strip.isAtLeft($0) }
        for (side, left) in [(atLeft, true), (atRight, false)] {
            guard let from = side.map(\.lowerBound).min(), let to = side.map(\.upperBound).max() else { continue }
            var cut = ReadDigit(digit: nil, confidence: 0, notADigit: 0, top: [], probabilities: [], box: strip.digitBox(from..<to), strokes: [])
            cut.isCutByFrame = true
            digits.insert(cut, at: left ? 0 : digits.count)
        }
        updateTextAndConfidence()
    }
}
