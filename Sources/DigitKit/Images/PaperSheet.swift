import DigitFormats

/// A sheet of paper lying on a darker surface that fills much of a photo: a note on a desk, a
/// page on a scanner with its lid open. The reader looks for the writing on the sheet alone
/// (`DigitRecognizer.read(image:options:)`): across the whole frame the desk is most of the
/// picture, its tone is taken for the paper's and the bright sheet for one broad stroke of chalk.
///
/// Found on the image reduced to about `side` pixels on its long side (area averaging): Otsu's
/// threshold splits it into bright and dark; the largest 4-connected bright region is a sheet when
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

    /// The sheet in `image`, nil when the image is not a sheet on a darker surround.
    static func find(in image: DecodedImage) -> PaperSheet? {
        let w = image.width, h = image.height
        guard min(w, h) >= 48 else { return nil }
        let f = max(1, (max(w, h) + side - 1) / side)
        let sw = (w + f - 1) / f, sh = (h + f - 1) / f
        // Area averaging: sums of whole rows into the small image's row, then divided by the
        // number of pixels each small pixel covers (fewer along the right and bottom edges).
        var small = [Float](repeating: 0, count: sw * sh)
        var rowSums = [UInt32](repeating: 0, count: sw)
        image.gray.withUnsafeBufferPointer { g in
            for sy in 0..<sh {
                for i in rowSums.indices { rowSums[i] = 0 }
                let rows = min(h, (sy + 1) * f) - sy * f
                for y in (sy * f)..<(sy * f + rows) {
                    let line = g.baseAddress! + y * w
                    var x = 0
                    for sx in 0..<sw {
                        let end = min(w, x + f)
                        var sum: UInt32 = 0
                        while x < end { sum += UInt32(line[x]); x += 1 }
                        rowSums[sx] += sum
                    }
                }
                for sx in 0..<sw {
                    let columns = min(w, (sx + 1) * f) - sx * f
                    small[sy * sw + sx] = Float(rowSums[sx]) / Float(rows * columns)
                }
            }
        }
        let t = otsu(small)
        let bright = small.map { $0 > t }
        // The largest 4-connected bright region.
        var label = [Int32](repeating: -1, count: sw * sh)
        var best: (area: Int, x0: Int, y0: Int, x1: Int, y1: Int, sum: Float, seed: Int)?
        var stack: [Int] = []
        for start in bright.indices where bright[start] && label[start] < 0 {
            label[start] = 0
            stack.append(start)
            var area = 0, bx0 = sw, by0 = sh, bx1 = -1, by1 = -1
            var sum: Float = 0
            while let p = stack.popLast() {
                area += 1
                sum += small[p]
                let x = p % sw, y = p / sw
                bx0 = min(bx0, x); bx1 = max(bx1, x); by0 = min(by0, y); by1 = max(by1, y)
                for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] where nx >= 0 && nx < sw && ny >= 0 && ny < sh {
                    let q = ny * sw + nx
                    if bright[q] && label[q] < 0 { label[q] = 0; stack.append(q) }
                }
            }
            if area > (best?.area ?? 0) { best = (area, bx0, by0, bx1, by1, sum, start) }
        }
        guard var b = best else { return nil }
        let total = Float(sw * sh), boxArea = Float((b.x1 - b.x0 + 1) * (b.y1 - b.y0 + 1))
        let sides = [b.x0 == 0, b.y0 == 0, b.x1 == sw - 1, b.y1 == sh - 1].filter { $0 }.count
        var border = 0, borderDark = 0
        for x in 0..<sw { for y in [0, sh - 1] { border += 1; if !bright[y * sw + x] { borderDark += 1 } } }
        for y in 1..<(sh - 1) { for x in [0, sw - 1] { border += 1; if !bright[y * sw + x] { borderDark += 1 } } }
        let dark = small.filter { $0 <= t }
        guard Float(b.area) >= minArea * total, boxArea <= maxBoxArea * total, Float(b.area) >= minFill * boxArea,
              sides <= 1, Float(borderDark) >= minBorderDark * Float(border), !dark.isEmpty,
              b.sum / Float(b.area) - dark.reduce(0, +) / Float(dark.count) >= minContrast else { return nil }
        let contrast = b.sum / Float(b.area) - dark.reduce(0, +) / Float(dark.count)
        var gap = 0, gapDark = 0, steps: [Float] = []
        func at(_ x: Int, _ y: Int) -> Float { small[min(sh - 1, max(0, y)) * sw + min(sw - 1, max(0, x))] }
        // Each side: (room outside it, a point on the edge inside along t ∈ 0…1, the outward step).
        let sidesRoom: [(room: Int, edge: (Float) -> (Int, Int), out: (Int, Int))] = [
            (b.x0, { (b.x0, b.y0 + Int($0 * Float(b.y1 - b.y0))) }, (-1, 0)),
            (b.y0, { (b.x0 + Int($0 * Float(b.x1 - b.x0)), b.y0) }, (0, -1)),
            (sw - 1 - b.x1, { (b.x1, b.y0 + Int($0 * Float(b.y1 - b.y0))) }, (1, 0)),
            (sh - 1 - b.y1, { (b.x0 + Int($0 * Float(b.x1 - b.x0)), b.y1) }, (0, 1)),
        ]
        for side in sidesRoom where side.room >= 2 {
            var inside: Float = 0, outside: Float = 0, n: Float = 0
            for k in 0...10 {
                let (x, y) = side.edge(0.2 + 0.06 * Float(k))
                let (ox, oy) = side.out
                inside += at(x - ox, y - oy) + at(x - 2 * ox, y - 2 * oy)
                outside += at(x + 2 * ox, y + 2 * oy) + at(x + 3 * ox, y + 3 * oy)
                n += 2
            }
            steps.append((inside - outside) / n)
        }
        for y in 0..<sh {
            for x in 0..<sw where x < b.x0 || x > b.x1 || y < b.y0 || y > b.y1 {
                gap += 1
                if !bright[y * sw + x] { gapDark += 1 }
            }
        }
        guard !steps.isEmpty, Float(gapDark) >= minGapDark * Float(gap),
              steps.reduce(0, +) / Float(steps.count) >= minStep * contrast else { return nil }
        // A shadow across the sheet splits off its shadowed part, darker than the threshold but
        // brighter than the desk: the sheet is what stands clear of the desk's tone (the frame's
        // border) and joins the bright part, unless that runs out over the frame.
        var edge: [Float] = []
        for x in 0..<sw { edge.append(small[x]); edge.append(small[(sh - 1) * sw + x]) }
        for y in 1..<(sh - 1) { edge.append(small[y * sw]); edge.append(small[y * sw + sw - 1]) }
        edge.sort()
        let desk = edge[edge.count / 2]
        let spread = edge.map { abs($0 - desk) }.sorted()[edge.count / 2]
        let clear = desk + max(deskMargin, 4 * spread)
        var seen = [Bool](repeating: false, count: sw * sh)
        seen[b.seed] = true
        stack = [b.seed]
        var gx0 = sw, gy0 = sh, gx1 = -1, gy1 = -1
        while let p = stack.popLast() {
            let x = p % sw, y = p / sw
            gx0 = min(gx0, x); gx1 = max(gx1, x); gy0 = min(gy0, y); gy1 = max(gy1, y)
            for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] where nx >= 0 && nx < sw && ny >= 0 && ny < sh {
                let q = ny * sw + nx
                if !seen[q] && small[q] > clear { seen[q] = true; stack.append(q) }
            }
        }
        let grownSides = [gx0 == 0, gy0 == 0, gx1 == sw - 1, gy1 == sh - 1].filter { $0 }.count
        if grownSides <= sides, Float((gx1 - gx0 + 1) * (gy1 - gy0 + 1)) <= maxBoxArea * total {
            b.x0 = min(b.x0, gx0); b.y0 = min(b.y0, gy0); b.x1 = max(b.x1, gx1); b.y1 = max(b.y1, gy1)
        }
        // Back to the decoded image, cut in by the inset.
        let bw = Float((b.x1 - b.x0 + 1) * f), bh = Float((b.y1 - b.y0 + 1) * f)
        let dx = Int((inset * bw).rounded(.up)), dy = Int((inset * bh).rounded(.up))
        let sheet = PaperSheet(x0: max(0, b.x0 * f + dx), y0: max(0, b.y0 * f + dy),
                               x1: min(w, (b.x1 + 1) * f - dx), y1: min(h, (b.y1 + 1) * f - dy))
        return sheet.x1 - sheet.x0 >= 16 && sheet.y1 - sheet.y0 >= 16 ? sheet : nil
    }

    /// Otsu's threshold of grey values 0…255: the level that best splits them in two.
    static func otsu(_ values: [Float]) -> Float {
        var histogram = [Float](repeating: 0, count: 256)
        for v in values { histogram[min(255, max(0, Int(v)))] += 1 }
        let n = Float(values.count)
        let total = histogram.enumerated().reduce(Float(0)) { $0 + Float($1.offset) * $1.element }
        var weight: Float = 0, sum: Float = 0, best: Float = -1, level: Float = 127
        for k in 0..<255 {
            weight += histogram[k]
            sum += Float(k) * histogram[k]
            guard weight > 0, weight < n else { continue }
            let m0 = sum / weight, m1 = (total - sum) / (n - weight)
            let between = weight * (n - weight) * (m0 - m1) * (m0 - m1)
            if between > best { best = between; level = Float(k) }
        }
        return level
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
