import DigitApp
import DigitKit
/// The buttons of the panel, in the order shown.
public enum PadButton: String, CaseIterable, Sendable {
    case clear, undo, save, open, adapt

    public var title: String {
        switch self {
        case .clear: return "Clear"
        case .undo: return "Undo"
        case .save: return "Save"
        case .open: return "Open"
        case .adapt: return "Adapt"
        }
    }
}

/// Where everything goes in a window of a given size, in window pixels (y downward).
/// The canvas is the largest square that leaves room for the panel: on the left with the
/// panel to its right when the window is wider than tall, on top with the panel below
/// otherwise. Both are centred as a group; every gap is `margin` outside the panel and
/// `gap` inside it. Any size is accepted (0×0 included): rectangles that do not fit are empty.
public struct PadLayout: Equatable, Sendable {
    public var width: Int
    public var height: Int
    /// Space around the canvas and the panel.
    public var margin: Int
    /// Space between the cards of the panel.
    public var gap: Int
    /// Size multiple for text (1 = the font's 7-pixel capitals).
    public var textScale: Int
    public var canvas: PixelRect
    public var panel: PixelRect
    /// The card with the big answer digit.
    public var answer: PixelRect
    /// The card with the 28×28 input preview; `previewImage` is the image inside it.
    public var preview: PixelRect
    public var previewImage: PixelRect
    /// The card with the ten probability bars.
    public var chart: PixelRect
    public var buttons: [PadButton: PixelRect]
    /// One line of text under the buttons (label, last action, errors).
    public var status: PixelRect
    public var isPortrait: Bool

    public init(width: Int, height: Int) {
        let w = max(0, width), h = max(0, height)
        self.width = w
        self.height = h
        isPortrait = h > w
        margin = min(max(min(w, h) / 24, 8), 32)
        let m = margin
        if !isPortrait {
            // The panel is about 0.72 of the canvas: room for two square cards above the chart.
            let side = max(0, min(h - 2 * m, (w - 3 * m) * 100 / 172))
            let panelW = max(0, min(w - 3 * m - side, side * 9 / 10))
            let x0 = max(0, (w - side - m - panelW) / 2)
            let y0 = max(0, (h - side) / 2)
            canvas = PixelRect(x: x0, y: y0, width: side, height: side)
            panel = PixelRect(x: x0 + side + m, y: y0, width: panelW, height: side)
        } else {
            let side = max(0, min(w - 2 * m, (h - 3 * m) * 100 / 172))
            let panelH = max(0, min(h - 3 * m - side, side * 9 / 10))
            let x0 = max(0, (w - side) / 2)
            let y0 = max(0, (h - side - m - panelH) / 2)
            canvas = PixelRect(x: x0, y: y0, width: side, height: side)
            panel = PixelRect(x: x0, y: y0 + side + m, width: side, height: panelH)
        }
        // Text grows with the canvas, but a low panel (under a tall canvas) keeps it small.
        textScale = min(max(min(canvas.width / 220, isPortrait ? panel.height / 200 : 3), 1), 3)
        gap = max(6, m * 2 / 3)

        // Bottom-up: the status line, the buttons, then the cards share what is left.
        let s = textScale
        let lineH = 9 * s
        status = PixelRect(x: panel.x, y: panel.maxY - lineH, width: panel.width, height: lineH)
        let buttonH = 7 * s + 12 * s
        let buttonY = status.y - gap - buttonH
        var buttons: [PadButton: PixelRect] = [:]
        let count = PadButton.allCases.count
        let buttonW = (panel.width - gap * (count - 1)) / count
        for (i, b) in PadButton.allCases.enumerated() {
            buttons[b] = PixelRect(x: panel.x + i * (buttonW + gap), y: buttonY, width: buttonW, height: buttonH)
        }
        self.buttons = buttons
        let cardsH = max(0, buttonY - gap - panel.y)
        if panel.width * 4 > cardsH * 5 {
            // A wide, low panel (under a tall canvas): answer and preview stacked on the left,
            // the chart beside them.
            let half = max(0, (cardsH - gap) / 2)
            let columnW = max(0, min(half * 6 / 5, (panel.width - gap) * 2 / 5))
            answer = PixelRect(x: panel.x, y: panel.y, width: columnW, height: half)
            preview = PixelRect(x: panel.x, y: panel.y + cardsH - half, width: columnW, height: half)
            chart = PixelRect(x: panel.x + columnW + gap, y: panel.y, width: max(0, panel.width - columnW - gap), height: cardsH)
        } else {
            // A tall panel: answer and preview side by side, the chart below.
            let cardW = max(0, (panel.width - gap) / 2)
            let topH = max(0, min(cardW, (cardsH - gap) * 11 / 20))
            answer = PixelRect(x: panel.x, y: panel.y, width: cardW, height: topH)
            preview = PixelRect(x: panel.maxX - cardW, y: panel.y, width: cardW, height: topH)
            chart = PixelRect(x: panel.x, y: panel.y + topH + gap, width: panel.width, height: max(0, cardsH - topH - gap))
        }

        // The preview: the largest multiple of 28 that fits under the card's caption, so each
        // network pixel is a whole number of screen pixels.
        let inner = preview.insetBy(gap, gap)
        let available = min(inner.width, inner.height - 9 * s - gap / 2)
        let cell = max(0, available / 28)
        let side = cell * 28
        previewImage = PixelRect(x: preview.x + (preview.width - side) / 2,
                                 y: inner.maxY - side, width: side, height: side)
        if isTooSmall { invalidate() }
    }

    /// Too small to show anything sensible: only the canvas, nothing else is placed.
    private var isTooSmall: Bool {
        panel.width < 40 || panel.height < 40 || chart.height < 9 * textScale * 2 || buttons.values.contains { $0.isEmpty }
    }

    private mutating func invalidate() {
        panel = .zero
        answer = .zero
        preview = .zero
        previewImage = .zero
        chart = .zero
        status = .zero
        buttons = [:]
    }

    /// The size of the buttons' titles: `textScale`, or smaller where a title would not fit its
    /// button (five share the panel's width); 0 when not even the smallest fits.
    public var buttonTextScale: Int {
        guard let width = buttons.values.map(\.width).min() else { return 0 }
        var s = textScale
        while s > 0 && PadButton.allCases.contains(where: { BitmapFont.width(of: $0.title, scale: s) > width }) { s -= 1 }
        return s
    }

    /// The button under a point, if any.
    public func button(at x: Float, _ y: Float) -> PadButton? {
        PadButton.allCases.first { buttons[$0]?.contains(x, y) == true }
    }

    // MARK: - Canvas units

    /// A window point in canvas units: 0…1 across the canvas, y downward (not clamped).
    public func canvasPoint(_ x: Float, _ y: Float) -> (x: Float, y: Float) {
        let side = Float(max(canvas.width, 1))
        return ((x - Float(canvas.x)) / side, (y - Float(canvas.y)) / side)
    }

    /// A point in canvas units in window pixels: the inverse of `canvasPoint`. Whatever is drawn
    /// on the canvas (ink, and any mark placed in canvas units) goes through here.
    public func windowPoint(_ u: Float, _ v: Float) -> (x: Float, y: Float) {
        let side = Float(canvas.width)
        return (Float(canvas.x) + u * side, Float(canvas.y) + v * side)
    }
}
