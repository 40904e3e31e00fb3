import DigitApp
import DigitKit

extension PadController {
    /// Brings `surface` up to date with the controller's state, redrawing only what changed
    /// since the last call (everything after a resize, a clear, an undo or an open).
    /// The surface is resized to the layout when needed.
    ///
    /// The canvas is kept twice: `inkLayer` holds what is under the marks (the ink, an image, the
    /// hint), and the window's picture holds that with the marks (boxes and answers) over it. New
    /// ink is stamped into the layer and the touched pixels copied over; marks are erased by
    /// copying the layer back where they were.
    public func render(into surface: inout Surface) {
        if surface.width != max(layout.width, 1) || surface.height != max(layout.height, 1) {
            surface.resize(width: layout.width, height: layout.height, fill: PadTheme.background)
            needsFullRedraw = true
        }
        let c = layout.canvas
        if needsFullRedraw {
            surface.fill(surface.bounds, PadTheme.background)
            drawInkLayer()
            if !c.isEmpty {
                surface.fill(PixelRect(x: c.x - 1, y: c.y - 1, width: c.width + 2, height: c.height + 2), PadTheme.canvasFrame)
                surface.copy(inkLayer.bounds, of: inkLayer, toX: c.x, y: c.y)
            }
            overlayRects = []
            drawOverlay(&surface)
            drawPanel(&surface)
            drawButtons(&surface)
            drawStatus(&surface)
        } else {
            for segment in pendingInk {
                let touched = stamp(segment.from, segment.to)
                surface.copy(touched, of: inkLayer, toX: c.x, y: c.y)
                let window = PixelRect(x: touched.x + c.x, y: touched.y + c.y, width: touched.width, height: touched.height)
                if overlayRects.contains(where: { !$0.intersection(window).isEmpty }) { needsOverlay = true }
            }
            if needsOverlay {
                for r in overlayRects { surface.copy(PixelRect(x: r.x - c.x, y: r.y - c.y, width: r.width, height: r.height), of: inkLayer, toX: c.x, y: c.y) }
                overlayRects = []
                drawOverlay(&surface)
            }
            if needsPanel { drawPanel(&surface) }
            if needsButtons { drawButtons(&surface) }
            if needsStatus { drawStatus(&surface) }
        }
        pendingInk.removeAll(keepingCapacity: true)
        needsFullRedraw = false
        needsPanel = false
        needsButtons = false
        needsStatus = false
        needsOverlay = false
    }

    /// Ink radius in window pixels.
    var inkRadius: Float { max(0.5, Float(layout.canvas.width) * inkWidth / 2) }

    /// Stamps one segment of ink (canvas units) into the ink layer; returns the layer pixels touched.
    private func stamp(_ from: (x: Float, y: Float), _ to: (x: Float, y: Float)) -> PixelRect {
        let side = Float(layout.canvas.width)
        return inkLayer.stampCapsule(from: (from.x * side, from.y * side), to: (to.x * side, to.y * side), radius: inkRadius,
                                     PadTheme.ink, clip: inkLayer.bounds)
    }

    /// Draws the canvas without marks into `inkLayer`: the image, or the ink, or the hint.
    private func drawInkLayer() {
        let c = layout.canvas
        inkLayer.resize(width: max(c.width, 1), height: max(c.height, 1), fill: PadTheme.canvas)
        _ = inkLayer.takeDirty()
        if c.isEmpty { return }
        if let image {
            image.draw(into: &inkLayer, side: c.width)
        } else if document.isEmpty {
            drawHint()
        }
        for stroke in document.strokes {
            guard let first = stroke.first else { continue }
            var previous = (x: first.x, y: first.y)
            _ = stamp(previous, previous)
            for p in stroke.dropFirst() {
                let next = (x: p.x, y: p.y)
                _ = stamp(previous, next)
                previous = next
            }
        }
        _ = inkLayer.takeDirty()
    }

    private func drawHint() {
        let s = layout.textScale, side = inkLayer.width
        let first = single ? "draw a digit here" : "write a number here"
        let lines = [(first, PadTheme.muted), ("", PadTheme.hint),
                     ("C clear · Ctrl+Z undo", PadTheme.hint), ("S save · O open · Esc quit", PadTheme.hint)]
        let lineH = 12 * s
        var y = (inkLayer.height - lines.count * lineH) / 2
        for (text, color) in lines {
            let w = BitmapFont.width(of: text, scale: s)
            if w <= side { BitmapFont.draw(text, x: (side - w) / 2, y: y, scale: s, color: color, on: &inkLayer) }
            y += lineH
        }
    }

    // MARK: - Buttons and status

    private func drawButtons(_ surface: inout Surface) {
        let s = layout.buttonTextScale
        for b in PadButton.allCases {
            guard let r = layout.buttons[b], !r.isEmpty else { continue }
            surface.fill(r, PadTheme.background)
            let color = pressed == b ? PadTheme.buttonPressed : hovered == b ? PadTheme.buttonHover : PadTheme.button
            surface.fillRounded(r, radius: max(4, layout.gap / 2), color)
            guard s > 0 else { continue }
            let w = BitmapFont.width(of: b.title, scale: s)
            BitmapFont.draw(b.title, x: r.x + (r.width - w) / 2, y: r.y + (r.height - 7 * s) / 2, scale: s,
                            color: PadTheme.text, on: &surface)
        }
    }

    private func drawStatus(_ surface: inout Surface) {
        let r = layout.status
        if r.isEmpty { return }
        surface.fill(r, PadTheme.background)
        let s = layout.textScale
        let color: RGB
        switch status.kind {
        case .hint: color = PadTheme.muted
        case .info: color = PadTheme.text
        case .error: color = PadTheme.error
        }
        let forms = [status.text] + status.shorter
        let text = forms.first { BitmapFont.width(of: $0, scale: s) <= r.width } ?? fitted(forms.last ?? "", width: r.width, scale: s)
        BitmapFont.draw(text, x: r.x, y: r.y, scale: s, color: color, on: &surface)
    }

    /// `text` shortened with `…` to fit `width` pixels.
    func fitted(_ text: String, width: Int, scale: Int) -> String {
        if BitmapFont.width(of: text, scale: scale) <= width { return text }
        var chars = Array(text)
        while !chars.isEmpty && BitmapFont.width(of: String(chars) + "…", scale: scale) > width { chars.removeLast() }
        return chars.isEmpty ? "" : String(chars) + "…"
    }

    /// A probability as a percentage with one decimal, rounded down: 0.99997 shows as 99.9%,
    /// never as a 100% the network did not give.
    func percent(_ v: Float) -> String {
        let value = v.isFinite ? min(max(v, 0), 1) * 100 : 0
        let tenths = Int((value * 10 + 1e-3).rounded(.down))
        return "\(tenths / 10).\(tenths % 10)%"
    }
}
