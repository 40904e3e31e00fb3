import Foundation

/// The ink of a page as connected components: pixels above a threshold with hysteresis (a
/// component must hold at least one strong pixel; it grows through weaker ones), 8-connected.
struct InkComponents {
    struct Component {
        var pixels: [Int]
        var x0: Int, y0: Int, x1: Int, y1: Int   // inclusive
        var width: Int { x1 - x0 + 1 }
        var height: Int { y1 - y0 + 1 }
        var midX: Float { Float(x0 + x1) / 2 }
        var midY: Float { Float(y0 + y1) / 2 }
    }

    let page: Page
    /// Per pixel: the index of its component + 1, or 0.
    var labels: [Int32]
    var components: [Component] = []

    init(_ ink: Page) {
        page = ink
        let w = ink.width, h = ink.height
        labels = [Int32](repeating: 0, count: w * h)
        let strong = Page.percentile(ink.values, 0.995)
        guard strong >= 30 else { return }   // a blank page: nothing stands out of the paper
        let high = max(0.35 * strong, 20), low = high / 2
        var stack: [Int] = []
        ink.values.withUnsafeBufferPointer { v in
            for start in 0..<(w * h) where labels[start] == 0 && v[start] >= high {
                let id = Int32(components.count + 1)
                var c = Component(pixels: [], x0: w, y0: h, x1: -1, y1: -1)
                labels[start] = id
                stack.append(start)
                while let p = stack.popLast() {
                    c.pixels.append(p)
                    let x = p % w, y = p / w
                    c.x0 = min(c.x0, x); c.x1 = max(c.x1, x); c.y0 = min(c.y0, y); c.y1 = max(c.y1, y)
                    for dy in -1...1 {
                        let yy = y + dy
                        guard yy >= 0, yy < h else { continue }
                        for dx in -1...1 {
                            let xx = x + dx
                            guard xx >= 0, xx < w else { continue }
                            let q = yy * w + xx
                            if labels[q] == 0 && v[q] >= low {
                                labels[q] = id
                                stack.append(q)
                            }
                        }
                    }
                }
                components.append(c)
            }
        }
    }

    /// The line of digits: specks and ink far from the main line dropped, the rest as pieces left
    /// to right (components wider than the line is tall cut at the valleys of their column sums,
    /// where touching digits meet), with the runs of pieces that may be one digit.
    func line() -> InkLine? {
        guard !components.isEmpty else { return nil }
        let byArea = components.sorted { $0.pixels.count > $1.pixels.count }
        let largest = byArea[0].pixels.count
        let typical = byArea.prefix(5).map(\.height).sorted()
        let hc = Float(typical[typical.count / 2])
        var kept = components.enumerated().filter { _, c in
            c.pixels.count * 100 >= largest && (Float(c.height) >= 0.2 * hc || Float(c.width) >= 0.2 * hc)
        }
        guard !kept.isEmpty else { return nil }
        // The line's middle: the middle of the components weighted by their ink.
        let weighted = kept.flatMap { _, c in Array(repeating: c.midY, count: max(1, c.pixels.count / 16)) }.sorted()
        let middle = weighted[weighted.count / 2]
        kept = kept.filter { _, c in Float(c.y1) >= middle - 0.75 * hc && Float(c.y0) <= middle + 0.75 * hc }
        guard !kept.isEmpty else { return nil }
        let lineHeight = max(Float(kept.map { $0.1.height }.max() ?? 1), 1)
        var pieces: [InkLine.Piece] = []
        for (index, c) in kept {
            for columns in cuts(c, lineHeight: lineHeight) {
                var p = InkLine.Piece(component: index, columns: columns, x0: Int.max, y0: Int.max, x1: -1, y1: -1)
                for q in c.pixels {
                    let x = q % page.width, y = q / page.width
                    guard columns.contains(x) else { continue }
                    p.x0 = min(p.x0, x); p.x1 = max(p.x1, x); p.y0 = min(p.y0, y); p.y1 = max(p.y1, y)
                }
                if p.x1 >= 0 { pieces.append(p) }
            }
        }
        pieces.sort { ($0.box.midX, $0.component) < ($1.box.midX, $1.component) }
        return InkLine(pieces: pieces, components: components, labels: labels, width: page.width, height: lineHeight)
    }

    /// Column ranges of a component: the whole of it, or cut at up to 4 valleys of its column sums
    /// that lie at least 0.3 line heights from its sides and from each other and hold at most a
    /// third of the fullest column's ink.
    func cuts(_ c: Component, lineHeight h: Float) -> [Range<Int>] {
        guard Float(c.width) > 1.15 * h else { return [c.x0..<(c.x1 + 1)] }
        var sums = [Float](repeating: 0, count: c.width)
        for q in c.pixels { sums[q % page.width - c.x0] += page.values[q] }
        let peak = sums.max() ?? 0
        let margin = Int(0.3 * h)
        var valleys: [(Int, Float)] = []
        if c.width > 2 * margin + 2 {
            for i in max(1, margin)..<min(c.width - 1, c.width - margin) where sums[i] <= sums[i - 1] && sums[i] <= sums[i + 1] && sums[i] <= peak / 3 {
                valleys.append((i, sums[i]))
            }
        }
        var chosen: [Int] = []
        for (i, _) in valleys.sorted(by: { $0.1 < $1.1 }) where chosen.allSatisfy({ abs($0 - i) >= Int(0.35 * h) }) {
            chosen.append(i)
            if chosen.count == 4 { break }
        }
        var ranges: [Range<Int>] = []
        var start = c.x0
        for i in chosen.sorted() {
            ranges.append(start..<(c.x0 + i))
            start = c.x0 + i
        }
        ranges.append(start..<(c.x1 + 1))
        return ranges
    }
}

/// The pieces of a line of ink and the candidate digits among them (see `Segmentation` for drawings).
struct InkLine {
    struct Piece {
        var component: Int
        var columns: Range<Int>
        var x0: Int, y0: Int, x1: Int, y1: Int
        var box: InkBox { InkBox(x0: Float(x0), y0: Float(y0), x1: Float(x1), y1: Float(y1)) }
    }

    let pieces: [Piece]
    let components: [InkComponents.Component]
    let labels: [Int32]
    let width: Int
    let height: Float

    var candidates: [[Int]] {
        pieces.indices.map { i in
            var box = pieces[i].box
            var ends: [Int] = []
            for j in (i + 1)...min(pieces.count, i + 4) {
                if j > i + 1 { box = box.union(pieces[j - 1].box) }
                if j > i + 1 && box.width > 1.7 * height { break }
                ends.append(j)
            }
            return ends
        }
    }

    func box(_ run: Range<Int>) -> InkBox { pieces[run].dropFirst().reduce(pieces[run.lowerBound].box) { $0.union($1.box) } }

    /// The run's ink (its components' pixels in its pieces' columns, with the one-pixel fringe of
    /// anti-aliasing around them), fitted and centred as MNIST was.
    func render(_ run: Range<Int>, ink: Page, into out: UnsafeMutableBufferPointer<Float>) {
        let b = box(run)
        // A margin for the fringe and for widening thin strokes.
        let margin = 1 + Int(0.1 * height)
        let x0 = max(0, Int(b.x0) - margin), y0 = max(0, Int(b.y0) - margin)
        let x1 = min(ink.width - 1, Int(b.x1) + margin), y1 = min(ink.height - 1, Int(b.y1) + margin)
        let w = x1 - x0 + 1, h = y1 - y0 + 1
        var crop = Page(width: w, height: h, values: [Float](repeating: 0, count: w * h))
        var mine = Set<Int32>()
        for piece in pieces[run] { mine.insert(Int32(piece.component + 1)) }
        func owned(_ x: Int, _ y: Int) -> Bool {
            let label = labels[y * ink.width + x]
            guard mine.contains(label) else { return false }
            return pieces[run].contains { $0.component + 1 == Int(label) && $0.columns.contains(x) }
        }
        for y in y0...y1 {
            for x in x0...x1 {
                var take = owned(x, y)
                if !take && labels[y * ink.width + x] == 0 {
                    // Fringe: a background pixel next to the run's ink.
                    outer: for dy in -1...1 {
                        for dx in -1...1 {
                            let xx = x + dx, yy = y + dy
                            if xx >= 0, yy >= 0, xx < ink.width, yy < ink.height, owned(xx, yy) { take = true; break outer }
                        }
                    }
                }
                if take { crop.values[(y - y0) * w + (x - x0)] = ink.values[y * ink.width + x] }
            }
        }
        InkRegion(ink: crop, keep: nil).render(extentFloor: 0.5 * height, into: out)
    }
}

/// A small image of ink (any scale of values) rendered into 28×28 the way MNIST was made: the
/// ink's box fitted into 20×20 keeping its aspect (area averaging), gray levels scaled so strong
/// ink is 1, the centre of mass placed at (14, 14) with sub-pixel accuracy.
struct InkRegion {
    let ink: Page
    let box: (x0: Int, y0: Int, x1: Int, y1: Int)?

    init(ink: Page, keep: Float?) {
        self.ink = ink
        let level = keep ?? 0.1 * (ink.values.max() ?? 0)
        var x0 = Int.max, y0 = Int.max, x1 = -1, y1 = -1
        for y in 0..<ink.height {
            for x in 0..<ink.width where ink.values[y * ink.width + x] > level {
                x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
            }
        }
        box = x1 >= 0 ? (x0, y0, x1, y1) : nil
    }

    /// The stroke width the rendered digit gets, in output pixels (about MNIST's; the pen of the
    /// shipped rasterizer is 2.5): thinner strokes are thickened by a grey-level dilation first.
    static let strokeWidth: Float = 2.4

    func render(extentFloor: Float, into out: UnsafeMutableBufferPointer<Float>) {
        for i in 0..<784 { out[i] = 0 }
        guard let found = box else { return }
        let stride = ink.width
        var inside: [Float] = []
        for y in found.y0...found.y1 {
            for x in found.x0...found.x1 where ink.values[y * stride + x] > 0 { inside.append(ink.values[y * stride + x]) }
        }
        guard !inside.isEmpty else { return }
        inside.sort()
        let strong = max(inside[Int(0.9 * Float(inside.count - 1))], 1e-6)
        let extent = Float(max(found.x1 - found.x0 + 1, found.y1 - found.y0 + 1))
        let scale: Float = 20 / max(extent, extentFloor, 1)
        let radius = thickening(found, strong: strong, scale: scale)
        let values = radius > 0 ? dilated(found, radius: radius) : ink.values
        let x0 = max(0, found.x0 - radius), y0 = max(0, found.y0 - radius)
        let x1 = min(ink.width - 1, found.x1 + radius), y1 = min(ink.height - 1, found.y1 + radius)
        let w = x1 - x0 + 1, h = y1 - y0 + 1
        let small = Self.areaAverage(values, stride: stride, x0: x0, y0: y0, w: w, h: h, scale: scale, strong: strong)
        Self.centre(small.values, width: small.width, height: small.height, into: out)
    }

    /// How many pixels to widen the strokes by so that they end about `strokeWidth` output pixels
    /// wide: the width is estimated as 2 · area / boundary of the solid ink.
    private func thickening(_ b: (x0: Int, y0: Int, x1: Int, y1: Int), strong: Float, scale: Float) -> Int {
        var area = 0, boundary = 0
        let level = 0.5 * strong
        func solid(_ x: Int, _ y: Int) -> Bool { x >= 0 && y >= 0 && x < ink.width && y < ink.height && ink.values[y * ink.width + x] > level }
        for y in b.y0...b.y1 {
            for x in b.x0...b.x1 where solid(x, y) {
                area += 1
                if !solid(x - 1, y) || !solid(x + 1, y) || !solid(x, y - 1) || !solid(x, y + 1) { boundary += 1 }
            }
        }
        let width = 2 * Float(area) / Float(max(boundary, 1))
        return max(0, min(12, Int(((Self.strokeWidth / scale - width) / 2).rounded())))
    }

    /// A grey-level dilation (maximum over a square of side 2·radius + 1) around the box.
    private func dilated(_ b: (x0: Int, y0: Int, x1: Int, y1: Int), radius r: Int) -> [Float] {
        var grown = ink.values
        let w = ink.width, h = ink.height
        for y in max(0, b.y0 - r)...min(h - 1, b.y1 + r) {
            for x in max(0, b.x0 - r)...min(w - 1, b.x1 + r) {
                var m: Float = 0
                for yy in max(0, y - r)...min(h - 1, y + r) {
                    for xx in max(0, x - r)...min(w - 1, x + r) { m = max(m, ink.values[yy * w + xx]) }
                }
                grown[y * w + x] = m
            }
        }
        return grown
    }

    /// The box `w`×`h` at (`x0`, `y0`) of `values` reduced by `scale` with area averaging, in 0…1
    /// (`strong` ink is 1).
    static func areaAverage(_ values: [Float], stride: Int, x0: Int, y0: Int, w: Int, h: Int, scale: Float,
                            strong: Float) -> (values: [Float], width: Int, height: Int) {
        let ow = max(1, Int((Float(w) * scale).rounded())), oh = max(1, Int((Float(h) * scale).rounded()))
        var small = [Float](repeating: 0, count: ow * oh)
        let sx = Float(w) / Float(ow), sy = Float(h) / Float(oh)
        for oy in 0..<oh {
            let fy0 = Float(oy) * sy, fy1 = fy0 + sy
            for ox in 0..<ow {
                let fx0 = Float(ox) * sx, fx1 = fx0 + sx
                var sum: Float = 0
                var y = Int(fy0)
                while Float(y) < fy1 && y < h {
                    let wy = min(Float(y + 1), fy1) - max(Float(y), fy0)
                    var x = Int(fx0)
                    while Float(x) < fx1 && x < w {
                        let wx = min(Float(x + 1), fx1) - max(Float(x), fx0)
                        sum += wx * wy * values[(y0 + y) * stride + x0 + x]
                        x += 1
                    }
                    y += 1
                }
                small[oy * ow + ox] = min(1, sum / (sx * sy) / strong)
            }
        }
        return (small, ow, oh)
    }

    /// Places `small` in 28×28 with its centre of mass at (14, 14), shifted by a sub-pixel amount
    /// with bilinear interpolation.
    static func centre(_ small: [Float], width ow: Int, height oh: Int, into out: UnsafeMutableBufferPointer<Float>) {
        var mass: Float = 0, mx: Float = 0, my: Float = 0
        for y in 0..<oh {
            for x in 0..<ow {
                let v = small[y * ow + x]
                mass += v
                mx += v * Float(x)
                my += v * Float(y)
            }
        }
        guard mass > 0 else { return }
        let offsetX: Float = 14 - mx / mass, offsetY: Float = 14 - my / mass
        func at(_ x: Int, _ y: Int) -> Float { x >= 0 && y >= 0 && x < ow && y < oh ? small[y * ow + x] : 0 }
        for v in 0..<28 {
            for u in 0..<28 {
                let x = Float(u) - offsetX, y = Float(v) - offsetY
                let xf = x.rounded(.down), yf = y.rounded(.down)
                let xi = Int(xf), yi = Int(yf), tx = x - xf, ty = y - yf
                let top = at(xi, yi) * (1 - tx) + at(xi + 1, yi) * tx
                let bottom = at(xi, yi + 1) * (1 - tx) + at(xi + 1, yi + 1) * tx
                out[v * 28 + u] = top * (1 - ty) + bottom * ty
            }
        }
    }
}
