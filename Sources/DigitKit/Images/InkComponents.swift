import Foundation

/// The ink of a page as connected components: pixels above a threshold with hysteresis (a
/// component must hold at least one strong pixel; it grows through weaker ones), 8-connected.
///
/// The thresholds come from the ink map itself: the paper's noise is the median ink strength
/// (most of a page is paper), the ink's contrast the 90th percentile of what stands more than six
/// times that above it; a component needs a pixel above 35% of the contrast (and six times the
/// noise) and grows through pixels above half of that.
struct InkComponents {
    struct Component {
        var pixels: [Int]
        var x0: Int, y0: Int, x1: Int, y1: Int   // inclusive
        var width: Int { x1 - x0 + 1 }
        var height: Int { y1 - y0 + 1 }
        var midX: Float { Float(x0 + x1) / 2 }
        var midY: Float { Float(y0 + y1) / 2 }
    }

    let page: FloatImage
    /// Per pixel: the index of its component + 1, or 0.
    var labels: [Int32]
    var components: [Component] = []
    /// The pen's width in pixels.
    let strokeWidth: Float
    /// The ink strength of well inked pixels.
    var contrast: Float = 0

    init(_ map: InkMap) {
        let ink = map.ink
        page = ink
        strokeWidth = map.strokeWidth
        let noise = Morphology.quantile(ink.values, 0.5, binsPerLevel: 8) + 1
        let inked = ink.values.lazy.filter { $0 > 6 * noise }
        guard inked.contains(where: { _ in true }) else {
            labels = [Int32](repeating: 0, count: ink.width * ink.height)
            return
        }
        contrast = Morphology.quantile(inked, 0.9)
        let high = max(6 * noise, 0.35 * contrast, 8), low = max(3 * noise, 0.5 * high)
        let v = ink.values
        (labels, components) = Self.label(width: ink.width, height: ink.height, seed: { v[$0] >= high }, grow: { v[$0] >= low })
    }

    /// 8-connected components of the pixels `grow` accepts that hold a pixel `seed` accepts.
    static func label(width w: Int, height h: Int, seed: (Int) -> Bool, grow: (Int) -> Bool) -> (labels: [Int32], components: [Component]) {
        var labels = [Int32](repeating: 0, count: w * h)
        var components: [Component] = []
        var stack: [Int] = []
        for start in 0..<(w * h) where labels[start] == 0 && seed(start) {
            let id = Int32(components.count + 1)
            var c = Component(pixels: [], x0: w, y0: h, x1: -1, y1: -1)
            labels[start] = id
            stack.append(start)
            while let p = stack.popLast() {
                c.pixels.append(p)
                let x = p % w, y = p / w
                c.x0 = min(c.x0, x); c.x1 = max(c.x1, x); c.y0 = min(c.y0, y); c.y1 = max(c.y1, y)
                for yy in max(0, y - 1)...min(h - 1, y + 1) {
                    for xx in max(0, x - 1)...min(w - 1, x + 1) {
                        let q = yy * w + xx
                        if labels[q] == 0 && grow(q) {
                            labels[q] = id
                            stack.append(q)
                        }
                    }
                }
            }
            components.append(c)
        }
        return (labels, components)
    }

    /// The components that may be writing, and the writing's typical height (the median height of
    /// the five largest): not touching the image's border (there ink is the edge of a shadow, of
    /// the sheet or of a desk), not a speck (smaller than a fifth of the writing's height both
    /// ways, or with less than 1% of the largest component's pixels). When every component touches
    /// the border, the image may be a tight crop of the writing: then the components at least half
    /// as tall as the image and drawn like strokes (ink on at most half of their box, or at most 3
    /// pen widths across; a shadow fills a broad box) are the writing.
    func writing() -> (components: [Int], height: Float) {
        var writing = components.indices.filter { !touchesBorder(components[$0]) }
        if writing.isEmpty {
            writing = components.indices.filter { k in
                let c = components[k]
                return drawnLikeStrokes(c) && c.height * 2 >= page.height
            }
        }
        guard !writing.isEmpty else { return ([], 0) }
        let byArea = writing.sorted { components[$0].pixels.count > components[$1].pixels.count }
        let largest = components[byArea[0]].pixels.count
        let typical = byArea.prefix(5).map { components[$0].height }.sorted()
        let hc = Float(typical[typical.count / 2])
        let kept = writing.filter { k in
            let c = components[k]
            return c.pixels.count * 100 >= largest && (Float(c.height) >= 0.2 * hc || Float(c.width) >= 0.2 * hc)
        }
        return (kept, hc)
    }

    func touchesBorder(_ c: Component) -> Bool {
        c.x0 == 0 || c.y0 == 0 || c.x1 == page.width - 1 || c.y1 == page.height - 1
    }

    /// Drawn like strokes: ink on at most `fill` of its box, or at most `across` pen widths across
    /// (a shadow's edge fills a broad box).
    func drawnLikeStrokes(_ c: Component, fill: Float = 0.5, across: Float = 3) -> Bool {
        Float(c.pixels.count) <= fill * Float(c.width * c.height) || Float(min(c.width, c.height)) <= across * strokeWidth
    }

    /// The components of `writing` (inside the border) and, when `cutByFrame`, the components
    /// that touch the border but look like digits of the line cut by the photo's frame: drawn
    /// like strokes (a slice of a digit may be denser: ink on up to 60% of its box, or up to 4
    /// pen widths across), as strong as ink (on average 45% of the contrast: a shadow's edge is
    /// fainter), no speck, at most 1.5 writing heights tall and 4 wide (a sheet's or a
    /// shadow's edge runs on), in the line's band and at most a writing height from its ink.
    func cutByFrame(writing kept: [Int], height hc: Float, band: ClosedRange<Float>) -> [Int] {
        guard let largest = kept.map({ components[$0].pixels.count }).max(), kept.contains(where: { !touchesBorder(components[$0]) }) else { return [] }
        return components.indices.filter { k in
            let c = components[k]
            // A slice of a digit is denser than a whole one: ink on up to 60% of its box, or up to 4 pen widths across.
            guard touchesBorder(c), drawnLikeStrokes(c, fill: 0.6, across: 4), c.pixels.count * 100 >= largest,
                  Float(max(c.width, c.height)) >= 0.2 * hc, Float(c.height) <= 1.5 * hc, Float(c.width) <= 4 * hc,
                  Float(c.y1) >= band.lowerBound, Float(c.y0) <= band.upperBound else { return false }
            // As dark as pen ink: the edge of a shadow left on the border is a faint line (a third of the contrast).
            let strength = c.pixels.reduce(Float(0)) { $0 + page.values[$1] } / Float(c.pixels.count)
            guard strength >= 0.45 * contrast else { return false }
            return kept.contains { j in
                let w = components[j]
                return Float(max(0, c.x0 - w.x1, w.x0 - c.x1)) <= hc
            }
        }
    }

    /// The line of digits: the writing (`writing()`) near the main line, as pieces left to right —
    /// components that may hold several touching digits are cut along seams (`InkSeams`) — with
    /// the runs of pieces that may be one digit. With `cutByFrame`, the digits of the line that
    /// the photo's frame cuts are pieces too (`InkLine.cutByFrame`), so the reader can say that
    /// something is there instead of reading the number without them.
    func line(cutByFrame withCut: Bool = false) -> InkLine? {
        let (kept, hc) = writing()
        return band(of: kept, height: hc).map { line($0.components, band: $0.band, height: hc, cutByFrame: withCut) }
    }

    /// Every line of writing, top to bottom: the main line (`line()`) and, among the writing
    /// outside its band, each further band of components (found the same way) that holds a
    /// component at least `otherLineHeight` of the writing's height tall and `otherLineInk` of
    /// the main line's ink; at most `maxLines`. With several lines, each piece belongs to the line
    /// whose middle is nearest its own.
    func lines(cutByFrame withCut: Bool = false) -> [InkLine] {
        let (writing, hc) = writing()
        var rest = writing
        var bands: [(components: [Int], band: ClosedRange<Float>)] = []
        while let found = band(of: rest, height: hc) {
            bands.append(found)
            let taken = Set(found.components)
            rest.removeAll { taken.contains($0) }
        }
        guard let main = bands.first else { return [] }
        func ink(_ ks: [Int]) -> Int { ks.reduce(0) { $0 + components[$1].pixels.count } }
        let mainInk = ink(main.components)
        let others = bands.dropFirst().filter { b in
            b.components.contains { Float(components[$0].height) >= Self.otherLineHeight * hc }
                && Float(ink(b.components)) >= Self.otherLineInk * Float(mainInk)
        }.sorted { ink($0.components) > ink($1.components) }.prefix(Self.maxLines - 1)
        var kept = ([main] + others).sorted { $0.band.lowerBound < $1.band.lowerBound }
        if kept.count > 1 {
            // A band takes every piece that reaches into it, the first found the most: each piece
            // goes to the line whose middle is nearest its own.
            let middles = kept.map { ($0.band.lowerBound + $0.band.upperBound) / 2 }
            let all = kept.flatMap(\.components)
            for k in kept.indices {
                kept[k].components = all.filter { c in
                    middles.indices.min { abs(components[c].midY - middles[$0]) < abs(components[c].midY - middles[$1]) } == k
                }
            }
            kept.removeAll { $0.components.isEmpty }
        }
        return kept.map { line($0.components, band: $0.band, height: hc, cutByFrame: withCut) }
    }

    /// A further line of writing holds a component at least this share of the writing's height tall…
    static let otherLineHeight: Float = 0.5
    /// …and at least this share of the main line's ink.
    static let otherLineInk: Float = 0.03
    /// At most this many lines are read (those with the most ink), so noise cannot make a page
    /// of hundreds.
    static let maxLines = 16

    /// The band of the line through the middle of `kept` (the median of the components' middles
    /// weighted by their ink), 1.5 writing heights tall, and the components of `kept` in it.
    private func band(of kept: [Int], height hc: Float) -> (components: [Int], band: ClosedRange<Float>)? {
        guard !kept.isEmpty else { return nil }
        let weighted = kept.flatMap { k in Array(repeating: components[k].midY, count: max(1, components[k].pixels.count / 16)) }.sorted()
        let middle = weighted[weighted.count / 2]
        let band = (middle - 0.75 * hc)...(middle + 0.75 * hc)
        let inBand = kept.filter { k in Float(components[k].y1) >= band.lowerBound && Float(components[k].y0) <= band.upperBound }
        return inBand.isEmpty ? nil : (inBand, band)
    }

    /// The line made of `kept` (the components in `band`), its pieces cut along seams.
    private func line(_ kept: [Int], band: ClosedRange<Float>, height hc: Float, cutByFrame withCut: Bool) -> InkLine {
        let lineHeight = max(Float(kept.map { components[$0].height }.max() ?? 1), 1)
        let cut = withCut ? cutByFrame(writing: kept, height: hc, band: band) : []
        var pieces: [InkLine.Piece] = []
        for k in kept + cut {
            let c = components[k]
            let seams = InkSeams(component: c, page: page, strokeWidth: strokeWidth, contrast: contrast, lineHeight: lineHeight).seams
            var parts = [[Int]](repeating: [], count: seams.count + 1)
            for p in c.pixels {
                let x = p % page.width, row = p / page.width - c.y0
                var part = 0
                while part < seams.count && x >= seams[part][row] { part += 1 }
                parts[part].append(p)
            }
            for part in parts where !part.isEmpty { pieces.append(InkLine.Piece(component: k, pixels: part, width: page.width)) }
        }
        return InkLine(pieces: pieces, labels: labels, width: page.width, height: lineHeight, cutByFrame: Set(cut))
    }

    /// Component `k` cut into its strokes, followed through crossings (`InkStrokes`); empty when
    /// it is one stroke, too narrow to hold two digits, or has no junction.
    func strokes(of k: Int, lineHeight: Float) -> [[Int]] {
        InkStrokes(component: components[k], pageWidth: page.width, strokeWidth: strokeWidth, lineHeight: lineHeight).strokes
    }
}
