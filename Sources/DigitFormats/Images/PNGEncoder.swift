import CZlib

extension PNG {
    /// An 8-bit gray PNG (colour type 0): `gray` is row-major, `width * height` bytes, 0 = black.
    public static func encode(gray: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        try encode(gray, channels: 1, colorType: 0, width: width, height: height)
    }

    /// An 8-bit RGB PNG (colour type 2): `rgb` is row-major R, G, B, `width * height * 3` bytes.
    public static func encode(rgb: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        try encode(rgb, channels: 3, colorType: 2, width: width, height: height)
    }

    /// An 8-bit RGBA PNG (colour type 6): `rgba` is row-major R, G, B, A (not premultiplied),
    /// `width * height * 4` bytes.
    public static func encode(rgba: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        try encode(rgba, channels: 4, colorType: 6, width: width, height: height)
    }

    /// `encode(gray:…)` written to `path` atomically.
    public static func write(gray: [UInt8], width: Int, height: Int, to path: String) throws {
        try FileIO.writeAtomically(try encode(gray: gray, width: width, height: height), to: path)
    }

    /// `encode(rgb:…)` written to `path` atomically.
    public static func write(rgb: [UInt8], width: Int, height: Int, to path: String) throws {
        try FileIO.writeAtomically(try encode(rgb: rgb, width: width, height: height), to: path)
    }

    /// `encode(rgba:…)` written to `path` atomically.
    public static func write(rgba: [UInt8], width: Int, height: Int, to path: String) throws {
        try FileIO.writeAtomically(try encode(rgba: rgba, width: width, height: height), to: path)
    }

    /// Not interlaced; each row takes the filter whose output has the smallest sum of absolute
    /// values as signed bytes (the heuristic of the PNG specification, §12.8); one zlib stream at
    /// level 6, in IDAT chunks of at most 1 GiB.
    static func encode(_ samples: [UInt8], channels: Int, colorType: UInt8, width: Int, height: Int) throws -> [UInt8] {
        try EncoderInput.check(samples.count, width: width, height: height, channels: channels,
                               maxSide: Int(Int32.max), format: "PNG")
        let rowBytes = width * channels
        var filtered = [UInt8](repeating: 0, count: (rowBytes + 1) * height)
        samples.withUnsafeBufferPointer { source in
            filtered.withUnsafeMutableBufferPointer { target in
                guard let src = source.baseAddress, let dst = target.baseAddress else { return }
                var candidate = [UInt8](repeating: 0, count: rowBytes)
                for y in 0..<height {
                    let row = src + y * rowBytes
                    let previous: UnsafePointer<UInt8>? = y > 0 ? row - rowBytes : nil
                    let out = dst + y * (rowBytes + 1)
                    var best = Int.max
                    candidate.withUnsafeMutableBufferPointer { c in
                        guard let c = c.baseAddress else { return }
                        for type in UInt8(0)...4 {
                            let cost = applyFilter(type, row: row, previous: previous, count: rowBytes, stride: channels, into: c)
                            if cost < best {
                                best = cost
                                out[0] = type
                                (out + 1).update(from: c, count: rowBytes)
                            }
                        }
                    }
                }
            }
        }
        var header: [UInt8] = []
        appendBigEndian(UInt32(width), to: &header)
        appendBigEndian(UInt32(height), to: &header)
        header += [8, colorType, 0, 0, 0]  // bit depth, colour type, deflate, adaptive filters, no interlace
        let compressed = try deflate(filtered)
        var out = signature
        out.reserveCapacity(compressed.count + 64)
        appendChunk("IHDR", header[...], to: &out)
        var start = 0
        repeat {
            let end = min(compressed.count, start + (1 << 30))
            appendChunk("IDAT", compressed[start..<end], to: &out)
            start = end
        } while start < compressed.count
        appendChunk("IEND", [], to: &out)
        return out
    }

    /// Filters one row into `out`; returns the sum of |out[i]| as signed bytes.
    private static func applyFilter(_ type: UInt8, row: UnsafePointer<UInt8>, previous: UnsafePointer<UInt8>?,
                                    count n: Int, stride s: Int, into out: UnsafeMutablePointer<UInt8>) -> Int {
        var cost = 0
        for i in 0..<n {
            let a = i >= s ? row[i - s] : 0
            let b = previous?[i] ?? 0
            let c = i >= s ? previous?[i - s] ?? 0 : 0
            let predicted: UInt8
            switch type {
            case 0: predicted = 0
            case 1: predicted = a
            case 2: predicted = b
            case 3: predicted = UInt8((Int(a) + Int(b)) >> 1)
            default: predicted = PNGFilter.paeth(a, b, c)
            }
            let v = row[i] &- predicted
            out[i] = v
            cost += abs(Int(Int8(bitPattern: v)))
        }
        return cost
    }

    /// A zlib stream (RFC 1950) of `data` at level 6.
    private static func deflate(_ data: [UInt8]) throws -> [UInt8] {
        guard let deflater = ZStream.deflater(level: 6) else {
            throw DigitError(.limit, "out of memory for the zlib deflater")
        }
        let z = deflater.stream
        var out = [UInt8](repeating: 0, count: Int(deflateBound(z, UInt(data.count))))
        var produced = 0
        var status = Z_OK
        data.withUnsafeBufferPointer { input in
            var consumed = 0
            while status == Z_OK {
                let slice = min(input.count - consumed, 1 << 30)
                let last = consumed + slice == input.count
                z.pointee.next_in = input.baseAddress.map { UnsafeMutablePointer(mutating: $0 + consumed) }
                z.pointee.avail_in = UInt32(slice)
                if out.count - produced < 1 << 16 { out += [UInt8](repeating: 0, count: max(out.count, 1 << 16)) }
                let room = min(out.count - produced, 1 << 30)
                status = out.withUnsafeMutableBufferPointer { buffer in
                    z.pointee.next_out = buffer.baseAddress.map { $0 + produced }
                    z.pointee.avail_out = UInt32(room)
                    return CZlib.deflate(z, last ? Z_FINISH : Z_NO_FLUSH)
                }
                consumed += slice - Int(z.pointee.avail_in)
                produced += room - Int(z.pointee.avail_out)
                if status == Z_BUF_ERROR { status = Z_OK }
            }
        }
        guard status == Z_STREAM_END else { throw DigitError(.limit, "zlib deflate failed (status \(status))") }
        out.removeLast(out.count - produced)
        return out
    }

    private static func appendChunk(_ type: String, _ data: ArraySlice<UInt8>, to out: inout [UInt8]) {
        appendBigEndian(UInt32(data.count), to: &out)
        let start = out.count
        out += Array(type.utf8)
        out += data
        let crc = out.withUnsafeBytes { zlibCRC32(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        appendBigEndian(crc, to: &out)
    }

    private static func appendBigEndian(_ value: UInt32, to out: inout [UInt8]) {
        out += [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}

/// Checks an encoder's arguments: the sides and the sample count.
enum EncoderInput {
    static func check(_ count: Int, width: Int, height: Int, channels: Int, maxSide: Int, format: String) throws {
        guard (1...maxSide).contains(width), (1...maxSide).contains(height) else {
            throw DigitError(.usage, "a \(format) image must be 1…\(maxSide) pixels on each side, got \(width)×\(height)")
        }
        let (pixels, o1) = width.multipliedReportingOverflow(by: height)
        let (expected, o2) = pixels.multipliedReportingOverflow(by: channels)
        guard !o1, !o2, expected == count else {
            throw DigitError(.usage, "\(count) samples do not make a \(width)×\(height) image of \(channels) channel\(channels == 1 ? "" : "s")")
        }
    }
}
