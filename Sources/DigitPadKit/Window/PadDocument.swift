import DigitApp
import DigitKit

/// The drawing on the canvas, independent of the window size: points are stored in
/// **canvas units**, 0…1 across the square canvas, y downward, so a resize only rescales the
/// picture. `t` is seconds since the drawing's first point, `p` the pressure (touch only).
public struct PadDocument: Equatable, Sendable {
    /// Finished strokes, then the stroke in progress (if `isStroking`) as the last element.
    public private(set) var strokes: [[StrokePoint]] = []
    public private(set) var isStroking = false
    /// The expected digit ("0"…"9") set with a digit key, saved as the file's `label`.
    public var label: String?
    /// Increases on every change of the strokes: the recognizer's answer for an older
    /// revision is out of date.
    public private(set) var revision = 0
    private var startTime: Double?

    /// At most this many points and strokes are kept; the same as the stroke format's default
    /// limits, so a saved drawing always loads again. Further input is ignored.
    public static let maxPoints = 1_000_000
    public static let maxStrokes = 10_000

    public private(set) var pointCount = 0

    public init() {}

    public init(drawing: Drawing, in mapping: CanvasMapping) {
        strokes = drawing.strokes.map { stroke in
            stroke.map { point in
                let (x, y) = mapping.toCanvas(point.x, point.y)
                return StrokePoint(x: PadDocument.clampUnit(x), y: PadDocument.clampUnit(y), t: point.t, p: point.p)
            }
        }.filter { !$0.isEmpty }
        if strokes.count > PadDocument.maxStrokes { strokes.removeLast(strokes.count - PadDocument.maxStrokes) }
        pointCount = strokes.reduce(0) { $0 + $1.count }
        label = drawing.label
        revision = 1
    }

    public var isEmpty: Bool { strokes.isEmpty }

    /// Starts a stroke at a point in canvas units (clamped to 0…1). Ends a stroke in progress first.
    /// Returns false (and does nothing) when the drawing is full.
    @discardableResult
    public mutating func begin(x: Float, y: Float, time: Double?, pressure: Float? = nil) -> Bool {
        if isStroking { end() }
        guard strokes.count < PadDocument.maxStrokes, pointCount < PadDocument.maxPoints else { return false }
        strokes.append([point(x, y, time, pressure)])
        pointCount += 1
        isStroking = true
        revision += 1
        return true
    }

    /// Adds a point to the stroke in progress. Returns false when there is none, the drawing is
    /// full, or the point repeats the previous one exactly (it would add nothing).
    @discardableResult
    public mutating func extend(x: Float, y: Float, time: Double?, pressure: Float? = nil) -> Bool {
        guard isStroking, pointCount < PadDocument.maxPoints, let last = strokes.indices.last else { return false }
        let p = point(x, y, time, pressure)
        if let previous = strokes[last].last, previous.x == p.x, previous.y == p.y { return false }
        strokes[last].append(p)
        pointCount += 1
        revision += 1
        return true
    }

    /// Ends the stroke in progress. Returns false when there was none.
    @discardableResult
    public mutating func end() -> Bool {
        guard isStroking else { return false }
        isStroking = false
        return true
    }

    /// Removes the last stroke (the one in progress, if any). Returns false when empty.
    @discardableResult
    public mutating func undo() -> Bool {
        guard let last = strokes.popLast() else { return false }
        pointCount -= last.count
        isStroking = false
        if strokes.isEmpty { startTime = nil }
        revision += 1
        return true
    }

    /// Removes every stroke and the label.
    public mutating func clear() {
        strokes = []
        pointCount = 0
        isStroking = false
        label = nil
        startTime = nil
        revision += 1
    }

    /// The drawing in pixels of a canvas `side` pixels wide, with `canvas` set to side × side:
    /// what the recognizer gets and what is saved. Coordinates are rounded to 1/100 pixel, so a
    /// mouse position (whole pixels) comes out whole and saved files stay short.
    public func drawing(side: Float) -> Drawing {
        func pixels(_ v: Float) -> Float { (v * side * 100).rounded() / 100 }
        let scaled = strokes.map { stroke in
            stroke.map { StrokePoint(x: pixels($0.x), y: pixels($0.y), t: $0.t, p: $0.p) }
        }
        return Drawing(strokes: scaled, label: label, canvasWidth: side, canvasHeight: side)
    }

    /// Makes `revision` larger than `other` (a document replacing another continues its count).
    public mutating func advanceRevision(past other: Int) {
        revision = max(revision, other) + 1
    }

    /// Points off the canvas are kept on its edge: what the recognizer sees is what is shown.
    static func clampUnit(_ v: Float) -> Float { v.isNaN ? 0 : min(max(v, 0), 1) }

    private mutating func point(_ x: Float, _ y: Float, _ time: Double?, _ pressure: Float?) -> StrokePoint {
        let cx = PadDocument.clampUnit(x), cy = PadDocument.clampUnit(y)
        var t: Float?
        if let time, time.isFinite {
            if startTime == nil { startTime = time }
            // Milliseconds are all the input carries; rounding keeps saved files short.
            t = Float((max(0, time - (startTime ?? time)) * 1000).rounded() / 1000)
        }
        let p = pressure.flatMap { $0.isFinite && $0 > 0 ? min($0, 1) : nil }
        return StrokePoint(x: cx, y: cy, t: t, p: p)
    }
}

/// How a drawing in some other coordinate system is placed on the canvas (canvas units 0…1):
/// a drawing that names its canvas keeps its place on it, scaled by the longer side; one
/// without a canvas has its bounding box fitted, aspect kept, into the middle 80 %.
public struct CanvasMapping: Equatable, Sendable {
    public var scale: Float
    public var offsetX: Float
    public var offsetY: Float

    public init(scale: Float, offsetX: Float, offsetY: Float) {
        self.scale = scale
        self.offsetX = offsetX
        self.offsetY = offsetY
    }

    public init(fitting drawing: Drawing) {
        if let w = drawing.canvasWidth, let h = drawing.canvasHeight, w.isFinite, h.isFinite, w > 0, h > 0 {
            let side = max(w, h)
            self.init(scale: 1 / side, offsetX: (side - w) / 2 / side, offsetY: (side - h) / 2 / side)
            return
        }
        var minX = Float.infinity, minY = Float.infinity, maxX = -Float.infinity, maxY = -Float.infinity
        for stroke in drawing.strokes {
            for p in stroke where p.x.isFinite && p.y.isFinite {
                minX = min(minX, p.x); maxX = max(maxX, p.x)
                minY = min(minY, p.y); maxY = max(maxY, p.y)
            }
        }
        guard minX <= maxX else { self.init(scale: 1, offsetX: 0, offsetY: 0); return }
        let extent = max(maxX - minX, maxY - minY)
        let scale: Float = extent > 0 ? 0.8 / extent : 0
        self.init(scale: scale, offsetX: 0.5 - (minX + maxX) / 2 * scale, offsetY: 0.5 - (minY + maxY) / 2 * scale)
    }

    /// A drawing point in canvas units (not clamped).
    public func toCanvas(_ x: Float, _ y: Float) -> (Float, Float) {
        (x * scale + offsetX, y * scale + offsetY)
    }
}
