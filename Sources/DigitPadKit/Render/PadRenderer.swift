import DigitApp
/// DigitPad's colours: a dark, quiet frame around the black canvas, so the white ink (what
/// the network sees) is the brightest thing on screen; one accent for a confident answer and
/// one for the threshold and `?`.
public enum PadTheme {
    public static let background = RGB(0x101217)
    public static let card = RGB(0x181B21)
    public static let canvasFrame = RGB(0x2B3039)
    public static let canvas = RGB(0x000000)
    public static let ink = RGB(0xFFFFFF)
    public static let hint = RGB(0x3A404A)
    public static let text = RGB(0xE6E8EC)
    public static let muted = RGB(0x7D8590)
    public static let track = RGB(0x20242B)
    public static let bar = RGB(0x4A515C)
    public static let accent = RGB(0x5EC8A8)
    public static let warning = RGB(0xE8B04B)
    public static let error = RGB(0xE5736A)
    public static let button = RGB(0x242831)
    public static let buttonHover = RGB(0x2E333D)
    public static let buttonPressed = RGB(0x3A404C)
}

extension PadController {
    /// Brings `surface` up to date with the controller's state, redrawing only what changed
    /// since the last call (everything after a resize, a clear, an undo or an open).
    /// The surface is resized to the layout when needed.
    public func render(into surface: inout Surface) {
        if surface.width != max(layout.width, 1) || surface.height != max(layout.height, 1) {
            surface.resize(width: layout.width, height: layout.height, fill: PadTheme.background)
            needsFullRedraw = true
        }
        if needsFullRedraw {
            surface.fill(surface.bounds, PadTheme.background)
            drawCanvas(&surface)
            drawPanel(&surface)
            drawButtons(&surface)
            drawStatus(&surface)
        } else {
            for segment in pendingInk { stamp(segment.from, segment.to, &surface) }
            if needsPanel { drawPanel(&surface) }
            if needsButtons { drawButtons(&surface) }
            if needsStatus { drawStatus(&surface) }
        }
        pendingInk.removeAll(keepingCapacity: true)
        needsFullRedraw = false
        needsPanel = false
        needsButtons = false
        needsStatus = false
    }

    /// Ink radius in window pixels.
    var inkRadius: Float { max(0.5, Float(layout.canvas.width) * inkWidth / 2) }

    private func stamp(_ from: (x: Float, y: Float), _ to: (x: Float, y: Float), _ surface: inout Surface) {
        let a = layout.windowPoint(from.x, from.y), b = layout.windowPoint(to.x, to.y)
        surface.stampCapsule(from: (a.x, a.y), to: (b.x, b.y), radius: inkRadius, PadTheme.ink, clip: layout.canvas)
    }

    private func drawCanvas(_ surface: inout Surface) {
        let c = layout.canvas
        if c.isEmpty { return }
        surface.fill(PixelRect(x: c.x - 1, y: c.y - 1, width: c.width + 2, height: c.height + 2), PadTheme.canvasFrame)
        surface.fill(c, PadTheme.canvas)
        if document.isEmpty {
            let s = layout.textScale
            let lines = [("draw a digit here", PadTheme.muted), ("", PadTheme.hint),
                         ("C clear · Ctrl+Z undo", PadTheme.hint), ("S save · O open · Esc quit", PadTheme.hint)]
            let lineH = 12 * s
            var y = c.y + (c.height - lines.count * lineH) / 2
            for (text, color) in lines {
                let w = BitmapFont.width(of: text, scale: s)
                if w <= c.width { BitmapFont.draw(text, x: c.x + (c.width - w) / 2, y: y, scale: s, color: color, on: &surface) }
                y += lineH
            }
            return
        }
        for stroke in document.strokes {
            guard let first = stroke.first else { continue }
            var previous = (x: first.x, y: first.y)
            stamp(previous, previous, &surface)
            for p in stroke.dropFirst() {
                let next = (x: p.x, y: p.y)
                stamp(previous, next, &surface)
                previous = next
            }
        }
    }

    // MARK: - Panel

    private func card(_ rect: PixelRect, _ surface: inout Surface) {
        surface.fillRounded(rect, radius: max(4, layout.gap / 2), PadTheme.card)
    }

    private func caption(_ text: String, in rect: PixelRect, color: RGB = PadTheme.muted, _ surface: inout Surface) {
        let s = layout.textScale
        BitmapFont.draw(fitted(text, width: rect.width - 2 * layout.gap, scale: s), x: rect.x + layout.gap,
                        y: rect.y + layout.gap, scale: s, color: color, on: &surface)
    }

    private func drawPanel(_ surface: inout Surface) {
        if layout.panel.isEmpty { return }
        surface.fill(layout.answer.union(layout.preview).union(layout.chart), PadTheme.background)
        drawAnswer(&surface)
        drawPreview(&surface)
        drawChart(&surface)
    }

    private func drawAnswer(_ surface: inout Surface) {
        let r = layout.answer
        if r.isEmpty { return }
        card(r, &surface)
        caption("Answer", in: r, &surface)
        if let label = document.label {
            let s = layout.textScale
            let text = "label \(label)"
            let x = r.maxX - layout.gap - BitmapFont.width(of: text, scale: s)
            if x >= r.x + layout.gap + BitmapFont.width(of: "Answer", scale: s) + 2 * layout.gap {
                BitmapFont.draw(text, x: x, y: r.y + layout.gap, scale: s, color: PadTheme.muted, on: &surface)
            }
        }
        let s = layout.textScale
        let captionBottom = r.y + layout.gap + 9 * s
        let footer = 9 * s + layout.gap
        let area = PixelRect(x: r.x, y: captionBottom, width: r.width, height: r.maxY - footer - captionBottom)
        if area.isEmpty { return }
        let glyphH = max(7, min(area.height, area.width * 7 / 5) * 9 / 10)
        let line: String
        let lineColor: RGB
        if answer.isEmpty {
            line = "empty"
            lineColor = PadTheme.hint
            BitmapFont.drawStroked("?", in: area, height: glyphH, color: PadTheme.track, on: &surface)
        } else if let digit = answer.digit, (0...9).contains(digit) {
            let c = Array("0123456789")[digit]
            line = percent(answer.confidence) + " sure"
            lineColor = PadTheme.muted
            BitmapFont.drawStroked(c, in: area, height: glyphH, color: PadTheme.text, on: &surface)
        } else {
            line = "unsure · " + percent(answer.confidence)
            lineColor = PadTheme.warning
            BitmapFont.drawStroked("?", in: area, height: glyphH, color: PadTheme.warning, on: &surface)
        }
        let w = BitmapFont.width(of: line, scale: s)
        BitmapFont.draw(line, x: r.x + (r.width - w) / 2, y: r.maxY - footer + layout.gap / 3, scale: s, color: lineColor, on: &surface)
    }

    private func drawPreview(_ surface: inout Surface) {
        let r = layout.preview
        if r.isEmpty { return }
        card(r, &surface)
        caption("Input 28×28", in: r, &surface)
        let image = layout.previewImage
        if image.isEmpty { return }
        surface.fill(PixelRect(x: image.x - 1, y: image.y - 1, width: image.width + 2, height: image.height + 2), PadTheme.canvasFrame)
        surface.drawGray(answer.raster, columns: 28, rows: 28, in: image, background: PadTheme.canvas, ink: PadTheme.ink)
    }

    private func drawChart(_ surface: inout Surface) {
        let r = layout.chart
        if r.isEmpty { return }
        card(r, &surface)
        let s = layout.textScale, g = layout.gap
        caption("Probabilities", in: r, &surface)
        // The threshold's value in the corner, shortened when the card is narrow.
        let captionEnd = r.x + g + BitmapFont.width(of: "Probabilities", scale: s) + 2 * g
        for text in ["threshold " + percent(answer.threshold), percent(answer.threshold)] {
            let x = r.maxX - g - BitmapFont.width(of: text, scale: s)
            if x >= captionEnd {
                BitmapFont.draw(text, x: x, y: r.y + g, scale: s, color: PadTheme.warning, on: &surface)
                break
            }
        }
        let plotTop = r.y + g + 9 * s + g
        let labelsH = 7 * s + g
        let plot = PixelRect(x: r.x + g, y: plotTop, width: r.width - 2 * g, height: r.maxY - g - labelsH - plotTop)
        if plot.isEmpty || plot.width < 20 { return }
        let barGap = max(2, plot.width / 40)
        let barW = (plot.width - 9 * barGap) / 10
        let used = barW * 10 + barGap * 9
        let x0 = plot.x + (plot.width - used) / 2
        let top = answer.probabilities.indices.max { answer.probabilities[$0] < answer.probabilities[$1] }
        for d in 0..<10 {
            let x = x0 + d * (barW + barGap)
            surface.fill(PixelRect(x: x, y: plot.y, width: barW, height: plot.height), PadTheme.track)
            let p = d < answer.probabilities.count ? answer.probabilities[d] : 0
            let level = p.isFinite ? min(max(p, 0), 1) : 0
            let h = Int((level * Float(plot.height)).rounded())
            let isTop = !answer.isEmpty && d == top && level > 0
            let color = isTop ? (level >= answer.threshold ? PadTheme.accent : PadTheme.warning) : PadTheme.bar
            surface.fill(PixelRect(x: x, y: plot.maxY - h, width: barW, height: h), color)
            let label = String(d)
            let lw = BitmapFont.width(of: label, scale: s)
            BitmapFont.draw(label, x: x + (barW - lw) / 2, y: plot.maxY + g, scale: s,
                            color: isTop ? PadTheme.text : PadTheme.muted, on: &surface)
        }
        let t = min(max(answer.threshold, 0), 1)
        let ty = plot.maxY - Int((t * Float(plot.height)).rounded())
        surface.dashedLine(x0: x0 - barGap, x1: x0 + used + barGap, y: ty - max(1, s / 2), thickness: max(1, s / 2 + 1),
                           dash: 3 * s, gap: 2 * s, PadTheme.warning)
    }

    private func drawButtons(_ surface: inout Surface) {
        let s = layout.textScale
        for b in PadButton.allCases {
            guard let r = layout.buttons[b], !r.isEmpty else { continue }
            surface.fill(r, PadTheme.background)
            let color = pressed == b ? PadTheme.buttonPressed : hovered == b ? PadTheme.buttonHover : PadTheme.button
            surface.fillRounded(r, radius: max(4, layout.gap / 2), color)
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
        BitmapFont.draw(fitted(status.text, width: r.width, scale: s), x: r.x, y: r.y, scale: s, color: color, on: &surface)
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
    private func percent(_ v: Float) -> String {
        let value = v.isFinite ? min(max(v, 0), 1) * 100 : 0
        let tenths = Int((value * 10 + 1e-3).rounded(.down))
        return "\(tenths / 10).\(tenths % 10)%"
    }
}
