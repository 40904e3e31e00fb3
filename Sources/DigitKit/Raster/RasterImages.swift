import Foundation

/// Pictures of rasters: bytes for image files, nearest-neighbour enlargement, and an ASCII view.
/// Gray images are row-major bytes; rasters are floats, 0 = background, 1 = ink.
public enum RasterImages {
    /// `[0, 1]` floats to bytes: `round(clamp(v, 0, 1) * 255)`; NaN becomes 0.
    public static func grayBytes(_ image: [Float]) -> [UInt8] {
        image.map { v in v > 0 ? UInt8((min(v, 1) * 255).rounded()) : 0 }
    }

    /// Each pixel repeated `factor` × `factor` times (`factor` in 1…64). Throws when
    /// `gray.count != width * height` or the result would exceed 2^28 pixels.
    public static func upscale(_ gray: [UInt8], width: Int, height: Int, factor: Int) throws -> [UInt8] {
        let (area, overflow) = width.multipliedReportingOverflow(by: height)
        guard width >= 0, height >= 0, !overflow, area == gray.count else {
            throw DigitError(.usage, "image of \(gray.count) bytes does not match \(width)×\(height)")
        }
        guard (1...64).contains(factor), gray.count * factor * factor <= 1 << 28 else {
            throw DigitError(.usage, "scale factor \(factor) is out of range for a \(width)×\(height) image")
        }
        let outWidth = width * factor
        var out = [UInt8](repeating: 0, count: outWidth * height * factor)
        for y in 0..<(height * factor) {
            let source = (y / factor) * width
            let row = y * outWidth
            for x in 0..<outWidth { out[row + x] = gray[source + x / factor] }
        }
        return out
    }

    /// The image as lines of `width` pixels, each written twice so it looks square, darkest to
    /// brightest " .:-=+*#%@": 0 is a space, any ink at least ".", 1 is "@".
    public static func ascii(_ image: [Float], width: Int = 28) -> String {
        let ramp = Array(" .:-=+*#%@")
        var text = ""
        let height = width > 0 ? image.count / width : 0
        for y in 0..<height {
            for x in 0..<width {
                let v = image[y * width + x]
                let level = v > 0 ? min(ramp.count - 1, 1 + Int(min(v, 1) * Float(ramp.count - 1))) : 0
                text.append(ramp[level])
                text.append(ramp[level])
            }
            text.append("\n")
        }
        return text
    }
}
