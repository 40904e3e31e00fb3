import DigitKit

/// A rectangle in canvas units (0…1 across the canvas, y downward): the reader's box type.
public typealias CanvasBox = InkBox

/// One digit of a reading as the window shows it: its answer, its probabilities, the 28×28 image
/// the network saw and where its ink is on the canvas.
public struct DigitMark: Equatable, Sendable {
    /// The digit, or nil below the threshold ("not sure", or "not a digit" when `isNotADigit`).
    public var digit: Int?
    /// The best digit's probability.
    public var confidence: Float
    /// The probability of the network's eleventh output, "not a digit" (0 without it).
    public var notADigit: Float
    /// Ten probabilities, for digits 0…9.
    public var probabilities: [Float]
    /// The 28×28 network input, row-major, 0 = background, 1 = ink.
    public var raster: [Float]
    /// The box of the digit's ink on the canvas (of the pen's path for a drawing, of the ink's
    /// pixels for an image); nil draws no box (`--single`).
    public var box: CanvasBox?
    /// The image's frame cuts this digit (`ReadDigit.isCutByFrame`): it is never answered.
    public var isCutByFrame: Bool

    public init(digit: Int?, confidence: Float, notADigit: Float = 0, probabilities: [Float], raster: [Float], box: CanvasBox? = nil,
                isCutByFrame: Bool = false) {
        self.digit = digit
        self.confidence = confidence
        self.notADigit = notADigit
        self.probabilities = probabilities
        self.raster = raster
        self.box = box
        self.isCutByFrame = isCutByFrame
    }

    /// "Not a digit" is more likely than any digit: shown apart from "not sure" (a digit cut by
    /// the image's edge is "not sure", whatever it looks like).
    public var isNotADigit: Bool { !isCutByFrame && notADigit > confidence }
}

/// What the panel and the canvas show about the latest reading: the whole text, and a mark per digit.
public struct AnswerView: Equatable, Sendable {
    /// The digits left to right, `?` for each one that is not sure ("20?6"); "" when empty.
    public var text: String
    /// The reading's confidence: the product of its digits' (one digit: that digit's).
    public var confidence: Float
    public var digits: [DigitMark]
    public var isEmpty: Bool
    public var threshold: Float
    /// The document revision this answer belongs to.
    public var revision: Int
    /// The boxes surround pen paths, so the canvas grows them by the ink's half width (false for images).
    public var boxesArePaths: Bool
    /// The network has the eleventh output: the chart shows an eleventh bar, "not a digit".
    public var hasNotADigitOutput: Bool
    /// Why the drawing could not be read (too many strokes), else nil.
    public var error: String?
    /// The indices of the digits that begin a line after the first (an image with several
    /// lines of writing: `NumberReading.lineStarts`); the panel leaves a space before each.
    public var lineStarts: [Int] = []
    /// The personal profile the reading was made with (`DigitRecognizer.profileName`), nil for the
    /// weights as they are: the answer card then says "personal".
    public var profile: String?

    public init(text: String, confidence: Float, digits: [DigitMark], threshold: Float, revision: Int,
                boxesArePaths: Bool = true, hasNotADigitOutput: Bool = false, error: String? = nil) {
        self.text = text
        self.confidence = confidence
        self.digits = digits
        isEmpty = digits.isEmpty
        self.threshold = threshold
        self.revision = revision
        self.boxesArePaths = boxesArePaths
        self.hasNotADigitOutput = hasNotADigitOutput
        self.error = error
    }

    /// One digit, as the window showed answers before it read numbers (no box).
    public init(digit: Int?, confidence: Float, probabilities: [Float], raster: [Float],
                isEmpty: Bool, threshold: Float, revision: Int, notADigit: Float = 0) {
        let mark = DigitMark(digit: digit, confidence: confidence, notADigit: notADigit, probabilities: probabilities, raster: raster)
        self.init(text: isEmpty ? "" : digit.map(String.init) ?? "?", confidence: confidence, digits: isEmpty ? [] : [mark],
                  threshold: threshold, revision: revision)
    }

    /// A reading from DigitKit. Its boxes are taken to the canvas by `mapping` (drawing or image
    /// coordinates → canvas units).
    public init(_ reading: NumberReading, revision: Int, mapping: CanvasMapping, boxesArePaths: Bool = true,
                showBoxes: Bool = true, hasNotADigitOutput: Bool = false, profile: String? = nil) {
        let marks = reading.digits.map { d -> DigitMark in
            let (x0, y0) = mapping.toCanvas(d.box.x0, d.box.y0), (x1, y1) = mapping.toCanvas(d.box.x1, d.box.y1)
            let box = CanvasBox(x0: min(x0, x1), y0: min(y0, y1), x1: max(x0, x1), y1: max(y0, y1))
            return DigitMark(digit: d.digit, confidence: d.confidence, notADigit: d.notADigit, probabilities: d.probabilities,
                             raster: d.raster, box: showBoxes && [x0, y0, x1, y1].allSatisfy(\.isFinite) ? box : nil,
                             isCutByFrame: d.isCutByFrame)
        }
        self.init(text: reading.text, confidence: reading.confidence, digits: marks, threshold: reading.threshold,
                  revision: revision, boxesArePaths: boxesArePaths, hasNotADigitOutput: hasNotADigitOutput)
        lineStarts = reading.lineStarts
        self.profile = profile
    }

    /// Before anything is drawn.
    public static func blank(threshold: Float) -> AnswerView {
        AnswerView(text: "", confidence: 0, digits: [], threshold: threshold, revision: 0)
    }

    /// More than one digit: the panel shows the number, and the digit in focus below it.
    public var isNumber: Bool { digits.count > 1 }
    /// Every digit answered.
    public var isAnswered: Bool { !digits.isEmpty && digits.allSatisfy { $0.digit != nil } }
    /// Some ink is more likely not a digit than any digit.
    public var hasNotADigit: Bool { digits.contains { $0.isNotADigit } }

    /// The digit the panel details: `focus` when it is one of the digits, else the last.
    public func shownIndex(focus: Int?) -> Int? {
        if let focus, digits.indices.contains(focus) { return focus }
        return digits.indices.last
    }
}

/// A one-line message under the buttons.
public struct StatusLine: Equatable, Sendable {
    public enum Kind: Sendable { case hint, info, error }
    public var text: String
    public var kind: Kind
    /// Shorter forms of `text`, longest first: the line shows the first of `text` and these that
    /// fits, else the last shortened with `…`.
    public var shorter: [String]

    public init(_ text: String, kind: Kind, shorter: [String] = []) {
        self.text = text
        self.kind = kind
        self.shorter = shorter
    }

    public static let keys = StatusLine("0-9 label, L clears · Esc quits", kind: .hint)
}
