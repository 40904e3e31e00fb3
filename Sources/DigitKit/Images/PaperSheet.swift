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
        guard min(image.width, image.height) >= 48 else { return nil }
        let grid = Grid(image)
        guard grid.width >= 8, grid.height >= 8 else { return nil }
        let t = otsu(grid.values)
        let bright = grid.values.map { $0 > t }
        // The largest 4-connected bright region.
        var taken = [Bool](repeating: false, count: bright.count)
        var best: Grid.Region?
        for start in bright.indices where bright[start] && !taken[start] {
            let region = grid.region(from: start, taken: &taken) { bright[$0] }
            if region.area > (best?.area ?? 0) { best = region }
        }
        guard var sheet = best else { return nil }
        let total = Float(grid.values.count), sides = grid.sidesTouched(by: sheet)
        let frame = grid.border
        let darkValues = grid.values.filter { $0 <= t }
        guard Float(sheet.area) >= minArea * total, Float(sheet.boxArea) <= maxBoxArea * total,
              Float(sheet.area) >= minFill * Float(sheet.boxArea), sides <= 1, !darkValues.isEmpty,
              Float(frame.filter { !bright[$0] }.count) >= minBorderDark * Float(frame.count) else { return nil }
        let contrast = sheet.sum / Float(sheet.area) - darkValues.reduce(0, +) / Float(darkValues.count)
        guard contrast >= minContrast else { return nil }
        // The desk all round: what lies between the sheet's box and the frame is dark, and the
        // sheet's edge is a step where there is room beside it.
        let gap = grid.values.indices.filter { !sheet.contains($0 % grid.width, $0 / grid.width) }
        let steps = grid.steps(across: sheet)
        guard !steps.isEmpty, Float(gap.filter { !bright[$0] }.count) >= minGapDark * Float(gap.count),
              steps.reduce(0, +) / Float(steps.count) >= minStep * contrast else { return nil }
        // A shadow across the sheet splits off its shadowed part, darker than the threshold but
        // brighter than the desk: the sheet is what stands clear of the desk's tone (the frame's
        // border) and joins the bright part, unless that runs out over more of the frame.
        let edge = frame.map { grid.values[$0] }.sorted()
        let desk = edge[edge.count / 2]
        let spread = edge.map { abs($0 - desk) }.sorted()[edge.count / 2]
        let clear = desk + max(deskMargin, 4 * spread)
        var seen = [Bool](repeating: false, count: bright.count)
        let grown = grid.region(from: sheet.seed, taken: &seen) { grid.values[$0] > clear }
        if grid.sidesTouched(by: grown) <= sides, Float(grown.boxArea) <= maxBoxArea * total {
            sheet.x0 = min(sheet.x0, grown.x0); sheet.y0 = min(sheet.y0, grown.y0)
            sheet.x1 = max(sheet.x1, grown.x1); sheet.y1 = max(sheet.y1, grown.y1)
        }
        // Back to the decoded image, cut in by the inset.
        let f = grid.factor, w = image.width, h = image.height
        let dx = Int((inset * Float((sheet.x1 - sheet.x0 + 1) * f)).rounded(.up))
        let dy = Int((inset * Float((sheet.y1 - sheet.y0 + 1) * f)).rounded(.up))
        let found = PaperSheet(x0: max(0, sheet.x0 * f + dx), y0: max(0, sheet.y0 * f + dy),
                               x1: min(w, (sheet.x1 + 1) * f - dx), y1: min(h, (sheet.y1 + 1) * f - dy))
        return found.x1 - found.x0 >= 16 && found.y1 - found.y0 >= 16 ? found : nil
    }

    /// The image reduced by a whole `factor` to about `side` pixels on its long side, by area
    /// averaging (fewer pixels in a cell along the right and bottom edges).
    struct Grid {
        let values: [Float]
        let width: Int, height: Int, factor: Int

        /// A 4-connected region: its size, box (inclusive), the sum of its values and where it began.
        struct Region {
            var area = 0, sum: Float = 0, seed = 0
            var x0 = Int.max, y0 = Int.max, x1 = -1, y1 = -1
            var boxArea: Int { (x1 - x0 + 1) * (y1 - y0 + 1) }
            func contains(_ x: Int, _ y: Int) -> Bool { x >= x0 && x <= x1 && y >= y0 && y <= y1 }
        }

        init(_ image: DecodedImage) {
            let w = image.width, h = image.height
            let f = max(1, (max(w, h) + PaperSheet.side - 1) / PaperSheet.side)
            let sw = (w + f - 1) / f, sh = (h + f - 1) / f
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
                        small[sy * sw + sx] = Float(rowSums[sx]) / Float(rows * (min(w, (sx + 1) * f) - sx * f))
                    }
                }
            }
            values = small
            width = sw
            height = sh
            factor = f
        }

        /// The indices of the frame's border, each once.
        var border: [Int] {
            var indices = Array(0..<width) + ((height - 1) * width..<(height * width))
            for y in 1..<max(1, height - 1) { indices += [y * width, y * width + width - 1] }
            return indices
        }

        /// How many sides of the frame `r`'s box touches.
        func sidesTouched(by r: Region) -> Int {
            [r.x0 == 0, r.y0 == 0, r.x1 == width - 1, r.y1 == height - 1].filter { $0 }.count
        }

        /// The 4-connected region from `seed` through the cells `inside` accepts and `taken` has
        /// not; marks them taken.
        func region(from seed: Int, taken: inout [Bool], inside: (Int) -> Bool) -> Region {
            var r = Region(seed: seed)
            var stack = [seed]
            taken[seed] = true
            while let p = stack.popLast() {
                let x = p % width, y = p / width
                r.area += 1
                r.sum += values[p]
                r.x0 = min(r.x0, x); r.x1 = max(r.x1, x); r.y0 = min(r.y0, y); r.y1 = max(r.y1, y)
                for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] where nx >= 0 && nx < width && ny >= 0 && ny < height {
                    let q = ny * width + nx
                    if !taken[q] && inside(q) { taken[q] = true; stack.append(q) }
                }
            }
            return r
        }

        /// For each side of `r`'s box with two cells or more of room beside it: across the middle
        /// 60% of that side, the mean of two cells in less the mean of two cells out.
        func steps(across r: Region) -> [Float] {
            func at(_ x: Int, _ y: Int) -> Float { values[min(height - 1, max(0, y)) * width + min(width - 1, max(0, x))] }
            // Each side: the room outside it, a point of the edge at t ∈ 0…1 along it, the outward direction.
            let sides: [(room: Int, edge: (Float) -> (Int, Int), out: (Int, Int))] = [
                (r.x0, { (r.x0, r.y0 + Int($0 * Float(r.y1 - r.y0))) }, (-1, 0)),
                (r.y0, { (r.x0 + Int($0 * Float(r.x1 - r.x0)), r.y0) }, (0, -1)),
                (width - 1 - r.x1, { (r.x1, r.y0 + Int($0 * Float(r.y1 - r.y0))) }, (1, 0)),
                (height - 1 - r.y1, { (r.x0 + Int($0 * Float(r.x1 - r.x0)), r.y1) }, (0, 1)),
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
