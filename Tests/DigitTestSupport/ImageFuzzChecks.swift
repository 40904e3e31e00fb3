#if !DIGITS_FUZZ
import DigitKit
#endif
import Foundation

/// The properties checked on every fuzz input of the `images` and `gzip` targets (see FuzzChecks).
/// `ImageRobustnessTests` also replays the image fixtures and mutations of them through them.
extension FuzzChecks {
    /// Small limits, so that inputs of a few kilobytes also reach every limit check and no input
    /// makes a decoder allocate more than a few megabytes.
    public static let tightImageLimits = ImageLimits(maxPixels: 1 << 20, maxSide: 4096, maxJPEGScans: 64)

    /// `ImageDecoder.decode` must throw a `DigitError` naming the file, or return an image whose
    /// `gray` has `width * height` values and whose sizes keep the limits and the scale contract.
    /// Inputs are decoded twice: at full size, and with `maxSide` 16 (JPEG DCT scaling). A PNG
    /// decoded is also encoded again and must decode to the same luminance.
    public static func checkImageDecoding(_ bytes: [UInt8]) -> [String] {
        var problems: [String] = []
        for maxSide in [nil, 16] as [Int?] {
            do {
                let image = try ImageDecoder.decode(bytes, file: "fuzz.img", limits: tightImageLimits, maxSide: maxSide)
                problems += checkImage(image, limits: tightImageLimits, maxSide: maxSide)
                if maxSide == nil && image.format == .png && problems.isEmpty {
                    problems += checkPNGRoundTrip(image)
                }
            } catch {
                problems += checkError(error, source: "fuzz.img")
            }
        }
        return problems
    }

    /// Every input as a gzip file, and as raw DEFLATE data behind a minimal gzip header, so the
    /// fuzzer explores zlib's inflate and our header and trailer checks without first finding
    /// the magic bytes.
    public static func checkGzip(_ bytes: [UInt8]) -> [String] {
        var problems: [String] = []
        let header: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]
        for (input, name) in [(bytes, "fuzz.gz"), (header + bytes, "fuzz.deflate")] {
            do {
                let raw = try Gzip.decompress(input, file: name, limit: gzipLimit)
                if raw.count > gzipLimit { problems.append("decompressed \(raw.count) bytes, over the limit \(gzipLimit)") }
            } catch {
                problems += checkError(error, source: name)
            }
        }
        return problems
    }

    public static func checkImage(_ image: DecodedImage, limits: ImageLimits, maxSide: Int?) -> [String] {
        var problems: [String] = []
        let (w, h) = (image.width, image.height)
        if w < 1 || h < 1 { problems.append("decoded a \(w)×\(h) image") }
        if image.gray.count != w * h { problems.append("\(image.gray.count) values for \(w)×\(h)") }
        let (ow, oh) = (image.originalWidth, image.originalHeight)
        if ow > limits.maxSide || oh > limits.maxSide || ow * oh > limits.maxPixels {
            problems.append("stored size \(ow)×\(oh) is over the limits")
        }
        if ![1, 2, 4, 8].contains(image.scale) { problems.append("scale \(image.scale)") }
        if w != (ow + image.scale - 1) / image.scale || h != (oh + image.scale - 1) / image.scale {
            problems.append("\(w)×\(h) is not \(ow)×\(oh) at 1/\(image.scale)")
        }
        if image.format != .jpeg && image.scale != 1 { problems.append("a \(image.format) image scaled") }
        if image.scale > 1, let maxSide, max(w, h) < maxSide { problems.append("scaled below maxSide \(maxSide)") }
        if image.format == .jpeg && image.scale == 1, let maxSide, (max(ow, oh) + 1) / 2 >= maxSide {
            problems.append("a \(ow)×\(oh) JPEG was not scaled for maxSide \(maxSide)")
        }
        if image.summary.isEmpty || image.summary.contains("\n") { problems.append("summary \(image.summary.debugDescription)") }
        return problems
    }

    /// Our encoder's file of the decoded luminance decodes to the same luminance.
    public static func checkPNGRoundTrip(_ image: DecodedImage) -> [String] {
        do {
            let again = try PNG.decode(try PNG.encode(gray: image.gray, width: image.width, height: image.height), file: "again.png")
            return again.gray == image.gray ? [] : ["PNG encode/decode round trip changed the luminance"]
        } catch {
            return ["the decoded image cannot be encoded and decoded again: \(error)"]
        }
    }

    /// A refusal must be a `DigitError` naming `source`, with a bounded one-line description.
}
