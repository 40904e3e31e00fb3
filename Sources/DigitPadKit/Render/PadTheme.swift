import DigitApp
import DigitKit
import Foundation

/// DigitPad's colours: a dark, quiet frame around the black canvas, so the white ink (what
/// the network sees) is the brightest thing on screen; one accent for a confident answer, amber
/// for the threshold and `?` ("not sure"), and a cool grey for "not a digit". None of the marks
/// drawn over the canvas is a neutral gray, so they are never mistaken for ink.
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
    /// "Not a digit": the crossed circle, its box and its words.
    public static let notADigit = RGB(0x8E9BC0)
    public static let error = RGB(0xE5736A)
    public static let button = RGB(0x242831)
    public static let buttonHover = RGB(0x2E333D)
    public static let buttonPressed = RGB(0x3A404C)
    /// The plate behind a digit's answer over the canvas.
    public static let plate = RGB(0x15181E)

    /// The colour of a digit's answer: accent when answered, amber when not sure, grey-blue when not a digit.
    public static func color(of mark: DigitMark) -> RGB {
        mark.digit != nil ? accent : (mark.isNotADigit ? notADigit : warning)
    }
}

extension Surface {
    /// Copies `rect` of `layer` (in the layer's pixels) to this surface with the layer's origin at
    /// (`x`, `y`). Parts outside either are left out.
    mutating func copy(_ rect: PixelRect, of layer: Surface, toX x: Int, y: Int) {
        let source = rect.intersection(layer.bounds)
        let target = PixelRect(x: source.x + x, y: source.y + y, width: source.width, height: source.height).intersection(bounds)
        if target.isEmpty { return }
        let w = width, lw = layer.width
        layer.pixels.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { dst in
                for row in target.y..<target.maxY {
                    let from = (row - y) * lw + (target.x - x), to = row * w + target.x
                    for i in 0..<target.width { dst[to + i] = src[from + i] }
                }
            }
        }
        markDirty(target)
    }

    /// The outline of `rect`, `thickness` pixels inside it, clipped to `clip`. Returns the four
    /// edges drawn (clipped), to be erased later.
    mutating func outline(_ rect: PixelRect, thickness: Int, _ color: RGB, clip: PixelRect) -> [PixelRect] {
        let t = max(1, min(thickness, rect.width / 2, rect.height / 2))
        let edges = [PixelRect(x: rect.x, y: rect.y, width: rect.width, height: t),
                     PixelRect(x: rect.x, y: rect.maxY - t, width: rect.width, height: t),
                     PixelRect(x: rect.x, y: rect.y + t, width: t, height: rect.height - 2 * t),
                     PixelRect(x: rect.maxX - t, y: rect.y + t, width: t, height: rect.height - 2 * t)]
            .map { $0.intersection(clip) }.filter { !$0.isEmpty }
        for e in edges { fill(e, color) }
        return edges
    }

    /// "Not a digit": a circle crossed by a slash (⊘), `rect.height` tall, centred in `rect`, clipped to `clip`.
    mutating func notADigitMark(in rect: PixelRect, _ color: RGB, clip: PixelRect) {
        let side = Float(min(rect.width, rect.height))
        guard side >= 3 else { return }
        let weight = max(1, side / 9)
        let r = side / 2 - weight / 2 - 0.5
        let c = (x: rect.midX, y: rect.midY)
        var segments: [((x: Float, y: Float), (x: Float, y: Float))] = []
        let steps = 28
        for i in 0..<steps {
            let a0 = Float(i) / Float(steps) * 2 * Float.pi, a1 = Float(i + 1) / Float(steps) * 2 * Float.pi
            segments.append(((c.x + r * cos(a0), c.y + r * sin(a0)), (c.x + r * cos(a1), c.y + r * sin(a1))))
        }
        let d = r * 0.7071
        segments.append(((c.x + d, c.y - d), (c.x - d, c.y + d)))
        blendCapsules(segments, radius: weight / 2, color, clip: clip.intersection(rect))
    }
}
