/// The pointer: strokes on the canvas, the panel's buttons, the digit under the mouse.
extension PadController {
    func press(_ pointer: PointerID, _ x: Float, _ y: Float, _ button: Int, _ time: Double, _ pressure: Float?) -> [PadEffect] {
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
        if image != nil {
            setStatus(StatusLine("an image is shown: C clears it, then draw", kind: .info))
            return effects
        }
        let c = canvasPoint(x, y)
        let wasEmpty = document.isEmpty
        guard document.begin(x: c.x, y: c.y, time: time, pressure: pressure) else {
            setStatus(StatusLine("the drawing is full (\(PadDocument.maxStrokes) strokes or \(PadDocument.maxPoints) points): clear it", kind: .error))
            return effects
        }
        drawingPointer = pointer
        setFocus(nil)
        if wasEmpty { needsFullRedraw = true }
        addInkForLastPoint()
        return effects + [.recognize(live: true)]
    }

    func move(_ pointer: PointerID, _ x: Float, _ y: Float, _ time: Double, _ pressure: Float?) -> [PadEffect] {
        guard x.isFinite, y.isFinite else { return [] }
        if case .mouse = pointer, buttonPointer == nil || buttonPointer == .mouse {
            setHover(layout.button(at: x, y))
        }
        if case .mouse = pointer {
            mouse = (x, y)
            if drawingPointer == nil { setFocus(digit(at: x, y)) }
        }
        guard drawingPointer == pointer else { return [] }
        let c = canvasPoint(x, y)
        if document.extend(x: c.x, y: c.y, time: time, pressure: pressure) {
            addInkForLastPoint()
            return [.recognize(live: true)]
        }
        return []
    }

    func release(_ pointer: PointerID, _ x: Float, _ y: Float, _ button: Int, _ time: Double) -> [PadEffect] {
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

    func endStroke() -> [PadEffect] {
        guard drawingPointer != nil else { return [] }
        drawingPointer = nil
        document.end()
        return [.recognize(live: false)]
    }

    private func addInkForLastPoint() {
        guard let stroke = document.strokes.last, let last = stroke.last else { return }
        let to = (x: last.x, y: last.y)
        let from = stroke.count >= 2 ? (x: stroke[stroke.count - 2].x, y: stroke[stroke.count - 2].y) : to
        pendingInk.append((from, to))
    }

    func setHover(_ button: PadButton?) {
        if hovered != button {
            hovered = button
            needsButtons = true
        }
    }
}
