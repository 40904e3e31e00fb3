/// What a decoder will accept before it allocates anything for the pixels.
public struct ImageLimits: Equatable, Sendable {
    /// Width × height of the stored image, at most (default 50 megapixels). For JPEG this is the
    /// size before DCT scaling: libjpeg's coefficient buffer for a progressive file takes 2 bytes
    /// per pixel and component of the stored size (300 MB for 50 megapixels of 4:4:4 YCbCr).
    public var maxPixels: Int
    /// Width and height, each at most (default 65,535).
    public var maxSide: Int
    /// File size, at most, for `ImageDecoder.read(path:)` (default 256 MiB).
    public var maxFileBytes: Int
    /// Scans in a progressive JPEG, at most (default 500; a normal file has about 10): each scan is
    /// a pass over the whole image, so a small hostile file could otherwise take minutes.
    public var maxJPEGScans: Int

    public init(maxPixels: Int = 50_000_000, maxSide: Int = 65_535, maxFileBytes: Int = 256 << 20,
                maxJPEGScans: Int = 500) {
        self.maxPixels = maxPixels
        self.maxSide = maxSide
        self.maxFileBytes = maxFileBytes
        self.maxJPEGScans = maxJPEGScans
    }

    /// Throws `.format` for a zero side and `.limit` for a side or an area over the limits.
    func check(width: Int, height: Int, file: String, at location: String?, what: String) throws {
        guard width > 0, height > 0 else {
            throw DigitError(.format, file: file, at: location, "\(what) declares a zero-size image (\(width)×\(height))")
        }
        guard width <= maxSide, height <= maxSide else {
            throw DigitError(.limit, file: file, at: location,
                             "\(what) declares \(width)×\(height) pixels, more than the limit of \(maxSide) on a side")
        }
        let (area, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, area <= maxPixels else {
            throw DigitError(.limit, file: file, at: location,
                             "\(what) declares \(width)×\(height) pixels, more than the limit of \(maxPixels) pixels")
        }
    }
}

/// A decoded image as luminance, and what it was decoded from.
///
/// `gray` is row-major, `width * height` bytes, 0 = black … 255 = white. Colour becomes luminance
/// with the ITU-R BT.601 weights, in integers: `(299 R + 587 G + 114 B + 500) / 1000`. Samples of
/// other depths become 8-bit first, rounded: `(v * 510 + max) / (2 * max)` for a sample `v` of
/// maximum `max` (65,535 for 16 bits, the maxval for PNM). Transparency is composited over white
/// after the luminance: `(Y * A + 255 * (255 - A) + 127) / 255`, with A reduced to 8 bits the same
/// way. JPEG luminance is libjpeg's own: the Y channel of YCbCr, the same weights for RGB.
public struct DecodedImage: Equatable, Sendable, CustomStringConvertible {
    public enum Format: String, Sendable {
        case png = "PNG", jpeg = "JPEG", pnm = "PNM"
    }

    /// The colour model of the stored samples.
    public enum ColorModel: String, Sendable {
        case gray, grayAlpha = "gray+alpha", rgb = "RGB", rgba = "RGBA", palette
        case ycbcr = "YCbCr"
    }

    public var width: Int
    public var height: Int
    /// Luminance, row-major, `width * height` bytes, 0 = black … 255 = white.
    public var gray: [UInt8]
    /// 8-bit R, G, B a pixel, row-major, when the caller asked for colour (`PNG.decodeRGB`), else nil.
    public var rgb: [UInt8]?
    public var format: Format
    public var color: ColorModel
    /// Bits per stored sample: 1, 2, 4, 8 or 16 (PNG), 8 (JPEG), 8 or 16 (PNM, by maxval).
    public var bitDepth: Int
    /// The largest sample value: the PNM maxval, else 2^bitDepth − 1.
    public var maxValue: Int
    /// Adam7 interlacing (PNG) or a progressive / multi-scan file (JPEG).
    public var interlaced: Bool
    /// An alpha channel or a tRNS chunk (PNG).
    public var transparency: Bool
    /// The PNM magic number (`P2`, `P3`, `P5`, `P6`); nil for PNG and JPEG.
    public var variant: String?
    /// The stored size; equal to `width`×`height` unless the JPEG was decoded at a reduced scale.
    public var originalWidth: Int
    public var originalHeight: Int
    /// The decoded image is 1/`scale` of the stored one on each side: 1, 2, 4 or 8 (JPEG DCT scaling).
    /// The side is rounded up: `width == (originalWidth + scale - 1) / scale`.
    public var scale: Int
    /// The EXIF orientation (JPEG) the stored pixels were turned upright by (`upright(orientation:)`):
    /// 1 when they were shown as stored. The sizes above are the upright image's.
    public var orientation: Int = 1

    public init(width: Int, height: Int, gray: [UInt8], format: Format, color: ColorModel, bitDepth: Int,
                maxValue: Int? = nil, interlaced: Bool = false, transparency: Bool = false, variant: String? = nil,
                originalWidth: Int? = nil, originalHeight: Int? = nil, scale: Int = 1) {
        self.width = width
        self.height = height
        self.gray = gray
        self.format = format
        self.color = color
        self.bitDepth = bitDepth
        self.maxValue = maxValue ?? (1 << bitDepth) - 1
        self.interlaced = interlaced
        self.transparency = transparency
        self.variant = variant
        self.originalWidth = originalWidth ?? width
        self.originalHeight = originalHeight ?? height
        self.scale = scale
    }

    /// What was decoded, for messages: `RGB 16-bit interlaced PNG with transparency`,
    /// `gray 16-bit PNM (P5, maxval 1023)`, `YCbCr progressive JPEG 4000×3000 decoded at 1/4 (1000×750)`.
    public var summary: String {
        var words = [color.rawValue]
        if format != .jpeg { words.append("\(bitDepth)-bit") }
        if interlaced { words.append(format == .jpeg ? "progressive" : "interlaced") }
        words.append(format.rawValue)
        var text = words.joined(separator: " ")
        if let variant { text += maxValue == 255 ? " (\(variant))" : " (\(variant), maxval \(maxValue))" }
        if transparency { text += " with transparency" }
        if scale != 1 {
            text += " \(originalWidth)×\(originalHeight) decoded at 1/\(scale) (\(width)×\(height))"
        } else {
            text += " \(width)×\(height)"
        }
        if orientation != 1 { text += ", turned upright (EXIF orientation \(orientation))" }
        return text
    }

    public var description: String { summary }
}

/// The integer pixel arithmetic of `DecodedImage`, shared by the decoders.
enum Pixel {
    /// BT.601 luminance of 8-bit R, G, B, rounded.
    @inline(__always) static func luminance(_ r: Int, _ g: Int, _ b: Int) -> Int {
        (299 * r + 587 * g + 114 * b + 500) / 1000
    }

    /// A sample of maximum `max` (1…65,535) as 8 bits, rounded.
    @inline(__always) static func reduce(_ v: Int, max: Int) -> Int {
        (v * 510 + max) / (2 * max)
    }

    /// A 16-bit sample as 8 bits, rounded.
    @inline(__always) static func reduce16(_ v: Int) -> Int {
        (v * 510 + 65535) / 131_070
    }

    /// Luminance `y` with alpha `a` (both 8-bit) over white.
    @inline(__always) static func overWhite(_ y: Int, alpha a: Int) -> Int {
        (y * a + 255 * (255 - a) + 127) / 255
    }
}
