import Foundation

/// The tilt of a scan or photo, found from its long straight edges (ruled and column lines, a
/// scanner margin's edge, a box), and the page turned level before its lines are cut. A register
/// scanned 2° askew leaves its column line and margin slanted across the crop: neither is then a
/// rule nor a margin (`LineImage`), and the band of writing spans the whole crop (the parish
/// validation crops turned by ±2°: 14% of the numbers answered, against 91% level).
///
/// 1. The page is reduced to about `side` pixels on its long side; the Sobel gradient is taken,
///    and the strongest tenth of the pixels (at least `floor` levels) are edges. An edge whose
///    gradient is mostly across x is part of an upright line, mostly across y of a lying one.
/// 2. For each angle within ±`maxDegrees` (whole degrees, then quarter degrees around the
///    best), the upright edges are projected along that slant onto x and the lying ones onto y,
///    one bin a pixel; the angle's score is the sum of the squared bin counts, which a straight
///    line's edges raise most when the slant follows it.
/// 3. The page is taken as tilted by the best angle when it is at least `leastDegrees`, its
///    score is at least `gain` times the level one, and the fullest bin at that angle holds an
///    edge at least `lineShare` of the page across (a rule, a column line, a margin's or the
///    sheet's edge; not a digit's stroke, which on a crop cut tight around a number spans two
///    thirds of it; handwriting without lines is left as it is). A page whose slant shows
///    `manyLines` or more long lines (edges reaching 40% of the page) one way, or that many
///    upright ones and a lying one, is lined paper or a table: its light print leaves weak,
///    broken edges, so no single line need reach `lineShare`. With that many both ways it is
///    squared paper, tilted from `leastDegreesSquared` (its grid is taken out only where its
///    lines run straight down the columns: `LineImage.takeOutGrid`).
///
/// `levelled(_:toImage:)` turns the page back by that angle (bilinear), leaves out what the turn
/// brings in from beyond the image's border, and returns the `Turn` that maps its pixels back to
/// the image's.
enum Skew {
    static let side = 400
    static let maxDegrees: Float = 8
    static let leastDegrees: Float = 1
    static let gain: Float = 1.1
    static let lineShare: Float = 0.85
    static let floor: Float = 80
    /// A page with at least this many long straight lines along one slant (`longLines`: lined or
    /// squared paper) is tilted by it whatever the longest line's share.
    static let manyLines = 3
    /// Squared paper is levelled from this tilt (other pages from `leastDegrees`).
    static let leastDegreesSquared: Float = 0.5
    /// What long lines a page shows along a slant: none (`manyLines` or more neither way), ruled
    /// (that many lying lines, or that many upright ones and a lying one), or squared (that many
    /// both ways).
    enum Lines { case none, ruled, squared }

    /// How many lines of edges `bins` hold that reach 40% of `across` (bins within three of each
    /// other, the two edges of one printed line, count once).
    static func longLines(_ bins: [Int], across: Int) -> Int {
        var count = 0, last = -10
        for (k, c) in bins.enumerated() where 5 * c >= 2 * across {
            if k > last + 3 { count += 1 }
            last = k
        }
        return count
    }

    /// The page's tilt in radians (positive: turned clockwise, its right side lower, in image
    /// coordinates with y down), or 0 when it shows none for sure.
    static func angle(of page: FloatImage) -> Float {
        let small = page.reduced(toSide: side)
        let w = small.width, h = small.height
        guard w >= 16, h >= 16 else { return 0 }
        // Sobel gradients of the interior pixels.
        var gx = [Float](repeating: 0, count: w * h), gy = gx, magnitude = gx
        small.values.withUnsafeBufferPointer { v in
            for y in 1..<(h - 1) {
                for x in 1..<(w - 1) {
                    let i = y * w + x
                    let a = v[i - w - 1], b = v[i - w], c = v[i - w + 1], d = v[i - 1], f = v[i + 1]
                    let g = v[i + w - 1], k = v[i + w], l = v[i + w + 1]
                    gx[i] = (c + 2 * f + l) - (a + 2 * d + g)
                    gy[i] = (g + 2 * k + l) - (a + 2 * b + c)
                    magnitude[i] = abs(gx[i]) + abs(gy[i])
                }
            }
        }
        let strong = max(Morphology.quantile(magnitude.lazy.map { $0 / 8 }, 0.9) * 8, floor)
        var uprightX: [Float] = [], uprightY: [Float] = [], lyingX: [Float] = [], lyingY: [Float] = []
        for i in magnitude.indices where magnitude[i] > strong {
            let ax = abs(gx[i]), ay = abs(gy[i])
            let x = Float(i % w), y = Float(i / w)
            if ax > 2 * ay {
                uprightX.append(x); uprightY.append(y)
            } else if ay > 2 * ax {
                lyingX.append(x); lyingY.append(y)
            }
        }
        guard uprightX.count + lyingX.count >= 16 else { return 0 }
        let reach = Int((Float(max(w, h)) * tan(maxDegrees * .pi / 180)).rounded(.up)) + 2
        var upright = [Int](repeating: 0, count: w + 2 * reach), lying = [Int](repeating: 0, count: h + 2 * reach)
        // The score at `degrees`, and the longest edge along that slant as a share of the page.
        func score(_ degrees: Float) -> (score: Float, line: Float, lines: Lines) {
            let t = tan(degrees * .pi / 180)
            for k in upright.indices { upright[k] = 0 }
            for k in lying.indices { lying[k] = 0 }
            // An upright line turned clockwise by the angle runs x = x₀ − y·t; a lying one y = y₀ + x·t.
            for k in uprightX.indices { upright[Int((uprightX[k] + uprightY[k] * t).rounded()) + reach] += 1 }
            for k in lyingX.indices { lying[Int((lyingY[k] - lyingX[k] * t).rounded()) + reach] += 1 }
            var s: Float = 0
            for c in upright where c > 1 { s += Float(c * c) }
            for c in lying where c > 1 { s += Float(c * c) }
            let line = max(Float(upright.max() ?? 0) / Float(h), Float(lying.max() ?? 0) / Float(w))
            let ruled = Self.longLines(lying, across: w), columns = Self.longLines(upright, across: h)
            let lines: Lines = ruled >= manyLines && columns >= manyLines ? .squared
                : ruled >= manyLines || (columns >= manyLines && ruled >= 1) ? .ruled : .none
            return (s, line, lines)
        }
        let level = score(0)
        guard level.score > 0 else { return 0 }
        let whole = Int(maxDegrees)
        var best: (degrees: Float, score: Float, line: Float, lines: Lines) = (0, level.score, level.line, level.lines)
        for d in -whole...whole where d != 0 {
            let s = score(Float(d))
            if s.score > best.score { best = (Float(d), s.score, s.line, s.lines) }
        }
        let coarse = best.degrees
        for q in -3...3 where q != 0 {
            let d = coarse + Float(q) * 0.25
            guard abs(d) <= maxDegrees else { continue }
            let s = score(d)
            if s.score > best.score { best = (d, s.score, s.line, s.lines) }
        }
        guard abs(best.degrees) >= (best.lines == .squared ? leastDegreesSquared : leastDegrees), best.score >= gain * level.score,
              best.line >= lineShare || best.lines != .none else { return 0 }
        return best.degrees * .pi / 180
    }

    /// A page turned by `angle` (radians) about its middle and cut inside its corners, in the
    /// image's pixels: maps a point of the levelled page back to the image.
    struct Turn: Sendable, Equatable {
        var angle: Float
        /// The middle of the image, about which it was turned.
        var centreX: Float, centreY: Float
        /// Where the levelled page's origin lies in the turned image (the corners cut away).
        var offsetX: Float = 0, offsetY: Float = 0

        /// The image's point for the levelled page's (x, y).
        func toImage(_ x: Float, _ y: Float) -> (x: Float, y: Float) {
            let c = cos(angle), s = sin(angle)
            let dx = x + offsetX - centreX, dy = y + offsetY - centreY
            return (centreX + c * dx - s * dy, centreY + s * dx + c * dy)
        }

        /// The box around `box` (levelled page) in the image.
        func toImage(_ box: InkBox) -> InkBox {
            let corners = [toImage(box.x0, box.y0), toImage(box.x1, box.y0), toImage(box.x0, box.y1), toImage(box.x1, box.y1)]
            return InkBox(x0: corners.map(\.x).min()!, y0: corners.map(\.y).min()!, x1: corners.map(\.x).max()!, y1: corners.map(\.y).max()!)
        }
    }

    /// `page` turned level when it is tilted (`angle(of:)`), and the turn (in the page's pixels
    /// times `toImage`, the image's) that maps it back; the page itself and nil when not.
    /// The levelled page leaves out a band along each side as wide as the turn carries the image's
    /// corners in (half the other side times the angle's tangent): what lies there came from
    /// beyond the turned image's border (the scanner's lid or the paper's fill of a turned scan),
    /// and a light sliver beside a black scanner margin hides the margin from the cut.
    static func levelled(_ page: FloatImage, toImage: Float) -> (page: FloatImage, turn: Turn?) {
        let angle = angle(of: page)
        let w = page.width, h = page.height
        let t = abs(tan(angle))
        let insetX = Int((Float(h) / 2 * t).rounded(.up)), insetY = Int((Float(w) / 2 * t).rounded(.up))
        let ow = w - 2 * insetX, oh = h - 2 * insetY
        guard angle != 0, ow >= 8, oh >= 8 else { return (page, nil) }
        let cx = Float(w) / 2, cy = Float(h) / 2
        let c = cos(angle), s = sin(angle)
        var out = [Float](repeating: 0, count: ow * oh)
        page.values.withUnsafeBufferPointer { v in
            for y in 0..<oh {
                let dy = Float(y + insetY) + 0.5 - cy
                for x in 0..<ow {
                    let dx = Float(x + insetX) + 0.5 - cx
                    // The source of the levelled pixel, turned by the page's tilt.
                    let sx = min(max(cx + c * dx - s * dy - 0.5, 0), Float(w - 1))
                    let sy = min(max(cy + s * dx + c * dy - 0.5, 0), Float(h - 1))
                    let x0 = Int(sx), y0 = Int(sy)
                    let x1 = min(x0 + 1, w - 1), y1 = min(y0 + 1, h - 1)
                    let ax = sx - Float(x0), ay = sy - Float(y0)
                    let top = v[y0 * w + x0] + (v[y0 * w + x1] - v[y0 * w + x0]) * ax
                    let bottom = v[y1 * w + x0] + (v[y1 * w + x1] - v[y1 * w + x0]) * ax
                    out[y * ow + x] = top + (bottom - top) * ay
                }
            }
        }
        let levelled = FloatImage(width: ow, height: oh, values: out, factor: page.factor, scale: page.scale)
        return (levelled, Turn(angle: angle, centreX: cx * toImage, centreY: cy * toImage,
                               offsetX: Float(insetX) * toImage, offsetY: Float(insetY) * toImage))
    }
}
