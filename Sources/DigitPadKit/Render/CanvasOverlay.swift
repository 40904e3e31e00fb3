import DigitApp
import DigitKit

/// A mark over the canvas: the box around one digit's ink and its answer just above it.
public struct OverlayMark: Equatable, Sendable {
    public enum Answer: Equatable, Sendable {
        case digit(Int)
        /// Below the threshold: an amber `?`.
        case notSure
        /// "Not a digit" more likely than any digit: a grey-blue crossed circle.
        case notADigit
    }
    /// Which digit of the reading.
    public var index: Int
    /// The box, window pixels (its outline is drawn inside; it may reach past the canvas, which clips it).
    public var box: PixelRect
    /// The plate with the answer, window pixels, inside the canvas when the canvas is large enough.
    public var label: PixelRect
    public var answer: Answer
    public var color: RGB
    /// The digit the panel details (under the mouse, else the last), when there are several: a thicker outline.
    public var focused: Bool
}

extension PadController {
    /// Size multiple of the answers over the canvas.
    var markScale: Int { min(layout.textScale + 1, 4) }

    /// The boxes and answers drawn over the canvas now: one per digit of the reading, in canvas
    /// units taken to window pixels through the layout; none for `--single`, for an empty
    /// reading, or while the reading is of a drawing since cleared, undone or replaced.
    public var overlayMarks: [OverlayMark] {
        guard showsMarks else { return [] }
        let c = layout.canvas
        guard c.width >= 20 else { return [] }
        let shown = answer.shownIndex(focus: focus)
        let s = markScale
        let plate = (width: 5 * s + 2 * s, height: 7 * s + 2 * s)
        // Pen paths are grown by the ink's half width (what is seen is the ink), and all a little.
        let grow = (answer.boxesArePaths ? inkRadius : 0) + 3
        var marks: [OverlayMark] = []
        for (i, digit) in answer.digits.enumerated() {
            guard let box = digit.box else { continue }
            let a = layout.windowPoint(box.x0, box.y0), b = layout.windowPoint(box.x1, box.y1)
            guard [a.x, a.y, b.x, b.y].allSatisfy({ $0.isFinite && abs($0) < 1e6 }) else { continue }
            let x0 = Int((a.x - grow).rounded(.down)), y0 = Int((a.y - grow).rounded(.down))
            let x1 = Int((b.x + grow).rounded(.up)), y1 = Int((b.y + grow).rounded(.up))
            let rect = PixelRect(x: x0, y: y0, width: max(1, x1 - x0), height: max(1, y1 - y0))
            // Above the box; below it when there is no room above; inside its top when neither.
            var y = rect.y - 2 - plate.height
            if y < c.y { y = rect.maxY + 2 }
            if y + plate.height > c.maxY { y = max(c.y, rect.y + 2) }
            let x = min(max(rect.x + (rect.width - plate.width) / 2, c.x), c.maxX - plate.width)
            let answer: OverlayMark.Answer = digit.digit.map { .digit($0) } ?? (digit.isNotADigit ? .notADigit : .notSure)
            marks.append(OverlayMark(index: i, box: rect, label: PixelRect(x: x, y: y, width: plate.width, height: plate.height),
                                     answer: answer, color: PadTheme.color(of: digit),
                                     focused: self.answer.isNumber && i == shown))
        }
        return marks
    }

    /// Draws `overlayMarks` over the canvas and records where, for `render` to erase them.
    func drawOverlay(_ surface: inout Surface) {
        let c = layout.canvas
        let s = markScale
        for mark in overlayMarks {
            overlayRects += surface.outline(mark.box, thickness: mark.focused ? max(2, s) : 1, mark.color, clip: c)
        }
        // The answers after every box, so no outline crosses one.
        for mark in overlayMarks {
            let plate = mark.label
            if plate.isEmpty || plate.intersection(c) != plate { continue }
            surface.fillRounded(plate, radius: s, PadTheme.plate)
            let glyph = PixelRect(x: mark.label.x + s, y: mark.label.y + s, width: 5 * s, height: 7 * s)
            switch mark.answer {
            case let .digit(d):
                BitmapFont.draw(String(d), x: glyph.x, y: glyph.y, scale: s, color: mark.color, on: &surface)
            case .notSure:
                BitmapFont.draw("?", x: glyph.x + (5 * s - BitmapFont.width(of: "?", scale: s)) / 2, y: glyph.y, scale: s,
                                color: mark.color, on: &surface)
            case .notADigit:
                surface.notADigitMark(in: PixelRect(x: glyph.x - s / 2, y: glyph.y, width: 6 * s, height: 7 * s), mark.color, clip: plate)
            }
            overlayRects.append(plate)
        }
    }
}
