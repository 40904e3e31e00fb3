import Foundation

/// The ink of a whole image taken as one glyph, found the way a close-up needs: a phone photo of
/// one digit that fills the frame (or runs off it), written with anything from a fine pen to a
/// marker. The line reader's ink map measures the pen on the page and closes over a few pen
/// widths; on a close-up a marker's strokes are a fifth of the frame, a shadow's edge keeps its
/// broad-pen test from firing, and only the strokes' edges are found (docs/images.md). Here the
/// scale is the frame's instead:
///
/// 1. The image is reduced to about `side` pixels on its long side (area averaging); the ink is
///    dark on light paper unless the image's median is dark (chalk on a board) and the ink map
///    the line reader made does not say dark ink (`lightInk`, when given): a page under two
///    shadows is dark too, and its lit strip between them was taken for a stroke of chalk.
/// 2. The paper is a grey closing over a square `closing` of the short side across, wider than
///    any stroke of a digit that fills the frame; it keeps a shadow's edge, a step wider than
///    the square. The ink is the darkening relative to that paper (so a shadow does not weaken
///    it), 0…255.
/// 3. Ink is what darkens by more than half of the 99th percentile (and at least `floor`); its
///    8-connected components that are rules (ten times as long as thick, `LineImage.isRule`,
///    and their box at most 1/`straight` as wide as long: a fine pen's digit is as thin, but
///    not straight) are dropped, and so are those under `partShare` of the largest left.
/// 4. The glyph is what is kept, rendered as MNIST was (`InkRegion`).
///
/// It is a close-up (`isCloseup`) when its ink spans at least `closeupHeight` of the frame's
/// height, is at most `tallest` times as tall as wide (a rule or a margin's edge is taller), and
/// is at most two parts (a digit's strokes, or a digit and a bit of the next). Only then is the
/// glyph read with the digit network, and only when the line reader left the image unanswered,
/// or answered it from a band that holds under `explained` of a one-part glyph's ink
/// (`DigitRecognizer.read(image:options:)`, which also asks that the glyph hold what the line
/// reader read: `inkShare(in:)` at least `heldShare`; and that the answer be at least `sure`,
/// or agree with the line reader's).
struct CloseupGlyph {
    static let side = 64
    static let closing: Float = 0.17
    static let floor: Float = 0.12
    static let partShare: Float = 0.15
    static let straight = 4
    static let closeupHeight: Float = 0.75
    static let tallest: Float = 3
    static let heldShare: Float = 0.05
    static let sure: Float = 0.98
    static let explained: Float = 0.7

    /// The glyph's 784 pixels, MNIST's way (0…1, ink light).
    let pixels: [Float]
    /// The kept ink's box in the image's stored pixels.
    let box: InkBox
    /// The kept ink's height over the frame's.
    let heightShare: Float
    /// The kept ink's height over its width.
    let aspect: Float
    /// How many components were kept.
    let parts: Int
    /// The kept ink in working pixels (0 elsewhere), `width` a row, and the working pixel's size
    /// in stored pixels.
    private let glyphInk: [Float]
    private let width: Int
    private let toImage: Float

    var isCloseup: Bool { heightShare >= Self.closeupHeight && aspect <= Self.tallest && parts <= 2 }

    /// The glyph of `page`; `lightInk`: the ink map's polarity, if one was made (false keeps a
    /// dark page's ink dark).
    init?(_ page: FloatImage, lightInk given: Bool? = nil) {
        let small = page.reduced(toSide: Self.side)
        let w = small.width, h = small.height
        guard w >= 8, h >= 8 else { return nil }
        let lightInk = Morphology.quantile(small.values, 0.5) < 128 && given != false
        let level = lightInk ? small.values.map { 255 - $0 } : small.values
        let radius = max(2, Int(Self.closing * Float(min(w, h))))
        let ink = Morphology.darkening(level, width: w, height: h, radius: radius)
        let strong = max(255 * Self.floor, 0.5 * Morphology.quantile(ink, 0.99))
        let found = InkComponents.label(width: w, height: h, seed: { ink[$0] > strong }, grow: { ink[$0] > strong })
        let parts = found.components.filter {
            // A rule is thin for its length, and straight: its box is thin too. A digit's
            // stroke in a fine pen is as thin for its length, but its box is not.
            let length = max($0.width, $0.height)
            return !(LineImage.isRule(length: length, thickness: max(1, $0.pixels.count / length))
                && min($0.width, $0.height) * Self.straight <= length)
        }
        guard let largest = parts.map(\.pixels.count).max() else { return nil }
        let kept = parts.filter { Float($0.pixels.count) >= Self.partShare * Float(largest) }
        var glyph = [Float](repeating: 0, count: w * h)
        var x0 = w, y0 = h, x1 = -1, y1 = -1
        for c in kept {
            for p in c.pixels { glyph[p] = ink[p] }
            x0 = min(x0, c.x0); y0 = min(y0, c.y0); x1 = max(x1, c.x1); y1 = max(y1, c.y1)
        }
        var pixels = [Float](repeating: 0, count: 784)
        pixels.withUnsafeMutableBufferPointer { InkRegion(ink: small.with(glyph), keep: 0).render(extentFloor: 0, into: $0) }
        self.pixels = pixels
        self.parts = kept.count
        glyphInk = glyph
        width = w
        heightShare = Float(y1 - y0 + 1) / Float(h)
        aspect = Float(y1 - y0 + 1) / Float(x1 - x0 + 1)
        toImage = Float(small.factor * small.scale)
        box = InkBox(x0: Float(x0) * toImage, y0: Float(y0) * toImage, x1: Float(x1 + 1) * toImage, y1: Float(y1 + 1) * toImage)
    }

    /// The share of the glyph's ink (its working pixels) that lies in `region` (stored pixels).
    func share(in region: InkBox) -> Float {
        let h = glyphInk.count / width
        var inside = 0, all = 0
        for y in 0..<h {
            let cy = (Float(y) + 0.5) * toImage
            for x in 0..<width where glyphInk[y * width + x] > 0 {
                all += 1
                let cx = (Float(x) + 0.5) * toImage
                if cx >= region.x0 && cx <= region.x1 && cy >= region.y0 && cy <= region.y1 { inside += 1 }
            }
        }
        return all == 0 ? 1 : Float(inside) / Float(all)
    }

    /// The share of the working pixels in `region` (stored pixels) that hold the glyph's ink.
    func inkShare(in region: InkBox) -> Float {
        let h = glyphInk.count / width
        let x0 = max(0, Int(region.x0 / toImage)), x1 = min(width - 1, Int(region.x1 / toImage))
        let y0 = max(0, Int(region.y0 / toImage)), y1 = min(h - 1, Int(region.y1 / toImage))
        guard x0 <= x1, y0 <= y1 else { return 0 }
        var inked = 0
        for y in y0...y1 { for x in x0...x1 where glyphInk[y * width + x] > 0 { inked += 1 } }
        return Float(inked) / Float((x1 - x0 + 1) * (y1 - y0 + 1))
    }
}
