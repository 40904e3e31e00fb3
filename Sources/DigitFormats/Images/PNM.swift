/// Netpbm gray and colour images: PGM (P2 plain, P5 raw) and PPM (P3 plain, P6 raw), read to
/// luminance; P5 and P6 written.
///
/// The header follows the netpbm specification: the magic number, width, height and maxval
/// (1…65,535) as ASCII decimals separated by whitespace (space, tab, CR, LF, VT, FF); a `#` starts
/// a comment that runs to the end of the line and counts as whitespace, anywhere in the header (as
/// netpbm's own reader treats it). In raw files exactly one whitespace character follows maxval,
/// then the samples: one byte each when maxval < 256, else two, big-endian. In plain files the
/// samples are decimals separated by whitespace. A sample over maxval is an error. Bytes after the
/// image (netpbm allows several images in a file) are ignored.
public enum PNM {
    /// True for `P2`, `P3`, `P5` or `P6` followed by whitespace, a comment or the end.
    public static func isPNM(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "P"), [UInt8(ascii: "2"), 0x33, 0x35, 0x36].contains(bytes[1]) else { return false }
        return bytes.count == 2 || isSpace(bytes[2]) || bytes[2] == UInt8(ascii: "#")
    }

    /// Decodes a P2, P3, P5 or P6 image to luminance (the arithmetic of `DecodedImage`).
    public static func decode(_ bytes: [UInt8], file: String, limits: ImageLimits = ImageLimits()) throws -> DecodedImage {
        try bytes.withUnsafeBufferPointer { input in
            var reader = PNMReader(input: input, file: file)
            return try reader.decode(limits: limits)
        }
    }

    /// A P5 file, maxval 255: `gray` is row-major, `width * height` bytes, 0 = black.
    public static func encodeP5(gray: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        try EncoderInput.check(gray.count, width: width, height: height, channels: 1, maxSide: Int(Int32.max), format: "PGM")
        return Array("P5\n\(width) \(height)\n255\n".utf8) + gray
    }

    /// A P6 file, maxval 255: `rgb` is row-major R, G, B, `width * height * 3` bytes.
    public static func encodeP6(rgb: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        try EncoderInput.check(rgb.count, width: width, height: height, channels: 3, maxSide: Int(Int32.max), format: "PPM")
        return Array("P6\n\(width) \(height)\n255\n".utf8) + rgb
    }

    /// `encodeP5` written to `path` atomically.
    public static func writeP5(gray: [UInt8], width: Int, height: Int, to path: String) throws {
        try FileIO.writeAtomically(try encodeP5(gray: gray, width: width, height: height), to: path)
    }

    /// `encodeP6` written to `path` atomically.
    public static func writeP6(rgb: [UInt8], width: Int, height: Int, to path: String) throws {
        try FileIO.writeAtomically(try encodeP6(rgb: rgb, width: width, height: height), to: path)
    }

    static func isSpace(_ c: UInt8) -> Bool {
        c == 0x20 || (0x09...0x0D).contains(c)
    }
}

private struct PNMReader {
    let input: UnsafeBufferPointer<UInt8>
    let file: String
    var pos = 2

    init(input: UnsafeBufferPointer<UInt8>, file: String) {
        self.input = input
        self.file = file
    }

    func error(_ message: String, at place: Int) -> DigitError {
        DigitError(.format, file: file, at: "byte \(place)", message)
    }

    /// The next character, a whole comment read as the line break that ends it (netpbm's pm_getc);
    /// nil at the end of the input.
    mutating func next() -> UInt8? {
        guard pos < input.count else { return nil }
        var c = input[pos]
        pos += 1
        if c == UInt8(ascii: "#") {
            while pos < input.count && input[pos] != 0x0A && input[pos] != 0x0D { pos += 1 }
            guard pos < input.count else { return nil }
            c = input[pos]
            pos += 1
        }
        return c
    }

    /// A decimal number after optional whitespace, and the one character after it, which must be
    /// whitespace or the end of the input when `endOK`. Values over `max` are refused as `what`.
    mutating func number(_ what: String, max: Int, endOK: Bool = false) throws -> Int {
        var c = next()
        while let ch = c, PNM.isSpace(ch) { c = next() }
        let start = pos - 1
        guard let first = c, (0x30...0x39).contains(first) else {
            if c == nil { throw error("truncated: the file ends before the \(what)", at: input.count) }
            throw error("expected the \(what) as a decimal number, found \(shown(c))", at: start)
        }
        var value = Int(first - 0x30)
        while true {
            c = next()
            guard let ch = c, (0x30...0x39).contains(ch) else { break }
            value = value * 10 + Int(ch - 0x30)
            if value > max { throw error("the \(what) is over \(max)", at: start) }
        }
        if value > max { throw error("the \(what) \(value) is over \(max)", at: start) }
        if let ch = c, !PNM.isSpace(ch) {
            throw error("expected whitespace after the \(what), found \(shown(c))", at: pos - 1)
        }
        if c == nil && !endOK { throw error("truncated: the file ends after the \(what)", at: input.count) }
        return value
    }

    func shown(_ c: UInt8?) -> String {
        guard let c else { return "the end of the file" }
        return (0x21...0x7E).contains(c) ? "'\(Character(Unicode.Scalar(c)))'" : "byte 0x\(String(c, radix: 16))"
    }

    mutating func decode(limits: ImageLimits) throws -> DecodedImage {
        guard input.count >= 2, input[0] == UInt8(ascii: "P"), [UInt8(ascii: "2"), 0x33, 0x35, 0x36].contains(input[1]) else {
            throw error("not a PGM or PPM file (expected P2, P3, P5 or P6)", at: 0)
        }
        let magic = "P" + String(Character(Unicode.Scalar(input[1])))
        let plain = input[1] == 0x32 || input[1] == 0x33
        let channels = input[1] == 0x33 || input[1] == 0x36 ? 3 : 1
        // Sides over 2^31 are refused while reading the digits, before any arithmetic on them.
        let width = try number("width", max: Int(Int32.max))
        let height = try number("height", max: Int(Int32.max))
        let maxval = try number("maxval", max: 65535)
        guard maxval >= 1 else { throw error("maxval 0, expected 1 to 65535", at: pos - 2) }
        try limits.check(width: width, height: height, file: file, at: "byte 0", what: "the \(magic) header")
        let (_, overflow) = (width * height).multipliedReportingOverflow(by: channels * 2)
        guard !overflow else { throw DigitError(.limit, file: file, at: "byte 0", "\(width)×\(height) is too large") }
        let samples = width * height * channels
        let gray: [UInt8]
        if plain {
            // Each sample is at least one digit and one separator: a file too short for that is
            // refused before the image is allocated.
            guard input.count - pos >= 2 * samples - 1 else {
                throw error("truncated: \(width)×\(height) \(magic) data needs at least \(2 * samples - 1) bytes, \(input.count - pos) are left", at: input.count)
            }
            gray = try readPlain(width: width, height: height, channels: channels, maxval: maxval)
        } else {
            let bytesPerSample = maxval > 255 ? 2 : 1
            let needed = samples * bytesPerSample
            guard input.count - pos >= needed else {
                let have = input.count - pos
                let row = have / (width * channels * bytesPerSample)
                throw error("truncated: \(magic) data ends in row \(row) after \(have) of \(needed) bytes", at: input.count)
            }
            gray = try readRaw(width: width, height: height, channels: channels, maxval: maxval)
        }
        return DecodedImage(width: width, height: height, gray: gray, format: .pnm, color: channels == 3 ? .rgb : .gray,
                            bitDepth: maxval > 255 ? 16 : 8, maxValue: maxval, variant: magic)
    }

    mutating func readPlain(width: Int, height: Int, channels: Int, maxval: Int) throws -> [UInt8] {
        var gray = [UInt8](repeating: 0, count: width * height)
        var sample = [0, 0, 0]
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<channels {
                    let last = y == height - 1 && x == width - 1 && c == channels - 1
                    let what = "sample at row \(y), column \(x)"
                    let start = pos
                    let v = try number(what, max: 65535, endOK: last)
                    guard v <= maxval else { throw error("the \(what) is \(v), over maxval \(maxval)", at: start) }
                    sample[c] = Pixel.reduce(v, max: maxval)
                }
                gray[y * width + x] = UInt8(channels == 1 ? sample[0] : Pixel.luminance(sample[0], sample[1], sample[2]))
            }
        }
        return gray
    }

    func readRaw(width: Int, height: Int, channels: Int, maxval: Int) throws -> [UInt8] {
        var gray = [UInt8](repeating: 0, count: width * height)
        let start = pos
        let wide = maxval > 255
        // 8-bit samples go through a table; 16-bit ones are computed.
        let table: [UInt8] = wide ? [] : (0...255).map { UInt8(Pixel.reduce(min($0, maxval), max: maxval)) }
        var badSample: Int?
        gray.withUnsafeMutableBufferPointer { out in
            guard let base = input.baseAddress else { return }
            let p = base + start
            switch (channels, wide) {
            case (1, false):
                if maxval == 255 {
                    out.baseAddress?.update(from: p, count: out.count)
                    return
                }
                for i in 0..<out.count {
                    if Int(p[i]) > maxval { badSample = i; return }
                    out[i] = table[Int(p[i])]
                }
            case (3, false):
                for i in 0..<out.count {
                    let r = Int(p[3 * i]), g = Int(p[3 * i + 1]), b = Int(p[3 * i + 2])
                    if max(r, g, b) > maxval { badSample = 3 * i + (r > maxval ? 0 : g > maxval ? 1 : 2); return }
                    out[i] = UInt8(Pixel.luminance(Int(table[r]), Int(table[g]), Int(table[b])))
                }
            default:
                var s = [0, 0, 0]
                for i in 0..<out.count {
                    for c in 0..<channels {
                        let k = channels * i + c
                        let v = Int(p[2 * k]) << 8 | Int(p[2 * k + 1])
                        if v > maxval { badSample = k; return }
                        s[c] = Pixel.reduce(v, max: maxval)
                    }
                    out[i] = UInt8(channels == 1 ? s[0] : Pixel.luminance(s[0], s[1], s[2]))
                }
            }
        }
        if let k = badSample {
            let pixel = k / channels
            let size = wide ? 2 : 1
            let v = wide ? Int(input[start + 2 * k]) << 8 | Int(input[start + 2 * k + 1]) : Int(input[start + k])
            throw error("the sample at row \(pixel / width), column \(pixel % width) is \(v), over maxval \(maxval)", at: start + k * size)
        }
        return gray
    }
}
