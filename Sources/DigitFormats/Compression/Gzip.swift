/// gzip (RFC 1952) and DEFLATE (RFC 1951) decompression in plain Swift, so that reading the
/// published MNIST `.gz` files needs nothing but the Swift toolchain (no zlib).
///
/// Supported: stored, fixed-Huffman and dynamic-Huffman blocks; the FEXTRA, FNAME, FCOMMENT
/// and FHCRC header fields (skipped, the header CRC verified); several members one after the
/// other (their outputs are concatenated, as `gzip -d` does). Every member's CRC-32 and ISIZE
/// are verified. Anything after the last member other than another member is an error.
///
/// Errors are `DigitError`s naming the file and the byte offset in the compressed input where
/// the problem was found: `.format` for malformed or truncated data, `.limit` when the
/// output would exceed `limit` bytes.
public enum Gzip {
    /// True when `bytes` starts with the gzip magic bytes 0x1f 0x8b.
    public static func isGzip(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
    }

    /// Decompresses a whole gzip file. The output is at most `limit` bytes; a larger output
    /// fails with a `.limit` error as soon as the limit is crossed, without allocating past it.
    public static func decompress(_ bytes: [UInt8], file: String, limit: Int) throws -> [UInt8] {
        guard isGzip(bytes) else {
            throw DigitError(.format, file: file, at: "byte 0", "not a gzip file (expected magic bytes 1f 8b)")
        }
        // ISIZE of the last member is a hint only (it is the size modulo 2^32 and untrusted):
        // DEFLATE cannot expand more than 1032:1, so the hint is also bounded by the input length.
        let n = bytes.count
        let isize = n >= 4 ? Int(UInt32(bytes[n - 4]) | UInt32(bytes[n - 3]) << 8 | UInt32(bytes[n - 2]) << 16 | UInt32(bytes[n - 1]) << 24) : 0
        let (bound, overflow) = n.multipliedReportingOverflow(by: 1032)
        let hint = min(isize, limit, overflow ? Int.max : bound)
        let output = OutputBuffer(capacity: max(hint, 1 << 12), limit: limit, file: file)
        try bytes.withUnsafeBufferPointer { input in
            var inflater = Inflater(input: input, output: output, file: file)
            try inflater.run()
        }
        return output.array()
    }

    /// The CRC-32 of RFC 1952 (polynomial 0xEDB88320, reflected), continuing from `crc`
    /// (0 for a fresh checksum).
    public static func crc32(_ bytes: UnsafeBufferPointer<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
        CRC32.update(crc, bytes)
    }

    /// The CRC-32 of `bytes`.
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { CRC32.update(0, $0) }
    }
}

// MARK: - CRC-32

/// Slicing-by-8 CRC-32: eight 256-entry tables let the loop fold in 8 bytes per step,
/// several times faster than the byte-at-a-time table for the 47 MB of MNIST.
private enum CRC32 {
    static let tables: [UInt32] = {
        var t = [UInt32](repeating: 0, count: 8 * 256)
        for i in 0..<256 {
            var c = UInt32(i)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            t[i] = c
        }
        for k in 1..<8 {
            for i in 0..<256 {
                let prev = t[(k - 1) * 256 + i]
                t[k * 256 + i] = (prev >> 8) ^ t[Int(prev & 0xFF)]
            }
        }
        return t
    }()

    static func update(_ start: UInt32, _ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        guard let base = bytes.baseAddress else { return start }
        var crc = ~start
        var i = 0
        let n = bytes.count
        tables.withUnsafeBufferPointer { t in
            while i + 8 <= n {
                let lo = crc ^ (UInt32(base[i]) | UInt32(base[i + 1]) << 8 | UInt32(base[i + 2]) << 16 | UInt32(base[i + 3]) << 24)
                crc = t[7 * 256 + Int(lo & 0xFF)] ^ t[6 * 256 + Int(lo >> 8 & 0xFF)]
                    ^ t[5 * 256 + Int(lo >> 16 & 0xFF)] ^ t[4 * 256 + Int(lo >> 24)]
                    ^ t[3 * 256 + Int(base[i + 4])] ^ t[2 * 256 + Int(base[i + 5])]
                    ^ t[1 * 256 + Int(base[i + 6])] ^ t[Int(base[i + 7])]
                i += 8
            }
            while i < n {
                crc = (crc >> 8) ^ t[Int((crc ^ UInt32(base[i])) & 0xFF)]
                i += 1
            }
        }
        return ~crc
    }
}

// MARK: - Output

/// A growable byte buffer that refuses to grow past `limit`.
private final class OutputBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    /// The usable size: the allocated size, but never more than `limit`.
    private(set) var capacity: Int
    var count = 0
    let limit: Int
    let file: String

    init(capacity: Int, limit: Int, file: String) {
        self.capacity = max(0, min(capacity, limit))
        base = .allocate(capacity: max(self.capacity, 1))
        self.limit = limit
        self.file = file
    }

    deinit { base.deallocate() }

    /// Makes room for `extra` more bytes; `offset` (in the input) is for the error message.
    @inline(__always) func reserve(_ extra: Int, offset: Int) throws {
        if count + extra > capacity { try grow(count + extra, offset: offset) }
    }

    private func grow(_ needed: Int, offset: Int) throws {
        guard needed <= limit else {
            throw DigitError(.limit, file: file, at: "byte \(offset)",
                             "decompressed data is larger than the limit of \(limit) bytes")
        }
        let doubled = capacity > limit / 2 ? limit : capacity * 2
        let newCapacity = min(max(doubled, needed), limit)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    func array() -> [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }
}

// MARK: - Huffman codes

/// A canonical Huffman code (RFC 1951 §3.2.2). Codes of up to `fastBits` bits decode with one
/// table look-up; longer (rare) ones by walking the per-length counts, as in zlib's `puff.c`.
private struct Huffman {
    static let fastBits = 10
    /// Indexed by the next `fastBits` input bits: `symbol << 4 | length`, or 0 for a longer code.
    var fast: [UInt16]
    /// How many codes have each length 0...15.
    var counts: [Int]
    /// Symbols ordered by code length, then by value.
    var symbols: [UInt16]
    /// True when the lengths leave some bit patterns unused.
    var incomplete: Bool

    /// Builds the code from per-symbol lengths in 0...15 (0 = unused). Fails when over-subscribed.
    init(lengths: [UInt8]) throws {
        var counts = [Int](repeating: 0, count: 16)
        for l in lengths { counts[Int(l)] += 1 }
        counts[0] = 0
        var left = 1
        for len in 1...15 {
            left = left << 1 - counts[len]
            if left < 0 { throw HuffmanError.overSubscribed }
        }
        incomplete = left > 0
        var offsets = [Int](repeating: 0, count: 16)
        for len in 1..<15 { offsets[len + 1] = offsets[len] + counts[len] }
        var symbols = [UInt16](repeating: 0, count: max(1, offsets[15] + counts[15]))
        for (symbol, l) in lengths.enumerated() where l != 0 {
            symbols[offsets[Int(l)]] = UInt16(symbol)
            offsets[Int(l)] += 1
        }
        var fast = [UInt16](repeating: 0, count: 1 << Huffman.fastBits)
        var code = 0
        var index = 0
        for len in 1...Huffman.fastBits {
            for _ in 0..<counts[len] {
                // Codes are sent most significant bit first; the bit reader yields the first
                // bit lowest, so the table is indexed by the reversed code.
                var reversed = 0
                for b in 0..<len where code >> b & 1 != 0 { reversed |= 1 << (len - 1 - b) }
                let entry = symbols[index] << 4 | UInt16(len)
                var slot = reversed
                while slot < fast.count {
                    fast[slot] = entry
                    slot += 1 << len
                }
                code += 1
                index += 1
            }
            code <<= 1
        }
        self.fast = fast
        self.counts = counts
        self.symbols = symbols
    }

    /// The longest code length used, 0 when there are no codes.
    var maxLength: Int { counts.lastIndex(where: { $0 > 0 }) ?? 0 }
}

private enum HuffmanError: Error { case overSubscribed }

// MARK: - Inflater

private struct Inflater {
    let input: UnsafeBufferPointer<UInt8>
    let output: OutputBuffer
    let file: String
    /// The next input byte not yet loaded into `bits`.
    var pos = 0
    /// Loaded input bits, the next one lowest. Bits above `bitCount` are zero or copies of the
    /// following input bits, so refilling may OR them in again.
    var bits: UInt64 = 0
    var bitCount = 0

    init(input: UnsafeBufferPointer<UInt8>, output: OutputBuffer, file: String) {
        self.input = input
        self.output = output
        self.file = file
    }

    static let lengthBase: [Int] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59,
                                    67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra: [Int] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3,
                                     4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase: [Int] = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769,
                                      1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    static let distanceExtra: [Int] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8,
                                       9, 9, 10, 10, 11, 11, 12, 12, 13, 13]
    /// The order in which code-length code lengths are sent (RFC 1951 §3.2.7).
    static let codeLengthOrder: [Int] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    static let fixedCodes: (Huffman, Huffman) = {
        var lengths = [UInt8](repeating: 8, count: 288)
        for i in 144..<256 { lengths[i] = 9 }
        for i in 256..<280 { lengths[i] = 7 }
        let distances = [UInt8](repeating: 5, count: 30)
        // Both sets are complete or under-subscribed by construction, so these cannot fail.
        let lit = try? Huffman(lengths: lengths)
        let dist = try? Huffman(lengths: distances)
        let empty = Huffman.emptyCode
        return (lit ?? empty, dist ?? empty)
    }()

    /// The byte offset of the next unread bit.
    var offset: Int { (pos * 8 - bitCount) / 8 }

    func error(_ message: String, at place: Int? = nil) -> DigitError {
        DigitError(.format, file: file, at: "byte \(place ?? offset)", message)
    }

    func truncated(_ what: String) -> DigitError {
        DigitError(.format, file: file, at: "byte \(input.count)", "truncated gzip stream: input ends inside \(what)")
    }

    // MARK: Members

    mutating func run() throws {
        while true {
            let memberStart = pos
            try readHeader()
            let outputStart = output.count
            outputMemberStart = outputStart
            try inflate()
            alignToByte()
            guard pos + 8 <= input.count else { throw truncated("the gzip trailer (CRC-32 and size)") }
            let storedCRC = le32(pos), storedSize = le32(pos + 4)
            let produced = UnsafeBufferPointer(start: output.base + outputStart, count: output.count - outputStart)
            let crc = CRC32.update(0, produced)
            guard crc == storedCRC else {
                throw error("CRC-32 mismatch: the trailer says \(hex(storedCRC)), the data gives \(hex(crc)) (member starting at byte \(memberStart))", at: pos)
            }
            let size = UInt32(truncatingIfNeeded: produced.count)
            guard size == storedSize else {
                throw error("size mismatch: the trailer says \(storedSize) bytes (mod 2^32), the data is \(size)", at: pos + 4)
            }
            pos += 8
            if pos == input.count { return }
            if input.count - pos == 1 && input[pos] == 0x1F { throw truncated("a gzip header") }
            guard input.count - pos >= 2, input[pos] == 0x1F, input[pos + 1] == 0x8B else {
                throw error("\(input.count - pos) bytes after the end of the gzip data, not another gzip member", at: pos)
            }
        }
    }

    private func le32(_ at: Int) -> UInt32 {
        UInt32(input[at]) | UInt32(input[at + 1]) << 8 | UInt32(input[at + 2]) << 16 | UInt32(input[at + 3]) << 24
    }

    private func hex(_ v: UInt32) -> String {
        let t = String(v, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - t.count) + t
    }

    /// Reads a member header at `pos` (byte-aligned), leaving `pos` at the DEFLATE data.
    private mutating func readHeader() throws {
        let start = pos
        let n = input.count
        guard n - start >= 10 else { throw truncated("a gzip header") }
        guard input[start] == 0x1F, input[start + 1] == 0x8B else { throw error("expected gzip magic bytes 1f 8b", at: start) }
        guard input[start + 2] == 8 else {
            throw error("compression method \(input[start + 2]), expected 8 (deflate)", at: start + 2)
        }
        let flags = input[start + 3]
        guard flags & 0xE0 == 0 else { throw error("reserved header flag bits set (flags 0x\(String(flags, radix: 16)))", at: start + 3) }
        var p = start + 10
        if flags & 0x04 != 0 {  // FEXTRA
            guard n - p >= 2 else { throw truncated("the gzip header's extra field") }
            let length = Int(input[p]) | Int(input[p + 1]) << 8
            guard n - p - 2 >= length else { throw truncated("the gzip header's extra field") }
            p += 2 + length
        }
        for (flag, name) in [(UInt8(0x08), "file name"), (0x10, "comment")] where flags & flag != 0 {
            guard let end = input[p...].firstIndex(of: 0) else { throw truncated("the gzip header's \(name)") }
            p = end + 1
        }
        if flags & 0x02 != 0 {  // FHCRC: the low 16 bits of the CRC-32 of the header so far
            guard n - p >= 2 else { throw truncated("the gzip header CRC") }
            let stored = UInt32(input[p]) | UInt32(input[p + 1]) << 8
            let crc = CRC32.update(0, UnsafeBufferPointer(rebasing: input[start..<p])) & 0xFFFF
            guard stored == crc else { throw error("header CRC mismatch: stored \(stored), computed \(crc)", at: p) }
            p += 2
        }
        pos = p
        bits = 0
        bitCount = 0
    }

    // MARK: Bits

    /// Loads input until 56...63 bits are buffered or the input is exhausted.
    @inline(__always) private mutating func refill() {
        if pos + 8 <= input.count, let base = input.baseAddress {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + pos).loadUnaligned(as: UInt64.self))
            bits |= word << UInt64(bitCount)
            pos += (63 - bitCount) >> 3
            bitCount |= 56
        } else {
            // Stops at 56...63 bits, like the fast path, so `bitCount` never reaches 64.
            while bitCount < 56 && pos < input.count {
                bits |= UInt64(input[pos]) << UInt64(bitCount)
                pos += 1
                bitCount += 8
            }
        }
    }

    /// Takes `n` (0...32) bits, the first one lowest.
    @inline(__always) private mutating func take(_ n: Int, _ what: @autoclosure () -> String) throws -> Int {
        if bitCount < n {
            refill()
            if bitCount < n { throw truncated(what()) }
        }
        let value = Int(truncatingIfNeeded: bits & ((1 << UInt64(n)) - 1))
        bits >>= UInt64(n)
        bitCount -= n
        return value
    }

    /// Drops the bits up to the next byte boundary and hands the whole buffered bytes back to
    /// the input, so stored blocks and trailers can be read straight from `input`.
    private mutating func alignToByte() {
        pos -= bitCount / 8
        bits = 0
        bitCount = 0
    }

    @inline(__always) private mutating func decode(_ code: Huffman, _ what: StaticString) throws -> Int {
        if bitCount < 15 { refill() }
        let entry = code.fast[Int(truncatingIfNeeded: bits) & ((1 << Huffman.fastBits) - 1)]
        let length = Int(entry & 15)
        if length != 0 && length <= bitCount {
            bits >>= UInt64(length)
            bitCount -= length
            return Int(entry >> 4)
        }
        return try decodeSlow(code, what)
    }

    private mutating func decodeSlow(_ code: Huffman, _ what: StaticString) throws -> Int {
        var value = 0, first = 0, index = 0
        var pending = bits
        for length in 1...15 {
            value |= Int(pending & 1)
            pending >>= 1
            let count = code.counts[length]
            if value - count < first {
                guard length <= bitCount else { throw truncated("a Huffman code") }
                bits >>= UInt64(length)
                bitCount -= length
                return Int(code.symbols[index + value - first])
            }
            index += count
            first = (first + count) << 1
            value <<= 1
        }
        if bitCount < 15 && pos == input.count { throw truncated("a Huffman code") }
        throw error("invalid \(what) code (bit pattern not in the block's Huffman table)")
    }

    // MARK: Blocks

    private mutating func inflate() throws {
        while true {
            let header = try take(3, "a block header")
            switch header >> 1 {
            case 0: try storedBlock()
            case 1: try huffmanBlock(Inflater.fixedCodes.0, Inflater.fixedCodes.1)
            case 2:
                let (lit, dist) = try dynamicCodes()
                try huffmanBlock(lit, dist)
            default: throw error("invalid block type 3")
            }
            if header & 1 != 0 { return }
        }
    }

    private mutating func storedBlock() throws {
        alignToByte()
        guard input.count - pos >= 4 else { throw truncated("a stored block's length") }
        let length = Int(input[pos]) | Int(input[pos + 1]) << 8
        let complement = Int(input[pos + 2]) | Int(input[pos + 3]) << 8
        guard length == complement ^ 0xFFFF else {
            throw error("stored block length \(length) does not match its complement \(complement)", at: pos)
        }
        pos += 4
        guard input.count - pos >= length else { throw truncated("a stored block of \(length) bytes") }
        try output.reserve(length, offset: pos)
        if let source = input.baseAddress {
            (output.base + output.count).update(from: source + pos, count: length)
        }
        output.count += length
        pos += length
    }

    private mutating func dynamicCodes() throws -> (Huffman, Huffman) {
        let headerOffset = offset
        let literalCount = try take(5, "a dynamic block header") + 257
        let distanceCount = try take(5, "a dynamic block header") + 1
        let codeLengthCount = try take(4, "a dynamic block header") + 4
        guard literalCount <= 286 else { throw error("\(literalCount) literal/length codes, at most 286 allowed", at: headerOffset) }
        guard distanceCount <= 30 else { throw error("\(distanceCount) distance codes, at most 30 allowed", at: headerOffset) }
        var codeLengthLengths = [UInt8](repeating: 0, count: 19)
        for i in 0..<codeLengthCount {
            codeLengthLengths[Inflater.codeLengthOrder[i]] = UInt8(try take(3, "a dynamic block header"))
        }
        let codeLengthCode = try build(codeLengthLengths, what: "code-length", at: headerOffset)
        guard !codeLengthCode.incomplete else { throw error("incomplete code-length code", at: headerOffset) }

        let total = literalCount + distanceCount
        var lengths = [UInt8](repeating: 0, count: total)
        var i = 0
        while i < total {
            let at = offset
            let symbol = try decode(codeLengthCode, "code-length")
            var repeated: UInt8 = 0
            let times: Int
            switch symbol {
            case 0...15:
                lengths[i] = UInt8(symbol)
                i += 1
                continue
            case 16:
                guard i > 0 else { throw error("repeat of the previous code length with no previous length", at: at) }
                repeated = lengths[i - 1]
                times = 3 + (try take(2, "a code length repeat"))
            case 17: times = 3 + (try take(3, "a code length repeat"))
            default: times = 11 + (try take(7, "a code length repeat"))
            }
            guard times <= total - i else {
                throw error("code length repeat runs past the \(total) literal/length and distance codes", at: at)
            }
            for k in i..<(i + times) { lengths[k] = repeated }
            i += times
        }
        guard lengths[256] != 0 else { throw error("the literal/length code has no end-of-block symbol", at: headerOffset) }
        let literalCode = try build(Array(lengths[..<literalCount]), what: "literal/length", at: headerOffset)
        let distanceCode = try build(Array(lengths[literalCount...]), what: "distance", at: headerOffset)
        // As zlib: an incomplete code is only legitimate when it is a single one-bit code.
        for (code, name) in [(literalCode, "literal/length"), (distanceCode, "distance")]
        where code.incomplete && code.maxLength > 1 {
            throw error("incomplete \(name) code", at: headerOffset)
        }
        return (literalCode, distanceCode)
    }

    private func build(_ lengths: [UInt8], what: String, at place: Int) throws -> Huffman {
        do {
            return try Huffman(lengths: lengths)
        } catch {
            throw self.error("over-subscribed \(what) code (more codes than the bit lengths allow)", at: place)
        }
    }

    private mutating func huffmanBlock(_ literalCode: Huffman, _ distanceCode: Huffman) throws {
        while true {
            refill()
            let symbolStart = pos * 8 - bitCount
            let symbol = try decode(literalCode, "literal/length")
            if symbol < 256 {
                try output.reserve(1, offset: symbolStart / 8)
                output.base[output.count] = UInt8(truncatingIfNeeded: symbol)
                output.count += 1
                continue
            }
            if symbol == 256 { return }
            let at = symbolStart / 8
            let lengthIndex = symbol - 257
            guard lengthIndex < 29 else { throw error("invalid literal/length symbol \(symbol)", at: at) }
            let length = Inflater.lengthBase[lengthIndex] + (try take(Inflater.lengthExtra[lengthIndex], "a match length"))
            let distanceSymbol = try decode(distanceCode, "distance")
            guard distanceSymbol < 30 else { throw error("invalid distance symbol \(distanceSymbol)", at: at) }
            let distance = Inflater.distanceBase[distanceSymbol] + (try take(Inflater.distanceExtra[distanceSymbol], "a match distance"))
            let available = output.count - outputMemberStart
            guard distance <= available else {
                throw error("match distance \(distance) reaches before the start of the output (\(available) bytes so far)", at: at)
            }
            try output.reserve(length, offset: at)
            let destination = output.base + output.count
            let source = destination - distance
            if distance >= length {
                destination.update(from: source, count: length)
            } else {
                // Overlapping copy: repeats the last `distance` bytes, so it must go byte by byte.
                for k in 0..<length { destination[k] = source[k] }
            }
            output.count += length
        }
    }

    /// Where the current member's output starts: matches may not reach into earlier members.
    var outputMemberStart = 0
}

extension Huffman {
    /// A code with no symbols: every look-up fails as an invalid code.
    static var emptyCode: Huffman {
        var code = Huffman()
        code.fast = [UInt16](repeating: 0, count: 1 << fastBits)
        return code
    }

    private init() {
        fast = []
        counts = [Int](repeating: 0, count: 16)
        symbols = [0]
        incomplete = true
    }
}
