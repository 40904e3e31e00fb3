import Foundation

/// Where a component of ink that may hold several touching digits could be cut: seams from its
/// top row to its bottom row that cross as little ink as possible.
///
/// Digits written close together touch, cross a neighbour's stroke with a slanted one, or run
/// into each other with a long tail, so a straight vertical cut would take part of one digit into
/// the other. A seam may bend: it moves at most one column a row, costs the ink it runs through
/// (in pixels of full ink) plus a little for each bend, and stays within a quarter line height of
/// the column it started from. One seam is found for each starting column by dynamic programming
/// over the rows; the cheapest seams that cross at most about three strokes, leave ink on both
/// sides and lie at least 0.12 line heights apart are kept, left to right and not crossing. They
/// are only candidates: the number reader scores the pieces with and without each cut.
struct InkSeams {
    /// Per seam, left to right: for each row of the component (`y0...y1`) the first column of the
    /// seam's right side.
    var seams: [[Int]] = []

    /// A cost per bend, in pixels of ink.
    static let bendCost: Float = 0.3
    /// A cost per row for straying from the starting column, per line height strayed, in pixels
    /// of ink: it makes the seams of neighbouring starts differ, so that the cheapest among them
    /// mark the places to cut.
    static let strayCost: Float = 0.5
    /// The most strokes' worth of ink a seam may cross.
    static let maxCrossings: Float = 3
    /// The side of the grid cells the seam moves on is the line height / this (at least a pixel),
    /// so that finding seams costs the same at any resolution.
    static let cellsPerLine: Float = 48
    /// Seams kept are at least this many line heights apart.
    static let spacing: Float = 0.12

    init(component c: InkComponents.Component, page: FloatImage, strokeWidth: Float, contrast: Float, lineHeight h: Float) {
        guard Float(c.width) >= 0.45 * h, c.width >= 6, c.height >= 4, contrast > 0 else { return }
        let u = max(1, Int(h / Self.cellsPerLine))
        let w = c.width, ht = c.height
        var ink = [Float](repeating: 0, count: w * ht)
        var total: Float = 0
        for p in c.pixels {
            let v = min(1, page.values[p] / contrast)
            ink[(p / page.width - c.y0) * w + p % page.width - c.x0] = v
            total += v
        }
        // cost[r * boundaries + k]: the ink a seam crosses running down boundary k (between columns
        // k·u − 1 and k·u of the component) through the rows of cell row r.
        let boundaries = (w + u - 1) / u, rows = (ht + u - 1) / u
        var cost = [Float](repeating: 0, count: rows * boundaries)
        for r in 0..<rows {
            for k in 1..<boundaries {
                let x = k * u
                var s: Float = 0
                for y in (r * u)..<min(ht, (r + 1) * u) { s += ink[y * w + x] }
                cost[r * boundaries + k] = s
            }
        }
        let band = max(1, Int(0.25 * h / Float(u)))
        let margin = max(1, Int((0.1 * h / Float(u)).rounded(.up)))
        guard boundaries - margin > margin else { return }
        var found: [(cost: Float, ink: Float, path: [Int], meanX: Float)] = []
        var best = [Float](repeating: 0, count: rows * boundaries)
        var from = [Int](repeating: 0, count: rows * boundaries)
        let stray = Self.strayCost * Float(u * u) / h
        for start in margin..<(boundaries - margin) {
            let lo = max(1, start - band), hi = min(boundaries - 1, start + band)
            for k in lo...hi { best[k] = cost[k] + stray * Float(abs(k - start)) }
            for r in 1..<max(1, rows) {
                for k in lo...hi {
                    var b = Float.infinity, f = k
                    for dk in -1...1 where k + dk >= lo && k + dk <= hi {
                        let v = best[(r - 1) * boundaries + k + dk] + (dk == 0 ? 0 : Self.bendCost)
                        if v < b { b = v; f = k + dk }
                    }
                    best[r * boundaries + k] = b + cost[r * boundaries + k] + stray * Float(abs(k - start))
                    from[r * boundaries + k] = f
                }
            }
            var end = lo
            for k in lo...hi where best[(rows - 1) * boundaries + k] < best[(rows - 1) * boundaries + end] { end = k }
            var path = [Int](repeating: end, count: rows)
            for r in stride(from: rows - 1, to: 0, by: -1) { path[r - 1] = from[r * boundaries + path[r]] }
            var inkCrossed: Float = 0
            for r in 0..<rows { inkCrossed += cost[r * boundaries + path[r]] }
            let meanX = Float(path.reduce(0, +) * u) / Float(rows)
            found.append((best[(rows - 1) * boundaries + end], inkCrossed, path, meanX))
        }
        // The local minima of the cost over the starting columns.
        var minima: [(cost: Float, ink: Float, path: [Int], meanX: Float)] = []
        for (i, seam) in found.enumerated() {
            let left = i > 0 ? found[i - 1].cost : .infinity, right = i + 1 < found.count ? found[i + 1].cost : .infinity
            if seam.cost < left && seam.cost <= right { minima.append(seam) }
        }
        var chosen: [[Int]] = []
        var chosenX: [Float] = []
        let limit = Self.maxCrossings * strokeWidth
        for seam in minima.sorted(by: { ($0.cost, $0.meanX) < ($1.cost, $1.meanX) }) where seam.ink <= limit {
            guard chosenX.allSatisfy({ abs($0 - seam.meanX) >= Self.spacing * h }) else { continue }
            // Both sides must hold ink, and be at least 0.1 line heights wide.
            var left: Float = 0, leftMax = -1, rightMin = w
            for y in 0..<ht {
                let cut = seam.path[y / u] * u
                for x in 0..<w where ink[y * w + x] > 0 {
                    if x < cut { left += ink[y * w + x]; leftMax = max(leftMax, x) } else { rightMin = min(rightMin, x) }
                }
            }
            guard left >= 0.05 * total, total - left >= 0.05 * total,
                  Float(leftMax + 1) >= 0.1 * h, Float(w - rightMin) >= 0.1 * h else { continue }
            chosen.append(seam.path)
            chosenX.append(seam.meanX)
            if chosen.count == 8 { break }
        }
        let order = chosen.indices.sorted { chosenX[$0] < chosenX[$1] }
        var previous: [Int]?
        for i in order {
            var seam = (0..<ht).map { c.x0 + chosen[i][$0 / u] * u }
            if let previous { for y in 0..<ht { seam[y] = max(seam[y], previous[y]) } }
            seams.append(seam)
            previous = seam
        }
    }
}
