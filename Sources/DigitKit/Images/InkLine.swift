import Foundation

/// The pieces of a line of ink and the candidate digits among them (see `Segmentation` for drawings).
struct InkLine {
    /// A piece of ink: a component, or the part of one between two seams.
    struct Piece {
        var component: Int
        var pixels: [Int]
        var x0: Int, y0: Int, x1: Int, y1: Int   // inclusive
        /// A hash of the pixels: the same ink cut the same way has the same identity in any line.
        var identity: Int
        var box: InkBox { InkBox(x0: Float(x0), y0: Float(y0), x1: Float(x1), y1: Float(y1)) }

        init(component: Int, pixels: [Int], width: Int) {
            self.component = component
            self.pixels = pixels
            identity = pixels.hashValue
            x0 = .max; y0 = .max; x1 = -1; y1 = -1
            for p in pixels {
                let x = p % width, y = p / width
                x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
            }
        }
    }

    /// At most this many pieces make one digit (a 5's hat, a stroke broken where the pen skipped,
    /// the parts of a cut component). Seams lie at least 0.12 line heights apart, so a wide 0 (up
    /// to 1.5 line heights) or a 5 whose hat and body are both cut can come in 7 pieces.
    static let maxPiecesPerDigit = 8

    let pieces: [Piece]
    let labels: [Int32]
    let width: Int
    let height: Float
    /// The components that touch the image's border: digits cut by the photo's frame, whose
    /// whole the reader cannot see (`InkComponents.cutByFrame`).
    let cutByFrame: Set<Int>

    /// The pieces in order left to right (by the middle of their boxes).
    init(pieces: [Piece], labels: [Int32], width: Int, height: Float, cutByFrame: Set<Int> = []) {
        self.pieces = pieces.sorted { ($0.box.midX, $0.component, $0.x0, $0.y0) < ($1.box.midX, $1.component, $1.x0, $1.y0) }
        self.labels = labels
        self.width = width
        self.height = height
        self.cutByFrame = cutByFrame
    }

    /// The same line with component `k` in the pieces `parts` (its strokes, say) instead.
    func replacing(component k: Int, with parts: [[Int]]) -> InkLine {
        let others = pieces.filter { $0.component != k }
        let new = parts.filter { !$0.isEmpty }.map { Piece(component: k, pixels: $0, width: width) }
        return InkLine(pieces: others + new, labels: labels, width: width, height: height, cutByFrame: cutByFrame)
    }

    /// Whether the run holds ink of a digit cut by the frame.
    func isCutByFrame(_ run: Range<Int>) -> Bool { pieces[run].contains { cutByFrame.contains($0.component) } }

    /// `candidates[i]`: the ends `j` of the runs `i..<j` that may be one digit: at most
    /// `maxPiecesPerDigit` pieces, at most 1.7 line heights wide, and never two separate pieces of
    /// ink side by side that are each as tall as a digit (`standApart`).
    var candidates: [[Int]] {
        pieces.indices.map { i in
            var box = pieces[i].box
            var ends: [Int] = []
            for j in (i + 1)...min(pieces.count, i + Self.maxPiecesPerDigit) {
                if j > i + 1 {
                    box = box.union(pieces[j - 1].box)
                    if box.width > Segmentation.maxDigitWidth * height { break }
                    if pieces[i..<(j - 1)].contains(where: { standApart($0, pieces[j - 1]) }) { break }
                }
                ends.append(j)
            }
            return ends
        }
    }

    /// Two pieces of different components, each at least 0.6 line heights tall, with a gap of at
    /// least 0.04 line heights between their columns: two digits, however sure the network would
    /// be of them together (a "1" beside an "8" reads as an 8 with a bar).
    func standApart(_ a: Piece, _ b: Piece) -> Bool {
        guard a.component != b.component else { return false }
        let tall = 0.6 * height
        guard Float(a.y1 - a.y0 + 1) >= tall, Float(b.y1 - b.y0 + 1) >= tall else { return false }
        let gap = max(b.x0 - a.x1, a.x0 - b.x1) - 1
        return Float(gap) >= 0.04 * height
    }

    /// The identity of a run of pieces (see `Piece.identity`).
    func identity(_ run: Range<Int>) -> Int {
        var hasher = Hasher()
        for piece in pieces[run] { hasher.combine(piece.identity) }
        return hasher.finalize()
    }

    /// Every piece as one digit (`maxDigits` 1).
    var allAsOne: [[Int]] { pieces.indices.map { $0 == 0 ? [pieces.count] : [] } }

    func box(_ run: Range<Int>) -> InkBox { pieces[run].dropFirst().reduce(pieces[run.lowerBound].box) { $0.union($1.box) } }

    /// The run's box for the reader's geometry: its full height, and the columns between the 4th
    /// and 96th percentiles of its ink, so that the thin tail of a stroke that reaches under a
    /// neighbour, or a slanted seam, does not count as overlap or width.
    func coreBox(_ run: Range<Int>) -> InkBox {
        let full = box(run)
        var columns = [Int](repeating: 0, count: Int(full.x1 - full.x0) + 1)
        var n = 0
        for piece in pieces[run] {
            for p in piece.pixels { columns[p % width - Int(full.x0)] += 1 }
            n += piece.pixels.count
        }
        var seen = 0, lo = 0, hi = columns.count - 1
        for (x, c) in columns.enumerated() {
            if seen <= n * 4 / 100 { lo = x }
            seen += c
            if seen >= n * 96 / 100 { hi = x; break }
        }
        return InkBox(x0: full.x0 + Float(lo), y0: full.y0, x1: full.x0 + Float(max(lo, hi)), y1: full.y1)
    }

    /// The run's ink (its pieces' pixels, with the one-pixel fringe of anti-aliasing around them
    /// that fell below the threshold), fitted and centred as MNIST was.
    func render(_ run: Range<Int>, ink: FloatImage, into out: UnsafeMutableBufferPointer<Float>) {
        let b = box(run)
        let margin = 1
        let x0 = max(0, Int(b.x0) - margin), y0 = max(0, Int(b.y0) - margin)
        let x1 = min(ink.width - 1, Int(b.x1) + margin), y1 = min(ink.height - 1, Int(b.y1) + margin)
        let w = x1 - x0 + 1, h = y1 - y0 + 1
        // 1: the run's ink; 2: the fringe, background pixels next to it.
        var mark = [UInt8](repeating: 0, count: w * h)
        for piece in pieces[run] {
            for p in piece.pixels { mark[(p / ink.width - y0) * w + p % ink.width - x0] = 1 }
        }
        for piece in pieces[run] {
            for p in piece.pixels {
                let x = p % ink.width - x0, y = p / ink.width - y0
                for yy in max(0, y - 1)...min(h - 1, y + 1) {
                    for xx in max(0, x - 1)...min(w - 1, x + 1) where mark[yy * w + xx] == 0 && labels[(yy + y0) * ink.width + xx + x0] == 0 {
                        mark[yy * w + xx] = 2
                    }
                }
            }
        }
        var crop = FloatImage(width: w, height: h, values: [Float](repeating: 0, count: w * h))
        for y in 0..<h {
            for x in 0..<w where mark[y * w + x] != 0 { crop.values[y * w + x] = ink.values[(y + y0) * ink.width + x + x0] }
        }
        InkRegion(ink: crop, keep: nil).render(extentFloor: 0.5 * height, into: out)
    }
}
