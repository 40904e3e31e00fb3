import DigitKit

/// Reads back 8-bit PNGs (gray, RGB, RGBA; no interlace) whose zlib stream uses stored or
/// fixed-Huffman DEFLATE blocks: what `PNGEncoder` and DigitKit's image writer produce. It
/// checks every CRC and the Adler-32, and stops on anything it does not understand, so tests
/// can compare screenshots pixel by pixel. Not a general PNG reader (no dynamic Huffman blocks).
public enum PNGDecoder {
    public struct Image: Equatable, Sendable {
        public var width: Int
        public var height: Int
        /// 0xFFRRGGBB per pixel (gray expanded, alpha dropped), row-major, y downward.
        public var pixels: [UInt32]
    }

    /// Largest accepted image, in pixels, so a header cannot ask for gigabytes.
    public static let maxPixels = 1 << 26

    public static func decode(_ bytes: [UInt8], file: String? = nil) throws -> Image {
        func fail(_ at: Int, _ message: String) -> DigitError { DigitError(.format, file: file, at: "byte \(at)", message) }
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count >= 8, Array(bytes[0..<8]) == signature else { throw fail(0, "not a PNG file (bad signature)") }
        var offset = 8
        var width = 0, height = 0, channels = 0
        var idat: [UInt8] = []
        var sawEnd = false
        func u32(_ at: Int) -> Int {
            Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        }
        while offset < bytes.count && !sawEnd {
            guard bytes.count - offset >= 12 else { throw fail(offset, "truncated chunk header") }
            let length = u32(offset)
            guard length <= bytes.count - offset - 12 else { throw fail(offset, "chunk length \(length) runs past the end of the file") }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let data = Array(bytes[(offset + 8)..<(offset + 8 + length)])
            let crc = UInt32(u32(offset + 8 + length))
            guard ImageIO.crc32(bytes[(offset + 4)..<(offset + 8 + length)]) == crc else {
                throw fail(offset, "CRC mismatch in chunk \(type)")
            }
            switch type {
            case "IHDR":
                guard length == 13 else { throw fail(offset, "IHDR must be 13 bytes, found \(length)") }
                width = u32(offset + 8)
                height = u32(offset + 12)
                let depth = data[8], color = data[9], interlace = data[12]
                guard depth == 8 else { throw fail(offset + 16, "bit depth \(depth) not supported (8 only)") }
                guard interlace == 0 else { throw fail(offset + 20, "interlaced PNG not supported") }
                switch color {
                case 0: channels = 1
                case 2: channels = 3
                case 6: channels = 4
                default: throw fail(offset + 17, "colour type \(color) not supported (0, 2 or 6)")
                }
                guard width > 0, height > 0, width <= maxPixels / height else {
                    throw fail(offset + 8, "image size \(width)×\(height) out of range")
                }
            case "IDAT":
                idat += data
            case "IEND":
                sawEnd = true
            default:
                break
            }
            offset += 12 + length
        }
        guard channels > 0 else { throw fail(8, "no IHDR chunk") }
        guard sawEnd else { throw fail(offset, "no IEND chunk") }
        let stride = width * channels
        // DEFLATE expands at most 1032:1 (258-byte matches of 2 bits): a header claiming more than
        // that of the data it came with is refused before anything is allocated for it.
        guard (stride + 1) * height <= idat.count * 1032 + 1024 else {
            throw fail(16, "image size \(width)×\(height) needs more data than the \(idat.count) compressed bytes can hold")
        }
        let raw = try inflateZlib(idat, expected: (stride + 1) * height, file: file)
        guard raw.count == (stride + 1) * height else {
            throw DigitError(.format, file: file, "image data is \(raw.count) bytes, expected \((stride + 1) * height)")
        }
        var pixels = [UInt32](repeating: 0, count: width * height)
        var previous = [UInt8](repeating: 0, count: stride)
        var row = [UInt8](repeating: 0, count: stride)
        for y in 0..<height {
            let base = y * (stride + 1)
            let filter = raw[base]
            for i in 0..<stride {
                let x = raw[base + 1 + i]
                let a = i >= channels ? row[i - channels] : 0
                let b = previous[i]
                let c = i >= channels ? previous[i - channels] : 0
                switch filter {
                case 0: row[i] = x
                case 1: row[i] = x &+ a
                case 2: row[i] = x &+ b
                case 3: row[i] = x &+ UInt8((Int(a) + Int(b)) / 2)
                case 4:
                    let p = Int(a) + Int(b) - Int(c)
                    let pa = abs(p - Int(a)), pb = abs(p - Int(b)), pc = abs(p - Int(c))
                    row[i] = x &+ (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)
                default:
                    throw DigitError(.format, file: file, at: "row \(y)", "unknown filter type \(filter)")
                }
            }
            for x in 0..<width {
                let p = x * channels
                let (r, g, b) = channels == 1 ? (row[p], row[p], row[p]) : (row[p], row[p + 1], row[p + 2])
                pixels[y * width + x] = 0xFF00_0000 | UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
            }
            swap(&previous, &row)
        }
        return Image(width: width, height: height, pixels: pixels)
    }

    /// Inflates a zlib stream of stored and fixed-Huffman blocks, refusing to grow past `expected` bytes.
    static func inflateZlib(_ data: [UInt8], expected: Int, file: String?) throws -> [UInt8] {
        func fail(_ message: String) -> DigitError { DigitError(.format, file: file, at: "zlib stream", message) }
        guard data.count >= 6, data[0] & 0x0F == 8, (Int(data[0]) << 8 | Int(data[1])) % 31 == 0 else {
            throw fail("bad zlib header")
        }
        var reader = BitReader(bytes: data, position: 2)
        var out: [UInt8] = []
        out.reserveCapacity(expected)
        var final = false
        while !final {
            final = try reader.bits(1) == 1
            switch try reader.bits(2) {
            case 0:
                reader.alignToByte()
                let length = try reader.bits(16), complement = try reader.bits(16)
                guard length ^ 0xFFFF == complement else { throw fail("stored block length check failed") }
                for _ in 0..<length { out.append(UInt8(try reader.bits(8))) }
            case 1:
                while true {
                    let symbol = try fixedSymbol(&reader)
                    if symbol < 256 {
                        out.append(UInt8(symbol))
                    } else if symbol == 256 {
                        break
                    } else {
                        let li = symbol - 257
                        guard li < PNGEncoder.lengthBase.count else { throw fail("bad length symbol \(symbol)") }
                        let length = PNGEncoder.lengthBase[li] + (try reader.bits(PNGEncoder.lengthExtra[li]))
                        let di = try reader.code(5)
                        guard di < PNGEncoder.distanceBase.count else { throw fail("bad distance symbol \(di)") }
                        let distance = PNGEncoder.distanceBase[di] + (try reader.bits(PNGEncoder.distanceExtra[di]))
                        guard distance <= out.count else { throw fail("distance \(distance) reaches before the start") }
                        for _ in 0..<length { out.append(out[out.count - distance]) }
                    }
                    guard out.count <= expected else { throw fail("more data than the image holds") }
                }
            default:
                throw fail("block type not supported (stored and fixed Huffman only)")
            }
            guard out.count <= expected else { throw fail("more data than the image holds") }
        }
        reader.alignToByte()
        guard reader.position + 4 <= data.count else { throw fail("missing Adler-32") }
        let p = reader.position
        let stored = UInt32(data[p]) << 24 | UInt32(data[p + 1]) << 16 | UInt32(data[p + 2]) << 8 | UInt32(data[p + 3])
        guard stored == ImageIO.adler32(out) else { throw fail("Adler-32 mismatch") }
        return out
    }

    static func fixedSymbol(_ reader: inout BitReader) throws -> Int {
        var code = try reader.code(7)
        if code <= 0x17 { return 256 + code }
        code = code << 1 | (try reader.bits(1))
        if code >= 0x30 && code <= 0xBF { return code - 0x30 }
        if code >= 0xC0 && code <= 0xC7 { return 280 + code - 0xC0 }
        code = code << 1 | (try reader.bits(1))
        if code >= 0x190 && code <= 0x1FF { return 144 + code - 0x190 }
        throw DigitError(.format, at: "zlib stream", "invalid fixed Huffman code")
    }

    struct BitReader {
        let bytes: [UInt8]
        var position: Int
        var bit = 0

        /// `n` bits, least significant first.
        mutating func bits(_ n: Int) throws -> Int {
            var value = 0
            for i in 0..<n {
                guard position < bytes.count else { throw DigitError(.format, at: "zlib stream", "truncated data") }
                value |= Int(bytes[position] >> UInt8(bit) & 1) << i
                bit += 1
                if bit == 8 { bit = 0; position += 1 }
            }
            return value
        }

        /// A Huffman code of `n` bits, most significant first.
        mutating func code(_ n: Int) throws -> Int {
            var value = 0
            for _ in 0..<n { value = value << 1 | (try bits(1)) }
            return value
        }

        mutating func alignToByte() {
            if bit != 0 { bit = 0; position += 1 }
        }
    }
}
