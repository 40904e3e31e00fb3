import DigitApp
import DigitKit

/// The panel: the answer (one digit, or the number), the 28×28 input and the probabilities of
/// the digit in focus (under the mouse, else the last).
extension PadController {
    func drawPanel(_ surface: inout Surface) {
        if layout.panel.isEmpty { return }
        surface.fill(layout.answer.union(layout.preview).union(layout.chart), PadTheme.background)
        drawAnswer(&surface)
        drawPreview(&surface)
        drawChart(&surface)
    }

    /// The digit the preview and the chart detail, if any.
    var shownDigit: DigitMark? { answer.shownIndex(focus: focus).map { answer.digits[$0] } }

    private func card(_ rect: PixelRect, _ surface: inout Surface) {
        surface.fillRounded(rect, radius: max(4, layout.gap / 2), PadTheme.card)
    }

    /// The card's caption at its top left: the first of `texts` that fits, else the last
    /// shortened. Returns the text drawn.
    @discardableResult
    private func caption(_ texts: [String], in rect: PixelRect, color: RGB = PadTheme.muted, _ surface: inout Surface) -> String {
        let s = layout.textScale, room = rect.width - 2 * layout.gap
        let text = texts.first { BitmapFont.width(of: $0, scale: s) <= room } ?? fitted(texts.last ?? "", width: room, scale: s)
        BitmapFont.draw(text, x: rect.x + layout.gap, y: rect.y + layout.gap, scale: s, color: color, on: &surface)
        return text
    }

    /// The answer card's caption, longest first: "Number" (or "Answer" for one digit), and
    /// "personal" while the reading comes from a personal profile, which a narrow card keeps
    /// rather than the title (the big digits say what the card is).
    var answerCaptions: [String] {
        let title = answer.isNumber ? "Number" : "Answer"
        return answer.profile == nil ? [title] : [title + " · personal", "personal"]
    }

    private func drawAnswer(_ surface: inout Surface) {
        let r = layout.answer
        if r.isEmpty { return }
        card(r, &surface)
        let title = caption(answerCaptions, in: r, &surface)
        let s = layout.textScale, g = layout.gap
        if let label = document.label {
            let room = r.maxX - g - (r.x + g + BitmapFont.width(of: title, scale: s) + 2 * g)
            let text = ["label \(label)", label].first { BitmapFont.width(of: $0, scale: s) <= room } ?? fitted(label, width: room, scale: s)
            if !text.isEmpty {
                BitmapFont.draw(text, x: r.maxX - g - BitmapFont.width(of: text, scale: s), y: r.y + g, scale: s,
                                color: PadTheme.muted, on: &surface)
            }
        }
        let captionBottom = r.y + g + 9 * s
        let footer = 9 * s + g
        let area = PixelRect(x: r.x + g / 2, y: captionBottom, width: r.width - g, height: r.maxY - footer - captionBottom)
        if area.isEmpty { return }
        let line: [String]
        let lineColor: RGB
        if answer.isEmpty {
            line = [answer.error == nil ? "empty" : "cannot read"]
            lineColor = answer.error == nil ? PadTheme.hint : PadTheme.error
            let h = max(7, min(area.height, area.width * 7 / 5) * 9 / 10)
            BitmapFont.drawStroked("?", in: area, height: h, color: answer.error == nil ? PadTheme.track : PadTheme.error, on: &surface)
        } else {
            drawText(in: area, &surface)
            if answer.hasNotADigit {
                let one = answer.digits.count == 1 ? answer.digits[0] : nil
                line = (one.map { ["not a digit · " + percent($0.notADigit)] } ?? []) + ["not a digit"]
                lineColor = PadTheme.notADigit
            } else if answer.digits.contains(where: \.isCutByFrame) {
                line = ["cut by the image's edge", "cut by the edge", "cut"]
                lineColor = PadTheme.warning
            } else if answer.isAnswered {
                line = [percent(answer.confidence) + " sure", percent(answer.confidence)]
                lineColor = PadTheme.muted
            } else {
                line = ["not sure · " + percent(answer.confidence), "not sure"]
                lineColor = PadTheme.warning
            }
        }
        let room = r.width - 2 * g
        let text = line.first { BitmapFont.width(of: $0, scale: s) <= room } ?? fitted(line.last ?? "", width: room, scale: s)
        let w = BitmapFont.width(of: text, scale: s)
        BitmapFont.draw(text, x: r.x + (r.width - w) / 2, y: r.maxY - footer + g / 3, scale: s, color: lineColor, on: &surface)
    }

    /// The reading's digits, large, side by side: each digit in white, `?` in amber, "not a
    /// digit" as a crossed circle; the digit in focus underlined when there are several.
    private func drawText(in area: PixelRect, _ surface: inout Surface) {
        let n = answer.digits.count
        // A glyph is 5 cells wide plus one of space, 7 cells tall; a glyph's room between lines.
        let columns = n + answer.lineStarts.count
        let glyphH = max(7, min(area.height * 9 / 10, area.width * 7 / 5, area.width * 7 / (6 * columns)))
        let advance = max(1, glyphH * 6 / 7)
        let x0 = area.x + (area.width - advance * columns) / 2
        let shown = answer.shownIndex(focus: focus)
        for (i, d) in answer.digits.enumerated() {
            let column = i + answer.lineStarts.filter { $0 <= i }.count
            let cell = PixelRect(x: x0 + column * advance, y: area.y, width: advance, height: area.height)
            if d.digit == nil && d.isNotADigit {
                let side = glyphH * 6 / 7
                let mark = PixelRect(x: cell.x + (cell.width - side) / 2, y: cell.y + (cell.height - side) / 2, width: side, height: side)
                surface.notADigitMark(in: mark, PadTheme.notADigit, clip: area)
            } else {
                let c: Character = d.digit.map { Array("0123456789")[$0] } ?? "?"
                BitmapFont.drawStroked(c, in: cell, height: glyphH, color: d.digit == nil ? PadTheme.warning : PadTheme.text, on: &surface)
            }
            if n > 1 && i == shown {
                let t = max(2, glyphH / 16)
                let y = min(cell.y + (cell.height + glyphH) / 2 + t * 2, area.maxY - t)
                surface.fill(PixelRect(x: cell.x + advance / 8, y: y, width: advance * 3 / 4, height: t), PadTheme.accent)
            }
        }
    }

    private func drawPreview(_ surface: inout Surface) {
        let r = layout.preview
        if r.isEmpty { return }
        card(r, &surface)
        if answer.isNumber, let i = answer.shownIndex(focus: focus) {
            let place = "\(i + 1) of \(answer.digits.count)"
            caption(["Digit \(place) · 28×28", "Digit \(place)", "\(i + 1)/\(answer.digits.count)"], in: r, &surface)
        } else {
            caption(["Input 28×28"], in: r, &surface)
        }
        let image = layout.previewImage
        if image.isEmpty { return }
        surface.fill(PixelRect(x: image.x - 1, y: image.y - 1, width: image.width + 2, height: image.height + 2), PadTheme.canvasFrame)
        let raster = shownDigit?.raster ?? []
        if raster.count >= 784 {
            surface.drawGray(raster, columns: 28, rows: 28, in: image, background: PadTheme.canvas, ink: PadTheme.ink)
        } else {
            surface.fill(image, PadTheme.canvas)
        }
    }

    private func drawChart(_ surface: inout Surface) {
        let r = layout.chart
        if r.isEmpty { return }
        card(r, &surface)
        let s = layout.textScale, g = layout.gap
        caption(["Probabilities"], in: r, &surface)
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
        // Ten digits, and "not a digit" (×) when the network has that output.
        let bars = answer.hasNotADigitOutput ? 11 : 10
        let barGap = max(2, plot.width / 40)
        let barW = (plot.width - (bars - 1) * barGap) / bars
        let used = barW * bars + barGap * (bars - 1)
        let x0 = plot.x + (plot.width - used) / 2
        let shown = shownDigit
        var levels = (0..<10).map { d -> Float in
            let p = shown.map { d < $0.probabilities.count ? $0.probabilities[d] : 0 } ?? 0
            return p.isFinite ? min(max(p, 0), 1) : 0
        }
        if bars == 11 { levels.append(shown.map { $0.notADigit.isFinite ? min(max($0.notADigit, 0), 1) : 0 } ?? 0) }
        let top = shown == nil ? nil : levels.indices.max { levels[$0] < levels[$1] }
        for k in 0..<bars {
            let x = x0 + k * (barW + barGap)
            surface.fill(PixelRect(x: x, y: plot.y, width: barW, height: plot.height), PadTheme.track)
            let level = levels[k]
            let h = Int((level * Float(plot.height)).rounded())
            let isTop = k == top && level > 0
            let color = !isTop ? PadTheme.bar : k == 10 ? PadTheme.notADigit : (level >= answer.threshold ? PadTheme.accent : PadTheme.warning)
            surface.fill(PixelRect(x: x, y: plot.maxY - h, width: barW, height: h), color)
            let label = k == 10 ? "×" : String(k)
            let lw = BitmapFont.width(of: label, scale: s)
            BitmapFont.draw(label, x: x + (barW - lw) / 2, y: plot.maxY + g, scale: s,
                            color: isTop ? PadTheme.text : (k == 10 ? PadTheme.notADigit : PadTheme.muted), on: &surface)
        }
        let t = min(max(answer.threshold, 0), 1)
        let ty = plot.maxY - Int((t * Float(plot.height)).rounded())
        surface.dashedLine(x0: x0 - barGap, x1: x0 + used + barGap, y: ty - max(1, s / 2), thickness: max(1, s / 2 + 1),
                           dash: 3 * s, gap: 2 * s, PadTheme.warning)
    }
}
