import DigitApp
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
            guard ImageIO.crc32(Array(bytes[(offset + 4)..<(offset + 8 + length)])) == crc else {
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
        var rows = [UInt8](repeating: 0, count: 2 * stride)   // the previous row, then the current one
        var badFilter: (row: Int, type: UInt8)?
        raw.withUnsafeBufferPointer { raw in
            pixels.withUnsafeMutableBufferPointer { pixels in
                rows.withUnsafeMutableBufferPointer { rows in
                    var previous = 0, current = stride
                    for y in 0..<height {
                        let base = y * (stride + 1)
                        let filter = raw[base]
                        guard filter <= 4 else { badFilter = (y, filter); return }
                        for i in 0..<stride {
                            let x = raw[base + 1 + i]
                            let a = i >= channels ? rows[current + i - channels] : 0
                            let b = rows[previous + i]
                            let c = i >= channels ? rows[previous + i - channels] : 0
                            switch filter {
                            case 0: rows[current + i] = x
                            case 1: rows[current + i] = x &+ a
                            case 2: rows[current + i] = x &+ b
                            case 3: rows[current + i] = x &+ UInt8((Int(a) + Int(b)) / 2)
                            default:
                                let p = Int(a) + Int(b) - Int(c)
                                let pa = abs(p - Int(a)), pb = abs(p - Int(b)), pc = abs(p - Int(c))
                                rows[current + i] = x &+ (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)
                            }
                        }
                        for x in 0..<width {
                            let p = current + x * channels
                            let r = UInt32(rows[p])
                            let g = channels == 1 ? r : UInt32(rows[p + 1])
                            let b = channels == 1 ? r : UInt32(rows[p + 2])
                            pixels[y * width + x] = 0xFF00_0000 | r << 16 | g << 8 | b
                        }
                        swap(&previous, &current)
                    }
                }
            }
        }
        if let badFilter {
            throw DigitError(.format, file: file, at: "row \(badFilter.row)", "unknown filter type \(badFilter.type)")
        }
        return Image(width: width, height: height, pixels: pixels)
    }

    /// The fixed literal/length code (RFC 1951 §3.2.6) as a table indexed by the next 9 input
    /// bits (least significant first): the symbol and how many of those bits its code takes.
    static let fixedTable: [(symbol: Int, length: Int)] = {
        var table = [(symbol: Int, length: Int)](repeating: (0, 0), count: 512)
        for (symbol, code) in PNGEncoder.fixedCodes.enumerated() {
            var fill = Int(code.bits)
            while fill < 512 {
                table[fill] = (symbol, code.length)
                fill += 1 << code.length
            }
        }
        return table
    }()

    /// Inflates a zlib stream of stored and fixed-Huffman blocks into exactly `expected` bytes at most.
    static func inflateZlib(_ data: [UInt8], expected: Int, file: String?) throws -> [UInt8] {
        func fail(_ message: String) -> DigitError { DigitError(.format, file: file, at: "zlib stream", message) }
        guard data.count >= 6, data[0] & 0x0F == 8, (Int(data[0]) << 8 | Int(data[1])) % 31 == 0 else {
            throw fail("bad zlib header")
        }
        var out = [UInt8](repeating: 0, count: expected)
        var produced = 0
        var reader = BitReader(bytes: data, position: 2)
        try out.withUnsafeMutableBufferPointer { out in
            var final = false
            while !final {
                final = try reader.bits(1) == 1
                switch try reader.bits(2) {
                case 0:
                    reader.alignToByte()
                    let length = try reader.bits(16), complement = try reader.bits(16)
                    guard length ^ 0xFFFF == complement else { throw fail("stored block length check failed") }
                    guard length <= expected - produced else { throw fail("more data than the image holds") }
                    for _ in 0..<length {
                        out[produced] = UInt8(try reader.bits(8))
                        produced += 1
                    }
                case 1:
                    while true {
                        let entry = fixedTable[try reader.peek(9)]
                        reader.skip(entry.length)
                        let symbol = entry.symbol
                        if symbol < 256 {
                            guard produced < expected else { throw fail("more data than the image holds") }
                            out[produced] = UInt8(symbol)
                            produced += 1
                        } else if symbol == 256 {
                            break
                        } else {
                            let li = symbol - 257
                            guard li < PNGEncoder.lengthBase.count else { throw fail("bad length symbol \(symbol)") }
                            let length = PNGEncoder.lengthBase[li] + (try reader.bits(PNGEncoder.lengthExtra[li]))
                            let di = Int(PNGEncoder.reversed(UInt32(try reader.bits(5)), 5))
                            guard di < PNGEncoder.distanceBase.count else { throw fail("bad distance symbol \(di)") }
                            let distance = PNGEncoder.distanceBase[di] + (try reader.bits(PNGEncoder.distanceExtra[di]))
                            guard distance <= produced else { throw fail("distance \(distance) reaches before the start") }
                            guard length <= expected - produced else { throw fail("more data than the image holds") }
                            for _ in 0..<length {
                                out[produced] = out[produced - distance]
                                produced += 1
                            }
                        }
                    }
                default:
                    throw fail("block type not supported (stored and fixed Huffman only)")
                }
            }
        }
        reader.alignToByte()
        guard reader.position + 4 <= data.count else { throw fail("missing Adler-32") }
        let p = reader.position
        out.removeLast(expected - produced)
        let stored = UInt32(data[p]) << 24 | UInt32(data[p + 1]) << 16 | UInt32(data[p + 2]) << 8 | UInt32(data[p + 3])
        guard stored == ImageIO.adler32(out) else { throw fail("Adler-32 mismatch") }
        return out
    }

    /// Reads DEFLATE's least-significant-bit-first stream through a 64-bit buffer.
    struct BitReader {
        let bytes: [UInt8]
        /// The next byte not yet in `buffer`.
        var position: Int
        var buffer: UInt64 = 0
        var count = 0

        init(bytes: [UInt8], position: Int) {
            self.bytes = bytes
            self.position = position
        }

        private mutating func refill() {
            while count <= 56 && position < bytes.count {
                buffer |= UInt64(bytes[position]) << UInt64(count)
                position += 1
                count += 8
            }
        }

        /// The next `n` (≤ 32) bits without consuming them; missing bits past the end read as 0
        /// until consumed.
        mutating func peek(_ n: Int) throws -> Int {
            if count < n { refill() }
            if count == 0 { throw DigitError(.format, at: "zlib stream", "truncated data") }
            return Int(buffer & ((1 << UInt64(n)) - 1))
        }

        mutating func skip(_ n: Int) {
            buffer >>= UInt64(n)
            count -= n
        }

        /// `n` bits, least significant first.
        mutating func bits(_ n: Int) throws -> Int {
            if n == 0 { return 0 }
            if count < n { refill() }
            guard count >= n else { throw DigitError(.format, at: "zlib stream", "truncated data") }
            let value = Int(buffer & ((1 << UInt64(n)) - 1))
            skip(n)
            return value
        }

        /// Drops the bits left in the current byte; bytes already buffered are given back.
        mutating func alignToByte() {
            skip(count % 8)
            position -= count / 8
            buffer = 0
            count = 0
        }
    }
}
