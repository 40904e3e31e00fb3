import DigitFormats
import Foundation

/// A real scan made as soft as other scans and photos come: out of focus (a Gaussian blur of
/// `blur` × the image's shorter side, 1–2.4 pixels on a parish crop, whose digits are about 30
/// pixels tall) and compressed hard (JPEG at `jpegQuality`; skipped where the build has no JPEG
/// encoder). The paper model's real training crops are sharp, so it read blurred numbers wrong
/// and sure of them (docs/images.md); `digits train --recipe paper --soft-scans P` adds such copies.
public struct ScanDegradation: Sendable {
    public var blur: ClosedRange<Float> = 0.008...0.018
    public var jpegQuality: ClosedRange<Int> = 20...60

    public init() {}

    /// `image` (its gray plane) blurred and recompressed, the amounts drawn from `rng`.
    public func apply(to image: DecodedImage, rng: inout SplitMix64) -> DecodedImage {
        let w = image.width, h = image.height
        var plane = image.gray.map { Float($0) }
        let sigma = rng.uniform(blur.lowerBound, blur.upperBound) * Float(min(w, h))
        PaperPixels.blur(&plane, width: w, height: h, sigma: sigma)
        var gray = plane.map { UInt8(min(255, max(0, $0.rounded()))) }
        let quality = jpegQuality.lowerBound + Int(rng.next() % UInt64(jpegQuality.count))
        if let bytes = try? JPEG.encode(gray: gray, width: w, height: h, quality: quality),
           let back = try? JPEG.decode(bytes, file: "soft scan"), back.width == w, back.height == h {
            gray = back.gray
        }
        return DecodedImage(width: w, height: h, gray: gray, format: image.format, color: .gray, bitDepth: 8)
    }
}
