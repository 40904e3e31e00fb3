import DigitFormats
import Foundation

/// The straight edges of a sheet photographed at an angle that runs off the frame: beyond them
/// lies the desk, a dark wedge along a side or in a corner. Where the desk is broad the ink map
/// takes it for background, but where it narrows to a point (narrower than the background's
/// window) it stands out as ink: a long, dark, straight stroke that the line reader reads as a `1`
/// or as a line of its own. A sheet wholly inside the frame is `PaperSheet`'s; a desk strip square
/// to the frame is a scanner margin, which the line cut already takes out (`LineImage`).
///
/// Found on the image reduced to about `PaperSheet.side` pixels on its long side: Otsu's threshold
/// splits it into bright and dark, the bright part at least `minSheet` of the frame (a chalk
/// close-up's bright part is its strokes). Each dark region touching the frame, covering at least
/// `minArea` of it and at most `maxBoxFill` of its own box (a band that fills its box, a scanner's
/// margin turned or not, is the line cut's: `LineImage` takes it out, and `Skew` levels a crooked
/// scan by its edge), is a desk when its boundary with the bright part is one or two straight
/// lines (`lines`: found by consensus, each holding at least `minShare` of the boundary within
/// `fit` cells, then fitted by least squares) and
/// - each line is tilted at least `minTilt` from the frame's sides, and what lies beyond it
///   narrows to nothing within the frame (a wedge, not a band);
/// - at least `minDark` of the cells beyond the lines (their far sides together) are dark, and
///   at most half the frame lies beyond them;
/// - no writing lies on what is painted: at most two cells, or `maxInk` of them, are darker than
///   the desk's median by `PaperSheet.deskMargin` grey levels or four of its deviations (a hard
///   shadow across writing is not a desk);
/// - along each line, a band of `band` cells on the sheet's side is at least `minBright` bright,
///   at least `PaperSheet.minContrast` grey levels above the desk, and the edge is a step: two
///   cells in against two out differ by at least `PaperSheet.minStep` of that contrast (a soft
///   shadow fades);
/// - what lies beyond is one surface: its 10th and 90th percentiles differ by at most `maxSpread`
///   of that contrast (a hard shadow bounds paper in shade, lighter than any desk beside it).
/// What lies beyond the lines, and `inset` cells more toward the sheet (the edge's blur), is then
/// painted (`fill`, `painted`) before the image is read.
struct SheetEdges {
    static let minArea: Float = 0.02
    static let minShare: Float = 0.35
    static let fit: Float = 1.2
    static let minTilt: Float = 3
    static let minDark: Float = 0.93
    static let maxInk: Float = 0.002
    static let band = 4
    static let minBright: Float = 0.9
    static let inset: Float = 1.5
    static let maxSpread: Float = 0.3
    static let maxBoxFill: Float = 0.6
    static let minSheet: Float = 0.5

    /// A line a·x + b·y = c in the decoded image's pixels, (a, b) of length 1 pointing to the desk.
    struct Edge: Equatable {
        var a: Float, b: Float, c: Float
        /// How far (x, y) lies beyond the edge, toward the desk (negative on the sheet's side).
        func beyond(_ x: Float, _ y: Float) -> Float { a * x + b * y - c }
    }

    /// How far (x, y) lies beyond the farthest of `edges` (negative when on the sheet's side of all).
    static func depth(_ edges: [Edge], _ x: Float, _ y: Float) -> Float {
        edges.reduce(-Float.infinity) { max($0, $1.beyond(x, y)) }
    }

    /// The edges, in the decoded image's pixels; a pixel lies on the desk when it is beyond any of them.
    let edges: [Edge]
    /// The paper's tone beside them.
    let paper: UInt8
    /// What the desk is painted with, on the reduced image's cells (`fill.factor` pixels each),
    /// for the cells beyond the edges and a band inside them: the median of the bright cells of
    /// the sheet within `reach` cells of the point a cell inside the nearest edge straight across
    /// (across another edge too where that point lies beyond it). Shadows and gradients on the
    /// sheet run on to the frame without a step; strokes near the edge are not drawn out across
    /// the desk, and the tone is the paper's own, not the brighter grain.
    let fill: FloatImage
    static let reach = 3

    /// The desk beyond a sheet's straight edges in `page` (the decoded image as `FloatImage`),
    /// nil when there is none.
    static func find(in page: FloatImage) -> SheetEdges? { SheetGrid(page).flatMap(find(in:)) }

    /// The desk seen on `look`, the reduced view of the page.
    static func find(in look: SheetGrid) -> SheetEdges? {
        let grid = look.grid, bright = look.bright
        let w = grid.width, h = grid.height, values = grid.values
        guard w >= 16, h >= 16 else { return nil }
        // The sheet fills most of the frame (a chalk close-up's bright part is its strokes).
        guard Float(bright.filter { $0 }.count) >= minSheet * Float(w * h) else { return nil }
        let dark = InkComponents.label(width: w, height: h, seed: { !bright[$0] }, grow: { !bright[$0] }).components
        var found: [Edge] = []
        var paperTones: [Float] = []
        // A region that fills most of its box (a band along a side, a scanner's margin turned
        // with a crooked scan) is the line cut's to take out, and it levels a tilted page by it.
        for region in dark where Float(region.pixels.count) >= minArea * Float(w * h)
            && Float(region.pixels.count) <= maxBoxFill * Float(region.width * region.height)
            && (region.x0 == 0 || region.y0 == 0 || region.x1 == w - 1 || region.y1 == h - 1) {
            guard let (edges, tone) = desk(region, values: values, bright: bright, width: w, height: h) else { continue }
            found += edges
            paperTones.append(tone)
        }
        guard !found.isEmpty else { return nil }
        // Back to the decoded image's pixels: cell (x, y) covers pixels f·x … f·x + f − 1.
        let f = Float(grid.factor)
        let edges = found.map { e in
            Edge(a: e.a, b: e.b, c: f * (e.c - inset) + (f - 1) / 2 * (e.a + e.b))
        }
        let tone = Morphology.median(paperTones)
        return SheetEdges(edges: edges, paper: UInt8(min(255, max(0, tone.rounded()))),
                          fill: grid.with(Self.fill(values, bright: bright, width: w, height: h, edges: found, paper: tone)))
    }

    /// The edges of one dark region with the paper's tone beside them, if it is a desk.
    private static func desk(_ region: InkComponents.Component, values: [Float], bright: [Bool], width w: Int, height h: Int)
        -> ([Edge], Float)? {
        // The boundary with the bright part, inside the frame.
        var boundary: [(Float, Float)] = []
        for p in region.pixels {
            let x = p % w, y = p / w
            let neighbours = [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)].filter { $0.0 >= 0 && $0.0 < w && $0.1 >= 0 && $0.1 < h }
            if neighbours.contains(where: { bright[$0.1 * w + $0.0] }) { boundary.append((Float(x), Float(y))) }
        }
        guard boundary.count >= 12 else { return nil }
        let lines = Self.lines(boundary, count: 2)
        guard !lines.isEmpty else { return nil }
        // Each line's normal turned toward the region (its mean lies beyond).
        let mx = Float(region.pixels.reduce(0) { $0 + $1 % w }) / Float(region.pixels.count)
        let my = Float(region.pixels.reduce(0) { $0 + $1 / w }) / Float(region.pixels.count)
        let edges = lines.map { l -> Edge in l.beyond(mx, my) >= 0 ? l : Edge(a: -l.a, b: -l.b, c: -l.c) }
        for e in edges {
            // Square to the frame: a scanner's margin or a desk strip the line cut takes out.
            let tilt = min(abs(e.a), abs(e.b))
            guard tilt >= sin(minTilt * .pi / 180) else { return nil }
            // A wedge: what lies beyond the edge narrows to nothing within the frame (across the
            // rows of an upright edge, the columns of a level one). A band that does not (a
            // scanner's margin on a crooked scan) is the line cut's.
            let upright = abs(e.a) >= abs(e.b)
            let narrowest = (0..<(upright ? h : w)).map { k in
                (0..<(upright ? w : h)).filter { j in upright ? e.beyond(Float(j), Float(k)) > 0 : e.beyond(Float(k), Float(j)) > 0 }.count
            }.min() ?? 0
            guard narrowest <= 1 else { return nil }
        }
        let beyond = { (x: Int, y: Int) in depth(edges, Float(x), Float(y)) > 1.5 }
        var far: [Float] = [], farDark = 0
        for y in 0..<h { for x in 0..<w where beyond(x, y) { far.append(values[y * w + x]); if !bright[y * w + x] { farDark += 1 } } }
        guard !far.isEmpty, Float(far.count) <= 0.5 * Float(w * h), Float(farDark) >= minDark * Float(far.count) else { return nil }
        // The region lies beyond the lines (a stroke or a shadow that only meets them does not).
        let outside = region.pixels.filter { p in depth(edges, Float(p % w), Float(p / w)) <= -1.5 }.count
        guard Float(outside) <= 0.1 * Float(region.pixels.count) else { return nil }
        // No writing on the desk: few cells far darker than its tone.
        let sortedFar = far.sorted()
        let deskTone = sortedFar[sortedFar.count / 2]
        let spread = Morphology.median(far.map { abs($0 - deskTone) })
        // Writing on what is painted would be lost: few cells darker than the desk by its margin.
        let margin = max(PaperSheet.deskMargin, 4 * spread)
        var inky = 0
        for y in 0..<h {
            for x in 0..<w where values[y * w + x] < deskTone - margin && depth(edges, Float(x), Float(y)) > -inset - 1 {
                inky += 1
            }
        }
        guard Float(inky) <= max(2, maxInk * Float(far.count)) else { return nil }
        // Along each line, paper on the sheet's side and a step at the edge.
        var paper: [Float] = []
        for e in edges {
            var near: [Float] = [], brightNear = 0, step: Float = 0, steps = 0
            for y in 0..<h {
                for x in 0..<w {
                    let d = -e.beyond(Float(x), Float(y))   // distance into the sheet
                    guard d > 1.5, d <= 1.5 + Float(band), depth(edges, Float(x), Float(y)) <= -1.5 else { continue }
                    near.append(values[y * w + x])
                    if bright[y * w + x] { brightNear += 1 }
                }
            }
            // The step, across the edge at points along it inside the frame.
            let along = (-e.b, e.a)
            let x0 = e.a * e.c, y0 = e.b * e.c   // the point of the line nearest the origin
            for s in stride(from: Float(-2 * (w + h)), through: Float(2 * (w + h)), by: 1) {
                let px = x0 + s * along.0, py = y0 + s * along.1
                func at(_ d: Float) -> Float? {
                    let x = Int((px + d * e.a).rounded()), y = Int((py + d * e.b).rounded())
                    return x >= 0 && x < w && y >= 0 && y < h ? values[y * w + x] : nil
                }
                guard let i2 = at(-2), let i3 = at(-3), let o2 = at(2), let o3 = at(3) else { continue }
                step += (i2 + i3 - o2 - o3) / 2
                steps += 1
            }
            guard near.count >= 8, steps >= 4, Float(brightNear) >= minBright * Float(near.count) else { return nil }
            let tone = Morphology.median(near)
            let contrast = tone - deskTone
            guard contrast >= PaperSheet.minContrast, step / Float(steps) >= PaperSheet.minStep * contrast else { return nil }
            paper.append(tone)
        }
        // One surface beyond the edges: its tones within `maxSpread` of the contrast (a shadow's
        // hard edge bounds paper in shade, lighter than the desk beside it).
        let contrast = (paper.min() ?? 0) - deskTone
        guard sortedFar[sortedFar.count * 9 / 10] - sortedFar[sortedFar.count / 10] <= maxSpread * contrast else { return nil }
        return (edges, Morphology.median(paper))
    }

    /// Up to `count` straight lines through `points`: each the line through two of them that the
    /// most lie within `fit` of (pairs taken at even steps), kept when those are at least
    /// `minShare` of all the points, refitted to them by least squares (the principal axis), and
    /// its points set aside before the next.
    static func lines(_ points: [(Float, Float)], count: Int) -> [Edge] {
        var left = points
        var found: [Edge] = []
        let need = Int((minShare * Float(points.count)).rounded(.up))
        while found.count < count, left.count >= max(need, 8) {
            let step = max(1, left.count / 40)
            var best: (Edge, Int)?
            for i in stride(from: 0, to: left.count, by: step) {
                for j in stride(from: i + step, to: left.count, by: step) {
                    let (x1, y1) = left[i], (x2, y2) = left[j]
                    let dx = x2 - x1, dy = y2 - y1, n = (dx * dx + dy * dy).squareRoot()
                    guard n >= 4 else { continue }
                    let e = Edge(a: -dy / n, b: dx / n, c: (-dy * x1 + dx * y1) / n)
                    let inliers = left.filter { abs(e.beyond($0.0, $0.1)) <= fit }.count
                    if inliers > best?.1 ?? 0 { best = (e, inliers) }
                }
            }
            guard let (rough, inliers) = best, inliers >= need else { break }
            let kept = left.filter { abs(rough.beyond($0.0, $0.1)) <= fit }
            found.append(Self.leastSquares(kept) ?? rough)
            left = left.filter { abs(rough.beyond($0.0, $0.1)) > fit }
        }
        return found
    }

    /// The line of least squared distance to `points`: through their mean, along their principal axis.
    static func leastSquares(_ points: [(Float, Float)]) -> Edge? {
        guard points.count >= 2 else { return nil }
        let n = Float(points.count)
        let mx = points.reduce(0) { $0 + $1.0 } / n, my = points.reduce(0) { $0 + $1.1 } / n
        var sxx: Float = 0, syy: Float = 0, sxy: Float = 0
        for (x, y) in points { sxx += (x - mx) * (x - mx); syy += (y - my) * (y - my); sxy += (x - mx) * (y - my) }
        // The principal axis's angle; the normal is square to it.
        let angle = 0.5 * atan2(2 * sxy, sxx - syy)
        let a = -sin(angle), b = cos(angle)
        return Edge(a: a, b: b, c: a * mx + b * my)
    }

    /// The fill of each cell beyond the edges or within `inset` + 2 cells inside them, the
    /// paper's tone elsewhere (`fill`).
    private static func fill(_ values: [Float], bright: [Bool], width w: Int, height h: Int, edges: [Edge], paper: Float) -> [Float] {
        var out = [Float](repeating: paper, count: w * h)
        var sample: [Float] = []
        for y in 0..<h {
            for x in 0..<w where depth(edges, Float(x), Float(y)) > -inset - 2 {
                var qx = Float(x), qy = Float(y)
                for _ in 0..<3 {
                    guard let e = edges.max(by: { $0.beyond(qx, qy) < $1.beyond(qx, qy) }), e.beyond(qx, qy) > -inset - 1 else { break }
                    let d = e.beyond(qx, qy) + inset + 1
                    qx -= d * e.a; qy -= d * e.b
                }
                sample.removeAll(keepingCapacity: true)
                let cx = Int(qx.rounded()), cy = Int(qy.rounded())
                for yy in max(0, cy - reach)...max(0, min(h - 1, cy + reach)) where yy <= h - 1 {
                    for xx in max(0, cx - reach)...max(0, min(w - 1, cx + reach)) where xx <= w - 1 {
                        if bright[yy * w + xx], depth(edges, Float(xx), Float(yy)) <= -inset { sample.append(values[yy * w + xx]) }
                    }
                }
                if !sample.isEmpty { out[y * w + x] = Morphology.median(sample) }
            }
        }
        return out
    }

    /// `image` with the desk beyond the edges painted with `fill`, bilinear between the cells'
    /// centres. Colour is dropped: the reader works on gray levels.
    func painted(_ image: DecodedImage) -> DecodedImage {
        var out = image
        out.rgb = nil
        let w = image.width, h = image.height
        let f = Float(fill.factor), fw = fill.width, fh = fill.height, v = fill.values
        for y in 0..<h {
            for x in 0..<w where Self.depth(edges, Float(x), Float(y)) > 0 {
                let gx = min(max((Float(x) - (f - 1) / 2) / f, 0), Float(fw - 1))
                let gy = min(max((Float(y) - (f - 1) / 2) / f, 0), Float(fh - 1))
                let x0 = min(Int(gx), max(0, fw - 2)), y0 = min(Int(gy), max(0, fh - 2))
                let x1 = min(x0 + 1, fw - 1), y1 = min(y0 + 1, fh - 1), tx = gx - Float(x0), ty = gy - Float(y0)
                let value = (1 - ty) * ((1 - tx) * v[y0 * fw + x0] + tx * v[y0 * fw + x1]) + ty * ((1 - tx) * v[y1 * fw + x0] + tx * v[y1 * fw + x1])
                out.gray[y * w + x] = UInt8(min(255, max(0, value.rounded())))
            }
        }
        return out
    }
}

extension SheetEdges: CustomStringConvertible {
    var description: String {
        "SheetEdges(" + edges.map { String(format: "%.3fx%+.3fy=%.1f", $0.a, $0.b, $0.c) }.joined(separator: ", ") + ", paper \(paper))"
    }
}
