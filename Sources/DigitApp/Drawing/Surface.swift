import DigitKit

/// A software frame buffer: `width × height` opaque pixels, row-major, y downward, each
/// 0xFFRRGGBB (SDL's ARGB8888). Everything DigitPad shows is drawn here, so the picture is
/// the same with or without a display and can be checked pixel by pixel in tests.
/// All drawing is clipped to the surface: any coordinates, including huge ones, are safe.
public struct Surface {
    public private(set) var width: Int
    public private(set) var height: Int
    public var pixels: [UInt32]
    /// The parts changed since the last `takeDirty()`, for partial texture uploads: at most
    /// `maxDirtyRects` rectangles (a stroke segment and a panel card far apart stay two small
    /// rectangles instead of one that spans the window); overlapping ones are merged.
    public private(set) var dirty: [PixelRect]

    public static let maxDirtyRects = 8

    /// Largest accepted side; larger requests are clamped (a 16384² surface is 1 GiB).
    public static let maxSide = 8192

    public init(width: Int, height: Int, fill: RGB = RGB(0)) {
        let w = min(max(width, 1), Surface.maxSide), h = min(max(height, 1), Surface.maxSide)
        self.width = w
        self.height = h
        pixels = Array(repeating: fill.argb, count: w * h)
        dirty = [PixelRect(x: 0, y: 0, width: w, height: h)]
    }

    /// Coordinates beyond ±1e6 pixels are refused by the ink functions: squared distances of
    /// such values overflow Float and the window never produces them.
    public static let coordinateLimit: Float = 1e6

    static func isSane(_ v: Float) -> Bool { v.isFinite && abs(v) <= coordinateLimit }

    public var bounds: PixelRect { PixelRect(x: 0, y: 0, width: width, height: height) }

    /// Reallocates for a new size (clamped to 1…`maxSide`); the content is cleared to `fill`.
    public mutating func resize(width: Int, height: Int, fill: RGB = RGB(0)) {
        self = Surface(width: width, height: height, fill: fill)
    }

    /// Returns the changed rectangles (disjoint) and forgets them.
    public mutating func takeDirty() -> [PixelRect] {
        defer { dirty = [] }
        return dirty
    }

    public mutating func markDirty(_ rect: PixelRect) {
        var r = rect.intersection(bounds)
        if r.isEmpty { return }
        // Absorb every rectangle this one touches, until it touches none.
        var merged = true
        while merged {
            merged = false
            for (i, d) in dirty.enumerated() where !d.intersection(r).isEmpty || d.union(r) == d || d.union(r) == r {
                r = r.union(d)
                dirty.remove(at: i)
                merged = true
                break
            }
        }
        if dirty.count >= Surface.maxDirtyRects {
            dirty = [dirty.reduce(r) { $0.union($1) }]
        } else {
            dirty.append(r)
        }
    }

    public func pixel(_ x: Int, _ y: Int) -> UInt32 {
        guard x >= 0, y >= 0, x < width, y < height else { return 0 }
        return pixels[y * width + x]
    }

    public mutating func fill(_ rect: PixelRect, _ color: RGB) {
        let r = rect.intersection(bounds)
        if r.isEmpty { return }
        let value = color.argb, w = width
        pixels.withUnsafeMutableBufferPointer { p in
            for y in r.y..<r.maxY {
                let row = y * w
                for x in r.x..<r.maxX { p[row + x] = value }
            }
        }
        markDirty(r)
    }

    /// Blends `color` over the pixel with opacity `alpha` (0…1, clamped).
    public mutating func blend(_ x: Int, _ y: Int, _ color: RGB, _ alpha: Float) {
        guard x >= 0, y >= 0, x < width, y < height, alpha > 0 else { return }
        let i = y * width + x
        if alpha >= 1 { pixels[i] = color.argb; return }
        pixels[i] = RGB(pixels[i]).mixed(with: color, alpha).argb
    }

    /// A filled rectangle with anti-aliased round corners of `radius` pixels.
    public mutating func fillRounded(_ rect: PixelRect, radius: Int, _ color: RGB) {
        let rad = min(max(radius, 0), min(rect.width, rect.height) / 2)
        if rad == 0 { fill(rect, color); return }
        // The straight middle band and the two side bands are plain fills.
        fill(PixelRect(x: rect.x + rad, y: rect.y, width: rect.width - 2 * rad, height: rect.height), color)
        fill(PixelRect(x: rect.x, y: rect.y + rad, width: rad, height: rect.height - 2 * rad), color)
        fill(PixelRect(x: rect.maxX - rad, y: rect.y + rad, width: rad, height: rect.height - 2 * rad), color)
        let r = Float(rad)
        let centers = [(rect.x + rad, rect.y + rad, rect.x, rect.y),
                       (rect.maxX - rad, rect.y + rad, rect.maxX - rad, rect.y),
                       (rect.x + rad, rect.maxY - rad, rect.x, rect.maxY - rad),
                       (rect.maxX - rad, rect.maxY - rad, rect.maxX - rad, rect.maxY - rad)]
        for (cx, cy, x0, y0) in centers {
            for y in y0..<(y0 + rad) {
                for x in x0..<(x0 + rad) {
                    let dx = Float(x) + 0.5 - Float(cx), dy = Float(y) + 0.5 - Float(cy)
                    let d = (dx * dx + dy * dy).squareRoot()
                    blend(x, y, color, r + 0.5 - d)
                }
            }
        }
        markDirty(rect)
    }

    /// A one-pixel outline just inside `rect`.
    public mutating func stroke(_ rect: PixelRect, _ color: RGB) {
        fill(PixelRect(x: rect.x, y: rect.y, width: rect.width, height: 1), color)
        fill(PixelRect(x: rect.x, y: rect.maxY - 1, width: rect.width, height: 1), color)
        fill(PixelRect(x: rect.x, y: rect.y, width: 1, height: rect.height), color)
        fill(PixelRect(x: rect.maxX - 1, y: rect.y, width: 1, height: rect.height), color)
    }

    /// A horizontal dashed line, `dash` pixels on and `gap` off, `thickness` pixels tall.
    public mutating func dashedLine(x0: Int, x1: Int, y: Int, thickness: Int, dash: Int, gap: Int, _ color: RGB) {
        let step = max(1, dash + gap)
        var x = x0
        while x < x1 {
            fill(PixelRect(x: x, y: y, width: min(dash, x1 - x), height: thickness), color)
            x += step
        }
    }

    /// Ink: an anti-aliased capsule (a segment from `a` to `b` with round caps, half-width
    /// `radius`) in `color`, clipped to `clip`. Coverage is 1 within `radius` of the segment
    /// and falls linearly to 0 over one pixel; it is combined with what is there by keeping
    /// the brighter value per channel, so overlapping segments never darken or over-brighten.
    /// This assumes light ink on a dark ground, as in MNIST. Returns the pixels touched.
    @discardableResult
    public mutating func stampCapsule(from a: (x: Float, y: Float), to b: (x: Float, y: Float),
                                      radius: Float, _ color: RGB, clip: PixelRect) -> PixelRect {
        guard Surface.isSane(a.x), Surface.isSane(a.y), Surface.isSane(b.x), Surface.isSane(b.y),
              radius.isFinite, radius > 0, radius < Surface.coordinateLimit else { return .zero }
        let area = clip.intersection(bounds)
        let reach = radius + 1
        let minX = Swift.max(Float(area.x), Swift.min(a.x, b.x) - reach)
        let maxX = Swift.min(Float(area.maxX), Swift.max(a.x, b.x) + reach)
        let minY = Swift.max(Float(area.y), Swift.min(a.y, b.y) - reach)
        let maxY = Swift.min(Float(area.maxY), Swift.max(a.y, b.y) + reach)
        guard minX < maxX, minY < maxY else { return .zero }
        let box = PixelRect(x: Int(minX), y: Int(minY), width: Int(maxX.rounded(.up)) - Int(minX),
                            height: Int(maxY.rounded(.up)) - Int(minY)).intersection(area)
        if box.isEmpty { return .zero }
        let dx = b.x - a.x, dy = b.y - a.y
        let lengthSquared = dx * dx + dy * dy
        let inverse: Float = lengthSquared > 1e-12 ? 1 / lengthSquared : 0
        let inkR = Float(color.r), inkG = Float(color.g), inkB = Float(color.b)
        let w = width
        pixels.withUnsafeMutableBufferPointer { p in
            for y in box.y..<box.maxY {
                let py = Float(y) + 0.5 - a.y
                let row = y * w
                for x in box.x..<box.maxX {
                    let px = Float(x) + 0.5 - a.x
                    let t = Swift.min(Swift.max((px * dx + py * dy) * inverse, 0), 1)
                    let ex = px - t * dx, ey = py - t * dy
                    let coverage = Swift.min(Swift.max(radius + 0.5 - (ex * ex + ey * ey).squareRoot(), 0), 1)
                    if !(coverage > 0) { continue }
                    let old = p[row + x]
                    let r = Swift.max(UInt32(inkR * coverage + 0.5), old >> 16 & 0xFF)
                    let g = Swift.max(UInt32(inkG * coverage + 0.5), old >> 8 & 0xFF)
                    let bl = Swift.max(UInt32(inkB * coverage + 0.5), old & 0xFF)
                    p[row + x] = 0xFF00_0000 | r << 16 | g << 8 | bl
                }
            }
        }
        markDirty(box)
        return box
    }

    /// Anti-aliased capsules (segments with round caps, half-width `radius`) in `color`,
    /// blended over whatever is there. Coverage is computed for all segments together (the
    /// maximum per pixel), so where they overlap the edge is not blended twice.
    public mutating func blendCapsules(_ segments: [((x: Float, y: Float), (x: Float, y: Float))], radius: Float,
                                       _ color: RGB, clip: PixelRect) {
        guard radius.isFinite, radius > 0, radius < Surface.coordinateLimit, !segments.isEmpty else { return }
        var minX = Float.infinity, minY = Float.infinity, maxX = -Float.infinity, maxY = -Float.infinity
        for (a, b) in segments {
            guard Surface.isSane(a.x), Surface.isSane(a.y), Surface.isSane(b.x), Surface.isSane(b.y) else { return }
            minX = Swift.min(minX, a.x, b.x); maxX = Swift.max(maxX, a.x, b.x)
            minY = Swift.min(minY, a.y, b.y); maxY = Swift.max(maxY, a.y, b.y)
        }
        let area = clip.intersection(bounds)
        let x0 = Swift.max(Float(area.x), minX - radius - 1), x1 = Swift.min(Float(area.maxX), maxX + radius + 1)
        let y0 = Swift.max(Float(area.y), minY - radius - 1), y1 = Swift.min(Float(area.maxY), maxY + radius + 1)
        guard x0 < x1, y0 < y1 else { return }
        let box = PixelRect(x: Int(x0), y: Int(y0), width: Int(x1.rounded(.up)) - Int(x0),
                            height: Int(y1.rounded(.up)) - Int(y0)).intersection(area)
        if box.isEmpty { return }
        var mask = [Float](repeating: 0, count: box.width * box.height)
        for (a, b) in segments {
            let dx = b.x - a.x, dy = b.y - a.y
            let lengthSquared = dx * dx + dy * dy
            let inverse: Float = lengthSquared > 1e-12 ? 1 / lengthSquared : 0
            let sx0 = Swift.max(box.x, Int(Swift.max(Float(box.x), Swift.min(a.x, b.x) - radius - 1)))
            let sx1 = Swift.min(box.maxX, Int(Swift.min(Float(box.maxX), Swift.max(a.x, b.x) + radius + 2)))
            let sy0 = Swift.max(box.y, Int(Swift.max(Float(box.y), Swift.min(a.y, b.y) - radius - 1)))
            let sy1 = Swift.min(box.maxY, Int(Swift.min(Float(box.maxY), Swift.max(a.y, b.y) + radius + 2)))
            guard sx0 < sx1, sy0 < sy1 else { continue }
            for y in sy0..<sy1 {
                let py = Float(y) + 0.5 - a.y
                for x in sx0..<sx1 {
                    let px = Float(x) + 0.5 - a.x
                    let t = Swift.min(Swift.max((px * dx + py * dy) * inverse, 0), 1)
                    let ex = px - t * dx, ey = py - t * dy
                    let coverage = Swift.min(Swift.max(radius + 0.5 - (ex * ex + ey * ey).squareRoot(), 0), 1)
                    let m = (y - box.y) * box.width + (x - box.x)
                    if coverage > mask[m] { mask[m] = coverage }   // false for NaN
                }
            }
        }
        for y in box.y..<box.maxY {
            for x in box.x..<box.maxX {
                let coverage = mask[(y - box.y) * box.width + (x - box.x)]
                if coverage > 0 { blend(x, y, color, coverage) }
            }
        }
        markDirty(box)
    }

    /// Draws a grayscale image (values 0…1, row-major, `columns × rows`) scaled by nearest
    /// neighbour into `rect`, mapping 0 to `background` and 1 to `ink`. Values outside 0…1 and
    /// NaN are clamped (NaN counts as 0). A short `values` array draws nothing.
    public mutating func drawGray(_ values: [Float], columns: Int, rows: Int, in rect: PixelRect,
                                  background: RGB, ink: RGB) {
        guard columns > 0, rows > 0, values.count >= columns * rows, !rect.isEmpty else { return }
        let area = rect.intersection(bounds)
        if area.isEmpty { return }
        for y in area.y..<area.maxY {
            let row = min(rows - 1, (y - rect.y) * rows / rect.height)
            for x in area.x..<area.maxX {
                let column = min(columns - 1, (x - rect.x) * columns / rect.width)
                let v = values[row * columns + column]
                let level = v.isNaN ? 0 : min(max(v, 0), 1)
                pixels[y * width + x] = background.mixed(with: ink, level).argb
            }
        }
        markDirty(area)
    }
}
