import Foundation

/// Builds drawings of numbers from single-digit drawings of one writer, the way a person writes on
/// a line: digits of about the same height, left to right, gaps from a slight overlap to wide,
/// the baseline and the size wandering a little, writing order kept and time stamps continued.
/// The same digits and seed give the same drawing.
public struct NumberComposer: Sendable, Equatable {
    /// Height of the line, in the output's units.
    public var lineHeight: Float = 100
    /// Each digit's height as a share of the line, drawn uniformly.
    public var size: ClosedRange<Float> = 0.82...1.08
    /// Space between neighbours in line heights (negative: they overlap), drawn uniformly.
    public var gap: ClosedRange<Float> = -0.1...0.6
    /// Vertical wander of each digit, in line heights, drawn uniformly in ±this.
    public var baseline: Float = 0.06
    /// Pause between digits, in seconds, when the strokes have time stamps.
    public var pause: ClosedRange<Float> = 0.15...0.6
    /// Space between the lines of a note (`stacked`), in line heights: from a line's lowest ink
    /// to the next line's highest.
    public var lineGap: Float = 0.6
    /// Other hands put on the writer's digits (`WritingStyle`), or nil for the digits as drawn.
    public var style: WritingStyle?

    public init() {}

    /// A composed number and which digit each of its strokes belongs to.
    public struct Number: Sendable {
        public var drawing: Drawing
        /// `strokeDigit[k]` is the position (0-based, left to right) of the digit stroke `k` belongs to.
        public var strokeDigit: [Int]
    }

    /// The number written by `digits` in order; the label is their labels joined ("2026").
    public func compose(_ digits: [Drawing], rng: inout SplitMix64) -> Number {
        var strokes: [[StrokePoint]] = []
        var owner: [Int] = []
        var cursor: Float = 0
        var clock: Float = 0
        var label = ""
        let hand = style.flatMap { $0.hand(rng: &rng) }
        for (position, written) in digits.enumerated() {
            var digit = written
            if let style, let hand { digit = style.restyle(written, hand: hand, rng: &rng) }
            guard let box = Segmentation.box(digit.strokes.joined()) else { continue }
            let height = lineHeight * rng.uniform(size.lowerBound, size.upperBound)
            let scale = height / max(box.height, box.width * 0.25, 1e-6)
            let shiftY = lineHeight * rng.uniform(-baseline, baseline)
            if position > 0 { cursor += lineHeight * rng.uniform(gap.lowerBound, gap.upperBound) }
            let x0 = cursor - box.x0 * scale
            // Bottoms on the baseline (y = lineHeight), give or take the wander.
            let y0 = lineHeight - box.y1 * scale + shiftY
            let times = digit.strokes.joined().compactMap(\.t)
            let t0 = times.min() ?? 0, t1 = times.max() ?? 0
            for stroke in digit.strokes where !stroke.isEmpty {
                strokes.append(stroke.map { p in
                    StrokePoint(x: x0 + p.x * scale, y: y0 + p.y * scale, t: p.t.map { clock + $0 - t0 }, p: p.p)
                })
                owner.append(position)
            }
            if !times.isEmpty { clock += t1 - t0 + rng.uniform(pause.lowerBound, pause.upperBound) }
            cursor = x0 + box.x1 * scale
            label += digit.label ?? "?"
        }
        return Number(drawing: Drawing(strokes: strokes, label: label), strokeDigit: owner)
    }

    /// `numbers` written one under another, left-aligned, `lineGap` line heights apart: a note of
    /// several lines. The label is the lines' labels separated by spaces ("9 5351"); the digits
    /// are numbered on through the lines.
    public func stacked(_ numbers: [Number]) -> Number {
        var strokes: [[StrokePoint]] = [], owner: [Int] = [], labels: [String] = []
        var top: Float = 0, firstDigit = 0
        for number in numbers {
            guard let box = Segmentation.box(number.drawing.strokes.joined()) else { continue }
            let dx = -box.x0, dy = top - box.y0
            strokes += number.drawing.strokes.map { $0.map { StrokePoint(x: $0.x + dx, y: $0.y + dy, t: $0.t, p: $0.p) } }
            owner += number.strokeDigit.map { $0 + firstDigit }
            firstDigit += (number.strokeDigit.max() ?? -1) + 1
            top += box.height + lineGap * lineHeight
            labels.append(number.drawing.label ?? "")
        }
        return Number(drawing: Drawing(strokes: strokes, label: labels.joined(separator: " ")), strokeDigit: owner)
    }

    /// `count` numbers of `lengths` digits each (drawn uniformly), each from the drawings of one
    /// writer: the writer and each digit drawn at random from `byWriter` (labelled single digits).
    public func composeSet(_ byWriter: [[Drawing]], count: Int, lengths: ClosedRange<Int>, seed: UInt64) -> [Number] {
        eachByOneWriter(byWriter, count: count, seed: seed) { pool, rng in number(of: pool, lengths: lengths, rng: &rng) }
    }

    /// `count` notes of `lines` lines (drawn uniformly), each line a number of `lengths` digits,
    /// all of one note by one writer, stacked `lineGap` line heights apart (`stacked`).
    public func composeNotes(_ byWriter: [[Drawing]], count: Int, lengths: ClosedRange<Int>, lines: ClosedRange<Int>,
                             seed: UInt64) -> [Number] {
        eachByOneWriter(byWriter, count: count, seed: seed) { pool, rng in
            let n = lines.lowerBound + Int(rng.next() % UInt64(lines.count))
            return stacked((0..<n).map { _ in number(of: pool, lengths: lengths, rng: &rng) })
        }
    }

    /// `count` of what `make` composes from the drawings of one writer each, the writer drawn at
    /// random from `byWriter` (writers without drawings left out); none when no writer has any.
    private func eachByOneWriter(_ byWriter: [[Drawing]], count: Int, seed: UInt64,
                                 make: ([Drawing], inout SplitMix64) -> Number) -> [Number] {
        let writers = byWriter.filter { !$0.isEmpty }
        guard !writers.isEmpty else { return [] }
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in make(writers[Int(rng.next() % UInt64(writers.count))], &rng) }
    }

    /// A number of `lengths` digits (drawn uniformly), each drawn at random from `pool`.
    private func number(of pool: [Drawing], lengths: ClosedRange<Int>, rng: inout SplitMix64) -> Number {
        let length = lengths.lowerBound + Int(rng.next() % UInt64(lengths.count))
        return compose((0..<length).map { _ in pool[Int(rng.next() % UInt64(pool.count))] }, rng: &rng)
    }

    /// Labelled single-digit drawings grouped by writer (records without a writer form one group),
    /// keeping the writers `keep` accepts.
    public static func byWriter(_ records: [DrawingRecord], keep: (Int?) -> Bool = { _ in true }) -> [[Drawing]] {
        var groups: [Int: [Drawing]] = [:]
        for record in records where keep(record.writer) {
            guard case let .success(drawing) = record.result, drawing.labelDigit != nil, !drawing.isEmpty else { continue }
            groups[record.writer ?? -1, default: []].append(drawing)
        }
        return groups.keys.sorted().map { groups[$0]! }
    }
}
