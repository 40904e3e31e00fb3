/// How strokes are drawn into the 28×28 image.
public struct RasterOptions: Sendable, Equatable {
    /// How the path between two recorded points is drawn.
    public enum Smoothing: String, Sendable, Equatable, CaseIterable {
        /// Straight segments between consecutive points.
        case none
        /// A centripetal Catmull-Rom spline through the points (Yuksel, Schaefer, Keyser 2011),
        /// sampled about every output pixel: rounder curves from sparse (100 ms) sampling.
        case catmullRom
    }

    /// Stroke width in output pixels, measured where the coverage is 1/2. Default 2.0.
    public var penWidth: Float
    /// Width of the anti-aliased edge in output pixels: the coverage falls linearly from 1 to 0
    /// across `softness` pixels centred on the pen edge. Default 1.0; values below 0.001 act as 0.001.
    public var softness: Float
    /// Side of the square the ink is fitted into, in output pixels. MNIST uses 20.
    public var box: Float
    public var smoothing: Smoothing

    public init(penWidth: Float = 2.0, softness: Float = 1.0, box: Float = 20, smoothing: Smoothing = .none) {
        self.penWidth = penWidth
        self.softness = softness
        self.box = box
        self.smoothing = smoothing
    }
}

/// Turns a `Drawing` into the 28×28 grayscale image the network expects, the way MNIST was made
/// (LeCun et al.: "normalized to fit in a 20x20 pixel box while preserving their aspect ratio …
/// centered in a 28x28 image by computing the center of mass of the pixels"):
///
/// 1. Strokes are drawn as capsules (segments with round caps) of width `penWidth` with a linear
///    anti-aliased edge `softness` wide; overlapping strokes combine by maximum, so crossings are
///    never darker than ink (1). A stroke of one point, or of identical points, is a round dot.
/// 2. Scale: the drawing's bounding box *including the whole pen footprint* (`penWidth + softness`
///    added to each side's length) is scaled uniformly so that its longer side is `box` pixels;
///    the shorter side keeps the aspect ratio, so a "1" stays thin. A drawing whose points all
///    coincide is a dot of the pen width (no scaling).
/// 3. Centre of mass: with pixel (column i, row j) centred at the point (i, j) — "index
///    coordinates", the convention in which MNIST's average centre of mass is (14.0, 14.0) — the
///    intensity-weighted centre Σ v·(i, j) / Σ v is placed at (14, 14). The image is drawn once to
///    measure it and once more shifted by a sub-pixel amount, so the result is within a few
///    hundredths of a pixel of (14, 14) unless ink had to be clipped at the frame.
///
/// Canvas coordinates have y growing downward, as does the output. Points with a non-finite
/// coordinate (impossible in decoded files) are ignored. Cost is linear in the number of points;
/// consecutive points closer than 0.2 output pixels are merged, so dense mouse input is cheap.
public struct Rasterizer: Sendable {
    public var options: RasterOptions
    public static let size = 28
    /// Where the centre of mass goes, in index coordinates (pixel i centred at i).
    public static let center: Float = 14

    public init(options: RasterOptions = .init()) {
        self.options = options
    }

    /// 784 floats, row-major (index = row * 28 + column), y downward, 0 = background, 1 = ink.
    /// All zeros for an empty drawing.
    public func rasterize(_ drawing: Drawing) -> [Float] {
        var image = [Float](repeating: 0, count: Rasterizer.size * Rasterizer.size)
        image.withUnsafeMutableBufferPointer { rasterize(drawing, into: $0) }
        return image
    }

    /// Same as `rasterize(_:)`, into caller storage: the first 784 elements of `out` are
    /// overwritten (if `out` holds fewer, nothing is written). Allocates nothing per call unless
    /// `smoothing` is `.catmullRom`.
    public func rasterize(_ drawing: Drawing, into out: UnsafeMutableBufferPointer<Float>) {
        let pixels = Rasterizer.size * Rasterizer.size
        guard out.count >= pixels, let base = out.baseAddress else { return }
        let image = UnsafeMutableBufferPointer(start: base, count: pixels)
        image.update(repeating: 0)
        guard let bounds = Bounds(drawing) else { return }
        if options.smoothing == .catmullRom {
            let smooth = CatmullRom.smooth(drawing, step: bounds.extent / Double(max(options.box, 1)))
            guard let smoothBounds = Bounds(smooth) else { return }
            render(smooth, bounds: smoothBounds, into: image)
        } else {
            render(drawing, bounds: bounds, into: image)
        }
    }

    private func render(_ drawing: Drawing, bounds: Bounds, into image: UnsafeMutableBufferPointer<Float>) {
        let softness = max(options.softness, 0.001)
        let footprint = Double(max(options.penWidth, 0) + softness)
        let room = max(Double(options.box) - footprint, 0)
        let scale = bounds.extent > 0 ? room / bounds.extent : 0
        let frameMiddle = Double(Rasterizer.size - 1) / 2  // 13.5: the bounding box is centred first
        let pen = Pen(image: image, penWidth: max(options.penWidth, 0), softness: softness)
        var transform = Transform(
            scale: scale,
            offsetX: frameMiddle - bounds.midX * scale,
            offsetY: frameMiddle - bounds.midY * scale)
        pen.draw(drawing, transform)
        guard let mass = centerOfMass(image) else { return }
        transform.offsetX += Double(Rasterizer.center - mass.x)
        transform.offsetY += Double(Rasterizer.center - mass.y)
        image.update(repeating: 0)
        pen.draw(drawing, transform)
    }

    /// Σ v·(i, j) / Σ v in index coordinates, or nil for a blank image.
    func centerOfMass(_ image: UnsafeMutableBufferPointer<Float>) -> (x: Float, y: Float)? {
        var total: Float = 0, sumX: Float = 0, sumY: Float = 0
        for row in 0..<Rasterizer.size {
            var rowTotal: Float = 0, rowX: Float = 0
            for column in 0..<Rasterizer.size {
                let v = image[row * Rasterizer.size + column]
                rowTotal += v
                rowX += v * Float(column)
            }
            total += rowTotal
            sumX += rowX
            sumY += rowTotal * Float(row)
        }
        guard total > 0 else { return nil }
        return (sumX / total, sumY / total)
    }
}

/// The bounding box of a drawing's finite points, in canvas units (Double, so that the scale of a
/// tiny drawing with huge coordinates stays finite).
struct Bounds {
    var minX = Double.infinity, maxX = -Double.infinity
    var minY = Double.infinity, maxY = -Double.infinity

    init?(_ drawing: Drawing) {
        for stroke in drawing.strokes {
            for point in stroke where point.x.isFinite && point.y.isFinite {
                let x = Double(point.x), y = Double(point.y)
                minX = min(minX, x)
                maxX = max(maxX, x)
                minY = min(minY, y)
                maxY = max(maxY, y)
            }
        }
        guard minX <= maxX else { return nil }
    }

    var extent: Double { max(maxX - minX, maxY - minY) }
    var midX: Double { (minX + maxX) / 2 }
    var midY: Double { (minY + maxY) / 2 }
}

/// Canvas → output index coordinates: uniform scale, then translation.
struct Transform {
    var scale: Double
    var offsetX: Double
    var offsetY: Double

    @inline(__always)
    func apply(_ point: StrokePoint) -> (Float, Float) {
        (Float(Double(point.x) * scale + offsetX), Float(Double(point.y) * scale + offsetY))
    }
}

/// Draws capsules into a 28×28 image, combining by maximum.
struct Pen {
    let image: UnsafeMutableBufferPointer<Float>
    /// Distance from the centre line beyond which coverage is 0: penWidth/2 + softness/2.
    let outer: Float
    let inverseSoftness: Float
    /// Consecutive points closer than this (output pixels) are merged.
    static let minimumStep: Float = 0.2

    init(image: UnsafeMutableBufferPointer<Float>, penWidth: Float, softness: Float) {
        self.image = image
        outer = (penWidth + softness) / 2
        inverseSoftness = 1 / softness
    }

    func draw(_ drawing: Drawing, _ transform: Transform) {
        let minimumStep2 = Pen.minimumStep * Pen.minimumStep
        for stroke in drawing.strokes {
            var started = false
            var lastX: Float = 0, lastY: Float = 0      // the last point drawn to
            var pendingX: Float = 0, pendingY: Float = 0
            var pending = false                         // a merged point not yet drawn to
            var drewSegment = false
            for point in stroke where point.x.isFinite && point.y.isFinite {
                let (x, y) = transform.apply(point)
                if !started {
                    started = true
                    lastX = x
                    lastY = y
                    continue
                }
                let dx = x - lastX, dy = y - lastY
                if dx * dx + dy * dy < minimumStep2 {
                    pendingX = x
                    pendingY = y
                    pending = true
                    continue
                }
                segment(lastX, lastY, x, y)
                drewSegment = true
                pending = false
                lastX = x
                lastY = y
            }
            if pending {
                segment(lastX, lastY, pendingX, pendingY)
            } else if started && !drewSegment {
                segment(lastX, lastY, lastX, lastY)  // a dot
            }
        }
    }

    /// Coverage max(existing, clamp((outer - d) / softness, 0, 1)) for every pixel centre within
    /// `outer` of the segment a–b, visiting only the segment's bounding box grown by `outer`.
    @inline(__always)
    func segment(_ ax: Float, _ ay: Float, _ bx: Float, _ by: Float) {
        let size = Rasterizer.size
        let reach = outer
        // Clamp in Float before converting, so no coordinate can make the conversion trap.
        let limit = Float(size)
        let lowX = Int(min(max(min(ax, bx) - reach, -1), limit).rounded(.up))
        let highX = Int(min(max(max(ax, bx) + reach, -1), limit).rounded(.down))
        let lowY = Int(min(max(min(ay, by) - reach, -1), limit).rounded(.up))
        let highY = Int(min(max(max(ay, by) + reach, -1), limit).rounded(.down))
        guard lowX <= highX, lowY <= highY, lowX < size, lowY < size, highX >= 0, highY >= 0 else { return }
        let columns = max(lowX, 0)...min(highX, size - 1)
        let dx = bx - ax, dy = by - ay
        let length2 = dx * dx + dy * dy
        let inverseLength2: Float = length2 > 1e-12 ? 1 / length2 : 0
        let outer2 = outer * outer
        for row in max(lowY, 0)...min(highY, size - 1) {
            let py = Float(row) - ay
            let rowBase = row * size
            for column in columns {
                let px = Float(column) - ax
                let t = min(max((px * dx + py * dy) * inverseLength2, 0), 1)
                let ex = px - t * dx, ey = py - t * dy
                let d2 = ex * ex + ey * ey
                if d2 < outer2 {
                    let coverage = min((outer - d2.squareRoot()) * inverseSoftness, 1)
                    if coverage > image[rowBase + column] { image[rowBase + column] = coverage }
                }
            }
        }
    }
}

/// Centripetal Catmull-Rom smoothing of sparse strokes.
enum CatmullRom {
    /// A copy of `drawing` whose strokes pass through the same points, with points added along a
    /// centripetal Catmull-Rom spline so that consecutive points are at most about `step` canvas
    /// units apart. Ends use mirrored neighbours; strokes of fewer than 3 points are unchanged.
    static func smooth(_ drawing: Drawing, step: Double) -> Drawing {
        var result = drawing
        guard step > 0, step.isFinite else { return result }
        result.strokes = drawing.strokes.map { stroke in
            let points = stroke.filter { $0.x.isFinite && $0.y.isFinite }.map { (Double($0.x), Double($0.y)) }
            guard points.count >= 3 else { return stroke }
            var out: [StrokePoint] = [StrokePoint(x: Float(points[0].0), y: Float(points[0].1))]
            for i in 0..<(points.count - 1) {
                let p1 = points[i], p2 = points[i + 1]
                let p0 = i > 0 ? points[i - 1] : (2 * p1.0 - p2.0, 2 * p1.1 - p2.1)
                let p3 = i + 2 < points.count ? points[i + 2] : (2 * p2.0 - p1.0, 2 * p2.1 - p1.1)
                let length = ((p2.0 - p1.0) * (p2.0 - p1.0) + (p2.1 - p1.1) * (p2.1 - p1.1)).squareRoot()
                let pieces = min(Int((length / step).rounded(.up)), 64)
                if pieces > 1 {
                    for k in 1..<pieces {
                        if let q = point(p0, p1, p2, p3, fraction: Double(k) / Double(pieces)) {
                            out.append(StrokePoint(x: Float(q.0), y: Float(q.1)))
                        }
                    }
                }
                out.append(StrokePoint(x: Float(p2.0), y: Float(p2.1)))
            }
            return out
        }
        return result
    }

    /// The point at `fraction` of the way from p1 to p2 (Barry–Goldman pyramid, alpha = 1/2), or
    /// nil when two neighbouring points coincide (the parametrisation is then undefined).
    static func point(_ p0: (Double, Double), _ p1: (Double, Double), _ p2: (Double, Double), _ p3: (Double, Double),
                      fraction: Double) -> (Double, Double)? {
        func knot(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
            (((b.0 - a.0) * (b.0 - a.0) + (b.1 - a.1) * (b.1 - a.1)).squareRoot()).squareRoot()
        }
        let t0 = 0.0, t1 = t0 + knot(p0, p1), t2 = t1 + knot(p1, p2), t3 = t2 + knot(p2, p3)
        guard t1 - t0 > 1e-12, t2 - t1 > 1e-12, t3 - t2 > 1e-12 else { return nil }
        let t = t1 + (t2 - t1) * fraction
        func lerp(_ a: (Double, Double), _ b: (Double, Double), _ ta: Double, _ tb: Double) -> (Double, Double) {
            let u = (t - ta) / (tb - ta)
            return (a.0 + (b.0 - a.0) * u, a.1 + (b.1 - a.1) * u)
        }
        let a1 = lerp(p0, p1, t0, t1), a2 = lerp(p1, p2, t1, t2), a3 = lerp(p2, p3, t2, t3)
        let b1 = lerp(a1, a2, t0, t2), b2 = lerp(a2, a3, t1, t3)
        return lerp(b1, b2, t1, t2)
    }
}
