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
    /// What was written, for labelled data: digits (`"7"`, `"2026"`), or a name for something that
    /// is not a number (`"A"`, `"scribble"`). Used by evaluation and training.
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

    /// The label's digits when it is a number (`"2026"` → [2, 0, 2, 6]), nil for no label or a
    /// label that is not made of digits.
    public var labelDigits: [Int]? {
        guard let label, !label.isEmpty else { return nil }
        var digits: [Int] = []
        for scalar in label.unicodeScalars {
            guard ("0"..."9").contains(scalar) else { return nil }
            digits.append(Int(scalar.value) - 48)
        }
        return digits
    }

    /// The digit when the label is exactly one digit, else nil.
    public var labelDigit: Int? { labelDigits.flatMap { $0.count == 1 ? $0[0] : nil } }
}
