import DigitKit
import Foundation

/// A photo or scan with what was read drawn over it (`digits recognize IMAGE --overlay OUT.png`):
/// a box around each digit's ink with its answer above — green for a confident digit, amber `?`
/// for "not sure", grey `x` for "not a digit" — and the whole reading in the top-left corner.
public enum Overlay {
    /// Colours: the window's accents, so an answer looks the same everywhere.
    public static let sure = RGB(0x2FBF71), unsure = RGB(0xF0A830), notADigit = RGB(0x9AA0A6)

    /// Draws `reading` (boxes in the stored image's pixels) over `image` (which may be decoded at
    /// a reduced scale) and returns the picture at the decoded size.
    public static func draw(_ reading: NumberReading, on image: DecodedImage) -> Surface {
        var surface = Surface(width: image.width, height: image.height)
        for i in 0..<(image.width * image.height) {
            let v = UInt32(image.gray[i])
            surface.pixels[i] = 0xFF00_0000 | v << 16 | v << 8 | v
        }
        let toPixels = Float(image.width) / Float(max(image.originalWidth, 1))
        let scale = max(2, min(image.width, image.height) / 180)
        for digit in reading.digits {
            let b = digit.box
            let rect = PixelRect(x: Int(b.x0 * toPixels), y: Int(b.y0 * toPixels),
                                 width: max(1, Int(b.width * toPixels)), height: max(1, Int(b.height * toPixels)))
            let (color, text) = answer(digit)
            for inset in 0..<max(1, scale / 2 + 1) { surface.stroke(rect.insetBy(-inset, -inset), color) }
            label(text, color: color, x: rect.x, bottom: rect.y - scale - 1, scale: scale, on: &surface)
        }
        let summary = reading.isEmpty ? "no ink found" : reading.text + String(format: "  %.1f%%", reading.confidence * 100)
        label(summary, color: reading.isAnswered ? sure : unsure, x: 2 * scale, bottom: 2 * scale + BitmapFont.capHeight(scale: 2 * scale),
              scale: 2 * scale, on: &surface)
        return surface
    }

    /// The colour and text shown for one digit.
    static func answer(_ digit: ReadDigit) -> (RGB, String) {
        if let d = digit.digit { return (sure, String(d)) }
        if digit.isNotADigit { return (notADigit, "x") }
        return (unsure, "?")
    }

    /// Text on a dark plate whose bottom edge is at `bottom` (moved inside the picture when needed).
    static func label(_ text: String, color: RGB, x: Int, bottom: Int, scale: Int, on surface: inout Surface) {
        let width = BitmapFont.width(of: text, scale: scale) + 2 * scale, height = BitmapFont.capHeight(scale: scale) + 2 * scale
        let top = max(0, min(bottom - height, surface.height - height))
        let left = max(0, min(x, surface.width - width))
        surface.fill(PixelRect(x: left, y: top, width: width, height: height), RGB(0x101418))
        BitmapFont.draw(text, x: left + scale, y: top + scale, scale: scale, color: color, on: &surface)
    }

    /// `surface` as PNG bytes (8-bit RGB).
    public static func png(_ surface: Surface) throws -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: surface.width * surface.height * 3)
        for (i, p) in surface.pixels.enumerated() {
            rgb[3 * i] = UInt8(truncatingIfNeeded: p >> 16)
            rgb[3 * i + 1] = UInt8(truncatingIfNeeded: p >> 8)
            rgb[3 * i + 2] = UInt8(truncatingIfNeeded: p)
        }
        return try PNG.encode(rgb: rgb, width: surface.width, height: surface.height)
    }
}
