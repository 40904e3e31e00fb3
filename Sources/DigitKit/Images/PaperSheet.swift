import DigitFormats

/// A photo as the sheet finders look at it (`PaperSheet`, `SheetEdges`): reduced to about
/// `PaperSheet.side` pixels on its long side (`FloatImage.reduced`) and split by Otsu's threshold
/// (`Morphology.otsu`) into bright and dark; made once for both. Nil for a page under 48 pixels a
/// side or a view under 8 cells a side (a crop, not a photo of a sheet).
struct SheetGrid {
    let grid: FloatImage
    let threshold: Float
    let bright: [Bool]

    init?(_ page: FloatImage) {
        guard min(page.width, page.height) >= 48 else { return nil }
        grid = page.reduced(toSide: PaperSheet.side)
        guard grid.width >= 8, grid.height >= 8 else { return nil }
        threshold = Morphology.otsu(grid.values)
        let t = threshold
        bright = grid.values.map { $0 >= t }
    }
}

/// A sheet of paper lying on a darker surface that fills much of a photo: a note on a desk, a
/// page on a scanner with its lid open. The reader looks for the writing on the sheet alone
/// (`DigitRecognizer.read(image:options:)`): across the whole frame the desk is most of the
/// picture, its tone is taken for the paper's and the bright sheet for one broad stroke of chalk.
///
/// Found on the image reduced to about `side` pixels on its long side (`FloatImage.reduced`):
/// Otsu's threshold (`Morphology.otsu`) splits it into bright and dark; the largest connected
/// bright region (`InkComponents.label`) is a sheet when
/// - it covers at least `minArea` of the frame, and its box at most `maxBoxArea` (else the frame
///   is the sheet, with at most a margin or a shadow beside it);
/// - it fills at least `minFill` of its box (a sheet, turned a few degrees; not strokes of chalk);
/// - it touches at most one side of the frame (a sheet running off one edge is still one; the
///   lit half of a shadowed page, or a scan with a black margin, touch three);
/// - the frame's border is at least `minBorderDark` dark (the desk around it);
/// - it is at least `minContrast` grey levels brighter than the dark part;
/// - between its box and the frame, wherever there is room, at least `minGapDark` is dark (a desk
///   all round, not paper beyond a box drawn round a number or outside the ring of a marker's 0);
/// - its edge is a step: across the middle of each side of its box with room beside it, two
///   pixels in against two out differ by at least `minStep` of the contrast (a lamp's spot or a
///   vignette fades instead).
/// A shadow across the sheet leaves its shadowed part below the threshold: the box grows over
/// what joins the bright part and stands `deskMargin` grey levels (or four of the desk's own
/// deviations) above the desk's tone, the median of the frame's border, unless that runs out to
/// more sides of the frame. The sheet's box is then cut in by `inset` of its size on each side
/// (its edge and the shadow along it), in the decoded image's pixels.
struct PaperSheet: Equatable {
    static let side = 160
    static let minArea: Float = 0.08
    static let maxBoxArea: Float = 0.85
    static let minFill: Float = 0.65
    static let minBorderDark: Float = 0.9
    static let minContrast: Float = 40
    static let inset: Float = 0.03
    static let minGapDark: Float = 0.9
    static let minStep: Float = 0.4
    /// The sheet's shadowed part stands at least this many grey levels above the desk.
    static let deskMargin: Float = 15

    /// The sheet in the decoded image's pixels: columns `x0..<x1`, rows `y0..<y1`.
    let x0: Int, y0: Int, x1: Int, y1: Int

    /// The sheet in `page` (the decoded image as `FloatImage`), nil when it is not a sheet on a
    /// darker surround.
    static func find(in page: FloatImage) -> PaperSheet? { SheetGrid(page).flatMap { find(in: $0, page: page) } }

    /// The sheet seen on `look`, the reduced view of `page`.
    static func find(in look: SheetGrid, page: FloatImage) -> PaperSheet? {
        let grid = look.grid, t = look.threshold, bright = look.bright
        let sw = grid.width, sh = grid.height, values = grid.values
        guard var sheet = InkComponents.label(width: sw, height: sh, seed: { bright[$0] }, grow: { bright[$0] })
            .components.max(by: { $0.pixels.count < $1.pixels.count }) else { return nil }
        func sidesTouched(_ c: InkComponents.Component) -> Int {
            [c.x0 == 0, c.y0 == 0, c.x1 == sw - 1, c.y1 == sh - 1].filter { $0 }.count
        }
        let total = Float(values.count), area = Float(sheet.pixels.count), sides = sidesTouched(sheet)
        let boxArea = { (c: InkComponents.Component) in Float(c.width * c.height) }
        var frame = Array(0..<sw) + Array((sh - 1) * sw..<(sh * sw))
        for y in 1..<(sh - 1) { frame += [y * sw, y * sw + sw - 1] }
        let darkValues = values.filter { $0 < t }
        guard area >= minArea * total, boxArea(sheet) <= maxBoxArea * total, area >= minFill * boxArea(sheet),
              sides <= 1, !darkValues.isEmpty,
              Float(frame.filter { !bright[$0] }.count) >= minBorderDark * Float(frame.count) else { return nil }
        let contrast = sheet.pixels.reduce(0) { $0 + values[$1] } / area - darkValues.reduce(0, +) / Float(darkValues.count)
        guard contrast >= minContrast else { return nil }
        // The desk all round: what lies between the sheet's box and the frame is dark, and the
        // sheet's edge is a step where there is room beside it.
        let gap = values.indices.filter { i in
            let x = i % sw, y = i / sw
            return x < sheet.x0 || x > sheet.x1 || y < sheet.y0 || y > sheet.y1
        }
        let steps = Self.steps(values, width: sw, height: sh, across: sheet)
        guard !steps.isEmpty, Float(gap.filter { !bright[$0] }.count) >= minGapDark * Float(gap.count),
              steps.reduce(0, +) / Float(steps.count) >= minStep * contrast else { return nil }
        // A shadow across the sheet splits off its shadowed part, darker than the threshold but
        // brighter than the desk: the sheet is what stands clear of the desk's tone (the frame's
        // border) and joins the bright part, unless that runs out over more of the frame.
        let edge = frame.map { values[$0] }.sorted()
        let desk = edge[edge.count / 2]
        let spread = Morphology.median(edge.map { abs($0 - desk) })
        let clear = desk + max(deskMargin, 4 * spread)
        var inSheet = [Bool](repeating: false, count: values.count)
        for p in sheet.pixels { inSheet[p] = true }
        if let grown = InkComponents.label(width: sw, height: sh, seed: { inSheet[$0] }, grow: { values[$0] > clear }).components.first,
           sidesTouched(grown) <= sides, boxArea(grown) <= maxBoxArea * total {
            sheet.x0 = min(sheet.x0, grown.x0); sheet.y0 = min(sheet.y0, grown.y0)
            sheet.x1 = max(sheet.x1, grown.x1); sheet.y1 = max(sheet.y1, grown.y1)
        }
        // Back to the decoded image, cut in by the inset.
        let f = grid.factor
        let dx = Int((inset * Float(sheet.width * f)).rounded(.up)), dy = Int((inset * Float(sheet.height * f)).rounded(.up))
        let found = PaperSheet(x0: max(0, sheet.x0 * f + dx), y0: max(0, sheet.y0 * f + dy),
                               x1: min(page.width, (sheet.x1 + 1) * f - dx), y1: min(page.height, (sheet.y1 + 1) * f - dy))
        return found.x1 - found.x0 >= 16 && found.y1 - found.y0 >= 16 ? found : nil
    }

    /// For each side of box `c` with two cells or more of room beside it: across the middle 60%
    /// of that side, the mean of two cells in less the mean of two cells out.
    static func steps(_ values: [Float], width: Int, height: Int, across c: InkComponents.Component) -> [Float] {
        func at(_ x: Int, _ y: Int) -> Float { values[min(height - 1, max(0, y)) * width + min(width - 1, max(0, x))] }
        // Each side: the room outside it, a point of the edge at t ∈ 0…1 along it, the outward direction.
        let sides: [(room: Int, edge: (Float) -> (Int, Int), out: (Int, Int))] = [
            (c.x0, { (c.x0, c.y0 + Int($0 * Float(c.y1 - c.y0))) }, (-1, 0)),
            (c.y0, { (c.x0 + Int($0 * Float(c.x1 - c.x0)), c.y0) }, (0, -1)),
            (width - 1 - c.x1, { (c.x1, c.y0 + Int($0 * Float(c.y1 - c.y0))) }, (1, 0)),
            (height - 1 - c.y1, { (c.x0 + Int($0 * Float(c.x1 - c.x0)), c.y1) }, (0, 1)),
        ]
        return sides.filter { $0.room >= 2 }.map { side in
            let (ox, oy) = side.out
            var difference: Float = 0
            for k in 0...10 {
                let (x, y) = side.edge(0.2 + 0.06 * Float(k))
                difference += at(x - ox, y - oy) + at(x - 2 * ox, y - 2 * oy) - at(x + 2 * ox, y + 2 * oy) - at(x + 3 * ox, y + 3 * oy)
            }
            return difference / 22
        }
    }

    /// The sheet cut out of `image` (decoded pixels), with its stored size at the image's scale.
    func cut(from image: DecodedImage) -> DecodedImage {
        let cw = x1 - x0, ch = y1 - y0
        var gray = [UInt8](repeating: 0, count: cw * ch)
        for y in 0..<ch { for x in 0..<cw { gray[y * cw + x] = image.gray[(y0 + y) * image.width + x0 + x] } }
        var out = image
        out.width = cw
        out.height = ch
        out.gray = gray
        out.rgb = nil
        out.originalWidth = min(image.originalWidth - x0 * image.scale, cw * image.scale)
        out.originalHeight = min(image.originalHeight - y0 * image.scale, ch * image.scale)
        return out
    }
}

extension NumberReading {
    /// The reading with every digit's box moved by (`dx`, `dy`) pixels.
    func moved(dx: Float, dy: Float) -> NumberReading {
        var r = self
        for i in r.digits.indices {
            r.digits[i].box = InkBox(x0: r.digits[i].box.x0 + dx, y0: r.digits[i].box.y0 + dy,
                                     x1: r.digits[i].box.x1 + dx, y1: r.digits[i].box.y1 + dy)
        }
        return r
    }
}
