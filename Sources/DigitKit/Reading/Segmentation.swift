import Foundation

/// A box in the drawing's coordinates (y downward): `x0 ≤ x1`, `y0 ≤ y1`.
public struct InkBox: Equatable, Sendable, CustomStringConvertible {
    public var x0: Float, y0: Float, x1: Float, y1: Float
    public init(x0: Float, y0: Float, x1: Float, y1: Float) {
        self.x0 = x0
        self.y0 = y0
        self.x1 = x1
        self.y1 = y1
    }
    /// `[x0, y0, x1, y1]`, as in `digits recognize --json`.
    public var description: String {
        func number(_ v: Float) -> String { v == v.rounded() && abs(v) < 1e9 ? String(Int(v)) : String(v) }
        return "[\(number(x0)), \(number(y0)), \(number(x1)), \(number(y1))]"
    }
    public var width: Float { x1 - x0 }
    public var height: Float { y1 - y0 }
    public var midX: Float { (x0 + x1) / 2 }
    public var midY: Float { (y0 + y1) / 2 }

    public func union(_ other: InkBox) -> InkBox {
        InkBox(x0: min(x0, other.x0), y0: min(y0, other.y0), x1: max(x1, other.x1), y1: max(y1, other.y1))
    }

    /// True when (x, y) is inside the box grown by `margin` on every side (edges included).
    public func contains(_ x: Float, _ y: Float, margin: Float = 0) -> Bool {
        x >= x0 - margin && x <= x1 + margin && y >= y0 - margin && y <= y1 + margin
    }
}

/// A piece of ink the number reader groups into digits: a whole stroke, or a part of a stroke that
/// runs through two digits, cut where they may join.
struct InkPiece {
    var stroke: Int
    /// The stroke's points this piece holds (consecutive pieces of a cut stroke share their cut point).
    var points: Range<Int>
    var box: InkBox
}

/// How a drawing of a number is cut into candidate digits: its pieces of ink, ordered left to
/// right, and the runs of consecutive pieces that may be one digit.
///
/// Digits are written left to right on one line; a digit may be several strokes in any order, and
/// neighbours may touch or overlap a little, so pieces are ordered by the middle of their box and a
/// candidate digit is a run of consecutive pieces. A stroke much wider than the line is tall is a
/// joined writing of several digits: it is cut at its highest and lowest points inside (where
/// joined digits meet), and the reader decides which cuts are real.
struct Segmentation {
    /// At most this many pieces make one digit (a 4 in two strokes, a 5 with its hat, a 1 with flag and base).
    static let maxPiecesPerDigit = 5
    /// A candidate digit is at most this many line heights wide (a digit is about 0.2–1.1).
    static let maxDigitWidth: Float = 1.7
    /// The most pieces a drawing may have: beyond it reading is refused with "too many parts".
    static let maxPieces = 600

    let pieces: [InkPiece]
    /// The height of the line of writing: the height of all the ink.
    let lineHeight: Float
    let lineBox: InkBox
    /// Candidate runs: `candidates[i]` lists the end indices `j` for which pieces `i..<j` may be one digit.
    let candidates: [[Int]]

    /// `minimumLineHeight`: the line is at least this tall (a dot tapped on a canvas stays a dot,
    /// as `RasterOptions.minimumExtent` keeps it for a single digit).
    init(_ drawing: Drawing, minimumLineHeight: Float = 0) throws {
        var strokeBoxes: [(Int, InkBox)] = []
        for (index, stroke) in drawing.strokes.enumerated() where !stroke.isEmpty {
            if let box = Self.box(stroke[...]) { strokeBoxes.append((index, box)) }
        }
        guard let first = strokeBoxes.first?.1 else {
            pieces = []
            lineHeight = 0
            lineBox = InkBox(x0: 0, y0: 0, x1: 0, y1: 0)
            candidates = []
            return
        }
        let line = strokeBoxes.dropFirst().reduce(first) { $0.union($1.1) }
        lineBox = line
        // A line of one dot or one flat stroke still has a height to measure widths against.
        lineHeight = max(line.height, line.width / 8, minimumLineHeight.isFinite ? minimumLineHeight : 0, 1e-3)
        var pieces: [InkPiece] = []
        for (index, box) in strokeBoxes {
            let stroke = drawing.strokes[index]
            for range in Self.cut(stroke, box: box, lineHeight: lineHeight) {
                if let b = Self.box(stroke[range]) { pieces.append(InkPiece(stroke: index, points: range, box: b)) }
            }
            if pieces.count > Self.maxPieces {
                throw DigitError(.limit, "too many parts to read as a number: more than \(Self.maxPieces) strokes and pieces "
                                 + "(\(drawing.strokes.count) strokes)")
            }
        }
        // Left to right by the middle of each box; writing order breaks ties.
        pieces.sort { ($0.box.midX, $0.stroke, $0.points.lowerBound) < ($1.box.midX, $1.stroke, $1.points.lowerBound) }
        self.pieces = pieces
        var candidates: [[Int]] = Array(repeating: [], count: pieces.count)
        for i in pieces.indices {
            var box = pieces[i].box
            for j in (i + 1)...min(pieces.count, i + Self.maxPiecesPerDigit) {
                if j > i + 1 { box = box.union(pieces[j - 1].box) }
                if j > i + 1 && box.width > Self.maxDigitWidth * lineHeight { break }
                candidates[i].append(j)
            }
        }
        self.candidates = candidates
    }

    /// The lines of a drawing written in several, top to bottom, as the indices of their strokes
    /// (every stroke in one of them; empty strokes with the first). The strokes' heights are
    /// merged into blocks parted by blank rows; a block at least `lineShare` as tall as the
    /// tallest is a line when a blank of at least `lineGap` of that height parts it from the line
    /// above (else the two are one); a smaller block (a 5's lifted hat) joins the nearest line.
    /// One line: all the strokes.
    static func lines(_ drawing: Drawing) -> [[Int]] {
        let all = Array(drawing.strokes.indices)
        let boxes = drawing.strokes.map { box($0) }
        let extents = all.compactMap { k in boxes[k].map { (k, $0.y0, $0.y1) } }.sorted { $0.1 < $1.1 }
        var blocks: [(strokes: [Int], y0: Float, y1: Float)] = []
        for (k, y0, y1) in extents {
            if let last = blocks.last, y0 <= last.y1 {
                blocks[blocks.count - 1].strokes.append(k)
                blocks[blocks.count - 1].y1 = max(last.y1, y1)
            } else {
                blocks.append(([k], y0, y1))
            }
        }
        guard blocks.count > 1, let tallest = blocks.map({ $0.y1 - $0.y0 }).max(), tallest > 0 else { return [all] }
        var lines: [(strokes: [Int], y0: Float, y1: Float)] = []
        for block in blocks where block.y1 - block.y0 >= lineShare * tallest {
            if let last = lines.last, block.y0 - last.y1 < lineGap * tallest {
                lines[lines.count - 1].strokes += block.strokes
                lines[lines.count - 1].y1 = max(last.y1, block.y1)
            } else {
                lines.append(block)
            }
        }
        guard lines.count > 1 else { return [all] }
        for block in blocks where block.y1 - block.y0 < lineShare * tallest {
            func distance(_ l: (strokes: [Int], y0: Float, y1: Float)) -> Float { max(0, l.y0 - block.y1, block.y0 - l.y1) }
            let nearest = lines.indices.min { distance(lines[$0]) < distance(lines[$1]) }!
            lines[nearest].strokes += block.strokes
        }
        lines[0].strokes += all.filter { boxes[$0] == nil }
        return lines.map { $0.strokes.sorted() }
    }

    /// A block of strokes is a line of its own when at least this share of the tallest block tall…
    static let lineShare: Float = 0.5
    /// …and parted from the line above by a blank at least this share of the tallest block.
    static let lineGap: Float = 0.3

    static func box<S: Sequence>(_ points: S) -> InkBox? where S.Element == StrokePoint {
        var box: InkBox?
        for p in points where p.x.isFinite && p.y.isFinite {
            if let b = box {
                box = InkBox(x0: min(b.x0, p.x), y0: min(b.y0, p.y), x1: max(b.x1, p.x), y1: max(b.y1, p.y))
            } else {
                box = InkBox(x0: p.x, y0: p.y, x1: p.x, y1: p.y)
            }
        }
        return box
    }

    /// The point ranges a stroke is cut into: the whole stroke, unless it is wider than 1.1 line
    /// heights; then at each local top or bottom of the pen that lies at least 0.3 line heights
    /// from both ends of the stroke and from the previous cut (at most 12 cuts).
    static func cut(_ stroke: [StrokePoint], box: InkBox, lineHeight h: Float) -> [Range<Int>] {
        guard box.width > 1.1 * h, stroke.count >= 5 else { return [0..<stroke.count] }
        var cuts: [Int] = []
        var lastX = box.x0
        let window = max(1, stroke.count / 40)
        for i in window..<(stroke.count - window) {
            let p = stroke[i]
            guard p.x - box.x0 > 0.3 * h, box.x1 - p.x > 0.3 * h, abs(p.x - lastX) > 0.3 * h else { continue }
            let before = stroke[i - window].y, after = stroke[i + window].y
            let isBottom = p.y >= before && p.y >= after && p.y > min(before, after)
            let isTop = p.y <= before && p.y <= after && p.y < max(before, after)
            if isBottom || isTop {
                cuts.append(i)
                lastX = p.x
                if cuts.count == 12 { break }
            }
        }
        var ranges: [Range<Int>] = []
        var start = 0
        for c in cuts {
            ranges.append(start..<(c + 1))
            start = c
        }
        ranges.append(start..<stroke.count)
        return ranges
    }

    /// The drawing of pieces `i..<j`, with the line height as its canvas so that a small piece
    /// (a 5's hat, a dot) keeps its size against the line instead of filling the 20-pixel box.
    func drawing(_ source: Drawing, _ range: Range<Int>) -> Drawing {
        var strokes: [[StrokePoint]] = []
        for piece in pieces[range] { strokes.append(Array(source.strokes[piece.stroke][piece.points])) }
        return Drawing(strokes: strokes, canvasWidth: lineHeight, canvasHeight: lineHeight)
    }

    func box(_ range: Range<Int>) -> InkBox {
        pieces[range].dropFirst().reduce(pieces[range.lowerBound].box) { $0.union($1.box) }
    }

    func strokes(_ range: Range<Int>) -> [Int] {
        Array(Set(pieces[range].map(\.stroke))).sorted()
    }
}
