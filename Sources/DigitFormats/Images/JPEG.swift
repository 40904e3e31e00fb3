#if DIGITS_JPEG
import CJPEGShim
#endif

/// JPEG through the system's libjpeg (libjpeg-turbo), when the package was built with it (see
/// Package.swift: the `DIGITS_JPEG` define). Without it every call throws an error that says which
/// package to install.
///
/// Decoded: baseline, extended and progressive files in gray, YCbCr or RGB, to 8-bit luminance by
/// libjpeg itself (the Y channel of YCbCr, whose weights are BT.601's; BT.601 weights for RGB),
/// turned upright by the file's EXIF orientation (`ExifOrientation`: a phone's portrait photo is
/// stored on its side).
/// CMYK and YCCK files are refused. Damaged data (a truncated file, a bad Huffman code, a marker
/// inside a scan) is an error, not a partly gray image. The stored size is checked against
/// `ImageLimits` from the header, before libjpeg allocates its buffers.
public enum JPEG {
    /// True when this build can read and write JPEG.
    public static var isAvailable: Bool {
        #if DIGITS_JPEG
        return true
        #else
        return false
        #endif
    }

    /// True when `bytes` starts with a JPEG start-of-image marker (FF D8 FF).
    public static func isJPEG(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF
    }

    static let notBuiltIn = "JPEG support is not built in: install libjpeg-turbo8-dev or libjpeg-dev (the jpeglib.h header) and rebuild"

    /// The DCT scale factor for decoding a `width`×`height` image so that its long side is as small
    /// as possible but still at least `maxSide`: 8, 4 or 2 (the decoded side is the stored side
    /// divided by it, rounded up), or 1 when even 1/2 would fall below `maxSide`, or `maxSide` is nil.
    public static func scale(width: Int, height: Int, maxSide: Int?) -> Int {
        guard let maxSide else { return 1 }
        let side = max(width, height)
        for d in [8, 4, 2] where (side + d - 1) / d >= maxSide { return d }
        return 1
    }

    /// Decodes a JPEG file to luminance, at 1/`scale(…, maxSide:)` of its size on each side.
    /// Errors are `DigitError`s naming `file` and the byte libjpeg had read up to.
    public static func decode(_ bytes: [UInt8], file: String, limits: ImageLimits = ImageLimits(),
                              maxSide: Int? = nil) throws -> DecodedImage {
        #if DIGITS_JPEG
        var info = digits_jpeg_info()
        let headerStatus = bytes.withUnsafeBufferPointer { digits_jpeg_read_header($0.baseAddress, $0.count, &info) }
        guard headerStatus == 0 else { throw failure(info, file: file) }
        let width = Int(info.width), height = Int(info.height)
        let color: DecodedImage.ColorModel
        switch Int(info.color_space) {
        case Int(DIGITS_JPEG_GRAY): color = .gray
        case Int(DIGITS_JPEG_YCBCR): color = .ycbcr
        case Int(DIGITS_JPEG_RGB): color = .rgb
        case Int(DIGITS_JPEG_CMYK), Int(DIGITS_JPEG_YCCK):
            let name = Int(info.color_space) == Int(DIGITS_JPEG_CMYK) ? "CMYK" : "YCCK"
            throw DigitError(.format, file: file, at: "JPEG header",
                             "unsupported JPEG colour space \(name) (\(info.components) components); convert the image to RGB or gray")
        default:
            throw DigitError(.format, file: file, at: "JPEG header",
                             "unsupported JPEG colour space (\(info.components) components)")
        }
        try limits.check(width: width, height: height, file: file, at: "JPEG header", what: "the JPEG header")
        let scale = scale(width: width, height: height, maxSide: maxSide)
        let outWidth = (width + scale - 1) / scale, outHeight = (height + scale - 1) / scale
        let gray = try [UInt8](unsafeUninitializedCapacity: outWidth * outHeight) { buffer, count in
            let status = bytes.withUnsafeBufferPointer {
                digits_jpeg_decode_gray($0.baseAddress, $0.count, Int32(scale), Int32(clamping: limits.maxJPEGScans),
                                        buffer.baseAddress, buffer.count, &info)
            }
            guard status == 0 else { throw failure(info, file: file) }
            guard Int(info.output_width) == outWidth, Int(info.output_height) == outHeight else {
                throw DigitError(.format, file: file, at: "JPEG header",
                                 "libjpeg decoded \(info.output_width)×\(info.output_height), expected \(outWidth)×\(outHeight)")
            }
            count = outWidth * outHeight
        }
        let stored = DecodedImage(width: outWidth, height: outHeight, gray: gray, format: .jpeg, color: color, bitDepth: 8,
                                  interlaced: info.progressive != 0, originalWidth: width, originalHeight: height, scale: scale)
        return stored.upright(orientation: ExifOrientation.read(bytes))
        #else
        throw DigitError(.format, file: file, notBuiltIn)
        #endif
    }

    /// A JPEG file of 8-bit gray (`gray`: row-major, `width * height` bytes) at `quality` 1…100
    /// (libjpeg's scale, 75 its default), baseline or progressive.
    public static func encode(gray: [UInt8], width: Int, height: Int, quality: Int = 90, progressive: Bool = false) throws -> [UInt8] {
        try encode(gray, components: 1, width: width, height: height, quality: quality, progressive: progressive)
    }

    /// A JPEG file (YCbCr, 4:2:0) of 8-bit RGB (`rgb`: row-major R, G, B, `width * height * 3` bytes)
    /// at `quality` 1…100, baseline or progressive.
    public static func encode(rgb: [UInt8], width: Int, height: Int, quality: Int = 90, progressive: Bool = false) throws -> [UInt8] {
        try encode(rgb, components: 3, width: width, height: height, quality: quality, progressive: progressive)
    }

    /// `encode(gray:…)` written to `path` atomically.
    public static func write(gray: [UInt8], width: Int, height: Int, quality: Int = 90, progressive: Bool = false,
                             to path: String) throws {
        try FileIO.writeAtomically(try encode(gray: gray, width: width, height: height, quality: quality, progressive: progressive), to: path)
    }

    /// `encode(rgb:…)` written to `path` atomically.
    public static func write(rgb: [UInt8], width: Int, height: Int, quality: Int = 90, progressive: Bool = false,
                             to path: String) throws {
        try FileIO.writeAtomically(try encode(rgb: rgb, width: width, height: height, quality: quality, progressive: progressive), to: path)
    }

    private static func encode(_ samples: [UInt8], components: Int, width: Int, height: Int, quality: Int,
                               progressive: Bool) throws -> [UInt8] {
        // 65,500 is libjpeg's JPEG_MAX_DIMENSION.
        try EncoderInput.check(samples.count, width: width, height: height, channels: components, maxSide: 65_500, format: "JPEG")
        guard (1...100).contains(quality) else {
            throw DigitError(.usage, "JPEG quality \(quality) is out of range 1…100")
        }
        #if DIGITS_JPEG
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 200)
        let status = samples.withUnsafeBufferPointer { pixels in
            digits_jpeg_encode(pixels.baseAddress, Int32(width), Int32(height), Int32(components), Int32(quality),
                               progressive ? 1 : 0, &output, &size, &message, message.count)
        }
        defer { digits_jpeg_free(output) }
        guard status == 0, let output else {
            let text = message.withUnsafeBufferPointer { $0.baseAddress.map { String(cString: $0) } ?? "" }
            throw DigitError(.format, "libjpeg cannot encode: \(text)")
        }
        return Array(UnsafeBufferPointer(start: output, count: size))
        #else
        throw DigitError(.format, notBuiltIn)
        #endif
    }

    #if DIGITS_JPEG
    private static func failure(_ info: digits_jpeg_info, file: String) -> DigitError {
        var copy = info
        let text = withUnsafeBytes(of: &copy.message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        if info.scan_limit != 0 {
            return DigitError(.limit, file: file, at: "byte \(info.error_offset)", "the progressive JPEG has \(text), the limit")
        }
        return DigitError(.format, file: file, at: "byte \(info.error_offset)", "cannot decode JPEG: \(text)")
    }
    #endif
}
