import DigitKit

/// Keys and buttons: clear, undo, save, open, adapt, quit, and the label.
extension PadController {
    /// The longest label a save may write (the stroke format's limit).
    public static var maxLabelLength: Int { StrokeJSON.maxLabelCharacters }

    func key(_ key: PadKey) -> [PadEffect] {
        switch key {
        case .clear: return clear()
        case .undo: return undo()
        case .save: return endStroke() + [.save]
        case .open: return endStroke() + [.open]
        case .adapt: return endStroke() + [.adapt]
        case .quit: return [.quit]
        case let .digit(d):
            guard (0...9).contains(d) else { return [] }
            appendToLabel(d)
            return []
        case .clearLabel:
            clearLabel()
            return []
        }
    }

    func activate(_ button: PadButton) -> [PadEffect] {
        switch button {
        case .clear: return clear()
        case .undo: return undo()
        // Saving, opening or adapting in the middle of a stroke finishes it first.
        case .save: return endStroke() + [.save]
        case .open: return endStroke() + [.open]
        case .adapt: return endStroke() + [.adapt]
        }
    }

    /// A digit key: the digit goes at the end of the label being typed; the first digit after the
    /// label was set otherwise (by `--label`, an opened file, a clear) starts a new one.
    private func appendToLabel(_ digit: Int) {
        let current = labelTyped ? (document.label ?? "") : ""
        guard current.count < PadController.maxLabelLength else {
            setStatus(StatusLine("the label is \(PadController.maxLabelLength) characters long, the most a file takes · L clears it", kind: .error))
            return
        }
        document.label = current + String(digit)
        labelTyped = true
        setStatus(StatusLine("label \(document.label ?? "") · S saves it · L clears it", kind: .info))
        needsPanel = true
    }

    /// L: the typed label goes; `--label`'s comes back.
    private func clearLabel() {
        labelTyped = false
        guard document.label != defaultLabel else { return }
        document.label = defaultLabel
        setStatus(defaultLabel.map { StatusLine("label \($0) (--label) · S saves the drawing with it", kind: .info) }
                  ?? StatusLine("label cleared · 0-9 types a new one", kind: .info))
        needsPanel = true
    }

    func clear() -> [PadEffect] {
        drawingPointer = nil
        let hadSomething = !document.isEmpty || document.label != defaultLabel || image != nil
        document.clear()
        document.label = defaultLabel
        labelTyped = false
        image = nil
        pendingInk = []
        overlayFrom = document.revision
        needsFullRedraw = true
        if status.kind != .hint { setStatus(.keys) }
        return hadSomething ? [.recognize(live: false)] : []
    }

    func undo() -> [PadEffect] {
        drawingPointer = nil
        guard document.undo() else { return [] }
        pendingInk = []
        overlayFrom = document.revision
        needsFullRedraw = true
        return [.recognize(live: false)]
    }
}
