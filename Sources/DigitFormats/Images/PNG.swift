import CZlib

/// PNG (W3C PNG, third edition) decoding to luminance, and 8-bit encoding (`PNGEncoder.swift`).
///
/// Decoded: every colour type (gray, RGB, palette, gray+alpha, RGBA) at every bit depth it allows
/// (1, 2, 4, 8, 16), tRNS transparency, Adam7 interlacing, the five filter types. Every chunk's
/// CRC is checked. The chunk order is checked: IHDR first; PLTE and tRNS before IDAT; IDAT chunks
/// consecutive; IEND last (bytes after it are ignored). Unknown ancillary chunks are skipped, an
/// unknown critical chunk is an error. gAMA, cHRM, sRGB, iCCP and bKGD are ignored: samples are
/// used as stored and transparency is composited over white (see `DecodedImage`).
///
/// The size is checked against `ImageLimits` as soon as IHDR is read, and the image data is
/// inflated into a buffer of exactly the size IHDR implies, after checking that the IDAT data
/// could expand to it at all (DEFLATE expands at most 1032:1).
public enum PNG {
    /// The 8 bytes every PNG file starts with.
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// True when `bytes` starts with the PNG signature.
    public static func isPNG(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 8 && bytes[0..<8].elementsEqual(signature)
    }

    /// Decodes a whole PNG file to luminance. Errors are `DigitError`s naming `file` and the
    /// place: a chunk and its byte offset, or a row and column.
    public static func decode(_ bytes: [UInt8], file: String, limits: ImageLimits = ImageLimits()) throws -> DecodedImage {
        try bytes.withUnsafeBufferPointer { try PNGDecoder(input: $0, file: file, limits: limits).decode() }
    }

    /// Decodes to 8-bit RGB, 3 bytes a pixel, row-major: samples reduced to 8 bits and
    /// transparency composited over white per channel, as `decode` does for luminance (`gray` is
    /// filled too). For pictures whose colours matter, such as the window's screenshots.
    public static func decodeRGB(_ bytes: [UInt8], file: String, limits: ImageLimits = ImageLimits()) throws -> DecodedImage {
        try bytes.withUnsafeBufferPointer {
            var decoder = PNGDecoder(input: $0, file: file, limits: limits)
            decoder.wantRGB = true
            return try decoder.decode()
        }
    }
}

/// The IHDR fields.
struct PNGHeader {
    let width: Int
    let height: Int
    let bitDepth: Int
    /// 0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA.
    let colorType: Int
    let interlaced: Bool

    var channels: Int {
        switch colorType {
        case 2: return 3
        case 4: return 2
        case 6: return 4
        default: return 1
        }
    }

    var bitsPerPixel: Int { channels * bitDepth }
    /// How far back the filters' left neighbour is: the bytes of one pixel, at least 1.
    var filterStride: Int { max(1, bitsPerPixel / 8) }
    func rowBytes(_ width: Int) -> Int { (width * bitsPerPixel + 7) / 8 }

    var colorModel: DecodedImage.ColorModel {
        switch colorType {
        case 2: return .rgb
        case 3: return .palette
        case 4: return .grayAlpha
        case 6: return .rgba
        default: return .gray
        }
    }

    var name: String { "\(colorModel.rawValue) \(bitDepth)-bit\(interlaced ? " interlaced" : "")" }

    /// The Adam7 passes as (first column, first row, column step, row step); one pass when not interlaced.
    var passes: [(x0: Int, y0: Int, dx: Int, dy: Int)] {
        interlaced
            ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            : [(0, 0, 1, 1)]
    }

    /// Columns and rows of a pass (0 when the image is too small for it).
    func passSize(_ p: (x0: Int, y0: Int, dx: Int, dy: Int)) -> (width: Int, height: Int) {
        (width > p.x0 ? (width - p.x0 + p.dx - 1) / p.dx : 0, height > p.y0 ? (height - p.y0 + p.dy - 1) / p.dy : 0)
    }

    /// Bytes of the unfiltered image data: each row of each non-empty pass, plus its filter byte.
    var rawSize: Int {
        passes.reduce(0) { total, p in
            let (w, h) = passSize(p)
            return w == 0 || h == 0 ? total : total + h * (1 + rowBytes(w))
        }
    }
}

private struct PNGDecoder {
    let input: UnsafeBufferPointer<UInt8>
    let file: String
    /// Also fill `DecodedImage.rgb`.
    var wantRGB = false
    let limits: ImageLimits

    func error(_ message: String, at location: String) -> DigitError {
        DigitError(.format, file: file, at: location, message)
    }

    func be32(_ at: Int) -> Int {
        Int(input[at]) << 24 | Int(input[at + 1]) << 16 | Int(input[at + 2]) << 8 | Int(input[at + 3])
    }

    func hex(_ v: UInt32) -> String {
        let t = String(v, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - t.count) + t
    }

    func decode() throws -> DecodedImage {
        let n = input.count
        guard n >= 8, input[0..<8].elementsEqual(PNG.signature) else {
            if n < 8, input.elementsEqual(PNG.signature.prefix(n)) {
                throw error("truncated PNG: the file ends inside the signature", at: "byte \(n)")
            }
            throw error("not a PNG file (expected the 8-byte PNG signature)", at: "byte 0")
        }
        var pos = 8
        var header: PNGHeader?
        var palette: [UInt8]?  // R, G, B per entry
        var transparency: [UInt8]?
        var idat: [Range<Int>] = []
        var idatBytes = 0
        var afterIDAT = false
        var lastType = "signature"
        while true {
            guard n - pos >= 8 else {
                if pos == n { throw error("missing IEND chunk: the file ends after the \(lastType) chunk", at: "byte \(n)") }
                throw error("truncated PNG: the file ends inside a chunk header", at: "byte \(n)")
            }
            let typeBytes = input[(pos + 4)..<(pos + 8)]
            guard typeBytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
                let shown = typeBytes.map { String($0, radix: 16) }.joined(separator: " ")
                throw error("invalid chunk type (bytes \(shown)); the data is corrupt", at: "byte \(pos + 4)")
            }
            let type = String(decoding: typeBytes, as: UTF8.self)
            let place = "\(type) chunk at byte \(pos)"
            let length = be32(pos)
            guard length <= Int(Int32.max) else { throw error("chunk length \(length) is over 2^31 - 1", at: place) }
            let start = pos + 8
            guard n - start >= length + 4 else {
                throw error("truncated PNG: the chunk declares \(length) data bytes and a CRC, \(n - start) bytes are left", at: place)
            }
            let stored = UInt32(be32(start + length))
            let crc = zlibCRC32(input[(pos + 4)..<(start + length)])
            guard crc == stored else {
                throw error("CRC-32 mismatch: stored \(hex(stored)), computed \(hex(crc))", at: place)
            }
            let data = start..<(start + length)
            if header == nil && type != "IHDR" { throw error("the first chunk is \(type), expected IHDR", at: place) }
            if type != "IDAT" && !idat.isEmpty { afterIDAT = true }
            switch type {
            case "IHDR":
                guard header == nil else { throw error("a second IHDR chunk", at: place) }
                header = try readHeader(data, at: place)
            case "PLTE":
                guard let h = header, palette == nil else { throw error("a second PLTE chunk", at: place) }
                guard idat.isEmpty else { throw error("PLTE after IDAT (it must come before the image data)", at: place) }
                guard h.colorType != 0 && h.colorType != 4 else { throw error("PLTE in a \(h.colorModel.rawValue) image", at: place) }
                guard length % 3 == 0, (3...768).contains(length) else {
                    throw error("PLTE of \(length) bytes, expected 1 to 256 entries of 3 bytes", at: place)
                }
                guard transparency == nil else { throw error("PLTE after tRNS (it must come first)", at: place) }
                palette = Array(input[data])
            case "tRNS":
                guard let h = header, transparency == nil else { throw error("a second tRNS chunk", at: place) }
                guard idat.isEmpty else { throw error("tRNS after IDAT (it must come before the image data)", at: place) }
                switch h.colorType {
                case 0, 2:
                    let expected = h.colorType == 0 ? 2 : 6
                    guard length == expected else {
                        throw error("tRNS of \(length) bytes in a \(h.colorModel.rawValue) image, expected \(expected)", at: place)
                    }
                case 3:
                    guard let palette else { throw error("tRNS before PLTE", at: place) }
                    guard length <= palette.count / 3 else {
                        throw error("tRNS has \(length) entries, more than the \(palette.count / 3) of PLTE", at: place)
                    }
                default:
                    throw error("tRNS in a \(h.colorModel.rawValue) image, which has an alpha channel already", at: place)
                }
                transparency = Array(input[data])
            case "IDAT":
                guard !afterIDAT else { throw error("IDAT chunks are not consecutive (another chunk comes between them)", at: place) }
                if idat.isEmpty, let h = header, h.colorType == 3, palette == nil {
                    throw error("a palette image without a PLTE chunk before its image data", at: place)
                }
                idat.append(data)
                idatBytes += length
            case "IEND":
                guard length == 0 else { throw error("IEND with \(length) data bytes, expected none", at: place) }
                guard let h = header, !idat.isEmpty else { throw error("no IDAT chunk before IEND", at: place) }
                return try decodeImage(h, idat: idat, idatBytes: idatBytes, palette: palette ?? [], transparency: transparency)
            default:
                // Bit 5 of the first letter (lowercase) marks an ancillary chunk, safe to skip.
                if typeBytes[typeBytes.startIndex] & 0x20 == 0 {
                    throw error("unknown critical chunk \(type)", at: place)
                }
            }
            lastType = type
            pos = start + length + 4
        }
    }

    func readHeader(_ data: Range<Int>, at place: String) throws -> PNGHeader {
        guard data.count == 13 else { throw error("IHDR of \(data.count) bytes, expected 13", at: place) }
        let p = data.lowerBound
        let width = be32(p), height = be32(p + 4)
        let depth = Int(input[p + 8]), colorType = Int(input[p + 9])
        guard width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw error("width or height over 2^31 - 1 (\(width)×\(height))", at: place)
        }
        let allowed: [Int]
        switch colorType {
        case 0: allowed = [1, 2, 4, 8, 16]
        case 3: allowed = [1, 2, 4, 8]
        case 2, 4, 6: allowed = [8, 16]
        default: throw error("colour type \(colorType), expected 0, 2, 3, 4 or 6", at: place)
        }
        guard allowed.contains(depth) else {
            throw error("bit depth \(depth) is not allowed for colour type \(colorType) (allowed: \(allowed.map(String.init).joined(separator: ", ")))", at: place)
        }
        guard input[p + 10] == 0 else { throw error("compression method \(input[p + 10]), expected 0", at: place) }
        guard input[p + 11] == 0 else { throw error("filter method \(input[p + 11]), expected 0", at: place) }
        guard input[p + 12] <= 1 else { throw error("interlace method \(input[p + 12]), expected 0 or 1", at: place) }
        try limits.check(width: width, height: height, file: file, at: place, what: "IHDR")
        return PNGHeader(width: width, height: height, bitDepth: depth, colorType: colorType, interlaced: input[p + 12] == 1)
    }

    func decodeImage(_ h: PNGHeader, idat: [Range<Int>], idatBytes: Int, palette: [UInt8],
                     transparency: [UInt8]?) throws -> DecodedImage {
        let rawSize = h.rawSize
        let firstIDAT = "IDAT chunk at byte \(idat[0].lowerBound - 8)"
        // A zlib stream is 6 bytes of header and checksum around DEFLATE data, which expands at
        // most 1032:1: less IDAT data than that cannot be the image, so nothing is allocated for it.
        guard rawSize <= (idatBytes - 6) * 1032 + 1032 else {
            throw error("\(idatBytes) bytes of IDAT data cannot hold the \(rawSize) bytes of a \(h.width)×\(h.height) \(h.name) image", at: firstIDAT)
        }
        let converter = PNGConverter(h, palette: palette, transparency: transparency)
        let raw = try [UInt8](unsafeUninitializedCapacity: rawSize) { buffer, count in
            try inflate(idat, into: buffer, header: h)
            count = rawSize
        }
        var gray = [UInt8](repeating: 0, count: h.width * h.height)
        var rgb = [UInt8](repeating: 0, count: wantRGB ? 3 * h.width * h.height : 0)
        try raw.withUnsafeBufferPointer { rawBuffer in
            try gray.withUnsafeMutableBufferPointer { grayBuffer in
              try rgb.withUnsafeMutableBufferPointer { rgbBuffer in
                guard let rawBase = rawBuffer.baseAddress, let out = grayBuffer.baseAddress else { return }
                // Unfiltering works in place: the raw buffer is a fresh copy that nothing else uses.
                let rows = UnsafeMutablePointer(mutating: rawBase)
                var offset = 0
                for (index, pass) in h.passes.enumerated() {
                    let (pw, ph) = h.passSize(pass)
                    guard pw > 0, ph > 0 else { continue }
                    let rowBytes = h.rowBytes(pw)
                    var previous: UnsafeMutablePointer<UInt8>?
                    for r in 0..<ph {
                        let y = pass.y0 + r * pass.dy
                        let filter = rows[offset]
                        let row = rows + offset + 1
                        guard PNGFilter.undo(filter, row: row, previous: previous, count: rowBytes, stride: h.filterStride) else {
                            let location = h.interlaced ? "Adam7 pass \(index + 1), row \(r) (image row \(y))" : "row \(y)"
                            throw error("invalid filter type \(filter), expected 0 to 4", at: location)
                        }
                        if let column = converter.convert(row, count: pw, into: out + y * h.width + pass.x0, step: pass.dx) {
                            let x = pass.x0 + column * pass.dx
                            throw error("palette index \(converter.index(row, column)) but PLTE has \(converter.paletteCount) entries",
                                        at: "row \(y), column \(x)")
                        }
                        // An empty array's buffer may point at the shared empty-array storage: never write there.
                        if wantRGB, let rgbOut = rgbBuffer.baseAddress {
                            converter.convertRGB(row, count: pw, into: rgbOut + 3 * (y * h.width + pass.x0), step: 3 * pass.dx)
                        }
                        previous = row
                        offset += 1 + rowBytes
                    }
                }
              }
            }
        }
        var image = DecodedImage(width: h.width, height: h.height, gray: gray, format: .png, color: h.colorModel,
                                 bitDepth: h.bitDepth, interlaced: h.interlaced,
                                 transparency: transparency != nil || h.colorType == 4 || h.colorType == 6)
        if wantRGB { image.rgb = rgb }
        return image
    }

    /// Inflates the IDAT data into `buffer`, which it fills exactly, or throws.
    func inflate(_ idat: [Range<Int>], into buffer: UnsafeMutableBufferPointer<UInt8>, header h: PNGHeader) throws {
        guard let inflater = ZStream.inflater(windowBits: 15) else {
            throw DigitError(.limit, file: file, "out of memory for the zlib inflater")
        }
        guard let inputBase = input.baseAddress, let outBase = buffer.baseAddress else { return }
        let z = inflater.stream
        let total = buffer.count
        var produced = 0
        var ended = false
        var scratch: UInt8 = 0
        for range in idat where !ended {
            var fed = range.lowerBound
            repeat {
                let slice = min(range.upperBound - fed, 1 << 30)
                z.pointee.next_in = UnsafeMutablePointer(mutating: inputBase + fed)
                z.pointee.avail_in = UInt32(slice)
                let status: Int32
                if produced < total {
                    let room = min(total - produced, 1 << 30)
                    z.pointee.next_out = outBase + produced
                    z.pointee.avail_out = UInt32(room)
                    status = CZlib.inflate(z, Z_NO_FLUSH)
                    produced += room - Int(z.pointee.avail_out)
                } else {
                    status = withUnsafeMutablePointer(to: &scratch) { byte in
                        z.pointee.next_out = byte
                        z.pointee.avail_out = 1
                        return CZlib.inflate(z, Z_NO_FLUSH)
                    }
                    if z.pointee.avail_out == 0 {
                        throw error("the IDAT data holds more than the \(total) bytes a \(h.width)×\(h.height) \(h.name) image needs",
                                    at: "byte \(fed + slice - Int(z.pointee.avail_in))")
                    }
                }
                fed += slice - Int(z.pointee.avail_in)
                switch status {
                case Z_STREAM_END:
                    ended = true
                case Z_OK, Z_BUF_ERROR:
                    break
                case Z_DATA_ERROR, Z_NEED_DICT:
                    var text = status == Z_NEED_DICT ? "the zlib stream asks for a preset dictionary"
                        : ZStream.describeInflateError(inflater.message(or: "corrupt data"), produced: produced)
                    if text == "incorrect data check" { text = "Adler-32 checksum mismatch" }
                    let at = max(range.lowerBound, fed - (inflater.unusedBits + 7) / 8)
                    throw error("corrupt zlib data in IDAT: \(text)", at: "byte \(at)")
                case Z_MEM_ERROR:
                    throw DigitError(.limit, file: file, "out of memory in the zlib inflater")
                default:
                    throw error("zlib inflate failed (status \(status))", at: "byte \(fed)")
                }
            } while fed < range.upperBound && !ended
        }
        let end = "byte \(idat[idat.count - 1].upperBound)"
        guard produced == total else {
            throw error("the IDAT data ends after \(produced) of the \(total) bytes a \(h.width)×\(h.height) \(h.name) image needs", at: end)
        }
        guard ended else { throw error("truncated zlib stream in IDAT: no end after the image data", at: end) }
    }
}

/// PNG scanline filters (PNG §7.3, §9): `undo` reverses one, in place.
enum PNGFilter {
    /// Undoes filter `type` on `row` (`count` bytes), given the previous unfiltered row of the same
    /// pass (nil for the first: zeros). False for a filter type other than 0…4.
    static func undo(_ type: UInt8, row: UnsafeMutablePointer<UInt8>, previous: UnsafeMutablePointer<UInt8>?,
                     count n: Int, stride s: Int) -> Bool {
        switch type {
        case 0:
            break
        case 1:
            if n > s { for i in s..<n { row[i] &+= row[i - s] } }
        case 2:
            if let p = previous { for i in 0..<n { row[i] &+= p[i] } }
        case 3:
            if let p = previous {
                for i in 0..<min(s, n) { row[i] &+= p[i] >> 1 }
                if n > s { for i in s..<n { row[i] &+= UInt8(truncatingIfNeeded: (Int(row[i - s]) + Int(p[i])) >> 1) } }
            } else if n > s {
                for i in s..<n { row[i] &+= row[i - s] >> 1 }
            }
        case 4:
            if let p = previous {
                for i in 0..<min(s, n) { row[i] &+= p[i] }
                if n > s { for i in s..<n { row[i] &+= paeth(row[i - s], p[i], p[i - s]) } }
            } else if n > s {
                for i in s..<n { row[i] &+= row[i - s] }
            }
        default:
            return false
        }
        return true
    }

    /// The Paeth predictor: whichever of left `a`, above `b`, upper-left `c` is closest to a + b − c.
    @inline(__always) static func paeth(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
        let a = Int(a), b = Int(b), c = Int(c)
        let pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c)
        if pa <= pb && pa <= pc { return UInt8(a) }
        return pb <= pc ? UInt8(b) : UInt8(c)
    }
}

/// Unfiltered PNG rows to luminance (the arithmetic of `DecodedImage`).
private struct PNGConverter {
    let header: PNGHeader
    /// For gray up to 8 bits and palette images: luminance by sample value or index.
    var table: [UInt8] = []
    /// For palette images: R, G, B over white by index.
    var rgbTable: [UInt8] = []
    let paletteCount: Int
    /// The tRNS colour of a gray or RGB image (samples at the stored depth), transparent.
    var key: (Int, Int, Int)?

    init(_ h: PNGHeader, palette: [UInt8], transparency: [UInt8]?) {
        header = h
        paletteCount = palette.count / 3
        if let t = transparency, h.colorType == 0 || h.colorType == 2 {
            let v = (0..<(t.count / 2)).map { Int(t[2 * $0]) << 8 | Int(t[2 * $0 + 1]) }
            key = h.colorType == 0 ? (v[0], v[0], v[0]) : (v[0], v[1], v[2])
        }
        if h.colorType == 3 {
            rgbTable = (0..<(3 * paletteCount)).map { j in
                let i = j / 3
                let alpha = transparency.map { i < $0.count ? Int($0[i]) : 255 } ?? 255
                return UInt8(Pixel.overWhite(Int(palette[j]), alpha: alpha))
            }
            table = (0..<paletteCount).map { i in
                let y = Pixel.luminance(Int(palette[3 * i]), Int(palette[3 * i + 1]), Int(palette[3 * i + 2]))
                let alpha = transparency.map { i < $0.count ? Int($0[i]) : 255 } ?? 255
                return UInt8(Pixel.overWhite(y, alpha: alpha))
            }
        } else if h.colorType == 0 && h.bitDepth <= 8 {
            let max = (1 << h.bitDepth) - 1
            table = (0...max).map { v in key?.0 == v ? 255 : UInt8(Pixel.reduce(v, max: max)) }
        }
    }

    /// The sample (bit depth below 8) at `index` in a packed row.
    @inline(__always) private func packed(_ row: UnsafePointer<UInt8>, _ index: Int, depth d: Int) -> Int {
        let bit = index * d
        return Int(row[bit >> 3] >> UInt8(8 - d - (bit & 7))) & ((1 << d) - 1)
    }

    /// The palette index at `column` (for error messages).
    func index(_ row: UnsafePointer<UInt8>, _ column: Int) -> Int {
        header.bitDepth == 8 ? Int(row[column]) : packed(row, column, depth: header.bitDepth)
    }

    /// Pixel `i` of a row of colour type 2 (RGB), 4 (grey and alpha) or 6 (RGBA) as 8-bit samples
    /// (16-bit ones rounded), alpha 255 where the type has none; nil for an RGB pixel that matches
    /// the tRNS key, which is transparent (white). `convert` and `convertRGB` share it.
    @inline(__always) private func colour(_ row: UnsafePointer<UInt8>, _ i: Int) -> (r: Int, g: Int, b: Int, a: Int)? {
        let wide = header.bitDepth == 16
        @inline(__always) func sample(_ k: Int, of n: Int) -> Int {
            wide ? Pixel.reduce16(Int(row[2 * (n * i + k)]) << 8 | Int(row[2 * (n * i + k) + 1])) : Int(row[n * i + k])
        }
        switch header.colorType {
        case 2:
            if let key {
                let p = row + (wide ? 6 : 3) * i
                let raw = wide ? (Int(p[0]) << 8 | Int(p[1]), Int(p[2]) << 8 | Int(p[3]), Int(p[4]) << 8 | Int(p[5]))
                    : (Int(p[0]), Int(p[1]), Int(p[2]))
                if key == raw { return nil }
            }
            return (sample(0, of: 3), sample(1, of: 3), sample(2, of: 3), 255)
        case 4:
            let y = sample(0, of: 2)
            return (y, y, y, sample(1, of: 2))
        default:
            return (sample(0, of: 4), sample(1, of: 4), sample(2, of: 4), sample(3, of: 4))
        }
    }

    /// Writes `count` RGB pixels (3 bytes) to `out`, `out + step`, …, after `convert` checked the row.
    func convertRGB(_ row: UnsafePointer<UInt8>, count: Int, into out: UnsafeMutablePointer<UInt8>, step: Int) {
        let d = header.bitDepth
        @inline(__always) func put(_ i: Int, _ r: Int, _ g: Int, _ b: Int, alpha: Int = 255) {
            let p = out + i * step
            p[0] = UInt8(Pixel.overWhite(r, alpha: alpha))
            p[1] = UInt8(Pixel.overWhite(g, alpha: alpha))
            p[2] = UInt8(Pixel.overWhite(b, alpha: alpha))
        }
        switch header.colorType {
        case 0:
            for i in 0..<count {
                let v: Int
                if d <= 8 { v = Int(table[d == 8 ? Int(row[i]) : packed(row, i, depth: d)]) } else {
                    let s = Int(row[2 * i]) << 8 | Int(row[2 * i + 1])
                    v = key?.0 == s ? 255 : Pixel.reduce16(s)
                }
                put(i, v, v, v)
            }
        case 3:
            for i in 0..<count {
                let index = 3 * (d == 8 ? Int(row[i]) : packed(row, i, depth: d))
                guard index + 2 < rgbTable.count else { continue }
                put(i, Int(rgbTable[index]), Int(rgbTable[index + 1]), Int(rgbTable[index + 2]))
            }
        default:
            for i in 0..<count {
                guard let c = colour(row, i) else {
                    put(i, 255, 255, 255)
                    continue
                }
                put(i, c.r, c.g, c.b, alpha: c.a)
            }
        }
    }

    /// Writes `count` luminance values to `out`, `out + step`, …; returns the first column whose
    /// palette index is out of range, nil when all are fine.
    func convert(_ row: UnsafePointer<UInt8>, count: Int, into out: UnsafeMutablePointer<UInt8>, step: Int) -> Int? {
        let d = header.bitDepth
        switch header.colorType {
        case 0 where d <= 8:
            table.withUnsafeBufferPointer { t in
                if d == 8 {
                    for i in 0..<count { out[i * step] = t[Int(row[i])] }
                } else {
                    for i in 0..<count { out[i * step] = t[packed(row, i, depth: d)] }
                }
            }
        case 0:
            for i in 0..<count {
                let v = Int(row[2 * i]) << 8 | Int(row[2 * i + 1])
                out[i * step] = key?.0 == v ? 255 : UInt8(Pixel.reduce16(v))
            }
        case 3:
            return table.withUnsafeBufferPointer { t -> Int? in
                for i in 0..<count {
                    let index = d == 8 ? Int(row[i]) : packed(row, i, depth: d)
                    guard index < t.count else { return i }
                    out[i * step] = t[index]
                }
                return nil
            }
        default:
            // Grey and alpha too: the luminance of (y, y, y) is y.
            for i in 0..<count {
                guard let c = colour(row, i) else {
                    out[i * step] = 255
                    continue
                }
                out[i * step] = UInt8(Pixel.overWhite(Pixel.luminance(c.r, c.g, c.b), alpha: c.a))
            }
        }
        return nil
    }
}
