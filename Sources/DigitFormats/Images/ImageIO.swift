/// Small image writers of our own: 8-bit grayscale PNG and PGM, nearest-neighbour upscaling and
/// an ASCII view of a 28×28 buffer. Gray images are row-major bytes, 0 = black, 255 = white.
public enum ImageIO {
    /// `[0, 1]` floats to bytes: `round(clamp(v, 0, 1) * 255)`; NaN becomes 0.
    public static func grayBytes(_ image: [Float]) -> [UInt8] {
        image.map { v in v > 0 ? UInt8((min(v, 1) * 255).rounded()) : 0 }
    }

    /// Each pixel repeated `factor` × `factor` times (`factor` in 1…64). Throws when
    /// `gray.count != width * height` or the result would exceed 2^28 pixels.
    public static func upscale(_ gray: [UInt8], width: Int, height: Int, factor: Int) throws -> [UInt8] {
        try checkSize(gray, width: width, height: height)
        guard (1...64).contains(factor), gray.count * factor * factor <= 1 << 28 else {
            throw DigitError(.usage, "scale factor \(factor) is out of range for a \(width)×\(height) image")
        }
        let outWidth = width * factor
        var out = [UInt8](repeating: 0, count: outWidth * height * factor)
        for y in 0..<(height * factor) {
            let source = (y / factor) * width
            let row = y * outWidth
            for x in 0..<outWidth { out[row + x] = gray[source + x / factor] }
        }
        return out
    }

    /// A PNG file (color type 0, bit depth 8, no interlace): every scanline uses filter 0 and the
    /// zlib stream holds stored (uncompressed) deflate blocks of at most 65,535 bytes.
    public static func png(gray: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        try checkSize(gray, width: width, height: height)
        guard width >= 1, height >= 1, width < 1 << 24, height < 1 << 24 else {
            throw DigitError(.usage, "a PNG must be 1…16,777,215 pixels on each side, got \(width)×\(height)")
        }
        var raw: [UInt8] = []
        raw.reserveCapacity((width + 1) * height)
        for y in 0..<height {
            raw.append(0)  // filter type None
            raw.append(contentsOf: gray[(y * width)..<((y + 1) * width)])
        }
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        appendBigEndian(UInt32(width), to: &header)
        appendBigEndian(UInt32(height), to: &header)
        header += [8, 0, 0, 0, 0]  // bit depth, color type gray, deflate, adaptive filters, no interlace
        appendChunk("IHDR", header, to: &out)
        appendChunk("IDAT", zlibStored(raw), to: &out)
        appendChunk("IEND", [], to: &out)
        return out
    }

    /// A binary PGM (P5) file with maxval 255.
    public static func pgm(gray: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        try checkSize(gray, width: width, height: height)
        return Array("P5\n\(width) \(height)\n255\n".utf8) + gray
    }

    /// The 28×28 image as 28 lines of 56 characters (each pixel twice, so it looks square), darkest
    /// to brightest " .:-=+*#%@": 0 is a space, any ink at least ".", 1 is "@".
    public static func ascii(_ image: [Float], width: Int = 28) -> String {
        let ramp = Array(" .:-=+*#%@")
        var text = ""
        let height = width > 0 ? image.count / width : 0
        for y in 0..<height {
            for x in 0..<width {
                let v = image[y * width + x]
                let level = v > 0 ? min(ramp.count - 1, 1 + Int(min(v, 1) * Float(ramp.count - 1))) : 0
                text.append(ramp[level])
                text.append(ramp[level])
            }
            text.append("\n")
        }
        return text
    }

    /// CRC-32 (ISO 3309 / ITU-T V.42, reflected polynomial 0xEDB88320) as PNG chunks use it:
    /// the same checksum as gzip's, computed by `Gzip.crc32`.
    public static func crc32(_ bytes: [UInt8], initial: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBufferPointer { Gzip.crc32($0, continuing: initial) }
    }

    /// Adler-32 (RFC 1950) of `bytes`.
    public static func adler32<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var a: UInt32 = 1, b: UInt32 = 0
        var pending = 0
        for byte in bytes {
            a += UInt32(byte)
            b += a
            pending += 1
            // 5552 is the largest run for which b cannot overflow 32 bits before the reduction (zlib's NMAX).
            if pending == 5552 {
                a %= 65521
                b %= 65521
                pending = 0
            }
        }
        return (b % 65521) << 16 | (a % 65521)
    }

    /// A zlib stream (RFC 1950) of stored deflate blocks (RFC 1951 §3.2.4).
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]  // deflate, 32 KiB window; check bits make 0x7801 divisible by 31
        var start = 0
        repeat {
            let count = min(65_535, data.count - start)
            let final = start + count == data.count
            out.append(final ? 1 : 0)
            out.append(UInt8(count & 0xFF))
            out.append(UInt8(count >> 8))
            out.append(UInt8(~count & 0xFF))
            out.append(UInt8((~count >> 8) & 0xFF))
            out.append(contentsOf: data[start..<(start + count)])
            start += count
        } while start < data.count
        appendBigEndian(adler32(data), to: &out)
        return out
    }

    private static func appendChunk(_ type: String, _ data: [UInt8], to out: inout [UInt8]) {
        appendBigEndian(UInt32(data.count), to: &out)
        let typeBytes = Array(type.utf8)
        out += typeBytes
        out += data
        appendBigEndian(crc32(data, initial: crc32(typeBytes)), to: &out)
    }

    private static func appendBigEndian(_ value: UInt32, to out: inout [UInt8]) {
        out += [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    private static func checkSize(_ gray: [UInt8], width: Int, height: Int) throws {
        guard width >= 0, height >= 0, width.multipliedReportingOverflow(by: height) == (gray.count, false) else {
            throw DigitError(.usage, "image of \(gray.count) bytes does not match \(width)×\(height)")
        }
    }
}
