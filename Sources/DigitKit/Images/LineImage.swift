import Foundation

/// The line of writing of a photo or scan, cut out for the line reader: 32 rows of ink strength
/// (0 = paper, 1 = full ink) as wide as the line is at that height, and the map from its pixels
/// back to the image's.
///
/// Real paper carries more than the writing, and each kind is taken out before the line is looked
/// for (docs/images.md, "Real paper"):
/// 1. **Background.** `InkMap` removes the paper's level, gradients and shadows and finds the
///    polarity; the ink's strength is scaled by its contrast (the 90th percentile of what stands
///    well above the paper's noise), so pencil and marker, faint and strong scans look alike. Ink
///    is a piece with a pixel at 0.35 of the contrast, grown through what stands at 0.25 (a faint,
///    blurred stroke holds together rather than breaking into specks).
/// 2. **Scanner margins and dark borders.** A piece of ink that touches the border and fills most
///    of its box (more than 55%) while broader than 4 pen widths is not writing.
/// 3. **Ruled and column lines.** Runs of ink along a row longer than a third of the image (and
///    six times the pen's width) are rules, as are runs down a column longer than half the image
///    and 15 pen widths in the outer fifths of the paper (the columns a black scanner margin
///    leaves: column lines beside the writing), each at least ten times as long as it is thick
///    (`isRule`: a marker's stroke across a close-up is not); their pixels are removed except
///    where the ink goes on beyond the rule's own thickness across it (a stroke that crosses it).
///    Squared paper (`isSquared`: three or more thin lines each way by their count of ink, evenly
///    spaced, with square cells) has its lines taken out all across it (`takeOutGrid`), except
///    where the writing lying along a line is darker than the print.
/// 4. **The line.** Rows are weighed by the ink left in them, with a mild preference for the
///    middle of the image (crops are cut around the writing; printed headers and footers lie at
///    the edges); the band around the heaviest row, grown while rows keep a tenth of its ink, is
///    the line, and the ink's columns inside it give its extent. A band holding only a dash or
///    an underline counts half (a register's dash with the row's number below it).
/// The strip is then cut with a margin of a quarter of the band's height around the line and
/// scaled to `height` rows. A number far taller than the pen that wrote it seems, filling a crop,
/// is looked for again on the page reduced (`Look`: a marker's number scanned at a high
/// resolution, whose strokes' edges alone were found).
public struct LineImage: Sendable {
    /// Rows of every strip (the line models' input height).
    public static let height = 32
    /// The widest strip, in pixels: longer lines are squeezed to fit.
    public static let maxWidth = 512
    /// A further line of writing scores at least this share of the main line's score…
    static let furtherLineScore: Float = 0.1
    /// …or, a short line (a number of one or two digits under or over a long one), at least this
    /// share (`isShortLine`)…
    static let shortLineScore: Float = 0.03
    /// …and at least this share of the main line's score per column.
    static let shortLineDensity: Float = 0.25

    /// Whether `band` is a short line of writing beside the main line `best`: a number of one or
    /// two digits under or over a long one scores less than a tenth of it (a note's `4` over
    /// `67459`, 0.09; a `2` under `35136` in a shadow, 0.07) and was left out, the note answered
    /// without it. Its ink per column is the writing's (at least a quarter of the main line's),
    /// and it is at least a third as wide as the main line is tall: a column line's remains
    /// beside a register's number are not.
    static func isShortLine(_ band: Band, beside best: Band) -> Bool {
        let wide = Float(band.right - band.left + 1), bestWide = Float(best.right - best.left + 1)
        return band.score >= shortLineScore * best.score && band.score * bestWide >= shortLineDensity * best.score * wide
            && 3 * (band.right - band.left + 1) >= best.bottom - best.top + 1
    }
    /// A rule or column line is at least this many times as long as it is thick (`isRule`).
    static let ruleLength = 10
    /// A page with at least this many column lines and as many rules, each found by its count of
    /// ink (`countedLines`), is squared paper: its lines are taken out all across it.
    static let gridLines = 3
    /// A squared page's line is taken out where it is at most this many times as dark as the
    /// median pixel on its own row or column (`takeOutGrid`).
    static let gridInk: Float = 1.3
    /// Changes whenever the way strips are cut changes, so cached strips are made again.
    public static let version = 14

    /// `height` × `width` ink strengths, row-major.
    public var pixels: [Float]
    public var width: Int
    /// The strip's origin and scale in the image's pixels: strip x ↦ `originX + x * scale`.
    public var originX: Float, originY: Float, scale: Float
    /// Whether any writing was found.
    public var isEmpty: Bool
    /// Per column of the strip: whether the line's ink there runs into the image's top or bottom
    /// (a digit the photo's frame cuts; `ReadDigit.isCutByFrame`).
    public var cutByFrame: [Bool] = []
    /// Whether the line's ink runs into the image's left or right border (its first or last
    /// digit is cut by the frame).
    public var cutLeft = false, cutRight = false
    /// The strip's columns (in strip pixels, left to right) of ink that the image's left or right
    /// side cuts and that looks like a digit of the line (`cutBySides(_:_:)`): a photo framed
    /// through its first or last digit. Empty when the writing fills the frame, and on a page
    /// that was levelled (its sides are not the image's).
    public var cutBySides: [Range<Float>] = []
    /// Where `cutBySides` found slices: whether the writing fills the image's height (its tallest
    /// piece at least half of it), as in a crop cut around it, where a digit read at its side
    /// may well be whole.
    var fillsFrame = false
    /// Whether the page's ink was found light on a dark ground (chalk on a board; `InkMap`).
    public var lightInk = false
    /// The image's size in its own pixels (boxes are kept inside it).
    public var imageWidth: Float = 0, imageHeight: Float = 0
    /// The tilt the page was levelled from before the line was cut (`Skew`), nil for none: the
    /// strip's pixels map to the levelled page, and boxes are turned back into the image's.
    var turn: Skew.Turn?
    /// The page's tilt in radians (clockwise positive), 0 when it was read as it is.
    public var skew: Float { turn?.angle ?? 0 }

    /// The strip of `image`'s line of writing (`workingSide` bounds the resolution looked at).
    public init(image: DecodedImage, workingSide: Int = 1200) {
        let look = Look(image, workingSide: workingSide)
        guard let best = look.best else {
            self = LineImage(empty: ())
            return
        }
        self.init(look.prepared, best, toImage: look.toImage, turn: look.turn)
    }

    /// A band of writing taller than this many working pixels may be looked at again, reduced
    /// to bring it near `writingHeight` (`Look`).
    static let tallestWriting = 48
    static let writingHeight: Float = 36
    /// A band at least this many pen widths tall is more than writing in that pen: the ink map
    /// found only the edges of broader strokes (`Look`).
    static let pensTall: Float = 20

    /// The page as the line cut looks at it: the image reduced to at most `workingSide` pixels on
    /// its long side, levelled (`Skew`), and its ink prepared (`Prepared`: margins and rules
    /// taken out, bands of writing found). The ink map's windows and blocks are sized for
    /// writing a few dozen pixels tall (a scan's row number, a note in a photo). A marker's
    /// number cut tight and scanned at a higher resolution is much taller than that, and its
    /// strokes fill the ink map's blocks: only their edges depart from the paper, the pen is
    /// measured a few pixels wide, and the bits found read as nothing sure (at three times the
    /// resolution, such crops lost half their answers). So when the heaviest band is taller than
    /// `tallestWriting`, fills at least two fifths of the page's height, is at least `pensTall`
    /// pen widths tall and half as wide again as tall (a number; one glyph filling the frame is
    /// a close-up, which `CloseupGlyph` reads), the page is looked at again reduced by a whole
    /// factor, the band then about `writingHeight` tall, and that look is the one cut.
    struct Look {
        var prepared: Prepared
        var toImage: Float
        var turn: Skew.Turn?
        var best: Band? { prepared.bands.max(by: { $0.score < $1.score }) }

        init(_ image: DecodedImage, workingSide: Int) {
            let page = FloatImage(image).reduced(toSide: workingSide)
            self.init(page, scale: image.scale)
            guard let band = best else { return }
            let tall = band.bottom - band.top + 1, wide = band.right - band.left + 1
            if tall > LineImage.tallestWriting, 5 * tall >= 2 * page.height, 2 * wide >= 3 * tall,
               Float(tall) >= LineImage.pensTall * prepared.pen {
                let k = Int(Float(tall) / LineImage.writingHeight)
                if k >= 2, page.width / k >= 16, page.height / k >= 16 { self.init(page.reduced(by: k), scale: image.scale) }
            }
        }

        private init(_ page: FloatImage, scale: Int) {
            toImage = Float(page.factor * scale)
            let (level, turn) = Skew.levelled(page, toImage: toImage)
            self.turn = turn
            prepared = Prepared(level)
        }
    }

    /// Every line of writing of `image`, top to bottom: the main line (as `init(image:)` finds it)
    /// and the other bands of writing at least half as tall as it, scoring at least a tenth of
    /// its score (`furtherLineScore`; a short line less, `isShortLine`), apart from it, with their
    /// middle away from the image's edges (the outer tenth above and below, where print and the
    /// edges of other rows are), and
    /// sharing at least half the narrower one's columns with it (a note's lines stand one under
    /// another; a letter of the next column of a register, beside the number, does not).
    public static func lines(image: DecodedImage, workingSide: Int = 1200) -> [LineImage] {
        linesAndOthers(image: image, workingSide: workingSide).lines
    }

    /// `lines(image:)`, and the image's other bands of ink, best scoring first: where to look
    /// when the lines hold nothing to read (a dash or a ditto mark in the middle of a register's
    /// cell, the number itself low in the crop).
    public static func linesAndOthers(image: DecodedImage, workingSide: Int = 1200) -> (lines: [LineImage], others: [LineImage]) {
        let look = Look(image, workingSide: workingSide)
        let prepared = look.prepared, toImage = look.toImage, turn = look.turn
        guard let best = look.best else { return ([], []) }
        let h = Float(prepared.height)
        let others = prepared.bands.filter { band in
            let middle = Float(band.top + band.bottom) / 2 / h
            return band.top != best.top && 2 * (band.bottom - band.top) >= best.bottom - best.top
                && (band.score >= furtherLineScore * best.score || isShortLine(band, beside: best))
                && middle > 0.1 && middle < 0.9
                && 2 * (min(band.right, best.right) - max(band.left, best.left)) >= min(band.right - band.left, best.right - best.left)
                && (band.bottom < best.top || band.top > best.bottom)
        }
        let lines = ([best] + others).sorted { $0.top < $1.top }
        let rest = prepared.bands.filter { band in !lines.contains { $0.top == band.top } }.sorted { $0.score > $1.score }
        return (lines.map { LineImage(prepared, $0, toImage: toImage, turn: turn) },
                rest.map { LineImage(prepared, $0, toImage: toImage, turn: turn) })
    }

    /// The page's ink with margins and rules removed, and its bands of writing.
    struct Prepared {
        var ink: [Float]
        /// The ink above the threshold after margins and rules were removed.
        var mask: [Bool]
        var width: Int, height: Int
        var bands: [Band]
        /// The mask's 8-connected pieces.
        var pieces: [InkComponents.Component]
        /// The pen's width in working pixels.
        var pen: Float
        /// The columns a column line was taken out of (`removeRules`).
        var columnLines: [Int]
        /// The ink is light on a dark ground (`InkMap.lightInk`).
        var lightInk: Bool

        init(_ page: FloatImage) {
            let map = InkMap(page)
            let w = page.width, h = page.height
            var ink = map.ink.values
            let noise = Morphology.quantile(ink, 0.5, binsPerLevel: 8) + 1
            // The contrast is the writing's, measured on the paper: a black scanner margin's edge
            // beside faint ink would otherwise set it and leave the writing faint.
            let paper = map.lightInk ? 0..<w : map.paperColumns
            var strong: [Float] = []
            for y in 0..<h { for x in paper where ink[y * w + x] > 6 * noise { strong.append(ink[y * w + x]) } }
            let contrast = strong.isEmpty ? 255 : max(Morphology.quantile(strong, 0.9), 8)
            for i in ink.indices { ink[i] = min(1, max(0, (ink[i] - 2 * noise) / contrast)) }
            let pen = max(1, map.strokeWidth)
            // Ink is a piece with a pixel at 0.35 of the contrast, grown through what stands at
            // 0.25: faint, blurred strokes (a fountain pen on grey paper) hold together.
            var mask = [Bool](repeating: false, count: w * h)
            let pieces = InkComponents.label(width: w, height: h, seed: { ink[$0] >= 0.35 }, grow: { ink[$0] >= 0.25 })
            for c in pieces.components { for p in c.pixels { mask[p] = true } }
            LineImage.removeMargins(&ink, &mask, width: w, height: h, pen: pen)
            columnLines = LineImage.removeRules(&ink, &mask, width: w, height: h, pen: pen, paper: paper, darkness: map.ink.values)
            self.ink = ink
            self.mask = mask
            width = w
            height = h
            self.pen = pen
            lightInk = map.lightInk
            self.pieces = InkComponents.label(width: w, height: h, seed: { mask[$0] }, grow: { mask[$0] }).components
            bands = LineImage.bands(ink, mask, pieces: self.pieces, width: w, height: h, pen: pen)
        }
    }

    /// A band of writing: its rows and columns (inclusive) and how much it looks like the line.
    struct Band {
        var top: Int, bottom: Int, left: Int, right: Int
        var score: Float
        /// The ink in the band's rows.
        var mass: Float = 0
    }

    /// The strip of `band`: cut with a margin of a quarter of its height and scaled to `height` rows.
    private init(_ prepared: Prepared, _ band: Band, toImage: Float, turn: Skew.Turn?) {
        let ink = prepared.ink, w = prepared.width, h = prepared.height
        let bandHeight = Float(band.bottom - band.top + 1)
        let margin = 0.25 * bandHeight
        let y0 = Float(band.top) - margin, y1 = Float(band.bottom + 1) + margin
        let x0 = Float(band.left) - margin, x1 = Float(band.right + 1) + margin
        var scale = (y1 - y0) / Float(Self.height)   // working pixels per strip pixel
        var outWidth = Int(((x1 - x0) / scale).rounded(.up))
        if outWidth > Self.maxWidth {
            scale = (x1 - x0) / Float(Self.maxWidth)
            outWidth = Self.maxWidth
        }
        outWidth = max(outWidth, 8)
        // Area sampling: each strip pixel averages the working pixels it covers (bilinear when enlarging).
        var out = [Float](repeating: 0, count: Self.height * outWidth)
        let yOffset = (y0 + y1) / 2 - Float(Self.height) * scale / 2
        for y in 0..<Self.height {
            for x in 0..<outWidth {
                out[y * outWidth + x] = Self.sample(ink, width: w, height: h, x: x0 + (Float(x) + 0.5) * scale,
                                                    y: yOffset + (Float(y) + 0.5) * scale, radius: scale / 2)
            }
        }
        self = LineImage(pixels: out, width: outWidth)
        // Columns where the line's ink reaches the image's top or bottom row.
        var cut = [Bool](repeating: false, count: outWidth)
        let mask = prepared.mask
        for x in 0..<outWidth {
            let wx = Int((x0 + (Float(x) + 0.5) * scale).rounded(.down))
            guard wx >= band.left, wx <= band.right else { continue }
            let atTop = band.top == 0 && mask[wx], atBottom = band.bottom == h - 1 && mask[(h - 1) * w + wx]
            cut[x] = atTop || atBottom
        }
        cutLeft = band.left == 0 && (band.top...band.bottom).contains { mask[$0 * w] }
        cutRight = band.right == w - 1 && (band.top...band.bottom).contains { mask[$0 * w + w - 1] }
        // Writing that meets both sides, or the top and the bottom, fills the frame: a tight crop
        // or a close-up of the writing, not a number the frame cuts.
        if (cutLeft && cutRight) || (band.top == 0 && band.bottom == h - 1) {
            cutLeft = false
            cutRight = false
            cut = [Bool](repeating: false, count: outWidth)
        }
        cutByFrame = cut
        lightInk = prepared.lightInk
        // A levelled page leaves out a band along each side of the image (`Skew`): ink at its
        // sides may be whole in the image.
        let sides: (slices: [Range<Int>], tight: Bool) = turn == nil ? Self.cutBySides(prepared, band) : ([], false)
        cutBySides = sides.slices.map { (x: Range<Int>) -> Range<Float> in
            ((Float(x.lowerBound) - x0) / scale)..<((Float(x.upperBound) - x0) / scale)
        }
        fillsFrame = sides.tight
        // The image's own size (a levelled page leaves out a band along each side).
        imageWidth = Float(w) * toImage + 2 * (turn?.offsetX ?? 0)
        imageHeight = Float(h) * toImage + 2 * (turn?.offsetY ?? 0)
        originX = x0 * toImage
        originY = yOffset * toImage
        self.scale = scale * toImage
        self.turn = turn
    }

    /// The working columns of the pieces of `band` that the page's left or right side cuts and
    /// that look like a slice of a digit of the line, as `InkComponents.cutByFrame` asks of a
    /// photo's pieces (the writing's height is the tallest of the band's other pieces): mostly
    /// inside the band; at least a fifth of the writing's height long, at most 1.5 times as tall
    /// and as wide (a sheet's or a shadow's edge runs on); drawn like strokes (ink on at most
    /// 60% of its box, or at most 4 pens across) and no straight line (a sheet's or a scanner's
    /// edge: ten times as long as thick, its box a quarter as wide as long); as strong as the
    /// writing (its mean at least `sideCutStrength` of the contrast: a shadow's edge is
    /// fainter); at most the writing's height from the line's nearest other piece, with no
    /// column line between them (beyond one is the next column of a register). Each gives its
    /// own columns, those beside that piece. None when pieces at both sides, or a band from the
    /// top to the bottom, say the writing fills the frame (a tight crop or a close-up).
    static func cutBySides(_ prepared: Prepared, _ band: Band) -> (slices: [Range<Int>], tight: Bool) {
        let w = prepared.width, h = prepared.height
        guard band.top > 0 || band.bottom < h - 1 else { return ([], false) }
        func inBand(_ c: InkComponents.Component) -> Bool {
            2 * (max(0, min(c.y1, band.bottom) - max(c.y0, band.top) + 1)) >= c.height
        }
        let atSide = prepared.pieces.filter { ($0.x0 == 0 || $0.x1 == w - 1) && inBand($0) }
        guard !atSide.isEmpty, !(atSide.contains { $0.x0 == 0 } && atSide.contains { $0.x1 == w - 1 }) else { return ([], false) }
        let minimum = max(3, Int(prepared.pen * prepared.pen))
        let others = prepared.pieces.filter { $0.x0 > 0 && $0.x1 < w - 1 && $0.pixels.count >= minimum && inBand($0) }
        // The writing's height: the tallest of the line's other pieces.
        guard let tall = others.map(\.height).max() else { return ([], false) }
        let slices: [Range<Int>] = atSide.compactMap { c in
            let long = Float(max(c.width, c.height)), dense = Float(c.pixels.count) > 0.6 * Float(c.width * c.height)
            guard long >= 0.2 * Float(tall), 2 * c.height <= 3 * tall, 2 * c.width <= 3 * tall,
                  !dense || Float(min(c.width, c.height)) <= 4 * prepared.pen else { return nil }
            let strength = c.pixels.reduce(Float(0)) { $0 + prepared.ink[$1] } / Float(c.pixels.count)
            // A straight line (the edge of a sheet or of a scanner's bed) is no slice of a digit.
            let thickness = max(1, c.pixels.count / Int(long))
            guard strength >= sideCutStrength,
                  !(isRule(length: Int(long), thickness: thickness) && min(c.width, c.height) * 4 <= Int(long)) else { return nil }
            // The line's ink nearest it, at most the writing's height away and with no column
            // line between them (beyond one is the next column of a register).
            let gaps = others.map { max(0, c.x0 - $0.x1, $0.x0 - c.x1) }
            guard let k = gaps.indices.min(by: { gaps[$0] < gaps[$1] }), gaps[k] <= tall else { return nil }
            let (a, b) = (min(c.x1, others[k].x1), max(c.x0, others[k].x0))
            guard !prepared.columnLines.contains(where: { $0 >= a && $0 <= b }) else { return nil }
            // Its own columns: those beside the nearest ink (a slice that reaches under the next
            // digit is read, if at all, where it stands alone).
            return c.x0 == 0 ? 0..<max(1, min(c.x1 + 1, others[k].x0)) : min(c.x1, max(c.x0, others[k].x1 + 1))..<w
        }
        return (slices, 2 * tall >= h)
    }

    /// The least mean ink of a piece the page's side cuts, as a share of the writing's contrast.
    static let sideCutStrength: Float = 0.45

    private init(empty: Void) {
        pixels = [Float](repeating: 0, count: Self.height * 8)
        width = 8
        originX = 0; originY = 0; scale = 1
        isEmpty = true
    }

    /// A strip made from given pixels (training data, tests).
    public init(pixels: [Float], width: Int) {
        precondition(pixels.count == Self.height * width)
        self.pixels = pixels
        self.width = width
        originX = 0; originY = 0; scale = 1
        isEmpty = false
    }

    /// The box in the image of a digit read at strip columns `columns`: those columns, over the
    /// middle 0.6 of the strip's height (the line's band), turned back and kept inside the image.
    func digitBox(_ columns: Range<Float>) -> InkBox {
        clamped(InkBox(x0: originX + columns.lowerBound * scale, y0: originY + 0.2 * Float(Self.height) * scale,
                       x1: originX + columns.upperBound * scale, y1: originY + 0.8 * Float(Self.height) * scale))
    }

    /// Whether strip columns `columns` lie nearer the strip's left end than its right.
    func isAtLeft(_ columns: Range<Float>) -> Bool { columns.lowerBound < Float(width) - columns.upperBound }

    /// `box` (in the levelled page, scaled to the image's pixels) turned back into the image when
    /// the page was tilted, and kept inside it (unchanged for a strip made from pixels).
    public func clamped(_ box: InkBox) -> InkBox {
        let box = turn?.toImage(box) ?? box
        guard imageWidth > 0, imageHeight > 0 else { return box }
        return InkBox(x0: min(max(box.x0, 0), imageWidth), y0: min(max(box.y0, 0), imageHeight),
                      x1: min(max(box.x1, 0), imageWidth), y1: min(max(box.y1, 0), imageHeight))
    }

    /// The mean of `ink` over the square of half-side `radius` around (x, y); bilinear below one pixel.
    static func sample(_ ink: [Float], width w: Int, height h: Int, x: Float, y: Float, radius r: Float) -> Float {
        if r <= 0.75 {
            let fx = x - 0.5, fy = y - 0.5
            let ix = Int(fx.rounded(.down)), iy = Int(fy.rounded(.down))
            let ax = fx - Float(ix), ay = fy - Float(iy)
            func at(_ px: Int, _ py: Int) -> Float { px < 0 || py < 0 || px >= w || py >= h ? 0 : ink[py * w + px] }
            return (at(ix, iy) * (1 - ax) + at(ix + 1, iy) * ax) * (1 - ay) + (at(ix, iy + 1) * (1 - ax) + at(ix + 1, iy + 1) * ax) * ay
        }
        let xa = max(0, Int((x - r).rounded(.down))), xb = min(w - 1, Int((x + r).rounded(.up)) - 1)
        let ya = max(0, Int((y - r).rounded(.down))), yb = min(h - 1, Int((y + r).rounded(.up)) - 1)
        guard xa <= xb, ya <= yb else { return 0 }
        var sum: Float = 0
        for py in ya...yb { for px in xa...xb { sum += ink[py * w + px] } }
        let area = max(1, Float((xb - xa + 1) * (yb - ya + 1)))
        // Pixels outside the image count as paper.
        return sum / max(area, (2 * r) * (2 * r))
    }

    /// Step 2: dark pieces touching the border that fill their box (a scanner's margin, the edge
    /// of the sheet, a table's shadow): broader than four pen widths, or of any breadth when
    /// they run along four fifths of the side they touch (on a crop cut tight around the
    /// writing a margin above or below it is only a few pens broad).
    static func removeMargins(_ ink: inout [Float], _ mask: inout [Bool], width w: Int, height h: Int, pen: Float) {
        let found = InkComponents.label(width: w, height: h, seed: { mask[$0] }, grow: { mask[$0] })
        for c in found.components {
            let touches = c.x0 == 0 || c.y0 == 0 || c.x1 == w - 1 || c.y1 == h - 1
            let alongSide = (c.y0 == 0 || c.y1 == h - 1) && 5 * c.width >= 4 * w || (c.x0 == 0 || c.x1 == w - 1) && 5 * c.height >= 4 * h
            let fill = Float(c.pixels.count) / Float(c.width * c.height)
            guard touches, fill > 0.55, Float(min(c.width, c.height)) > 4 * pen || alongSide else { continue }
            // The dark region and a pen's width around it (its soft edge).
            let grow = Int(pen.rounded(.up)) + 1
            for p in c.pixels {
                let x = p % w, y = p / w
                for yy in max(0, y - grow)...min(h - 1, y + grow) where yy == y - grow || yy == y + grow || yy == y {
                    for xx in max(0, x - grow)...min(w - 1, x + grow) {
                        ink[yy * w + xx] = 0
                        mask[yy * w + xx] = false
                    }
                }
            }
        }
    }

    /// Step 3: long rules along rows, and column lines in the outer fifths. Along each long run
    /// the ink's extent across the rule is measured at every pixel; the run's median extent is the
    /// rule's thickness, and pixels where the ink reaches more than two pen widths beyond it (a
    /// stroke crossing the rule) are kept.
    /// Column lines are looked for in the outer fifths of `paper` (the columns a margin leaves).
    /// Returns the columns a line was taken out of down at least a third of the page.
    static func removeRules(_ ink: inout [Float], _ mask: inout [Bool], width w: Int, height h: Int, pen: Float,
                            paper: Range<Int>, darkness: [Float]) -> [Int] {
        let fifth = paper.count / 5
        func outer(_ x: Int) -> Bool { x < paper.lowerBound + fifth || x >= paper.upperBound - fifth }
        var rule = [Bool](repeating: false, count: w * h)
        let beyond = Int((2 * pen).rounded(.up)) + 1
        // On a crop cut tight around the writing (its tallest piece in the middle three fifths,
        // the rules along rows left out and pieces from the top row to the bottom one too, at
        // least half the image's height), a stroke down an outer fifth at most half again as
        // tall as that piece and clear of the image's top and bottom rows is a digit's (an
        // upright 1 at the side); a column line there is longer, or runs out of the image. The
        // pieces are labelled only when a column line is a candidate.
        var rowRules: [Bool] = [], tallest: Int?
        // A box's side: a rule along a row turns into the stroke at its top and at its bottom (a
        // corner: the rule, within two pen widths of the end, runs off to one side only), as
        // the frame printed around an amount does; a 1 does not reach rules both ways, and a
        // column line that a rule crosses is no box.
        func corner(row y: Int, column x: Int) -> Bool {
            // Columns `from`…`to` (those outside the image left out) near row `y`.
            func rule(_ from: Int, _ to: Int) -> Bool {
                let (a, b) = (max(0, from), min(w - 1, to))
                guard a <= b else { return false }
                for yy in max(0, y - beyond)...min(h - 1, y + beyond) {
                    for xx in a...b where rowRules[yy * w + xx] { return true }
                }
                return false
            }
            let left = rule(x - 3 * beyond, x - beyond - 1)
            let right = rule(x + beyond + 1, x + 3 * beyond)
            return left != right
        }
        func isStroke(_ top: Int, _ bottom: Int, column x: Int) -> Bool {
            if corner(row: top, column: x) && corner(row: bottom, column: x) { return false }
            if tallest == nil {
                let pieces = InkComponents.label(width: w, height: h, seed: { mask[$0] && !rowRules[$0] },
                                                 grow: { mask[$0] && !rowRules[$0] }).components
                tallest = pieces.filter { !outer(Int($0.midX)) && $0.height < h }.map(\.height).max() ?? 0
            }
            let t = tallest ?? 0
            return Self.isUprightStroke(top: top, bottom: bottom, height: h, writingHeight: t)
        }
        // Runs along rows (`along` = x, across = y) and down the outer columns.
        func scan(rows: Bool) {
            let n = rows ? h : w, length = rows ? w : h
            // A column line is also longer than any digit: 15 pen widths (a small crop's digits
            // fill most of its height, and a 1 at its side is no column line).
            let minRun = rows ? max(Int(6 * pen), w / 3) : max(Int(15 * pen), h / 2)
            for line in 0..<n {
                if !rows, !outer(line) { continue }
                func index(_ along: Int, _ across: Int) -> Int { rows ? across * w + along : along * w + across }
                var a = 0
                while a < length {
                    guard mask[index(a, line)] else { a += 1; continue }
                    var e = a
                    while e < length, mask[index(e, line)] { e += 1 }
                    if e - a >= minRun, rows || !isStroke(a, e - 1, column: line) {
                        var extents: [Int] = []
                        for p in a..<e {
                            var lo = line, hi = line
                            while lo > 0, mask[index(p, lo - 1)] { lo -= 1 }
                            while hi < n - 1, mask[index(p, hi + 1)] { hi += 1 }
                            extents.append(hi - lo + 1)
                        }
                        let thickness = extents.sorted()[extents.count / 2]
                        if Self.isRule(length: e - a, thickness: thickness) {
                            for (k, p) in (a..<e).enumerated() where extents[k] <= thickness + beyond { rule[index(p, line)] = true }
                        }
                    }
                    a = e
                }
            }
        }
        scan(rows: true)
        rowRules = rule
        scan(rows: false)
        // A column line broken by a faint scan (no run as long as half the image) is found by
        // its count: a column in the outer fifths with ink in at least 40% of its rows, where the
        // columns two pen widths to each side have less than half of that. On squared paper
        // (`gridLines` such columns or more, and as many such rows) the lines are looked for in
        // every column and row: there a photo's grid, tilted a fraction of a degree or broken by
        // a light print, leaves no run as long as a rule's.
        let side = max(2, Int((2 * pen).rounded(.up)))
        var counts = [Int](repeating: 0, count: w), rowCounts = [Int](repeating: 0, count: h)
        for y in 0..<h { for x in 0..<w where mask[y * w + x] { counts[x] += 1; rowCounts[y] += 1 } }
        let columnLines = Self.countedLines(counts, across: h, side: side, least: 15 * pen)
        let rowLines = Self.countedLines(rowCounts, across: w, side: side, least: 6 * pen)
        let squared = Self.isSquared(columns: columnLines, rows: rowLines)
        if squared {
            Self.takeOutGrid(&rule, rows: rowLines, columns: columnLines, mask: mask, darkness: darkness, width: w, height: h, side: side)
        }
        for x in columnLines where outer(x) && !squared {
            guard var first = (0..<h).first(where: { mask[$0 * w + x] }), var last = (0..<h).last(where: { mask[$0 * w + x] })
            else { continue }
            // The stroke's own rows: a rule crossing the column above or below it (a box's top
            // and bottom over a 1 inside it) is not part of it, unless it is the image's edge.
            func own(_ y: Int) -> Bool { mask[y * w + x] && !rowRules[y * w + x] }
            if first > 0, let y = (first...last).first(where: own) { first = y }
            if last < h - 1, let y = (first...last).last(where: own) { last = y }
            guard !isStroke(first, last, column: x) else { continue }
            for y in 0..<h where mask[y * w + x] {
                // Keep ink that runs on across the line (a stroke crossing it).
                var run = 1, l = x - 1, r = x + 1
                while l >= 0, mask[y * w + l] { run += 1; l -= 1 }
                while r < w, mask[y * w + r] { run += 1; r += 1 }
                if run <= side + 1, Self.isRule(length: counts[x], thickness: run) { for xx in (l + 1)..<r { rule[y * w + xx] = true } }
            }
        }
        var down = [Int](repeating: 0, count: w)
        for i in rule.indices where rule[i] {
            ink[i] = 0
            mask[i] = false
            down[i % w] += 1
        }
        return down.indices.filter { 3 * down[$0] >= h }
    }

    /// Squared paper's lines (`rows` and `columns`, found by their count of ink: `countedLines`),
    /// marked in `rule`: the rules, then the column lines. A line's pixel is taken out where the
    /// ink across the line is at most `side` + 1 thick (a stroke crossing it runs on) and no
    /// darker than `gridInk` times the median of such pixels on the line's own row or column
    /// (writing that lies along a line is darker than the print); where a column line crosses a
    /// rule, twice that (two prints over each other). Found on the whole page, the lines are ones
    /// that run straight across it; a grid bent by a sheet's keystone is found only in part.
    static func takeOutGrid(_ rule: inout [Bool], rows: [Int], columns: [Int], mask: [Bool], darkness: [Float],
                            width w: Int, height h: Int, side: Int) {
        // `runs`: per pixel of `own`, the ink's extent across the line there, and its pixels.
        func takeOut(_ runs: [(extent: Int, pixels: ArraySlice<Int>)], own: [Int], crossing: (Int) -> Bool) {
            guard !own.isEmpty else { return }
            let limit = gridInk * Morphology.quantile(own.lazy.map { darkness[$0] }, 0.5)
            let thickness = runs.map(\.extent).sorted()[runs.count / 2]
            for run in runs where run.extent <= thickness + 1 {
                for i in run.pixels where darkness[i] <= (crossing(i) ? 2 * limit : limit) { rule[i] = true }
            }
        }
        var onRule = [Bool](repeating: false, count: w * h)
        for y in rows {
            var runs: [(extent: Int, pixels: ArraySlice<Int>)] = [], own: [Int] = []
            for x in 0..<w where mask[y * w + x] {
                onRule[y * w + x] = true
                var run = 1, t = y - 1, b = y + 1
                while t >= 0, mask[t * w + x] { run += 1; t -= 1 }
                while b < h, mask[b * w + x] { run += 1; b += 1 }
                if run <= side + 1 {
                    own.append(y * w + x)
                    runs.append((run, ArraySlice(((t + 1)..<b).map { $0 * w + x })))
                }
            }
            takeOut(runs, own: own) { _ in false }
        }
        for x in columns {
            var runs: [(extent: Int, pixels: ArraySlice<Int>)] = [], own: [Int] = []
            for y in 0..<h where mask[y * w + x] {
                // The rules taken out are left out: where one crosses, the column line's own
                // thickness remains.
                var run = 1, l = x - 1, r = x + 1
                while l >= 0, mask[y * w + l] && !rule[y * w + l] { run += 1; l -= 1 }
                while r < w, mask[y * w + r] && !rule[y * w + r] { run += 1; r += 1 }
                if run <= side + 1 {
                    own.append(y * w + x)
                    runs.append((run, ArraySlice(((l + 1)..<r).map { y * w + $0 })))
                }
            }
            takeOut(runs, own: own) { onRule[$0] }
        }
    }

    /// Whether a thin upright stroke from row `top` to `bottom` (inclusive) of an image `height`
    /// rows tall is writing rather than a column line or a rule's remains: on a crop cut tight
    /// around the writing (`writingHeight`, its tallest other piece, at least half the image's
    /// height), one clear of the top and bottom rows and at most half again as tall as that
    /// piece (an upright 1 at the side).
    static func isUprightStroke(top: Int, bottom: Int, height h: Int, writingHeight: Int) -> Bool {
        2 * writingHeight >= h && top > 0 && bottom < h - 1 && 2 * (bottom - top + 1) <= 3 * writingHeight
    }

    /// The columns (or rows) whose ink `counts` reach 40% of `across` and `least`, where those
    /// `side` away on either side have less than half as much: thin lines across the page.
    static func countedLines(_ counts: [Int], across: Int, side: Int, least: Float) -> [Int] {
        counts.indices.filter { i in
            let beside = max(i - side >= 0 ? counts[i - side] : 0, i + side < counts.count ? counts[i + side] : 0)
            return 5 * counts[i] >= 2 * across && Float(counts[i]) >= least && 2 * beside < counts[i]
        }
    }

    /// Whether column lines at `columns` and rules at `rows` (ascending indices, neighbours one
    /// line) are squared paper's: at least `gridLines` each way, evenly spaced (each space within
    /// a fifth of the median space or of twice it, where a line was too faint to be found), and
    /// the squares' sides alike within a fifth (a box around a number, with a 1's stroke and a
    /// long bar inside it, is no grid).
    static func isSquared(columns: [Int], rows: [Int]) -> Bool {
        func spacing(_ indices: [Int]) -> Float? {
            var middles: [Float] = [], run: [Int] = []
            for i in indices {
                if let last = run.last, i > last + 1 {
                    middles.append(Float(run.first! + last) / 2)
                    run = []
                }
                run.append(i)
            }
            if let last = run.last { middles.append(Float(run.first! + last) / 2) }
            guard middles.count >= gridLines else { return nil }
            let spaces = zip(middles.dropFirst(), middles).map { $0 - $1 }
            let median = spaces.sorted()[spaces.count / 2]
            let even = spaces.allSatisfy { s in
                let k = (s / median).rounded()
                return (1...2).contains(k) && abs(s / median - k) <= 0.2
            }
            return even ? median : nil
        }
        guard let across = spacing(columns), let down = spacing(rows) else { return false }
        return max(across, down) <= 1.2 * min(across, down)
    }

    /// Whether a run of ink `length` long and `thickness` thick is long enough for its thickness
    /// to be a rule: a marker's stroke across a close-up that the digit fills (a 7's bar, a 0's
    /// top) is as long as a rule there, but a rule is thin for its length.
    static func isRule(length: Int, thickness: Int) -> Bool {
        length >= ruleLength * thickness
    }

    /// Step 4: the bands of rows holding writing, each with the columns of its ink and its score
    /// (the line is the best); none without ink.
    static func bands(_ ink: [Float], _ mask: [Bool], pieces: [InkComponents.Component], width w: Int, height h: Int, pen: Float) -> [Band] {
        // Specks (a few pixels of grain or dust) do not count.
        let largest = pieces.map(\.pixels.count).max() ?? 0
        guard largest > 0 else { return [] }
        var keep = [Bool](repeating: false, count: w * h)
        // The pen measured on the page may be a margin's or a rule's; the mask's own strokes,
        // if thinner, are the writing's.
        let stroke = min(pen, InkMap.strokeWidth(pieces, mask: mask, width: w, height: h))
        let minimum = max(3, Int(stroke * stroke), largest / 40)
        var kept: [InkComponents.Component] = []
        // Thin pieces as tall as most of the image are what is left of rules, not writing; on a
        // crop cut tight around the writing (the other pieces at least half its height) one clear
        // of its top and bottom rows and no more than half again as tall as they are is a
        // stroke of it (an upright 1).
        let candidates = pieces.filter { $0.pixels.count >= minimum }
        let thinAndTall = { (c: InkComponents.Component) in Float(c.width) <= 1.5 * pen + 1 && 5 * c.height >= 3 * h }
        let writingHeight = candidates.filter { !thinAndTall($0) }.map(\.height).max() ?? 0
        let tallThin = { (c: InkComponents.Component) in
            thinAndTall(c) && !Self.isUprightStroke(top: c.y0, bottom: c.y1, height: h, writingHeight: writingHeight)
        }
        let writing = candidates.filter { !tallThin($0) }
        for c in writing.isEmpty ? candidates : writing {
            kept.append(c)
            for p in c.pixels { keep[p] = true }
        }
        var rows = [Float](repeating: 0, count: h)
        for y in 0..<h {
            var sum: Float = 0
            for x in 0..<w where keep[y * w + x] { sum += ink[y * w + x] }
            rows[y] = sum
        }
        // Smooth over a pen's width and a half; then take bands around the heaviest rows, each
        // grown while rows keep a tenth of its peak, up to four.
        let r = max(1, Int(pen))
        var smooth = [Float](repeating: 0, count: h)
        for y in 0..<h {
            var sum: Float = 0
            for yy in max(0, y - r)...min(h - 1, y + r) { sum += rows[yy] }
            smooth[y] = sum
        }
        var remaining = smooth
        var bands: [(top: Int, bottom: Int, score: Float, mass: Float)] = []
        for _ in 0..<4 {
            guard let peak = remaining.indices.max(by: { remaining[$0] < remaining[$1] }), remaining[peak] > 0 else { break }
            var t = peak, b = peak
            let floor = 0.1 * remaining[peak]
            while t > 0, remaining[t - 1] > floor { t -= 1 }
            while b < h - 1, remaining[b + 1] > floor { b += 1 }
            var mass: Float = 0
            for y in t...b { mass += rows[y]; remaining[y] = 0 }
            // Writing is taller than print and lies away from the crop's edges: the mass is
            // weighed by the band's height (up to an eighth of the image) and by where its middle
            // lies (full weight in the middle 40%, a fifth at the very edge).
            let middle = (Float(t + b) / 2) / Float(max(1, h - 1))
            let off = max(0, abs(middle - 0.5) * 2 - 0.4) / 0.6
            let tall = min(1, Float(b - t + 1) / max(1, Float(h) / 8))
            bands.append((t, b, mass * (1 - 0.8 * off) * tall.squareRoot(), mass))
        }
        return bands.compactMap { band in
            let top = band.top, bottom = band.bottom
            // The components mostly inside the band give the line's extent (a digit's tail reaching
            // beyond the band is kept whole).
            var left = w, right = -1, y0 = top, y1 = bottom
            let bandHeight = bottom - top + 1
            var pixels = 0, dashPixels = 0
            for c in kept {
                // A rule's or a column line's remains (thin, and taller than the band) are no part of the line.
                if Float(c.width) <= 1.5 * pen + 1, c.height * 2 >= bandHeight * 3 { continue }
                let inside = max(0, min(c.y1, bottom) - max(c.y0, top) + 1)
                guard 2 * inside >= c.height || inside >= bandHeight / 2 else { continue }
                left = min(left, c.x0); right = max(right, c.x1)
                y0 = min(y0, c.y0); y1 = max(y1, c.y1)
                pixels += c.pixels.count
                if c.width >= 3 * c.height, Float(c.height) <= 3 * pen { dashPixels += c.pixels.count }
            }
            guard right >= left else { return nil }
            // A band holding only a dash or an underline (strokes three times as long as they are
            // tall and a few pens thin) is less likely the line than a band of digits: the dash of
            // a register's empty cell with the row's number below it.
            let score = 10 * dashPixels >= 9 * pixels ? 0.5 * band.score : band.score
            // A digit's tail or hat reaching out of the band is kept, up to half the band's height.
            let half = bandHeight / 2
            return Band(top: max(y0, top - half), bottom: min(y1, bottom + half), left: left, right: right, score: score,
                        mass: band.mass)
        }
    }
}
