/// One sampled pen position. Coordinates are in canvas units with **y growing downward**
/// (screen convention). `t` is the time in seconds since some origin and `p` the pressure
/// in 0…1, both optional and informative: the rasterizer uses only `x` and `y`.
public struct StrokePoint: Equatable, Sendable {
    public var x: Float
    public var y: Float
    public var t: Float?
    public var p: Float?

    public init(x: Float, y: Float, t: Float? = nil, p: Float? = nil) {
        self.x = x
        self.y = y
        self.t = t
        self.p = p
    }
}

/// A handwritten drawing: strokes (pen-down paths) in canvas units, y downward, with an
/// optional expected label and an informative canvas size.
public struct Drawing: Equatable, Sendable {
    public var strokes: [[StrokePoint]]
    /// The expected answer (a digit "0"…"9" for labelled data), used by evaluation.
    public var label: String?
    public var canvasWidth: Float?
    public var canvasHeight: Float?

    public init(strokes: [[StrokePoint]], label: String? = nil, canvasWidth: Float? = nil, canvasHeight: Float? = nil) {
        self.strokes = strokes
        self.label = label
        self.canvasWidth = canvasWidth
        self.canvasHeight = canvasHeight
    }

    /// True when no stroke has a point.
    public var isEmpty: Bool { strokes.allSatisfy(\.isEmpty) }

    public var pointCount: Int { strokes.reduce(0) { $0 + $1.count } }
}
