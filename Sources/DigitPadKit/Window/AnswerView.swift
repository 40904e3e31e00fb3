/// What the panel shows about the latest recognition.
public struct AnswerView: Equatable, Sendable {
    /// The answer, or nil for `?` (below the threshold, or nothing drawn).
    public var digit: Int?
    /// The top probability, 0…1.
    public var confidence: Float
    /// Ten probabilities, for digits 0…9.
    public var probabilities: [Float]
    /// The 28×28 network input, row-major, 0 = background, 1 = ink.
    public var raster: [Float]
    public var isEmpty: Bool
    public var threshold: Float
    /// The document revision this answer belongs to.
    public var revision: Int

    public init(digit: Int?, confidence: Float, probabilities: [Float], raster: [Float],
                isEmpty: Bool, threshold: Float, revision: Int) {
        self.digit = digit
        self.confidence = confidence
        self.probabilities = probabilities
        self.raster = raster
        self.isEmpty = isEmpty
        self.threshold = threshold
        self.revision = revision
    }

    /// Before anything is drawn.
    public static func blank(threshold: Float) -> AnswerView {
        AnswerView(digit: nil, confidence: 0, probabilities: Array(repeating: 0, count: 10),
                   raster: Array(repeating: 0, count: 784), isEmpty: true, threshold: threshold, revision: 0)
    }
}

/// A one-line message under the buttons.
public struct StatusLine: Equatable, Sendable {
    public enum Kind: Sendable { case hint, info, error }
    public var text: String
    public var kind: Kind

    public init(_ text: String, kind: Kind) {
        self.text = text
        self.kind = kind
    }

    public static let keys = StatusLine("0-9 sets the label · Esc quits", kind: .hint)
}
