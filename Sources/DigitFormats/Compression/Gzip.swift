import CZlib

/// gzip (RFC 1952) decompression over zlib's inflate.
///
/// Supported: every DEFLATE block type; the FEXTRA, FNAME, FCOMMENT and FHCRC header fields
/// (skipped, the header CRC verified); several members one after the other (their outputs are
/// concatenated, as `gzip -d` does). Every member's CRC-32 and ISIZE are verified. Anything after
/// the last member other than another member is an error.
///
/// Errors are `DigitError`s naming the file and a byte offset in the compressed input: `.format`
/// for malformed or truncated data, `.limit` when the output would exceed `limit` bytes. Header and
/// trailer problems are located exactly; inside DEFLATE data the offset is where zlib was reading
/// when it found the problem (the byte holding the next unread bit), which may be a little after
/// the start of the faulty code.
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
        let limit = max(0, limit)
        // ISIZE of the last member is a hint only (it is the size modulo 2^32 and untrusted):
        // DEFLATE cannot expand more than 1032:1, so the hint is also bounded by the input length.
        let n = bytes.count
        let isize = n >= 4 ? Int(UInt32(bytes[n - 4]) | UInt32(bytes[n - 3]) << 8 | UInt32(bytes[n - 2]) << 16 | UInt32(bytes[n - 1]) << 24) : 0
        let (bound, overflow) = n.multipliedReportingOverflow(by: 1032)
        let hint = min(isize, limit, overflow ? Int.max : bound)
        let output = OutputBuffer(capacity: max(hint, 1 << 12), limit: limit)
        try bytes.withUnsafeBufferPointer { input in
            var reader = GzipReader(input: input, output: output, file: file)
            try reader.run()
        }
        return output.array()
    }

    /// The CRC-32 of RFC 1952 (polynomial 0xEDB88320, reflected), continuing from `crc`
    /// (0 for a fresh checksum).
    public static func crc32(_ bytes: UnsafeBufferPointer<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
        zlibCRC32(UnsafeRawBufferPointer(bytes), continuing: crc)
    }

    /// The CRC-32 of `bytes`.
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { zlibCRC32($0) }
    }
}

/// A growable byte buffer that never grows past `limit`.
private final class OutputBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    var count = 0
    let limit: Int

    init(capacity: Int, limit: Int) {
        self.capacity = max(0, min(capacity, limit))
        base = .allocate(capacity: max(self.capacity, 1))
        self.limit = limit
    }

    deinit { base.deallocate() }

    /// Doubles the capacity, up to `limit`.
    func grow() {
        let newCapacity = capacity > limit / 2 ? limit : capacity * 2
        guard newCapacity > capacity else { return }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    func array() -> [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }
}

private struct GzipReader {
    let input: UnsafeBufferPointer<UInt8>
    let output: OutputBuffer
    let file: String
    var limit: Int { output.limit }
    /// The next input byte to read.
    var pos = 0

    init(input: UnsafeBufferPointer<UInt8>, output: OutputBuffer, file: String) {
        self.input = input
        self.output = output
        self.file = file
    }

    func error(_ message: String, at place: Int) -> DigitError {
        DigitError(.format, file: file, at: "byte \(place)", message)
    }

    func truncated(_ what: String) -> DigitError {
        DigitError(.format, file: file, at: "byte \(input.count)", "truncated gzip stream: input ends inside \(what)")
    }

    mutating func run() throws {
        guard let inflater = ZStream.inflater(windowBits: -15) else {
            throw DigitError(.limit, file: file, "out of memory for the zlib inflater")
        }
        while true {
            let memberStart = pos
            try readHeader()
            let outputStart = output.count
            try inflateMember(inflater)
            guard pos + 8 <= input.count else { throw truncated("the gzip trailer (CRC-32 and size)") }
            let storedCRC = le32(pos), storedSize = le32(pos + 4)
            let crc = zlibCRC32(UnsafeRawBufferPointer(start: output.base + outputStart, count: output.count - outputStart))
            guard crc == storedCRC else {
                throw error("CRC-32 mismatch: the trailer says \(hex(storedCRC)), the data gives \(hex(crc)) (member starting at byte \(memberStart))", at: pos)
            }
            let size = UInt32(truncatingIfNeeded: output.count - outputStart)
            guard size == storedSize else {
                throw error("size mismatch: the trailer says \(storedSize) bytes (mod 2^32), the data is \(size)", at: pos + 4)
            }
            pos += 8
            if pos == input.count { return }
            if input.count - pos == 1 && input[pos] == 0x1F { throw truncated("a gzip header") }
            guard input.count - pos >= 2, input[pos] == 0x1F, input[pos + 1] == 0x8B else {
                throw error("\(input.count - pos) bytes after the end of the gzip data, not another gzip member", at: pos)
            }
            inflateReset(inflater.stream)
        }
    }

    /// Inflates the raw DEFLATE data at `pos` onto `output`, leaving `pos` just after it.
    private mutating func inflateMember(_ inflater: ZStream) throws {
        let z = inflater.stream
        let memberOutputStart = output.count
        var scratch: UInt8 = 0
        guard let base = input.baseAddress else { throw truncated("the compressed data") }
        while true {
            // zlib counts in 32-bit lengths: large inputs and outputs go in slices.
            let inputSlice = min(input.count - pos, 1 << 30)
            z.pointee.next_in = UnsafeMutablePointer(mutating: base + pos)
            z.pointee.avail_in = UInt32(inputSlice)
            if output.count == output.capacity { output.grow() }
            let room = min(output.capacity - output.count, 1 << 30)
            let status: Int32
            let produced: Int
            if room > 0 {
                z.pointee.next_out = output.base + output.count
                z.pointee.avail_out = UInt32(room)
                status = inflate(z, Z_NO_FLUSH)
                produced = room - Int(z.pointee.avail_out)
                output.count += produced
            } else {
                // At the limit: one byte more of output would cross it.
                status = withUnsafeMutablePointer(to: &scratch) { byte in
                    z.pointee.next_out = byte
                    z.pointee.avail_out = 1
                    return inflate(z, Z_NO_FLUSH)
                }
                produced = 1 - Int(z.pointee.avail_out)
            }
            let consumed = inputSlice - Int(z.pointee.avail_in)
            pos += consumed
            if room <= 0 && produced > 0 {
                throw DigitError(.limit, file: file, at: "byte \(readingAt(inflater))",
                                 "decompressed data is larger than the limit of \(limit) bytes")
            }
            switch status {
            case Z_STREAM_END:
                return
            case Z_OK, Z_BUF_ERROR:
                if z.pointee.avail_in == 0 && z.pointee.avail_out > 0 && pos == input.count {
                    throw truncated("the compressed data")
                }
            case Z_DATA_ERROR:
                let text = ZStream.describeInflateError(inflater.message(or: "corrupt data"), produced: output.count - memberOutputStart)
                throw error(text, at: readingAt(inflater))
            case Z_MEM_ERROR:
                throw DigitError(.limit, file: file, at: "byte \(pos)", "out of memory in the zlib inflater")
            default:
                throw error("zlib inflate failed (status \(status))", at: pos)
            }
        }
    }

    private func readingAt(_ inflater: ZStream) -> Int {
        max(0, pos - (inflater.unusedBits + 7) / 8)
    }

    private func le32(_ at: Int) -> UInt32 {
        UInt32(input[at]) | UInt32(input[at + 1]) << 8 | UInt32(input[at + 2]) << 16 | UInt32(input[at + 3]) << 24
    }

    private func hex(_ v: UInt32) -> String {
        let t = String(v, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - t.count) + t
    }

    /// Reads a member header at `pos`, leaving `pos` at the DEFLATE data.
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
            let crc = zlibCRC32(input[start..<p]) & 0xFFFF
            guard stored == crc else { throw error("header CRC mismatch: stored \(stored), computed \(crc)", at: p) }
            p += 2
        }
        pos = p
    }
}
