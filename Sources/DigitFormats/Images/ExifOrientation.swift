/// The EXIF orientation of a JPEG file: how its stored pixels are turned or mirrored from the way
/// the picture is meant to be seen. Phone cameras store the sensor's rows as they come and record
/// the turn here (6: a portrait photo whose rows run down its right-hand side), so a photo of a
/// digit taken upright is stored lying on its side; every viewer turns it back, and so does
/// `JPEG.decode`.
///
/// The value is TIFF tag 0x0112 (a SHORT, 1…8) of IFD0 in the first APP1 segment that starts
/// with `Exif\0\0`, before the first scan. Anything else — no such segment, a TIFF header that is
/// neither `II` nor `MM`, an offset or a count that runs past the segment, a value outside 1…8 —
/// is no orientation (1): a camera's damaged metadata does not make its picture unreadable.
public enum ExifOrientation {
    /// Segments looked at before the first scan, at most.
    static let maxSegments = 64
    /// Directory entries looked at in IFD0, at most.
    static let maxEntries = 512

    /// The orientation recorded in `bytes` (a JPEG file), 1…8; 1 when none can be read.
    public static func read(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBufferPointer { find(in: $0) } ?? 1
    }

    private static func find(in b: UnsafeBufferPointer<UInt8>) -> Int? {
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
        var i = 2, segments = 0
        while i + 4 <= b.count, segments < maxSegments {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }                                  // a fill byte
            if marker == 0xDA || marker == 0xD9 { return nil }                      // the first scan, or the end
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue } // no length
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2, i + 2 + length <= b.count else { return nil }
            let start = i + 4, end = i + 2 + length
            if marker == 0xE1, end - start >= 6,
               b[start] == 0x45, b[start + 1] == 0x78, b[start + 2] == 0x69, b[start + 3] == 0x66,
               b[start + 4] == 0, b[start + 5] == 0 {
                return tiffOrientation(b, base: start + 6, end: end)
            }
            i = end
            segments += 1
        }
        return nil
    }

    /// Tag 0x0112 of IFD0 of the TIFF structure in `b[base..<end]`, when it is a SHORT in 1…8.
    private static func tiffOrientation(_ b: UnsafeBufferPointer<UInt8>, base: Int, end: Int) -> Int? {
        guard end - base >= 8 else { return nil }
        let little: Bool
        switch (b[base], b[base + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        // Offsets are from the TIFF header; every read is checked against the segment's end.
        func u16(_ offset: Int) -> Int? {
            guard offset >= 0, offset <= end - base - 2 else { return nil }
            let a = Int(b[base + offset]), c = Int(b[base + offset + 1])
            return little ? a | c << 8 : a << 8 | c
        }
        func u32(_ offset: Int) -> Int? {
            guard let first = u16(offset), let second = u16(offset + 2) else { return nil }
            return little ? second << 16 | first : first << 16 | second
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        for k in 0..<min(count, maxEntries) {
            let entry = ifd + 2 + 12 * k
            guard let tag = u16(entry) else { return nil }
            guard tag == 0x0112 else { continue }
            // A SHORT's value sits in the first two bytes of the entry's value field, either byte order.
            guard u16(entry + 2) == 3, let value = u16(entry + 8), (1...8).contains(value) else { return nil }
            return value
        }
        return nil
    }
}

extension DecodedImage {
    /// The image as it is meant to be seen, given its EXIF `orientation` (1…8): mirrored and
    /// turned as the TIFF specification says (2 mirrored left to right, 3 turned half round, 4
    /// mirrored top to bottom, 5 mirrored about the diagonal, 6 turned a quarter clockwise, 7
    /// mirrored about the other diagonal, 8 turned a quarter anticlockwise). The stored size and
    /// the grey and colour samples are turned with it; `orientation` records what was done.
    public func upright(orientation: Int) -> DecodedImage {
        guard (2...8).contains(orientation) else { return self }
        let w = width, h = height
        let swaps = orientation >= 5
        let ow = swaps ? h : w, oh = swaps ? w : h
        // The stored pixel shown at (x, y) of the upright image.
        func source(_ x: Int, _ y: Int) -> Int {
            switch orientation {
            case 2: return y * w + (w - 1 - x)
            case 3: return (h - 1 - y) * w + (w - 1 - x)
            case 4: return (h - 1 - y) * w + x
            case 5: return x * w + y
            case 6: return (h - 1 - x) * w + y
            case 7: return (h - 1 - x) * w + (w - 1 - y)
            default: return x * w + (w - 1 - y)   // 8
            }
        }
        var out = self
        out.width = ow
        out.height = oh
        var grayOut = [UInt8](repeating: 0, count: ow * oh)
        var rgbOut = rgb.map { [UInt8](repeating: 0, count: $0.count) }
        for y in 0..<oh {
            for x in 0..<ow {
                let s = source(x, y), d = y * ow + x
                grayOut[d] = gray[s]
                if let rgb {
                    rgbOut![3 * d] = rgb[3 * s]
                    rgbOut![3 * d + 1] = rgb[3 * s + 1]
                    rgbOut![3 * d + 2] = rgb[3 * s + 2]
                }
            }
        }
        out.gray = grayOut
        out.rgb = rgbOut
        if swaps { swap(&out.originalWidth, &out.originalHeight) }
        out.orientation = orientation
        return out
    }
}
