import DigitApp
import DigitKit

/// DigitPad's behaviour without SDL: turns input events into changes of the drawing, the
/// hovered and pressed buttons, the digit in focus and the status line, and into effects
/// (recognize, save, open, quit) for the program to carry out. It also remembers what changed
/// since the last frame so `render(into:)` redraws only that.
public final class PadController {
    public private(set) var layout: PadLayout
    public internal(set) var document = PadDocument()
    public private(set) var answer: AnswerView
    public private(set) var status = StatusLine.keys
    public internal(set) var hovered: PadButton?
    public internal(set) var pressed: PadButton?
    /// The image shown in place of a drawing (opened or dropped), if any.
    public internal(set) var image: PadImage?
    /// The digit under the mouse, whose input and probabilities the panel shows (else the last).
    public internal(set) var focus: Int?
    /// One digit per drawing (`--single`): no boxes on the canvas.
    public let single: Bool
    /// The label every save writes unless one is typed (`--label`).
    public var defaultLabel: String? {
        didSet { if !labelTyped && document.isEmpty && image == nil { document.label = defaultLabel; needsPanel = true } }
    }
    /// Ink width as a fraction of the canvas side. The rasterizer draws `penWidth` pixels in
    /// its 20-pixel box, so `penWidth / 20` makes a digit that fills the canvas look as thick
    /// as the network sees it.
    public var inkWidth: Float {
        didSet { needsFullRedraw = true }
    }

    /// Who holds the stroke in progress.
    var drawingPointer: PointerID?
    /// Who pressed a button and has not released it.
    var buttonPointer: PointerID?
    /// Where the mouse is (window pixels), for the focus; nil when it left.
    var mouse: (x: Float, y: Float)?
    /// The digits typed since the label was last set otherwise: the next digit is appended.
    var labelTyped = false
    /// The status line shows a reading's error.
    var showsReadingError = false

    // What to redraw on the next frame.
    var needsFullRedraw = true
    var needsPanel = false
    var needsButtons = false
    var needsStatus = false
    var needsOverlay = false
    /// Segments to add to the canvas, in canvas units; a dot has `from == to`.
    var pendingInk: [(from: (x: Float, y: Float), to: (x: Float, y: Float))] = []
    /// The canvas without the marks over it (ink, image, hint), canvas-sized.
    var inkLayer = Surface(width: 1, height: 1)
    /// Where the marks over the canvas are now (window pixels): restored from `inkLayer` before
    /// they are drawn again.
    var overlayRects: [PixelRect] = []
    /// Answers for revisions before this one are not drawn on the canvas (the drawing was
    /// cleared, undone or replaced since).
    var overlayFrom = 0

    /// True when `render(into:)` has something to draw.
    public var hasChanges: Bool {
        needsFullRedraw || needsPanel || needsButtons || needsStatus || needsOverlay || !pendingInk.isEmpty
    }

    public init(width: Int, height: Int, threshold: Float = 0.9, inkWidth: Float = 0.1, single: Bool = false,
                defaultLabel: String? = nil) {
        layout = PadLayout(width: width, height: height)
        answer = .blank(threshold: threshold)
        self.inkWidth = inkWidth
        self.single = single
        self.defaultLabel = defaultLabel
        document.label = defaultLabel
        if let defaultLabel { status = StatusLine("label \(defaultLabel) · S saves it with the drawing", kind: .info) }
    }

    /// Applies one input event and returns what the program should do about it.
    public func handle(_ input: PadInput) -> [PadEffect] {
        switch input {
        case let .press(pointer, x, y, button, time, pressure):
            return press(pointer, x, y, button, time, pressure)
        case let .move(pointer, x, y, time, pressure):
            return move(pointer, x, y, time, pressure)
        case let .release(pointer, x, y, button, time):
            return release(pointer, x, y, button, time)
        case let .key(key):
            return self.key(key)
        case let .resize(width, height):
            resize(width: width, height: height)
            return []
        case .focusLost:
            setHover(nil)
            mouse = nil
            setFocus(nil)
            if pressed != nil { pressed = nil; buttonPointer = nil; needsButtons = true }
            return endStroke()
        }
    }

    public func resize(width: Int, height: Int) {
        let next = PadLayout(width: width, height: height)
        if next != layout {
            layout = next
            needsFullRedraw = true
        }
    }

    /// Makes the next `render(into:)` draw everything.
    public func setNeedsFullRedraw() { needsFullRedraw = true }

    /// Shows a reading unless it is older than the one shown.
    public func show(_ view: AnswerView) {
        guard view.revision >= answer.revision else { return }
        if view != answer {
            answer = view
            needsPanel = true
            needsOverlay = true
            if let error = view.error {
                setStatus(StatusLine("cannot read the drawing: \(error)", kind: .error))
                showsReadingError = true
            } else if showsReadingError {
                setStatus(.keys)
            }
            if drawingPointer == nil, let mouse { setFocus(digit(at: mouse.x, mouse.y)) } else { setFocus(nil) }
        }
    }

    public func setStatus(_ line: StatusLine) {
        showsReadingError = false
        if line != status {
            status = line
            needsStatus = true
        }
    }

    /// Replaces the drawing (after Open). Any stroke in progress is dropped; an image shown goes.
    /// A drawing without a label takes `defaultLabel`.
    public func load(_ newDocument: PadDocument) {
        let revision = document.revision
        document = newDocument
        if document.label == nil { document.label = defaultLabel }
        // Keep revisions increasing so answers for the old drawing are recognised as stale.
        document.advanceRevision(past: revision)
        image = nil
        replaced()
    }

    /// Shows an image in place of the drawing; its reading comes as for a drawing.
    public func load(image newImage: PadImage) {
        document.clear()
        document.label = defaultLabel
        image = newImage
        replaced()
    }

    private func replaced() {
        drawingPointer = nil
        pendingInk = []
        labelTyped = false
        overlayFrom = document.revision
        needsFullRedraw = true
        needsPanel = true
    }

    /// Canvas units of a window point (not clamped).
    public func canvasPoint(_ x: Float, _ y: Float) -> (x: Float, y: Float) { layout.canvasPoint(x, y) }

    // MARK: - The digit in focus

    /// The marks are drawn over the canvas: the answer belongs to the drawing as it is.
    var showsMarks: Bool { !single && !answer.isEmpty && answer.revision >= overlayFrom }

    /// The digit whose box holds a window point (the smallest when boxes overlap), if any.
    public func digit(at x: Float, _ y: Float) -> Int? {
        guard showsMarks, layout.canvas.contains(x, y) else { return nil }
        let (u, v) = canvasPoint(x, y)
        let margin = answer.boxesArePaths ? inkWidth / 2 : 0
        func area(_ i: Int) -> Float { answer.digits[i].box.map { ($0.x1 - $0.x0) * ($0.y1 - $0.y0) } ?? .infinity }
        return answer.digits.indices.filter { answer.digits[$0].box?.contains(u, v, margin: margin) == true }
            .min { area($0) < area($1) }
    }

    func setFocus(_ index: Int?) {
        if index != focus {
            focus = index
            needsPanel = true
            needsOverlay = true
        }
    }
}
