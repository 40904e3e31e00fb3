/// DigitPad's behaviour without SDL: turns input events into changes of the drawing, the
/// hovered and pressed buttons and the status line, and into effects (recognize, save, open,
/// quit) for the program to carry out. It also remembers what changed since the last frame so
/// `render(into:)` redraws only that.
public final class PadController {
    public private(set) var layout: PadLayout
    public private(set) var document = PadDocument()
    public private(set) var answer: AnswerView
    public private(set) var status = StatusLine.keys
    public private(set) var hovered: PadButton?
    public private(set) var pressed: PadButton?
    /// Ink width as a fraction of the canvas side. The rasterizer draws `penWidth` pixels in
    /// its 20-pixel box, so `penWidth / 20` makes a digit that fills the canvas look as thick
    /// as the network sees it.
    public var inkWidth: Float {
        didSet { needsFullRedraw = true }
    }

    /// Who holds the stroke in progress.
    private var drawingPointer: PointerID?
    /// Who pressed a button and has not released it.
    private var buttonPointer: PointerID?

    // What to redraw on the next frame.
    var needsFullRedraw = true
    var needsPanel = false
    var needsButtons = false
    var needsStatus = false
    /// Segments to add to the canvas, in canvas units; a dot has `from == to`.
    var pendingInk: [(from: (x: Float, y: Float), to: (x: Float, y: Float))] = []

    /// True when `render(into:)` has something to draw.
    public var hasChanges: Bool {
        needsFullRedraw || needsPanel || needsButtons || needsStatus || !pendingInk.isEmpty
    }

    public init(width: Int, height: Int, threshold: Float = 0.9, inkWidth: Float = 0.1) {
        layout = PadLayout(width: width, height: height)
        answer = .blank(threshold: threshold)
        self.inkWidth = inkWidth
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

    /// Shows a recognition unless it is older than the one shown.
    public func show(_ view: AnswerView) {
        guard view.revision >= answer.revision else { return }
        if view != answer {
            answer = view
            needsPanel = true
        }
    }

    public func setStatus(_ line: StatusLine) {
        if line != status {
            status = line
            needsStatus = true
        }
    }

    /// Replaces the drawing (after Open). Any stroke in progress is dropped.
    public func load(_ newDocument: PadDocument) {
        let revision = document.revision
        document = newDocument
        // Keep revisions increasing so answers for the old drawing are recognised as stale.
        document.advanceRevision(past: revision)
        drawingPointer = nil
        pendingInk = []
        needsFullRedraw = true
    }

    /// Canvas units of a window point (not clamped).
    public func canvasPoint(_ x: Float, _ y: Float) -> (x: Float, y: Float) { layout.canvasPoint(x, y) }

    // MARK: - Pointer

    private func press(_ pointer: PointerID, _ x: Float, _ y: Float, _ button: Int, _ time: Double, _ pressure: Float?) -> [PadEffect] {
        guard x.isFinite, y.isFinite else { return [] }
        var effects: [PadEffect] = []
        if case .mouse = pointer {
            setHover(layout.button(at: x, y))
        }
        if button == 3 {
            // A secondary click on the canvas clears, as the issue asks; elsewhere it does nothing.
            if layout.canvas.contains(x, y) { effects += clear() }
            return effects
        }
        guard button == 1 else { return effects }
        if drawingPointer == pointer {
            // A press without the release of the previous one (lost event): finish that stroke.
            effects += endStroke()
        } else if drawingPointer != nil || buttonPointer != nil {
            return effects   // someone else is drawing or pressing a button: one pointer at a time
        }
        if let b = layout.button(at: x, y) {
            pressed = b
            buttonPointer = pointer
            needsButtons = true
            return effects
        }
        guard layout.canvas.contains(x, y) else { return effects }
        let c = canvasPoint(x, y)
        let wasEmpty = document.isEmpty
        guard document.begin(x: c.x, y: c.y, time: time, pressure: pressure) else {
            setStatus(StatusLine("the drawing is full (\(PadDocument.maxStrokes) strokes or \(PadDocument.maxPoints) points): clear it", kind: .error))
            return effects
        }
        drawingPointer = pointer
        if wasEmpty { needsFullRedraw = true }
        addInkForLastPoint()
        return effects + [.recognize(strokeEnded: false)]
    }

    private func move(_ pointer: PointerID, _ x: Float, _ y: Float, _ time: Double, _ pressure: Float?) -> [PadEffect] {
        guard x.isFinite, y.isFinite else { return [] }
        if case .mouse = pointer, buttonPointer == nil || buttonPointer == .mouse {
            setHover(layout.button(at: x, y))
        }
        guard drawingPointer == pointer else { return [] }
        let c = canvasPoint(x, y)
        if document.extend(x: c.x, y: c.y, time: time, pressure: pressure) {
            addInkForLastPoint()
            return [.recognize(strokeEnded: false)]
        }
        return []
    }

    private func release(_ pointer: PointerID, _ x: Float, _ y: Float, _ button: Int, _ time: Double) -> [PadEffect] {
        if buttonPointer == pointer, let b = pressed {
            pressed = nil
            buttonPointer = nil
            needsButtons = true
            if x.isFinite, y.isFinite, layout.button(at: x, y) == b { return activate(b) }
            return []
        }
        guard drawingPointer == pointer, button == 1 else { return [] }
        if x.isFinite, y.isFinite {
            let c = canvasPoint(x, y)
            if document.extend(x: c.x, y: c.y, time: time, pressure: nil) { addInkForLastPoint() }
        }
        return endStroke()
    }

    private func endStroke() -> [PadEffect] {
        guard drawingPointer != nil else { return [] }
        drawingPointer = nil
        document.end()
        return [.recognize(strokeEnded: true)]
    }

    private func addInkForLastPoint() {
        guard let stroke = document.strokes.last, let last = stroke.last else { return }
        let to = (x: last.x, y: last.y)
        let from = stroke.count >= 2 ? (x: stroke[stroke.count - 2].x, y: stroke[stroke.count - 2].y) : to
        pendingInk.append((from, to))
    }

    private func setHover(_ button: PadButton?) {
        if hovered != button {
            hovered = button
            needsButtons = true
        }
    }

    // MARK: - Commands

    private func key(_ key: PadKey) -> [PadEffect] {
        switch key {
        case .clear: return clear()
        case .undo: return undo()
        case .save: return finishStroke() + [.save]
        case .open: return finishStroke() + [.open]
        case .quit: return [.quit]
        case let .digit(d):
            guard (0...9).contains(d) else { return [] }
            document.label = String(d)
            setStatus(StatusLine("label \(d) · S saves the drawing with it", kind: .info))
            needsPanel = true
            return []
        }
    }

    private func activate(_ button: PadButton) -> [PadEffect] {
        switch button {
        case .clear: return clear()
        case .undo: return undo()
        case .save: return finishStroke() + [.save]
        case .open: return finishStroke() + [.open]
        }
    }

    /// Saving or opening in the middle of a stroke finishes it first.
    private func finishStroke() -> [PadEffect] { endStroke() }

    private func clear() -> [PadEffect] {
        drawingPointer = nil
        let hadSomething = !document.isEmpty || document.label != nil
        document.clear()
        pendingInk = []
        needsFullRedraw = true
        if status.kind != .hint { setStatus(.keys) }
        return hadSomething ? [.recognize(strokeEnded: false)] : []
    }

    private func undo() -> [PadEffect] {
        drawingPointer = nil
        guard document.undo() else { return [] }
        pendingInk = []
        needsFullRedraw = true
        return [.recognize(strokeEnded: false)]
    }
}
