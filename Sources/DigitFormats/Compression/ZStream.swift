import CZlib

/// One zlib stream (inflate or deflate) for Gzip and PNG. zlib keeps a pointer back to its
/// `z_stream` and refuses calls from a moved copy, so the struct lives at a fixed address here.
final class ZStream {
    let stream: UnsafeMutablePointer<z_stream>
    private let inflating: Bool

    private init?(inflating: Bool, start: (UnsafeMutablePointer<z_stream>) -> Int32) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        self.inflating = inflating
        guard start(stream) == Z_OK else {
            stream.deallocate()
            return nil
        }
    }

    /// An inflater: `windowBits` 15 for a zlib stream (PNG), -15 for raw DEFLATE (gzip members,
    /// whose header and trailer `Gzip` reads itself). Nil when zlib cannot allocate its state.
    static func inflater(windowBits: Int32) -> ZStream? {
        ZStream(inflating: true) { CZlib_inflateInit2($0, windowBits) }
    }

    /// A zlib-stream deflater at `level` 0…9.
    static func deflater(level: Int32) -> ZStream? {
        ZStream(inflating: false) { CZlib_deflateInit2($0, level, 15, 8, Z_DEFAULT_STRATEGY) }
    }

    deinit {
        if inflating { inflateEnd(stream) } else { deflateEnd(stream) }
        stream.deallocate()
    }

    /// Input bits inflate has read but not used yet: the next unread bit is in byte
    /// `consumed - (unusedBits + 7) / 8` (zlib reports them in `data_type`).
    var unusedBits: Int { Int(stream.pointee.data_type & 63) }

    /// zlib's message for the last error, or `fallback`.
    func message(or fallback: String) -> String {
        stream.pointee.msg.map { String(cString: $0) } ?? fallback
    }

    /// Rewords zlib's inflate messages in the project's terms, where zlib's text alone would be
    /// cryptic; `produced` is the output so far, for a match that reaches before it.
    static func describeInflateError(_ zlibMessage: String, produced: Int) -> String {
        switch zlibMessage {
        case "invalid block type": return "invalid block type 3"
        case "invalid stored block lengths": return "stored block length does not match its complement"
        case "invalid distance too far back":
            return "match distance reaches before the start of the output (\(produced) bytes so far)"
        case "invalid code lengths set": return "invalid code-length code (over-subscribed or incomplete)"
        case "invalid literal/lengths set": return "invalid literal/length code (over-subscribed or incomplete)"
        case "invalid distances set": return "invalid distance code (over-subscribed or incomplete)"
        case "invalid bit length repeat": return "code length repeat with no previous length or past the last code"
        case "invalid literal/length code", "invalid distance code":
            return zlibMessage + " (bit pattern not in the block's Huffman table)"
        case "missing end-of-block code": return "the literal/length code has no end-of-block symbol"
        default: return zlibMessage
        }
    }
}

/// The CRC-32 of RFC 1952 and PNG, by zlib, continuing from `crc` (0 for a fresh checksum).
func zlibCRC32(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return crc }
    return UInt32(truncatingIfNeeded: crc32_z(UInt(crc), base.assumingMemoryBound(to: UInt8.self), bytes.count))
}

/// The CRC-32 of a part of a byte buffer.
func zlibCRC32(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, continuing crc: UInt32 = 0) -> UInt32 {
    zlibCRC32(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes)), continuing: crc)
}
