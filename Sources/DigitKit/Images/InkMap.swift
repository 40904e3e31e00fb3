import Foundation

/// A gray image as floats, 0 = black … 255 = white, with the factor from its pixels to the stored image's.
struct FloatImage {
    var width: Int, height: Int
    var values: [Float]
    /// Working pixels → decoded pixels.
    var factor = 1
    /// Decoded pixels → stored pixels (JPEG DCT scaling).
    var scale = 1

    init(width: Int, height: Int, values: [Float], factor: Int = 1, scale: Int = 1) {
        self.width = width
        self.height = height
        self.values = values
        self.factor = factor
        self.scale = scale
    }

    init(_ image: DecodedImage) {
        self.init(width: image.width, height: image.height, values: image.gray.map(Float.init), scale: image.scale)
    }

    /// Averages blocks of `k`×`k` pixels so the long side is at most `side`.
    func reduced(toSide side: Int) -> FloatImage {
        reduced(by: max(1, (max(width, height) + side - 1) / side))
    }

    /// Averages blocks of `k`×`k` pixels (what is left over at the right and bottom is dropped).
    func reduced(by k: Int) -> FloatImage {
        guard k > 1, width >= k, height >= k else { return self }
        let w = width / k, h = height / k
        var out = [Float](repeating: 0, count: w * h)
        values.withUnsafeBufferPointer { v in
            for y in 0..<h {
                for x in 0..<w {
                    var sum: Float = 0
                    for dy in 0..<k { for dx in 0..<k { sum += v[(y * k + dy) * width + x * k + dx] } }
                    out[y * w + x] = sum / Float(k * k)
                }
            }
        }
        return FloatImage(width: w, height: h, values: out, factor: factor * k, scale: scale)
    }

    /// The same page with other values.
    func with(_ values: [Float]) -> FloatImage { FloatImage(width: width, height: height, values: values, factor: factor, scale: scale) }

    /// The columns of paper: the widest run of columns whose mean is at least 0.35 of the median
    /// column's, the whole width when that run is narrower than a quarter of it. A scanner's black
    /// margin is dark through the whole crop (and broader than a background window, so it is no
    /// ink); a light page's level beside it is no evidence of light ink.
    var paperColumns: Range<Int> {
        var sums = [Float](repeating: 0, count: width)
        for y in 0..<height { for x in 0..<width { sums[x] += values[y * width + x] } }
        return Self.paper(sums)
    }

    /// The rows of paper, as `paperColumns`: all but a dark border above or below (on a crop cut
    /// tight around the writing, a scanner's margin or the edge of a cheque runs along it).
    var paperRows: Range<Int> {
        var sums = [Float](repeating: 0, count: height)
        for y in 0..<height { for x in 0..<width { sums[y] += values[y * width + x] } }
        return Self.paper(sums)
    }

    /// The lines (columns or rows, by their sums) between the dark borders at either end: a run
    /// of lines under 0.35 of the median line that starts (or ends) within a twentieth of the
    /// end. Dark lines inside are strokes (an upright 1 on a crop cut tight around it), not a
    /// border. All of them when what is left is under a quarter.
    private static func paper(_ sums: [Float]) -> Range<Int> {
        let n = sums.count
        let level = sums.sorted()[n / 2]
        let dark = sums.map { $0 < 0.35 * level }
        let reach = max(1, n / 20)
        var lower = 0, upper = n
        if let first = dark.prefix(reach).firstIndex(of: true) {
            lower = dark[first...].firstIndex(of: false) ?? n
        }
        if let last = dark.suffix(reach).lastIndex(of: true) {
            upper = (dark[..<last].lastIndex(of: false) ?? -1) + 1
        }
        return upper - lower >= n / 4 ? lower..<upper : 0..<n
    }

    /// The polarity of a small pre-cropped digit, from its border (the ground): light ink when the
    /// border is darker than mid-gray (as MNIST).
    var borderIsDark: Bool {
        var border: Float = 0, n: Float = 0
        for x in 0..<width { border += values[x] + values[(height - 1) * width + x]; n += 2 }
        for y in 0..<height { border += values[y * width] + values[y * width + width - 1]; n += 2 }
        return border / n < 128
    }

    /// The image as ink in 0…1 (1 = full ink), the polarity taken from the border: a dark border
    /// means light ink on a dark ground (MNIST), a light one dark ink on paper.
    func polarized() -> FloatImage {
        let lightInk = borderIsDark
        return with(values.map { lightInk ? $0 / 255 : (255 - $0) / 255 })
    }
}

/// The ink of a page as strength above the local background, 0 (paper) … about 255 (full ink),
/// and what was learned on the way: the polarity, the pen's width and the paper's noise.
///
/// 1. **Polarity.** The page's level is estimated as the median of blocks 1/16 of its long side,
///    interpolated; ink is what departs from it far beyond the paper's noise (5 robust standard
///    deviations). Dark ink on paper departs downwards, chalk on a board upwards; the side with
///    more such departure is the ink. When neither clearly dominates (by a factor e), a dark page
///    (median under `darkPage`) means light ink; a page under `greyPage` goes by which side has
///    more, the lighter meaning light ink (a hard shadow over more than half a sheet brings its
///    median that low, and the lit side of its edge departs upwards as much as chalk would).
///    A scanner's black margin (columns darker than 0.35 of the median column, `paperColumns`)
///    drags the blocks' level down beside it, so the paper there departs upwards like chalk: the
///    departures are counted a block away from such a margin (on real scans of faint ink the
///    margin's edge outweighed the writing and the page was taken for light ink). The same holds
///    for a dark border above or below (rows darker than 0.35 of the median row, `paperRows`): on
///    a crop cut tight around a number it lies a few rows from the writing.
/// 2. **Pen width.** The pixels departing from the level by more than 6 noise deviations (away from
///    a margin, as above) are a rough mask of the ink; its mean width (2 · area / boundary) is the
///    pen's. A broad pen (a marker filling a close-up or a small crop) may fill whole blocks,
///    whose level then follows the ink, so only the edges of its strokes depart. So one threshold
///    over the page (Otsu's) also splits it in two: where the paper side holds at least three
///    quarters of the border and the other side has strokes more than 1.5 times as broad, that
///    side is the ink if the departures measured again from blocks three of those strokes across
///    (against the same noise) find strokes at least half as broad. A shadow's or a vignette's dark
///    side fails that test: at the coarse scale only the writing in it departs, and its strokes
///    are as thin as before. Without the test, the split is taken where its strokes are a third
///    of a block wide or more and the paper side holds 95% of the border (until 2026-11-28 the
///    departures' pen had to be that wide, which a marker's edges alone never are). On a small
///    crop (blocks of 8 pixels, the least: under 144 pixels), where the coarse blocks would span
///    most of the crop, the split is made on the paper inside a dark border (`paperColumns`,
///    `paperRows`) and taken without the test whenever its strokes are that wide: a number cut
///    tight runs into the crop's edge. A split into light ink is taken only on a page whose
///    median is darker than 128 (a board): a register's crop scanned at half the resolution, a
///    small crop beside a black margin, was split into light ink 20 pixels broad, the paper
///    taken for chalk.
/// 3. **Background.** A grey closing (for dark ink; for light ink the same on the inverted page)
///    over a square three pen widths across (at most a tenth of the long side, or 1.5 pen widths
///    and two pixels if that is wider) fills every stroke in with the paper around it and
///    keeps gradients, vignettes and the edges of shadows, which are wider than any stroke. The
///    page is smoothed over 3×3 first so the closing does not climb onto the grain's highlights.
/// 4. **Ink.** Background minus page, at the page's full resolution and anti-aliasing.
struct InkMap {
    /// Ink strength, 0 = background.
    var ink: FloatImage
    /// Light ink on a dark ground.
    var lightInk: Bool
    /// The pen's width in working pixels (at least 1).
    var strokeWidth: Float
    /// The side of the closing's square.
    var window: Int
    /// The page's columns of paper (`FloatImage.paperColumns`: all but a black scanner margin).
    var paperColumns: Range<Int>

    init(_ page: FloatImage) {
        let w = page.width, h = page.height
        let block = max(8, max(w, h) / 16)
        paperColumns = page.paperColumns
        let rows = page.paperRows
        let median = Morphology.quantile(page.values, 0.5)
        var found = Self.departures(page, median: median, block: block, paper: paperColumns, rows: rows)
        // A broad pen (a marker filling a close-up) may fill whole blocks, whose level then follows
        // the ink, so that only the edges of its strokes depart from it. Where one threshold over
        // the page finds strokes much broader than that, with paper along most of the border, and
        // the departures from blocks three of those strokes wide find strokes at least half as
        // broad (a shadow's or a vignette's dark side is no stroke at that scale), they are the ink.
        // A split whose strokes are a third of a block wide, with paper all along the border,
        // needs no such check. On a small crop (under 144 pixels: its blocks are the smallest, 8
        // pixels, and the confirming blocks would span most of it) such strokes are a marker's,
        // the split leaves out a dark border beside the paper, and the writing may touch the
        // crop's edge (the split itself allows a quarter of the border). Light ink from the split
        // only on a dark page: on a light one it is the paper (beside a black margin).
        let small = block == 8
        let splitColumns = small ? paperColumns : 0..<w, splitRows = small ? rows : 0..<h
        // A page with a dark border has its border on the ink's side for that reason, not a
        // shadow's: it is not flattened.
        let bordered = paperColumns.count < w || rows.count < h
        if let broad = Self.split(page, paper: splitColumns, rows: splitRows, flattening: !bordered),
           broad.strokeWidth > 1.5 * found.strokeWidth, !broad.lightInk || median < 128 {
            let filled = 3 * broad.strokeWidth > Float(block) && (broad.inkOnBorder <= 0.05 || small)
            if filled || Self.confirms(broad, page: page, median: median, block: block, paper: paperColumns, rows: rows, noise: found.noise) {
                found = (broad.lightInk, broad.strokeWidth, found.noise)
            }
        }
        (lightInk, strokeWidth) = (found.lightInk, found.strokeWidth)
        // The closing must be wider than the pen to fill its strokes in.
        let widest = max(7, max(w, h) / 10, Int((1.5 * strokeWidth).rounded(.up)) + 2)
        window = min(max(7, Int((3 * strokeWidth).rounded())), widest) | 1

        let inkHigh = lightInk ? page.values.map { 255 - $0 } : page.values
        let paper = Morphology.closing(Morphology.mean3(inkHigh, width: w, height: h), width: w, height: h, radius: window / 2)
        var out = [Float](repeating: 0, count: w * h)
        for i in 0..<(w * h) { out[i] = max(0, paper[i] - inkHigh[i]) }
        ink = page.with(out)
    }

    /// The polarity and the pen's width from the ink's departures from the page's level (the
    /// median of blocks `block` pixels across, interpolated), and the noise's deviation they were
    /// measured against (estimated from the page unless `noise` is given); steps 1 and 2 above.
    /// `median` is the page's median pixel.
    private static func departures(_ page: FloatImage, median: Float, block: Int, paper: Range<Int>, rows: Range<Int>,
                                   noise: Float? = nil) -> (lightInk: Bool, strokeWidth: Float, noise: Float) {
        let w = page.width, h = page.height
        let level = Morphology.blockQuantile(page.values, width: w, height: h, block: block, q: 0.5)
        var residual = [Float](repeating: 0, count: w * h)
        for i in 0..<(w * h) { residual[i] = page.values[i] - level[i] }
        let sigma = noise ?? (1.4826 * Morphology.quantile(residual.lazy.map { abs($0) }, 0.5, binsPerLevel: 8) + 1)
        let t = 5 * sigma
        // Beside a scanner's margin the blocks' level falls towards the margin's, and the paper
        // there departs upwards like light ink: the evidence is taken a block away from it.
        func inner(_ lines: Range<Int>, _ n: Int) -> Range<Int> {
            let kept = lines.count == n ? lines : (lines.lowerBound + block)..<max(lines.lowerBound + block, lines.upperBound - block)
            return kept.isEmpty ? 0..<n : kept
        }
        let counted = inner(paper, w), countedRows = inner(rows, h)
        var darker: Float = 0, lighter: Float = 0
        for y in countedRows {
            for x in counted {
                let r = residual[y * w + x]
                darker += max(0, -r - t)
                lighter += max(0, r - t)
            }
        }
        let evidence = log((darker + 1) / (lighter + 1))
        // When the departures are not clear, a dark page means light ink (a board); a page only
        // half dark (paper under a hard shadow over half of it, whose lit side departs upwards
        // along the shadow's edge) goes by their balance.
        let lightInk = abs(evidence) < 1 ? median < darkPage || median < greyPage && evidence < 0 : evidence < 0
        // A rough mask of the ink for the pen's width.
        let sign: Float = lightInk ? 1 : -1
        let rough = max(6 * sigma, 12)
        var mask = [Bool](repeating: false, count: w * h)
        for y in countedRows { for x in counted { mask[y * w + x] = sign * residual[y * w + x] > rough } }
        return (lightInk, Self.strokeWidth(mask, width: w, height: h), sigma)
    }

    /// The polarity and the pen's width for a broad pen: Otsu's threshold splits the page's
    /// `columns` × `rows` in two, and the paper is the side most of their border is on; nil when
    /// a quarter of the border or more is on the other side (a shadow or the edge of the sheet
    /// runs along it; a digit that runs off a close-up's frame crosses it in a few places) and
    /// the split of the darkening relative to the paper finds no marker either
    /// (`flattenedSplit`, when `flattening`: on a page without a dark border).
    private static func split(_ page: FloatImage, paper columns: Range<Int>, rows: Range<Int>, flattening: Bool)
        -> (lightInk: Bool, strokeWidth: Float, inkOnBorder: Float)? {
        let w = page.width
        let t = Morphology.otsu(region(page.values, width: w, columns: columns, rows: rows))
        let (below, n) = border(of: columns, rows, width: w) { page.values[$0] < t }
        guard 4 * below <= n || 4 * below >= 3 * n else { return flattening ? flattenedSplit(page, paper: columns, rows: rows) : nil }
        let lightInk = 2 * below > n
        var mask = [Bool](repeating: false, count: page.values.count)
        for y in rows { for x in columns { let v = page.values[y * w + x]; mask[y * w + x] = lightInk ? v > t : v < t } }
        let inkOnBorder = Float(lightInk ? n - below : below) / Float(n)
        return (lightInk, Self.strokeWidth(mask, width: w, height: page.height), inkOnBorder)
    }

    /// `split` for dark ink under uneven light (a shadow or a lamp's falloff across the frame,
    /// which puts much of the border on the dark side of one threshold): the threshold is taken
    /// on the darkening relative to the paper, a grey closing over a square `flatClosing` of the
    /// short side across (wider than the strokes of digits that fill the frame, narrower than a
    /// shadow's step).
    private static func flattenedSplit(_ page: FloatImage, paper columns: Range<Int>, rows: Range<Int>)
        -> (lightInk: Bool, strokeWidth: Float, inkOnBorder: Float)? {
        let w = page.width, h = page.height
        let radius = max(2, Int(flatClosing * Float(min(w, h))))
        let dark = Morphology.darkening(page.values, width: w, height: h, radius: radius)
        let t = Morphology.otsu(region(dark, width: w, columns: columns, rows: rows))
        let (above, n) = border(of: columns, rows, width: w) { dark[$0] > t }
        guard 4 * above <= n else { return nil }
        var mask = [Bool](repeating: false, count: w * h)
        for y in rows { for x in columns { mask[y * w + x] = dark[y * w + x] > t } }
        // Digits that fill the frame in a marker darken a tenth of it or more; writing on a
        // page, a few hundredths (its strokes are the departures' business).
        guard Float(mask.lazy.filter { $0 }.count) >= flatInk * Float(rows.count * columns.count) else { return nil }
        return (false, Self.strokeWidth(mask, width: w, height: h), Float(above) / Float(n))
    }
    /// How many pixels of the border of `columns` × `rows` are `on`, and how many there are (the
    /// top and bottom rows, then the left and right columns: corners twice).
    private static func border(of columns: Range<Int>, _ rows: Range<Int>, width w: Int, on: (Int) -> Bool) -> (on: Int, count: Int) {
        var count = 0, n = 0
        for x in columns { for y in [rows.lowerBound, rows.upperBound - 1] { count += on(y * w + x) ? 1 : 0; n += 1 } }
        for y in rows { for x in [columns.lowerBound, columns.upperBound - 1] { count += on(y * w + x) ? 1 : 0; n += 1 } }
        return (count, n)
    }

    /// The values of `columns` × `rows` (all of them, uncopied, when that is the whole page).
    private static func region(_ values: [Float], width w: Int, columns: Range<Int>, rows: Range<Int>) -> [Float] {
        if columns == 0..<w && rows.count * w == values.count { return values }
        var out: [Float] = []
        out.reserveCapacity(columns.count * rows.count)
        for y in rows { out.append(contentsOf: values[(y * w + columns.lowerBound)..<(y * w + columns.upperBound)]) }
        return out
    }

    /// A page whose median is below `darkPage` is dark (a board); below `greyPage`, dark or a
    /// page half in shadow.
    static let darkPage: Float = 70
    static let greyPage: Float = 100

    static let flatClosing: Float = 0.17
    static let flatInk: Float = 0.1

    /// Whether the departures from blocks three of `broad`'s strokes across, against the page's
    /// `noise`, find strokes of the same polarity at least half as broad.
    private static func confirms(_ broad: (lightInk: Bool, strokeWidth: Float, inkOnBorder: Float), page: FloatImage,
                                 median: Float, block: Int, paper: Range<Int>, rows: Range<Int>, noise: Float) -> Bool {
        let coarse = departures(page, median: median, block: max(block, Int(3 * broad.strokeWidth)), paper: paper, rows: rows, noise: noise)
        return coarse.lightInk == broad.lightInk && coarse.strokeWidth >= 0.5 * broad.strokeWidth
    }

    /// Twice the area over the boundary of the mask's pieces that are not specks (at least 4
    /// pixels and 5% of the largest): a stroke's width.
    static func strokeWidth(_ mask: [Bool], width w: Int, height h: Int) -> Float {
        let found = InkComponents.label(width: w, height: h, seed: { mask[$0] }, grow: { mask[$0] })
        return strokeWidth(found.components, mask: mask, width: w, height: h)
    }

    /// `strokeWidth(_:width:height:)` of the mask's pieces, already labelled.
    static func strokeWidth(_ components: [InkComponents.Component], mask: [Bool], width w: Int, height h: Int) -> Float {
        let largest = components.map(\.pixels.count).max() ?? 0
        var area = 0, boundary = 0
        for c in components where c.pixels.count >= max(4, largest / 20) {
            area += c.pixels.count
            for p in c.pixels {
                let x = p % w, y = p / w
                if x == 0 || y == 0 || x == w - 1 || y == h - 1 || !mask[p - 1] || !mask[p + 1] || !mask[p - w] || !mask[p + w] {
                    boundary += 1
                }
            }
        }
        guard area > 0 else { return 2 }
        return max(1, 2 * Float(area) / Float(max(boundary, 1)))
    }
}
