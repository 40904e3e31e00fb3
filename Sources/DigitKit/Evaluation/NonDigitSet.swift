import Foundation

/// Drawings that are not digits, labelled with what they are ("A", "&", "spiral"), for measuring
/// how often the recognizer refuses them (`digits make-non-digits`, `digits eval`).
public enum NonDigitSet {
    /// The names of `NonDigitSamples`' shape kinds, used as labels.
    public static let scribbleKinds = ["dot", "tangle", "spiral", "zigzag", "dash", "cross", "crossing-out"]

    /// Every letter and symbol of `glyphs` that belongs to one of `fonts` and looks like no digit,
    /// drawn `repeats` times as a pen path distorted as in training (rotation up to 12°, shear,
    /// aspect, jitter), labelled by the glyph ("A"). The same inputs and seed give the same drawings.
    public static func glyphs(_ glyphs: [GlyphSamples.Glyph], fonts: Set<String>, repeats: Int, seed: UInt64) -> [Drawing] {
        var distortion = StrokeSamples(records: [], raster: RasterOptions())
        distortion.rotationDegrees = 12
        var rng = SplitMix64(seed: seed)
        var out: [Drawing] = []
        for glyph in glyphs where glyph.isRefusal && glyph.isIn(fonts) {
            for _ in 0..<repeats {
                var drawing = distortion.distorted(glyph.drawing, rng: &rng)
                drawing.label = glyph.drawing.label
                out.append(drawing)
            }
        }
        return out
    }

    /// `count` scribbles of the seven kinds in turn (dots, tangles, spirals, zigzags, dashes,
    /// crosses, crossings-out), labelled by kind. They come from the generator training uses, so
    /// they measure what training taught on its own kind of shape, not shapes it never saw.
    public static func scribbles(count: Int, seed: UInt64) -> [Drawing] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { i in
            let kind = i % scribbleKinds.count
            var drawing = NonDigitSamples.shape(kind: kind, rng: &rng)
            drawing.label = scribbleKinds[kind]
            drawing.canvasWidth = 100
            drawing.canvasHeight = 100
            return drawing
        }
    }
}
