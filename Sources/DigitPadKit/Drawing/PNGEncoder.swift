import DigitApp
import DigitKit

/// A small PNG writer for screenshots: 8-bit RGB (colour type 2; DigitKit's `ImageIO` writes
/// gray only), no interlace
/// (PNG specification, ISO/IEC 15948). Each row gets the Sub or Up filter, whichever leaves
/// smaller residuals; the zlib stream (RFC 1950) is one DEFLATE block with the fixed Huffman
/// code (RFC 1951 §3.2.6) and greedy LZ77 matching over a 32 KiB window. Flat interface
/// areas become long runs of zeros after filtering, so a 960×600 screenshot is a few tens of
/// kilobytes instead of the 1.7 MB a stored (uncompressed) stream would take.
public enum PNGEncoder {
    /// Encodes `width × height` pixels given as 0xAARRGGBB (alpha ignored), row-major, y downward.
    /// Returns nil when the sizes are not positive or `argb` is shorter than `width * height`.
    public static func encodeRGB(width: Int, height: Int, argb: [UInt32]) -> [UInt8]? {
        guard width > 0, height > 0, width <= 1 << 20, height <= 1 << 20,
              argb.count >= width * height else { return nil }
        let stride = width * 3
        var raw = [UInt8](repeating: 0, count: (stride + 1) * height)
        // Raw pointers: this runs over every byte of the picture, and tests run debug builds.
        argb.withUnsafeBufferPointer { pixels in
            raw.withUnsafeMutableBufferPointer { out in
                for y in 0..<height {
                    let rowStart = y * width
                    var subCost = 0, upCost = 0
                    for x in 0..<width {
                        let p = pixels[rowStart + x]
                        let left = x > 0 ? pixels[rowStart + x - 1] : 0
                        let above = y > 0 ? pixels[rowStart + x - width] : 0
                        for shift in [16, 8, 0] as [UInt32] {
                            let v = UInt8(truncatingIfNeeded: p >> shift)
                            subCost += Int(Int8(bitPattern: v &- UInt8(truncatingIfNeeded: left >> shift)).magnitude)
                            upCost += Int(Int8(bitPattern: v &- UInt8(truncatingIfNeeded: above >> shift)).magnitude)
                        }
                    }
                    let useUp = y > 0 && upCost < subCost
                    var o = y * (stride + 1)
                    out[o] = useUp ? 2 : 1
                    o += 1
                    for x in 0..<width {
                        let p = pixels[rowStart + x]
                        let reference = useUp ? pixels[rowStart + x - width] : (x > 0 ? pixels[rowStart + x - 1] : 0)
                        out[o] = UInt8(truncatingIfNeeded: p >> 16) &- UInt8(truncatingIfNeeded: reference >> 16)
                        out[o + 1] = UInt8(truncatingIfNeeded: p >> 8) &- UInt8(truncatingIfNeeded: reference >> 8)
                        out[o + 2] = UInt8(truncatingIfNeeded: p) &- UInt8(truncatingIfNeeded: reference)
                        o += 3
                    }
                }
            }
        }

        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header = [UInt8]()
        appendBigEndian(UInt32(width), to: &header)
        appendBigEndian(UInt32(height), to: &header)
        header += [8, 2, 0, 0, 0]   // bit depth 8, RGB, deflate, adaptive filtering, no interlace
        appendChunk("IHDR", header, to: &png)
        appendChunk("IDAT", zlib(raw), to: &png)
        appendChunk("IEND", [], to: &png)
        return png
    }

    // MARK: - zlib / DEFLATE

    /// A zlib stream: header (deflate, 32 KiB window), one fixed-Huffman block, Adler-32.
    static func zlib(_ data: [UInt8]) -> [UInt8] {
        var out = BitWriter()
        out.bytes = [0x78, 0x01]
        deflateFixed(data, into: &out)
        out.flush()
        appendBigEndian(ImageIO.adler32(data), to: &out.bytes)
        return out.bytes
    }

    struct BitWriter {
        var bytes: [UInt8] = []
        var buffer: UInt64 = 0
        var count = 0

        /// Appends the low `n` bits of `value`, least significant first (DEFLATE's bit order).
        mutating func write(_ value: UInt32, _ n: Int) {
            buffer |= UInt64(value & ((1 << UInt32(n)) - 1)) << UInt64(count)
            count += n
            while count >= 8 {
                bytes.append(UInt8(truncatingIfNeeded: buffer))
                buffer >>= 8
                count -= 8
            }
        }

        mutating func flush() {
            if count > 0 { bytes.append(UInt8(truncatingIfNeeded: buffer)) }
            buffer = 0
            count = 0
        }
    }

    static let lengthBase: [Int] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                    35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra: [Int] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                     3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase: [Int] = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
                                      257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
                                      8193, 12289, 16385, 24577]
    static let distanceExtra: [Int] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
                                       7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    /// Reverses the low `n` bits: Huffman codes are stored most significant bit first.
    static func reversed(_ code: UInt32, _ n: Int) -> UInt32 {
        var r: UInt32 = 0
        for i in 0..<n where code & (1 << UInt32(i)) != 0 { r |= 1 << UInt32(n - 1 - i) }
        return r
    }

    /// The fixed literal/length code of each symbol 0…287, bit-reversed, with its length.
    static let fixedCodes: [(bits: UInt32, length: Int)] = (0..<288).map { symbol in
        switch symbol {
        case 0...143: return (reversed(UInt32(0x30 + symbol), 8), 8)
        case 144...255: return (reversed(UInt32(0x190 + symbol - 144), 9), 9)
        case 256...279: return (reversed(UInt32(symbol - 256), 7), 7)
        default: return (reversed(UInt32(0xC0 + symbol - 280), 8), 8)
        }
    }

    /// For each match length 3…258 (index = length): its length code index into `lengthBase`.
    static let lengthIndex: [Int] = (0...258).map { length in
        var i = lengthBase.count - 1
        while i > 0 && lengthBase[i] > length { i -= 1 }
        return i
    }

    static func writeSymbol(_ symbol: Int, _ out: inout BitWriter) {
        let code = fixedCodes[symbol]
        out.write(code.bits, code.length)
    }

    static func writeMatch(length: Int, distance: Int, _ out: inout BitWriter) {
        let li = lengthIndex[length]
        writeSymbol(257 + li, &out)
        if lengthExtra[li] > 0 { out.write(UInt32(length - lengthBase[li]), lengthExtra[li]) }
        var di = distanceBase.count - 1
        while distanceBase[di] > distance { di -= 1 }
        out.write(reversed(UInt32(di), 5), 5)
        if distanceExtra[di] > 0 { out.write(UInt32(distance - distanceBase[di]), distanceExtra[di]) }
    }

    static func deflateFixed(_ data: [UInt8], into out: inout BitWriter) {
        out.write(1, 1)   // BFINAL
        out.write(1, 2)   // BTYPE 01: fixed Huffman codes
        let window = 32768, maxMatch = 258, minMatch = 3, chainLimit = 16
        let hashSize = 1 << 15
        var headStorage = [Int32](repeating: -1, count: hashSize)
        var prevStorage = [Int32](repeating: -1, count: window)
        data.withUnsafeBufferPointer { d in
            headStorage.withUnsafeMutableBufferPointer { head in
                prevStorage.withUnsafeMutableBufferPointer { prev in
                    let n = d.count
                    func hash(_ i: Int) -> Int {
                        (Int(d[i]) << 10 ^ Int(d[i + 1]) << 5 ^ Int(d[i + 2])) & (hashSize - 1)
                    }
                    func insert(_ i: Int) {
                        guard i + minMatch <= n else { return }
                        let h = hash(i)
                        prev[i & (window - 1)] = head[h]
                        head[h] = Int32(i)
                    }
                    var i = 0
                    while i < n {
                        var bestLength = 0, bestDistance = 0
                        if i + minMatch <= n {
                            var candidate = Int(head[hash(i)])
                            var steps = 0
                            let limit = min(maxMatch, n - i)
                            while candidate >= 0 && i - candidate <= window && steps < chainLimit {
                                var length = 0
                                while length < limit && d[candidate + length] == d[i + length] { length += 1 }
                                if length > bestLength {
                                    bestLength = length
                                    bestDistance = i - candidate
                                    if length == limit { break }
                                }
                                let next = Int(prev[candidate & (window - 1)])
                                if next >= candidate { break }   // the slot was reused by a newer position
                                candidate = next
                                steps += 1
                            }
                        }
                        if bestLength >= minMatch {
                            writeMatch(length: bestLength, distance: bestDistance, &out)
                            for k in 0..<bestLength { insert(i + k) }
                            i += bestLength
                        } else {
                            writeSymbol(Int(d[i]), &out)
                            insert(i)
                            i += 1
                        }
                    }
                }
            }
        }
        writeSymbol(256, &out)   // end of block
    }

    // MARK: - Chunks (checksums from DigitKit's ImageIO)

    static func appendBigEndian(_ v: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(truncatingIfNeeded: v >> 24), UInt8(truncatingIfNeeded: v >> 16),
                  UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)]
    }

    static func appendChunk(_ type: String, _ data: [UInt8], to png: inout [UInt8]) {
        appendBigEndian(UInt32(data.count), to: &png)
        let typeBytes = Array(type.utf8)
        png += typeBytes
        png += data
        appendBigEndian(ImageIO.crc32(typeBytes + data), to: &png)
    }
}
