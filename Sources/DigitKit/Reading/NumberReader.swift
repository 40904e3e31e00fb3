import DigitKernels
import Foundation

/// One digit of a number as read: the best digit (nil below the threshold), its probability,
/// the three best candidates, and where it is in the drawing.
public struct ReadDigit: Sendable {
    /// The digit, or nil when its probability is below the threshold ("not sure").
    public var digit: Int?
    /// The probability of the best digit.
    public var confidence: Float
    /// The probability that this ink is not a digit (0 with a network that has no such output).
    public var notADigit: Float
    /// The three best digits, best first.
    public var top: [(digit: Int, probability: Float)]
    /// The ten digits' probabilities.
    public var probabilities: [Float] = []
    /// The 28×28 image the network saw for this digit (0 = background, 1 = ink).
    public var raster: [Float] = []
    /// The digit's box in the drawing's coordinates.
    public var box: InkBox
    /// Indices of the drawing's strokes that make the digit (a stroke that runs through two digits
    /// is listed in both).
    public var strokes: [Int]
    /// The best digit whatever its probability.
    public var bestGuess: Int { top.first?.digit ?? 0 }
    /// True when "not a digit" is more likely than any digit (a network with that output) and
    /// the digit is not cut by the image's frame (a slice of a digit may look like none).
    public var isNotADigit: Bool { !isCutByFrame && notADigit > confidence }
    /// True for ink that the photo's frame cuts (images only): the digit may be more than the
    /// image shows, so it is never answered and its probabilities are halved.
    public var isCutByFrame = false

    /// True for a digit not answered only because of the "not a digit" output's share: its best
    /// digit holds at least `threshold` of the ten digits' probabilities and at least what "not a
    /// digit" has, and nothing else lowered it (a cut by the frame). For analysis: what that
    /// output costs in answers.
    public func isHeldBackByNotADigit(threshold: Float) -> Bool {
        digit == nil && !isCutByFrame && !isNotADigit && notADigit < 1 && confidence >= threshold * (1 - notADigit)
    }
}

/// A number read from a drawing: its digits left to right. A photo or a drawing with several
/// lines of writing gives one reading of all of them, top to bottom (`lines`).
public struct NumberReading: Sendable {
    /// The digits left to right, `?` for each digit below the threshold ("20?6"); empty for an
    /// empty drawing. Lines are separated by a space ("9 5351").
    public var text: String
    /// The probability that every digit is right: the product of the digits' probabilities.
    public var confidence: Float
    public var digits: [ReadDigit]
    public var threshold: Float
    /// The reading's score for the search that found it: the sum over its digits of log P(digit)
    /// and the geometry terms (`NumberReaderOptions`).
    public internal(set) var score: Float = 0
    /// For analysis, with `NumberReaderOptions.expected` (else nil): the best score (as `score`) of
    /// a reading of the same candidates as those digits, −∞ when no run of candidates makes them.
    /// Below `score` for a wrong reading: the network or the geometry preferred another; −∞: the
    /// right digits were not among the ways the ink was cut.
    public internal(set) var expectedScore: Float?
    /// The indices of the digits that begin a line after the first (a photo or a drawing with
    /// several lines of writing); empty for one line.
    public internal(set) var lineStarts: [Int] = []
    /// Marks read beside the digits by the paper reader (`.`, `,`, `-`, `=`, `/-` written with
    /// numbers and amounts): never digits, left out of `text`; their boxes in the image's pixels.
    public internal(set) var marks: [InkBox] = []
    /// True when the paper reader found ink but read no digit or letter in it (a smudge, an
    /// underline alone, only marks): "not sure".
    public internal(set) var isNothingRead = false
    /// A line reading whose looks spelled the line differently (`LineDecoding.agree`): each digit
    /// keeps half its probability.
    var looksDisagree = false
    /// The digits of each line, top to bottom, as ranges of `digits` (one range for one line,
    /// none for an empty reading).
    public var lines: [Range<Int>] {
        guard !digits.isEmpty else { return [] }
        let bounds = [0] + lineStarts + [digits.count]
        return (0..<(bounds.count - 1)).map { bounds[$0]..<bounds[$0 + 1] }
    }
    /// True when every digit is above the threshold (and there is at least one).
    public var isAnswered: Bool { !digits.isEmpty && digits.allSatisfy { $0.digit != nil } }
    public var isEmpty: Bool { digits.isEmpty }
    /// True when some of the ink is more likely not a digit than any digit: the window and the
    /// command line say "not a digit" rather than "not sure".
    public var hasNotADigit: Bool { digits.contains { $0.isNotADigit } }
    /// True when the reading is not answered only because of the "not a digit" output's share:
    /// every digit below the threshold is `ReadDigit.isHeldBackByNotADigit` (for analysis).
    public var isHeldBackByNotADigit: Bool {
        !isAnswered && !isEmpty && digits.allSatisfy { $0.digit != nil || $0.isHeldBackByNotADigit(threshold: threshold) }
    }
    /// The best digits whatever their probabilities (lines separated by a space, as in `text`).
    public var bestText: String { joinedByLine { String($0.bestGuess) } }

    /// The digits' strings, a space before each line after the first.
    private func joinedByLine(_ string: (ReadDigit) -> String) -> String {
        lines.map { digits[$0].map(string).joined() }.joined(separator: " ")
    }

}

/// What the number reader weighs besides the network's probabilities. A reading's score is the sum
/// over its digits of log P(best digit) and these geometry terms (each 0 for digits of ordinary
/// shape): digits on one line are about as tall as the line and rarely wider than it is tall, and
/// neighbours overlap at most a little.
public struct NumberReaderOptions: Sendable, Equatable {
    /// Penalty per line height a digit falls short of half the line's height (a 5's hat alone, a dot).
    public var shortPenalty: Float = 8
    /// Penalty per line height a digit is wider than 1.25 line heights (two digits taken as one).
    public var widePenalty: Float = 6
    /// Penalty per unit of overlap between neighbours, measured as a share of the narrower one.
    public var overlapPenalty: Float = 3
    /// Penalty per line height that neighbours overlap beyond `overlapAllowance` line heights:
    /// digits on a line overlap a little where they touch, the strokes of one letter (an X, a Y)
    /// almost entirely.
    public var deepOverlapPenalty: Float = 12
    public var overlapAllowance: Float = 0.25
    /// What it costs, in log-probability, to read a candidate as "not a digit" (a network with that
    /// output): a reading may then hold ink that is no digit (an X, a letter, a scribble) instead
    /// of cutting it into digit-like pieces, but only where every way of reading it as digits is
    /// much less likely. Nil: every candidate is scored by its best digit.
    public var notADigitCost: Float? = 4
    /// The share of their probability kept by neighbouring digits of a drawing that were drawn as
    /// one figure: a stroke of one ends within 2% of the line's height of an end of a stroke of
    /// the other, or one stroke runs through both. Hand-written digits begin apart from where the
    /// one before ended; the strokes of a V, an n or a w, cut into 1s and 7s, meet end to end. At
    /// 0.5 such digits are not answered; 1 leaves them as read.
    public var joinedShare: Float = 0.5
    /// The most digits a reading may have (nil: no bound).
    public var maxDigits: Int?
    /// Whether candidates are scored with the network's "not a digit" output (when it has one).
    /// False scores them on the ten digits alone, as a network without that output would: for
    /// measuring what the output does for reading (`digits eval --ignore-not-a-digit`).
    public var usesNotADigit = true
    /// For analysis (`digits eval`): the digits the ink should read; the reading then carries the
    /// best score of a reading as those digits (`NumberReading.expectedScore`).
    public var expected: String?
    public init() {}

    /// The options for digits on paper (`ImageOptions.reader`), which differ from a drawing's in two:
    /// - no `overlapPenalty`: on paper, digits written close together overlap as boxes without
    ///   sharing a stroke, and digits cut apart along a slanted seam share columns, so overlap is
    ///   no sign of a wrong reading (on the development pictures the drawing's penalty of 3 cost
    ///   1.5 points of exact matches);
    /// - no `notADigitCost`: the ink found on a page is meant to be digits, and two touching
    ///   digits that no seam parts well are better read as the digits they most resemble (with
    ///   the drawing's cost of 4, fold 0's model read 0.75 points fewer development photos
    ///   exactly and answered none more: docs/numbers.md).
    public static var paper: NumberReaderOptions {
        var options = NumberReaderOptions()
        options.overlapPenalty = 0
        options.notADigitCost = nil
        return options
    }
}

extension DigitRecognizer {
    /// Reads the number written in `drawing`: one or more digits left to right on one line, each of
    /// one or more strokes in any order. Candidate digits (runs of neighbouring strokes, and pieces
    /// of strokes that run through two digits) are scored by the network, and the best reading —
    /// the highest sum of log-probabilities and geometry terms — is found by dynamic programming.
    /// Throws a `.limit` error for a drawing of too many parts (more than 600 strokes and pieces).
    /// A drawing written in several lines, one under another with blank rows between them
    /// (`Segmentation.lines`), is read line by line, top to bottom, into one reading with a space
    /// between lines ("12 34"; `NumberReading.lines`).
    /// With `options.maxDigits == 1` the whole drawing is one digit, as `recognize(_:)` sees it.
    public func read(_ drawing: Drawing, options: NumberReaderOptions = .init()) throws -> NumberReading {
        if options.maxDigits == 1 { return readAsOneDigit(drawing).reading }
        let lines = Segmentation.lines(drawing)
        if lines.count > 1 {
            // Each line read on its own, its digits' strokes named in the whole drawing.
            let expected = options.expected?.split(separator: " ").map(String.init)
            return NumberReading(lines: try lines.enumerated().map { k, strokes in
                var part = drawing
                part.strokes = strokes.map { drawing.strokes[$0] }
                var lineOptions = options
                lineOptions.expected = expected?.count == lines.count ? expected?[k] : nil
                var reading = try readLine(part, options: lineOptions)
                for d in reading.digits.indices { reading.digits[d].strokes = reading.digits[d].strokes.map { strokes[$0] } }
                return reading
            })
        }
        return try readLine(drawing, options: options)
    }

    /// One line of a drawing read as a number.
    private func readLine(_ drawing: Drawing, options: NumberReaderOptions) throws -> NumberReading {
        let canvas = max(drawing.canvasWidth ?? 0, drawing.canvasHeight ?? 0)
        let segmentation = try Segmentation(drawing, minimumLineHeight: rasterizer.options.minimumExtent * canvas)
        var rasterOptions = rasterizer.options
        // A piece smaller than half the line keeps its size against the line (see `Segmentation.drawing`).
        rasterOptions.minimumExtent = 0.5
        let segmentRasterizer = Rasterizer(options: rasterOptions)
        var reading = try read(pieces: segmentation.pieces.count, candidates: segmentation.candidates, lineHeight: segmentation.lineHeight,
                               box: segmentation.box, strokes: segmentation.strokes, options: options) { run, pixels in
            segmentRasterizer.rasterize(segmentation.drawing(drawing, run), into: pixels)
        }
        if options.joinedShare < 1 { reading.doubtJoined(drawing, reach: 0.02 * segmentation.lineHeight, share: options.joinedShare) }
        return reading
    }

    /// The whole drawing as one digit: `recognize(_:)`'s answer, and the same as a reading of one
    /// digit (boxed around all the ink; empty for an empty drawing).
    public func readAsOneDigit(_ drawing: Drawing) -> (reading: NumberReading, recognition: Recognition) {
        let r = recognize(drawing)
        guard !r.isEmpty else { return (.empty(threshold: threshold), r) }
        let points = drawing.strokes.joined()
        let box = InkBox(x0: points.map(\.x).min()!, y0: points.map(\.y).min()!, x1: points.map(\.x).max()!, y1: points.map(\.y).max()!)
        return (NumberReading(r, box: box, strokes: Array(drawing.strokes.indices)), r)
    }

    /// The reading search shared by drawings and images: `pieces` pieces of ink ordered left to
    /// right, the runs of them that may be one digit (`candidates[i]`: the ends `j` of runs `i..<j`),
    /// the box of a run and the 28×28 image of a run (`render`). Every candidate is scored by the
    /// network; the best reading is found by dynamic programming.
    ///
    /// With `scored`, the probabilities of runs already scored in another reading of the same ink
    /// (the same key from `scored.key`) are taken from it, and those of new runs added.
    func read(pieces n: Int, candidates: [[Int]], lineHeight h: Float, box: (Range<Int>) -> InkBox,
              strokes: (Range<Int>) -> [Int], options: NumberReaderOptions,
              scored: (key: (Range<Int>) -> Int, cache: ScoredRuns)? = nil,
              render: (Range<Int>, UnsafeMutableBufferPointer<Float>) -> Void) throws -> NumberReading {
        guard n > 0 else { return .empty(threshold: threshold) }
        var runs: [Range<Int>] = []
        for i in 0..<n { for j in candidates[i] { runs.append(i..<j) } }
        let classes = options.usesNotADigit ? network.classCount : 10
        let probabilities: [[Float]]
        if let scored {
            let keys = runs.map(scored.key)
            let new = runs.indices.filter { scored.cache.probabilities[keys[$0]] == nil }
            for (k, p) in zip(new, scoreRuns(new.map { runs[$0] }, classes: classes, render: render)) {
                scored.cache.probabilities[keys[k]] = p
            }
            probabilities = keys.map { scored.cache.probabilities[$0]! }
        } else {
            probabilities = scoreRuns(runs, classes: classes, render: render)
        }
        var score: [Range<Int>: (Float, Int)] = [:]   // run → (log score, index into runs)
        var geometry: [Range<Int>: Float] = [:]
        var boxes: [Range<Int>: InkBox] = [:]
        for (k, run) in runs.enumerated() {
            let p = probabilities[k]
            let best = p.prefix(10).max() ?? 0
            let b = box(run)
            boxes[run] = b
            var g: Float = 0
            let hr = b.height / h, wr = b.width / h
            if hr < 0.5 { g -= options.shortPenalty * (0.5 - hr) }
            if wr > 1.25 { g -= options.widePenalty * (wr - 1.25) }
            var s = log(max(best, 1e-9))
            if let cost = options.notADigitCost, p.count > 10 { s = max(s, log(max(p[10], 1e-9)) - cost) }
            score[run] = (s + g, k)
            if options.expected != nil { geometry[run] = g }   // only the analysis needs it
        }
        /// How far `b` reaches back into `a`, in line heights.
        func depth(_ a: Range<Int>, _ b: Range<Int>) -> Float { max(0, boxes[a]!.x1 - boxes[b]!.x0) / h }
        func overlap(_ a: Range<Int>, _ b: Range<Int>) -> Float {
            let x = boxes[a]!, y = boxes[b]!
            let narrower = max(min(x.width, y.width), 0.05 * h)
            return max(0, x.x1 - y.x0) / narrower
        }
        /// What following digit `a` by digit `b` costs.
        func transition(_ a: Range<Int>, _ b: Range<Int>) -> Float {
            options.overlapPenalty * overlap(a, b) + options.deepOverlapPenalty * max(0, depth(a, b) - options.overlapAllowance)
        }
        let expected = options.expected.flatMap { text in
            Self.bestScore(of: text.compactMap(\.wholeNumberValue), pieces: n, candidates: candidates, transition: transition) { run, digit in
                log(max(probabilities[score[run]!.1][digit], 1e-9)) + geometry[run]!
            }
        }
        // best[(run, count)]: the best reading of pieces 0..<run.upperBound ending with `run`, with
        // `count` digits; counts matter only under a bound.
        let bound = options.maxDigits.map { max(1, $0) }
        struct State: Hashable { var run: Range<Int>; var count: Int }
        var best: [State: (score: Float, previous: State?)] = [:]
        var endingAt: [[State]] = Array(repeating: [], count: n + 1)
        for i in 0..<n {
            for j in candidates[i] {
                let run = i..<j, (s, _) = score[run]!
                if i == 0 {
                    let state = State(run: run, count: 1)
                    best[state] = (s, nil)
                    endingAt[j].append(state)
                    continue
                }
                var choices: [State: (Float, State)] = [:]
                for previous in endingAt[i] {
                    guard let (ps, _) = best[previous] else { continue }
                    let count = bound == nil ? 1 : previous.count + 1
                    if let bound, count > bound { continue }
                    let total = ps + s - transition(previous.run, run)
                    let state = State(run: run, count: count)
                    if choices[state].map({ total > $0.0 }) ?? true { choices[state] = (total, previous) }
                }
                for (state, (total, previous)) in choices {
                    best[state] = (total, previous)
                    endingAt[j].append(state)
                }
            }
        }
        guard var state = endingAt[n].max(by: { best[$0]!.score < best[$1]!.score }) else {
            throw DigitError(.limit, "the ink cannot be read as a number of at most \(bound ?? 0) digits")
        }
        let total = best[state]!.score
        var path: [Range<Int>] = []
        while true {
            path.append(state.run)
            guard let previous = best[state]!.previous else { break }
            state = previous
        }
        path.reverse()
        var digits: [ReadDigit] = []
        for run in path {
            let p = probabilities[score[run]!.1]
            let order = (0..<10).sorted { p[$0] > p[$1] || (p[$0] == p[$1] && $0 < $1) }
            let confidence = p[order[0]]
            var raster = [Float](repeating: 0, count: 784)
            raster.withUnsafeMutableBufferPointer { render(run, $0) }
            digits.append(ReadDigit(digit: confidence >= threshold ? order[0] : nil, confidence: confidence,
                                    notADigit: p.count > 10 ? p[10] : 0, top: order.prefix(3).map { ($0, p[$0]) },
                                    probabilities: Array(p.prefix(10)), raster: raster, box: boxes[run]!, strokes: strokes(run)))
        }
        var reading = NumberReading(digits: digits, threshold: threshold)
        reading.score = total
        reading.expectedScore = expected
        return reading
    }

    /// The best score of a reading of the `n` pieces as exactly `digits` (each run scored by
    /// `digitScore(run, digit)`, neighbours by `transition`), or −∞ when no run of candidates makes
    /// those digits.
    private static func bestScore(of digits: [Int], pieces n: Int, candidates: [[Int]],
                                  transition: (Range<Int>, Range<Int>) -> Float,
                                  digitScore: (Range<Int>, Int) -> Float) -> Float? {
        guard !digits.isEmpty else { return nil }   // not digits ("A"): nothing to compare
        // best[count][run]: the best reading of pieces 0..<run.upperBound as the first `count`
        // digits, the last of them `run`.
        var best = [[Range<Int>: Float]](repeating: [:], count: digits.count + 1)
        var endingAt = [[Set<Range<Int>>]](repeating: Array(repeating: [], count: n + 1), count: digits.count + 1)
        for i in 0..<n {
            for j in candidates[i] {
                let run = i..<j
                if i == 0 {
                    best[1][run] = digitScore(run, digits[0])
                    endingAt[1][j].insert(run)
                    continue
                }
                for count in 1..<digits.count {
                    var top = -Float.infinity
                    for previous in endingAt[count][i] { top = max(top, best[count][previous]! - transition(previous, run)) }
                    guard top > -.infinity else { continue }
                    best[count + 1][run] = top + digitScore(run, digits[count])
                    endingAt[count + 1][j].insert(run)
                }
            }
        }
        return endingAt[digits.count][n].map { best[digits.count][$0]! }.max() ?? -.infinity
    }

    /// The class probabilities of the runs scored so far in readings of one piece of ink, by key.
    final class ScoredRuns {
        var probabilities: [Int: [Float]] = [:]
    }

    /// The class probabilities (digits 0…9, then "not a digit" when the network has it) of each run.
    private func scoreRuns(_ runs: [Range<Int>], classes: Int,
                           render: (Range<Int>, UnsafeMutableBufferPointer<Float>) -> Void) -> [[Float]] {
        var pixels = [Float](repeating: 0, count: 784)
        var out: [[Float]] = []
        out.reserveCapacity(runs.count)
        for run in runs {
            pixels.withUnsafeMutableBufferPointer { render(run, $0) }
            var p = [Float](repeating: 0, count: classes)
            pixels.withUnsafeBufferPointer { px in p.withUnsafeMutableBufferPointer { classProbabilities(pixels: px.baseAddress!, into: $0) } }
            out.append(p)
        }
        return out
    }
}

extension NumberReading {
    /// A reading of `digits`, its text and confidence made from theirs.
    init(digits: [ReadDigit], threshold: Float) {
        self.init(text: "", confidence: 0, digits: digits, threshold: threshold)
        updateTextAndConfidence()
    }

    /// Scales the probabilities of the digits `which` selects by `share`, the probability that
    /// the ink was cut right: when two ways of cutting a piece of ink read differently, a digit is
    /// only as sure as the cut it comes from.
    mutating func doubt(by share: Float, which: (ReadDigit) -> Bool) {
        doubt(by: share, at: digits.indices.filter { which(digits[$0]) })
    }

    /// Scales the probabilities of the digits at `indices` by `share`.
    mutating func doubt(by share: Float, at indices: [Int]) {
        for k in indices {
            digits[k].confidence *= share
            digits[k].top = digits[k].top.map { ($0.digit, $0.probability * share) }
            digits[k].probabilities = digits[k].probabilities.map { $0 * share }
            if digits[k].confidence < threshold { digits[k].digit = nil }
        }
        updateTextAndConfidence()
    }

    /// Neighbouring digits drawn as one figure — a stroke of one ends within `reach` of an end of
    /// a stroke of the other, one stroke runs through both, or a stroke of the right one begins
    /// on a stroke of a 1 to its left (an n, h, m or r: an arch begun on the stem, read `17`,
    /// `177`) — keep `share` of their probability (`NumberReaderOptions.joinedShare`).
    mutating func doubtJoined(_ drawing: Drawing, reach: Float, share: Float) {
        func ends(_ d: ReadDigit) -> [StrokePoint] {
            d.strokes.flatMap { k in drawing.strokes[k].first.map { [$0, drawing.strokes[k].last!] } ?? [] }
        }
        var joined = Set<Int>()
        for k in digits.indices.dropLast() {
            let (a, b) = (digits[k], digits[k + 1])
            let endsOfB = ends(b)
            let meet = !Set(a.strokes).isDisjoint(with: b.strokes)
                || ends(a).contains { p in endsOfB.contains { q in ((p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y)).squareRoot() <= reach } }
                || (a.digit == 1 && b.strokes.contains { k in
                    drawing.strokes[k].first.map { start in a.strokes.contains { Self.distance(from: start, to: drawing.strokes[$0]) <= reach } } ?? false
                })
            if meet { joined.formUnion([k, k + 1]) }
        }
        if !joined.isEmpty { doubt(by: share, at: joined.sorted()) }
    }

    /// The distance from `p` to the path through `stroke`'s points (infinity for no points).
    static func distance(from p: StrokePoint, to stroke: [StrokePoint]) -> Float {
        guard var last = stroke.first else { return .infinity }
        var best = ((p.x - last.x) * (p.x - last.x) + (p.y - last.y) * (p.y - last.y)).squareRoot()
        for q in stroke.dropFirst() {
            let vx = q.x - last.x, vy = q.y - last.y, length2 = vx * vx + vy * vy
            let t = length2 > 0 ? max(0, min(1, ((p.x - last.x) * vx + (p.y - last.y) * vy) / length2)) : 0
            let dx = last.x + t * vx - p.x, dy = last.y + t * vy - p.y
            best = min(best, (dx * dx + dy * dy).squareRoot())
            last = q
        }
        return best
    }

    /// Makes `text` and `confidence` from the digits (after their answers changed).
    mutating func updateTextAndConfidence() {
        text = joinedByLine { $0.digit.map(String.init) ?? "?" }
        confidence = digits.reduce(Float(1)) { $0 * $1.confidence }
    }

    /// The readings of the lines of one page or drawing, top to bottom, as one reading: their digits in
    /// order (`lineStarts` where each line after the first begins), scores summed. One line is
    /// returned as it is.
    init(lines: [NumberReading]) {
        guard lines.count > 1 else {
            self = lines.first ?? .empty(threshold: 0.9)
            return
        }
        self.init(digits: lines.flatMap(\.digits), threshold: lines[0].threshold)
        var start = 0
        lineStarts = lines.dropLast().map { start += $0.digits.count; return start }.filter { $0 < digits.count }
        updateTextAndConfidence()
        score = lines.reduce(0) { $0 + $1.score }
        marks = lines.flatMap(\.marks)
        expectedScore = lines.contains { $0.expectedScore == nil } ? nil : lines.reduce(0) { $0 + $1.expectedScore! }
    }

    /// The reading of a drawing or image with no ink: no digits, empty text.
    public static func empty(threshold: Float) -> NumberReading {
        NumberReading(text: "", confidence: 0, digits: [], threshold: threshold)
    }

    /// One digit recognized on its own (`DigitRecognizer.recognize`), as a reading of one digit.
    public init(_ r: Recognition, box: InkBox, strokes: [Int]) {
        let digit = ReadDigit(digit: r.digit, confidence: r.confidence, notADigit: r.notADigit, top: r.top,
                              probabilities: r.probabilities, raster: r.raster, box: box, strokes: strokes)
        self.init(text: r.digit.map(String.init) ?? "?", confidence: r.confidence, digits: [digit], threshold: r.threshold)
    }

    /// One line of `digits recognize --json`:
    /// `{"source":"a.json","index":0,"text":"2026","digit":null,"confidence":0.96,"top":[],"digits":[{"digit":2,
    /// "confidence":0.99,"top":[[2,0.99],[7,0.004],[3,0.001]],"box":[12,30,61,118],"strokes":[0]},…],"label":"2026"}`.
    /// When the reading is one digit, `digit`, `confidence` and `top` are that digit's (as for a
    /// single digit before numbers were read); otherwise `digit` is null, `confidence` the
    /// reading's and `top` empty. An empty drawing adds `"empty":true`; a reading of several lines
    /// gives each digit its `"line"` (0 for the top one).
    public func jsonLine(source: String, index: Int, label: String?) -> String {
        let p = Recognition.probability
        func box(_ b: InkBox, to w: inout JSONWriter) {
            w.array { for v in [b.x0, b.y0, b.x1, b.y1] { $0.number(text: p(v)) } }
        }
        let single = digits.count == 1 ? digits[0] : nil
        let lineOf = lineStarts.isEmpty ? [] : lines.enumerated().flatMap { k, range in range.map { _ in k } }
        var writer = JSONWriter()
        writer.object { o in
            o.member("source", source)
            o.member("index", index)
            o.member("text", text)
            o.member("digit", single?.digit)
            o.member("confidence", number: p(single?.confidence ?? confidence))
            o.member("top", array: { Recognition.write(single?.top ?? [], to: &$0) })
            o.member("digits", array: { list in
                for (i, d) in digits.enumerated() {
                    list.object { o in
                        o.member("digit", d.digit)
                        o.member("confidence", number: p(d.confidence))
                        o.member("top", array: { Recognition.write(d.top, to: &$0) })
                        o.key("box")
                        box(d.box, to: &o)
                        o.member("strokes", array: { for k in d.strokes { $0.int(k) } })
                        if d.notADigit > 0 { o.member("not_a_digit", number: p(d.notADigit)) }
                        if d.isCutByFrame { o.member("cut_by_frame", true) }
                        if !lineOf.isEmpty { o.member("line", lineOf[i]) }
                    }
                }
            })
            if !marks.isEmpty { o.member("marks", array: { for m in marks { box(m, to: &$0) } }) }
            if let label { o.member("label", label) }
            if isEmpty { o.member("empty", true) }
        }
        return writer.text
    }

    /// The answer in words: `2026  99.1%`, or `20?6` with the doubtful digits' candidates, or
    /// `?  not a digit (93.0%)` for a single piece of ink that is not a digit.
    public var summary: String {
        func pct(_ v: Float) -> String { String(format: "%.1f%%", v * 100) }
        if isEmpty { return "? empty drawing" }
        if isAnswered { return "\(text)  \(pct(confidence))" }
        if digits.count == 1, digits[0].isNotADigit { return "?  not a digit (\(pct(digits[0].notADigit)))" }
        let doubts = digits.enumerated().filter { $0.element.digit == nil }.map { i, d in
            // A slice the frame cut that the paper model skipped has no candidates to give.
            let candidates = d.top.map { "\($0.digit) \(pct($0.probability))" }.joined(separator: ", ")
            return d.isNotADigit ? "digit \(i + 1): not a digit (\(pct(d.notADigit)))"
                : (digits.count == 1 ? "not sure: " : "digit \(i + 1): ")
                + (d.isCutByFrame ? (d.top.isEmpty ? "cut by the image's edge" : "cut by the image's edge: ") : "") + candidates
        }
        return "\(text)  " + doubts.joined(separator: "; ")
    }
}
