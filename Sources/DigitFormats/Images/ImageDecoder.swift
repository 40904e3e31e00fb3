/// One entry point for image files: the format is found from the first bytes, not the file name.
public enum ImageDecoder {
    /// The format `bytes` start like, or nil.
    public static func detect(_ bytes: [UInt8]) -> DecodedImage.Format? {
        if PNG.isPNG(bytes) { return .png }
        if JPEG.isJPEG(bytes) { return .jpeg }
        if PNM.isPNM(bytes) { return .pnm }
        return nil
    }

    /// Decodes a PNG, JPEG, or PGM/PPM (P2, P3, P5, P6) image to luminance (see `DecodedImage`).
    /// `maxSide` lets a large JPEG decode at 1/2, 1/4 or 1/8 scale (see `JPEG.scale`); other
    /// formats always decode at full size. Errors are `DigitError`s naming `file`.
    public static func decode(_ bytes: [UInt8], file: String, limits: ImageLimits = ImageLimits(),
                              maxSide: Int? = nil) throws -> DecodedImage {
        if let maxSide, maxSide < 1 {
            throw DigitError(.usage, "the longest side to decode to must be at least 1, got \(maxSide)")
        }
        switch detect(bytes) {
        case .png: return try PNG.decode(bytes, file: file, limits: limits)
        case .jpeg: return try JPEG.decode(bytes, file: file, limits: limits, maxSide: maxSide)
        case .pnm: return try PNM.decode(bytes, file: file, limits: limits)
        case nil: throw DigitError(.format, file: file, at: "byte 0", unknownFormat(bytes))
        }
    }

    /// Reads `path` (at most `limits.maxFileBytes` bytes; `-` is standard input) and decodes it.
    public static func read(path: String, limits: ImageLimits = ImageLimits(), maxSide: Int? = nil) throws -> DecodedImage {
        try decode(try FileIO.read(path, limit: limits.maxFileBytes), file: path, limits: limits, maxSide: maxSide)
    }

    /// Why `bytes` is not an image this decoder reads, naming the format when it is a known other one.
    static func unknownFormat(_ bytes: [UInt8]) -> String {
        if bytes.isEmpty { return "empty file, expected a PNG, JPEG or PGM/PPM image" }
        let known: [(magic: [UInt8], name: String)] = [
            (Array("GIF8".utf8), "a GIF image"), (Array("BM".utf8), "a BMP image"),
            ([0x49, 0x49, 0x2A, 0x00], "a TIFF image"), ([0x4D, 0x4D, 0x00, 0x2A], "a TIFF image"),
            (Array("P1".utf8), "a PBM bitmap (P1)"), (Array("P4".utf8), "a PBM bitmap (P4)"),
            (Array("P7".utf8), "a PAM image (P7)"), ([0x1F, 0x8B], "gzip data"),
        ]
        let start = bytes.prefix(4).map { b in (b < 16 ? "0" : "") + String(b, radix: 16) }.joined(separator: " ")
        if bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WEBP".utf8) {
            return "a WebP image, which is not supported: convert it to PNG"
        }
        for (magic, name) in known where bytes.starts(with: magic) {
            return "\(name), which is not supported: convert it to PNG"
        }
        return "not a PNG, JPEG or PGM/PPM (P2, P3, P5, P6) image (it starts with \(start))"
    }
}
