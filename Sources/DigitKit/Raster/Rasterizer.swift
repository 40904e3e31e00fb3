import DigitKernels
/// How strokes are drawn into the 28×28 image.
public struct RasterOptions: Sendable, Equatable {
    /// How the path between two recorded points is drawn.
    public enum Smoothing: String, Sendable, Equatable, CaseIterable {
        /// Straight segments between consecutive points.
        case none
        /// A centripetal Catmull-Rom spline through the points (Yuksel, Schaefer, Keyser 2011),
        /// sampled about every output pixel: rounder curves from sparse (100 ms) sampling.
        case catmullRom
        /// The spline for a stroke whose recorded points lie on average at least
        /// `CatmullRom.sparseStep` output pixels apart (a slow device, a mouse's few events on a
        /// fast stroke), straight segments for a denser one: dense strokes are drawn as recorded.
        case sparse
    }

    /// Stroke width in output pixels, measured where the coverage is 1/2. Default 2.0.
    public var penWidth: Float
    /// Width of the anti-aliased edge in output pixels: the coverage falls linearly from 1 to 0
    /// across `softness` pixels centred on the pen edge. Default 1.0.
    public var softness: Float
    /// Side of the square the ink is fitted into, in output pixels. MNIST uses 20.
    public var box: Float
    public var smoothing: Smoothing
    /// When the drawing states its canvas size, a drawing smaller than this fraction of the
    /// canvas's longer side is enlarged only as much as one of exactly that size, so a tap with
    /// a little jitter stays a small dot instead of becoming a 20-pixel scribble. Default 0.04
    /// (11 units on a 280 canvas; the smallest pendigits digit spans 53 of 500). 0 turns it off.
    public var minimumExtent: Float

    public init(penWidth: Float = 2.0, softness: Float = 1.0, box: Float = 20, smoothing: Smoothing = .none,
                minimumExtent: Float = 0.04) {
        self.penWidth = penWidth
        self.softness = softness
        self.box = box
        self.smoothing = smoothing
        self.minimumExtent = minimumExtent
    }

    /// The options the rasterizer actually uses: penWidth clamped to 0…28, softness to 0.001…28,
    /// box to 1…28, minimumExtent to 0…1; a NaN or infinite value takes its default.
    var effective: RasterOptions {
        func clamp(_ v: Float, _ range: ClosedRange<Float>, _ fallback: Float) -> Float {
            v.isFinite ? min(max(v, range.lowerBound), range.upperBound) : fallback
        }
        let defaults = RasterOptions()
        return RasterOptions(penWidth: clamp(penWidth, 0...28, defaults.penWidth),
                             softness: clamp(softness, 0.001...28, defaults.softness),
                             box: clamp(box, 1...28, defaults.box),
                             smoothing: smoothing,
                             minimumExtent: clamp(minimumExtent, 0...1, defaults.minimumExtent))
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
///    coincide is a dot of the pen width (no scaling); one much smaller than its stated canvas is
///    enlarged less (see `RasterOptions.minimumExtent`).
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
    /// overwritten (if `out` holds fewer, nothing is written). Allocates nothing on the heap per
    /// call unless `smoothing` is `.catmullRom`, or `.sparse` and a stroke is sparse.
    public func rasterize(_ drawing: Drawing, into out: UnsafeMutableBufferPointer<Float>) {
        rasterize(drawing, into: out, kernel: .fast)
    }

    /// `.reference` evaluates every pixel for every segment with plain scalar code; tests hold
    /// the fast kernel to it.
    enum Kernel { case fast, reference }

    func rasterize(_ drawing: Drawing, into out: UnsafeMutableBufferPointer<Float>, kernel: Kernel) {
        let size = Rasterizer.size
        let options = self.options.effective
        guard out.count >= size * size else { return }
        // The image is drawn in a padded frame of 28 rows × 32 columns (4 SIMD8 chunks per row),
        // so the kernel may compute whole chunks without masking; columns 28…31 are dropped.
        withUnsafeTemporaryAllocation(of: Pen.Chunk.self, capacity: size * Pen.chunksPerRow) { frame in
            guard let frameBase = frame.baseAddress else { return }
            let pen = Pen(frame: frameBase, penWidth: options.penWidth, softness: options.softness, kernel: kernel)
            frame.initialize(repeating: pen.blank)
            // Rows outside `inked` hold no ink (every segment stays within `reach` of its end
            // points), so they are written as zeros without being read.
            var inked = 0..<0
            if let bounds = Bounds(drawing) {
                let canvasSide = Double(max(drawing.canvasWidth ?? 0, drawing.canvasHeight ?? 0))
                let floor = canvasSide.isFinite ? Double(options.minimumExtent) * canvasSide : 0
                let step = max(bounds.extent, floor) / Double(options.box)
                if options.smoothing == .catmullRom || (options.smoothing == .sparse && CatmullRom.isSparse(drawing, step: step)) {
                    let smooth = CatmullRom.smooth(drawing, step: step, onlySparse: options.smoothing == .sparse)
                    if let smoothBounds = Bounds(smooth) {
                        inked = render(smooth, bounds: smoothBounds, extentFloor: floor, box: options.box, pen: pen)
                    }
                } else {
                    inked = render(drawing, bounds: bounds, extentFloor: floor, box: options.box, pen: pen)
                }
            }
            for row in 0..<size {
                guard inked.contains(row) else {
                    (out.baseAddress! + row * size).update(repeating: 0, count: size)
                    continue
                }
                for chunk in 0..<Pen.chunksPerRow {
                    let coverage = pen.coverage(row * Pen.chunksPerRow + chunk)
                    for lane in 0..<min(Pen.lanes, size - chunk * Pen.lanes) { out[row * size + chunk * Pen.lanes + lane] = coverage[lane] }
                }
            }
        }
    }

    /// Draws `drawing` centred on its centre of mass; returns the rows that may hold ink.
    private func render(_ drawing: Drawing, bounds: Bounds, extentFloor: Double, box: Float, pen: Pen) -> Range<Int> {
        let footprint = Double(pen.penWidth + pen.softness)
        let room = max(Double(box) - footprint, 0)
        let extent = max(bounds.extent, extentFloor)
        let scale = extent > 0 ? room / extent : 0
        let frameMiddle = Double(Rasterizer.size - 1) / 2  // 13.5: the bounding box is centred first
        var transform = Transform(
            scale: scale,
            offsetX: frameMiddle - bounds.midX * scale,
            offsetY: frameMiddle - bounds.midY * scale)
        let firstRows = pen.draw(drawing, transform)
        guard let mass = pen.centerOfMass(rows: firstRows) else { return firstRows }
        transform.offsetX += Double(Rasterizer.center - mass.x)
        transform.offsetY += Double(Rasterizer.center - mass.y)
        pen.clear()
        return pen.draw(drawing, transform)
    }

    /// Σ v·(i, j) / Σ v of a 28×28 image in index coordinates (pixel i centred at i), or nil
    /// when the image is blank.
    public static func centerOfMass(_ image: [Float]) -> (x: Float, y: Float)? {
        guard image.count >= size * size else { return nil }
        return centerOfMass(image, width: size, height: size)
    }

    /// Σ v·(i, j) / Σ v of a row-major `width` × `height` image, or nil when it is blank.
    static func centerOfMass(_ image: [Float], width: Int, height: Int) -> (x: Float, y: Float)? {
        var total: Float = 0, sumX: Float = 0, sumY: Float = 0
        for row in 0..<height {
            for column in 0..<width {
                let v = image[row * width + column]
                total += v
                sumX += v * Float(column)
                sumY += v * Float(row)
            }
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

/// Draws capsules into a padded 28 × 32 frame.
///
/// The fast kernel keeps, per pixel, the smallest squared distance to any segment drawn so far
/// and turns it into coverage only when the image is read. Coverage is a non-increasing
/// function of distance, and every floating-point step of it is monotonic, so this equals the
/// maximum of the per-segment coverages exactly, without a square root per pixel and segment.
/// The reference kernel stores coverage directly.
struct Pen {
    /// Eight pixels of a row (two SSE registers on x86-64, whose baseline this Swift code is built for).
    typealias Chunk = SIMD8<Float>
    static let lanes = Chunk.scalarCount
    static let chunksPerRow = 4
    static let paddedWidth = chunksPerRow * lanes
    /// Consecutive points closer than this (output pixels) are merged.
    static let minimumStep: Float = 0.2

    let frame: UnsafeMutablePointer<Chunk>
    let penWidth: Float
    let softness: Float
    /// Distance from the centre line beyond which coverage is 0: penWidth/2 + softness/2.
    let outer: Float
    let inverseSoftness: Float
    let kernel: Rasterizer.Kernel
    let segmentKernel = Pen.activeSegmentKernel

    init(frame: UnsafeMutablePointer<Chunk>, penWidth: Float, softness: Float, kernel: Rasterizer.Kernel) {
        self.frame = frame
        self.penWidth = penWidth
        self.softness = softness
        self.kernel = kernel
        outer = (penWidth + softness) / 2
        inverseSoftness = 1 / softness
    }

    /// An empty chunk: infinite squared distance (fast kernel) or zero coverage (reference).
    var blank: Chunk { kernel == .fast ? Chunk(repeating: .infinity) : Chunk() }

    func clear() {
        frame.update(repeating: blank, count: Rasterizer.size * Pen.chunksPerRow)
    }

    /// Coverage clamp((outer - d) / softness, 0, 1) of the 8 pixels of one chunk.
    @inline(__always)
    func coverage(_ chunk: Int) -> Chunk {
        guard kernel == .fast else { return frame[chunk] }
        var coverage = (outer - frame[chunk].squareRoot()) * inverseSoftness
        coverage.replace(with: 1, where: coverage .> 1)
        coverage.replace(with: 0, where: coverage .< 0)
        return coverage
    }

    /// Σ v·(i, j) / Σ v over the 28 × 28 image, or nil when it is blank. Only `rows` are read:
    /// the others must hold no ink (adding their zeros would not change a sum).
    func centerOfMass(rows: Range<Int>) -> (x: Float, y: Float)? {
        let columnIndex = Chunk(0, 1, 2, 3, 4, 5, 6, 7)
        // The last chunk's 4 padding columns (28…31) may hold ink from the fast kernel: masked.
        let inImage = Chunk(1, 1, 1, 1, 0, 0, 0, 0)
        var total = Chunk(), sumX = Chunk(), sumY = Chunk()
        for row in rows {
            var rowTotal = Chunk()
            for chunk in 0..<Pen.chunksPerRow {
                var v = coverage(row * Pen.chunksPerRow + chunk)
                if chunk == Pen.chunksPerRow - 1 { v *= inImage }
                rowTotal += v
                sumX += v * (columnIndex + Float(chunk * Pen.lanes))
            }
            total += rowTotal
            sumY += rowTotal * Float(row)
        }
        let mass = total.sum()
        guard mass > 0 else { return nil }
        return (sumX.sum() / mass, sumY.sum() / mass)
    }

    /// Draws every stroke; returns the rows the segments may have reached.
    @discardableResult
    func draw(_ drawing: Drawing, _ transform: Transform) -> Range<Int> {
        let minimumStep2 = Pen.minimumStep * Pen.minimumStep
        var lowestY = Float.infinity, highestY = -Float.infinity
        for stroke in drawing.strokes {
            var started = false
            var lastX: Float = 0, lastY: Float = 0      // the last point drawn to
            var pendingX: Float = 0, pendingY: Float = 0
            var pending = false                         // a merged point not yet drawn to
            var drewSegment = false
            for point in stroke where point.x.isFinite && point.y.isFinite {
                let (x, y) = transform.apply(point)
                lowestY = min(lowestY, y)
                highestY = max(highestY, y)
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
        // The same row bounds as `fastSegment`, over all points: a superset of the rows drawn.
        guard lowestY <= highestY else { return 0..<0 }
        let reach = outer + 1 / 64
        let low = max(Pen.floorIndex(lowestY - reach), 0)
        let high = min(Pen.floorIndex(highestY + reach), Rasterizer.size - 1)
        return low <= high ? low..<(high + 1) : 0..<0
    }

    /// floor(v) for v clamped to [-1, 28], so no coordinate can make the conversion trap.
    @inline(__always)
    static func floorIndex(_ v: Float) -> Int { Int(min(max(v, -1), Float(Rasterizer.size)) + 2) - 2 }

    @inline(__always)
    func segment(_ ax: Float, _ ay: Float, _ bx: Float, _ by: Float) {
        switch kernel {
        case .fast: fastSegment(ax, ay, bx, by)
        case .reference: referenceSegment(ax, ay, bx, by)
        }
    }

    /// Lowers each pixel's squared distance to that from its centre to the segment a–b: the C
    /// kernel `raster_segment` of the copy this CPU runs (AVX on x86-64 where there is one), which
    /// visits, row by row, only the 8-pixel chunks that the part of the segment within reach of the
    /// row can touch. The reach has a margin because a pixel about `outer` away can still get a
    /// coverage of a few ulps from rounding; extra pixels get their exact value too.
    @inline(__always)
    func fastSegment(_ ax: Float, _ ay: Float, _ bx: Float, _ by: Float) {
        segmentKernel(UnsafeMutableRawPointer(frame).assumingMemoryBound(to: Float.self), ax, ay, bx, by, outer + 1 / 64)
    }

    /// The kernel copy's `raster_segment`, looked up once.
    static let activeSegmentKernel = dk_active()!.pointee.raster_segment!

    /// The same coverage, pixel by pixel over the whole image, in plain scalar code.
    func referenceSegment(_ ax: Float, _ ay: Float, _ bx: Float, _ by: Float) {
        let dx = bx - ax, dy = by - ay
        let length2 = dx * dx + dy * dy
        let inverseLength2: Float = length2 > 1e-12 ? 1 / length2 : 0
        for row in 0..<Rasterizer.size {
            for column in 0..<Rasterizer.size {
                let px = Float(column) - ax, py = Float(row) - ay
                let t = min(max((px * dx + py * dy) * inverseLength2, 0), 1)
                let ex = px - t * dx, ey = py - t * dy
                let coverage = min(max((outer - (ex * ex + ey * ey).squareRoot()) * inverseSoftness, 0), 1)
                let chunk = row * Pen.chunksPerRow + column / Pen.lanes
                frame[chunk][column % Pen.lanes] = max(frame[chunk][column % Pen.lanes], coverage)
            }
        }
    }
}

/// Centripetal Catmull-Rom smoothing of sparse strokes.
enum CatmullRom {
    /// A stroke is sparse (`RasterOptions.Smoothing.sparse`) when its points lie on average at
    /// least this many output pixels apart. Pendigits' strokes lie 1.2 apart (median; 1.9 at the
    /// 90th percentile), so their readings are the same with or without; with every third or
    /// fourth point only, the spline gives back answers (docs/strokes.md, "Smoothing").
    static let sparseStep = 3.5

    /// Whether `stroke` has at least 3 (finite) points lying on average at least `sparseStep`
    /// output pixels apart, at `step` canvas units an output pixel. Allocates nothing: it runs
    /// for every drawing read.
    static func isSparse(_ stroke: [StrokePoint], step: Double) -> Bool {
        guard step > 0, step.isFinite, stroke.count >= 3 else { return false }
        var length = 0.0, count = 0
        var last: (Double, Double)?
        for p in stroke where p.x.isFinite && p.y.isFinite {
            let q = (Double(p.x), Double(p.y))
            if let l = last { length += ((q.0 - l.0) * (q.0 - l.0) + (q.1 - l.1) * (q.1 - l.1)).squareRoot() }
            last = q
            count += 1
        }
        return count >= 3 && length / Double(count - 1) >= sparseStep * step
    }

    /// Whether a stroke of `drawing` is sparse (`isSparse(_:step:)`).
    static func isSparse(_ drawing: Drawing, step: Double) -> Bool {
        drawing.strokes.contains { isSparse($0, step: step) }
    }

    /// A copy of `drawing` whose strokes pass through the same points, with points added along a
    /// centripetal Catmull-Rom spline so that consecutive points are at most about `step` canvas
    /// units apart. Ends use mirrored neighbours; strokes of fewer than 3 points are unchanged.
    static func smooth(_ drawing: Drawing, step: Double, onlySparse: Bool = false) -> Drawing {
        var result = drawing
        guard step > 0, step.isFinite else { return result }
        result.strokes = drawing.strokes.map { stroke in
            guard !onlySparse || isSparse(stroke, step: step) else { return stroke }
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
