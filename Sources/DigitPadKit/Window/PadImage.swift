import DigitApp
import DigitKit

/// A photo or scan shown on the canvas in place of a drawing: its gray pixels (as decoded,
/// possibly reduced) and the size of the stored image, whose pixels the reader's boxes are in.
/// It is fitted into the canvas, aspect kept, centred.
public struct PadImage: Equatable, Sendable {
    /// The file, as it is read again for the reading (`DigitRecognizer.read(imageAt:)`).
    public var path: String
    public var width: Int
    public var height: Int
    /// Luminance, row-major, 0 = black … 255 = white.
    public var gray: [UInt8]
    public var originalWidth: Int
    public var originalHeight: Int

    public init(path: String, width: Int, height: Int, gray: [UInt8], originalWidth: Int? = nil, originalHeight: Int? = nil) {
        self.path = path
        self.width = max(width, 0)
        self.height = max(height, 0)
        self.gray = gray
        self.originalWidth = max(originalWidth ?? width, 1)
        self.originalHeight = max(originalHeight ?? height, 1)
    }

    public init(path: String, image: DecodedImage) {
        self.init(path: path, width: image.width, height: image.height, gray: image.gray,
                  originalWidth: image.originalWidth, originalHeight: image.originalHeight)
    }

    /// Pixels of the stored image → canvas units.
    public var mapping: CanvasMapping {
        let side = Float(max(originalWidth, originalHeight))
        return CanvasMapping(scale: 1 / side, offsetX: (side - Float(originalWidth)) / 2 / side,
                             offsetY: (side - Float(originalHeight)) / 2 / side)
    }

    /// Where the image goes in a canvas `side` pixels wide (canvas pixels).
    public func placement(side: Int) -> PixelRect {
        let longest = max(originalWidth, originalHeight)
        let w = max(1, (originalWidth * side + longest / 2) / longest), h = max(1, (originalHeight * side + longest / 2) / longest)
        return PixelRect(x: (side - w) / 2, y: (side - h) / 2, width: w, height: h)
    }

    /// Draws the image into `layer` (a canvas `side` pixels wide, its origin at the canvas's top
    /// left): each canvas pixel is the mean of the image pixels under it (the nearest one when
    /// the image is enlarged).
    func draw(into layer: inout Surface, side: Int) {
        let place = placement(side: side)
        guard width > 0, height > 0, gray.count >= width * height, !place.isEmpty,
              place.intersection(layer.bounds) == place else { return }
        // The image columns and rows under each canvas column and row.
        func spans(_ n: Int, _ count: Int) -> [Range<Int>] {
            (0..<n).map { i in
                let a = min(i * count / n, count - 1)
                return a..<max(a + 1, min((i + 1) * count / n, count))
            }
        }
        let columns = spans(place.width, width), rows = spans(place.height, height)
        let w = layer.width
        gray.withUnsafeBufferPointer { g in
            layer.pixels.withUnsafeMutableBufferPointer { out in
                for (ry, rowSpan) in rows.enumerated() {
                    for (rx, columnSpan) in columns.enumerated() {
                        var sum = 0
                        for y in rowSpan { for x in columnSpan { sum += Int(g[y * width + x]) } }
                        let v = UInt32(sum / (rowSpan.count * columnSpan.count))
                        out[(place.y + ry) * w + place.x + rx] = 0xFF00_0000 | v << 16 | v << 8 | v
                    }
                }
            }
        }
        layer.markDirty(place)
    }
}
