import DigitKit
import Foundation

/// A photo or scan with what was read (`digits recognize IMAGE --overlay OUT.png`): the image,
/// scaled up by a whole factor when it is small, with a box around each digit's ink, under a
/// dark band that holds the whole reading and, for each line of writing, each digit's answer
/// above its box — green for a confident digit, amber `?` for "not sure", grey `x` for "not a
/// digit". Nothing but the boxes' outlines is drawn on the image, so a small crop is never
/// hidden under its own answer.
public enum Overlay {
    /// Colours: the window's accents, so an answer looks the same everywhere.
    public static let sure = RGB(0x2FBF71), unsure = RGB(0xF0A830), notADigit = RGB(0x9AA0A6)
    /// The band's colour.
    public static let band = RGB(0x101418)
    /// An image whose longer side is shorter than this is scaled up by the smallest whole factor
    /// that reaches it (at most `maxScale`), so a 40-pixel crop's boxes and answers can be read.
    public static let minimumSide = 300
    public static let maxScale = 16

    /// Where the parts of an overlay picture go, in its pixels (y downward).
    public struct Layout: Equatable, Sendable {
        /// The whole factor the image is scaled by (nearest neighbour).
        public var scale: Int
        /// The band across the top: the reading, then a row of answers per line of writing.
        public var band: PixelRect
        /// The image, scaled, just below the band.
        public var image: PixelRect
        /// The picture's size: the band and the image (wider than the image when the reading's
        /// text needs it; the image is then centred).
        public var width: Int
        public var height: Int
        /// The font scale (pixels a grid cell) of the reading and of the digits' answers.
        public var textScale: Int
        public var answerScale: Int
        /// Outline width of the digits' boxes, in pixels.
        public var boxWidth: Int
        /// Space around the band's text, in pixels.
        public var padding: Int
    }

    /// The layout for an image of `width × height` decoded pixels and `reading`, whose boxes are
    /// in pixels of an image `originalWidth` wide (the stored size; a JPEG may be decoded smaller).
    public static func layout(width: Int, height: Int, originalWidth: Int? = nil, reading: NumberReading) -> Layout {
        let w = max(width, 1), h = max(height, 1)
        let scale = min(maxScale, max(1, (minimumSide + max(w, h) - 1) / max(w, h)))
        let imageWidth = w * scale, imageHeight = h * scale
        let long = max(imageWidth, imageHeight)
        var textScale = max(3, long / 150)
        let summary = summaryText(reading)
        while textScale > 2, BitmapFont.width(of: summary, scale: textScale) + 2 * textScale > imageWidth { textScale -= 1 }
        let padding = textScale
        let pictureWidth = min(Surface.maxSide, max(imageWidth, BitmapFont.width(of: summary, scale: textScale) + 2 * padding))
        // An answer is one glyph 5 cells wide: no wider than the narrowest box, so neighbours do not overlap.
        let toPixels = Float(w) / Float(max(originalWidth ?? w, 1)) * Float(scale)
        let narrowest = reading.digits.map { Int($0.box.width * toPixels) }.min() ?? Int.max
        let answerScale = max(2, min(textScale, narrowest / 6))
        let rows = reading.lines.count
        let bandHeight = 2 * padding + BitmapFont.capHeight(scale: textScale) + rows * (BitmapFont.capHeight(scale: answerScale) + padding)
        let left = max(0, (pictureWidth - imageWidth) / 2)
        return Layout(scale: scale, band: PixelRect(x: 0, y: 0, width: pictureWidth, height: bandHeight),
                      image: PixelRect(x: left, y: bandHeight, width: imageWidth, height: imageHeight),
                      width: pictureWidth, height: min(Surface.maxSide, bandHeight + imageHeight),
                      textScale: textScale, answerScale: answerScale, boxWidth: max(2, min(imageWidth, imageHeight) / 120),
                      padding: padding)
    }

    /// Draws `reading` (boxes in the stored image's pixels) with `image` (which may be decoded at
    /// a reduced scale) as `layout(…)` places them.
    public static func draw(_ reading: NumberReading, on image: DecodedImage) -> Surface {
        let layout = layout(width: image.width, height: image.height, originalWidth: image.originalWidth, reading: reading)
        var surface = Surface(width: layout.width, height: layout.height, fill: band)
        // The image, each pixel a scale × scale block.
        let area = layout.image.intersection(surface.bounds)
        if !area.isEmpty {
            for y in area.y..<area.maxY {
                let row = (y - layout.image.y) / layout.scale * image.width
                for x in area.x..<area.maxX {
                    let v = UInt32(image.gray[row + (x - layout.image.x) / layout.scale])
                    surface.pixels[y * surface.width + x] = 0xFF00_0000 | v << 16 | v << 8 | v
                }
            }
        }
        let toPixels = Float(image.width) / Float(max(image.originalWidth, 1)) * Float(layout.scale)
        let answersTop = layout.padding * 2 + BitmapFont.capHeight(scale: layout.textScale)
        for (row, line) in reading.lines.enumerated() {
            var free = 0   // where the row's next answer may start: answers never overlap
            for digit in reading.digits[line] {
                let b = digit.box
                let rect = PixelRect(x: layout.image.x + Int(b.x0 * toPixels), y: layout.image.y + Int(b.y0 * toPixels),
                                     width: max(1, Int(b.width * toPixels)), height: max(1, Int(b.height * toPixels)))
                let (color, text) = answer(digit)
                // The outline grows outward from the ink and stays on the image.
                for inset in 0..<layout.boxWidth {
                    outline(rect.insetBy(-inset, -inset), color, within: layout.image, on: &surface)
                }
                let textWidth = BitmapFont.width(of: text, scale: layout.answerScale)
                let x = max(free, min(Int(rect.midX) - textWidth / 2, layout.width - textWidth))
                free = x + textWidth + layout.answerScale
                BitmapFont.draw(text, x: x, y: answersTop + row * (BitmapFont.capHeight(scale: layout.answerScale) + layout.padding),
                                scale: layout.answerScale, color: color, on: &surface)
            }
        }
        BitmapFont.draw(summaryText(reading), x: layout.padding, y: layout.padding, scale: layout.textScale,
                        color: reading.isAnswered ? sure : unsure, on: &surface)
        return surface
    }

    /// The reading on the band's first row: `5351  99.1%`, `53?1  42.0%`, or `no ink found`.
    static func summaryText(_ reading: NumberReading) -> String {
        reading.isEmpty ? "no ink found" : reading.text + String(format: "  %.1f%%", reading.confidence * 100)
    }

    /// The colour and text shown for one digit.
    static func answer(_ digit: ReadDigit) -> (RGB, String) {
        if let d = digit.digit { return (sure, String(d)) }
        if digit.isNotADigit { return (notADigit, "x") }
        return (unsure, "?")
    }

    /// A one-pixel outline just inside `rect`, only where it lies within `clip`.
    static func outline(_ rect: PixelRect, _ color: RGB, within clip: PixelRect, on surface: inout Surface) {
        for edge in [PixelRect(x: rect.x, y: rect.y, width: rect.width, height: 1),
                     PixelRect(x: rect.x, y: rect.maxY - 1, width: rect.width, height: 1),
                     PixelRect(x: rect.x, y: rect.y, width: 1, height: rect.height),
                     PixelRect(x: rect.maxX - 1, y: rect.y, width: 1, height: rect.height)] {
            surface.fill(edge.intersection(clip), color)
        }
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
