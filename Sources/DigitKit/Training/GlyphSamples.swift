import Foundation

/// Glyphs of stroke fonts (the Hershey fonts, `Fixtures/hershey/glyphs.jsonl`, made by
/// scripts/make-hershey-strokes) drawn as jittered pen paths: letters and symbols as "not a digit",
/// digits as digits in the fonts' forms. Letters that look like a digit once scaled (`looks_like`
/// in the file: l, I, O, o, S, Z, B…) are left out of the refusals.
public struct GlyphSamples: SampleSource {
    public struct Glyph: Sendable {
        public var drawing: Drawing
        /// "digit", "upper", "lower" or "symbol".
        public var kind: String
        /// The digit a non-digit glyph is easily taken for, if any.
        public var looksLike: String?
        /// The fonts that hold this shape (`font`, then `also` in the file).
        public var fonts: [String] = []

        /// True when one of the fonts holding this shape is in `set`.
        public func isIn(_ set: Set<String>) -> Bool { fonts.contains { set.contains($0) } }

        /// A letter or symbol that looks like no digit: what "not a digit" is trained and measured on.
        public var isRefusal: Bool { kind != "digit" && looksLike == nil }
    }

    /// Fonts kept out of training to measure refusals on glyph shapes the network never saw: a
    /// sans-serif (futuram), a serif italic (timesib), a script (scriptc) and a gothic italic
    /// (gothicita). A shape that several fonts share is held out when any of them is.
    public static let heldOutFonts: Set<String> = ["futuram", "timesib", "scriptc", "gothicita"]

    public let glyphs: [Glyph]
    public let labels: [Int]
    /// The pen-path distortion, pen width and softness of `StrokeSamples`.
    public var strokes: StrokeSamples

    /// Glyphs of `glyphs`: digits labelled by their digit, the other glyphs that look like no
    /// digit labelled `refusalLabel`; with `digits` or `refusals` false, those are left out.
    public init(_ glyphs: [Glyph], refusalLabel: Int, digits: Bool = true, refusals: Bool = true, raster: RasterOptions) {
        var kept: [Glyph] = [], labels: [Int] = []
        for glyph in glyphs {
            if glyph.kind == "digit" {
                guard digits, let d = glyph.drawing.labelDigit else { continue }
                kept.append(glyph)
                labels.append(d)
            } else if refusals, glyph.isRefusal {
                kept.append(glyph)
                labels.append(refusalLabel)
            }
        }
        self.glyphs = kept
        self.labels = labels
        strokes = StrokeSamples(records: [], raster: raster)
    }

    public var count: Int { glyphs.count }
    public func label(_ i: Int) -> Int { labels[i] }

    public func render(_ i: Int, augment: Bool, rng: inout SplitMix64, into pixels: UnsafeMutablePointer<Float>) {
        strokes.render(glyphs[i].drawing, augment: augment, rng: &rng, into: pixels)
    }

    /// Reads a glyph file (stroke JSON Lines with `kind` and `looks_like`). Errors name the file and line.
    public static func load(_ path: String) throws -> [Glyph] {
        let bytes = try FileIO.read(path, limit: 64 << 20)
        var glyphs: [Glyph] = []
        for (n, line) in bytes.split(separator: UInt8(ascii: "\n")).enumerated() where !line.isEmpty {
            let value: JSONValue
            do { value = try JSONParser.parse(Array(line)) } catch let e as DigitError {
                throw DigitError(e.kind, file: path, at: "line \(n + 1)", e.message)
            }
            let drawing: Drawing
            do { drawing = try StrokeJSON.decode(value) } catch let e as DigitError {
                throw DigitError(e.kind, file: path, at: "line \(n + 1)" + (e.location.map { ": " + $0 } ?? ""), e.message)
            }
            guard case let .string(kind)? = value["kind"] else {
                throw DigitError(.format, file: path, at: "line \(n + 1)", "missing \"kind\" (digit, upper, lower or symbol)")
            }
            var looksLike: String?
            if case let .string(s)? = value["looks_like"] { looksLike = s }
            var fonts: [String] = []
            if case let .string(font)? = value["font"] { fonts.append(font) }
            if case let .array(also)? = value["also"] {
                fonts += also.compactMap { if case let .string(f) = $0 { return f }; return nil }
            }
            glyphs.append(Glyph(drawing: drawing, kind: kind, looksLike: looksLike, fonts: fonts))
        }
        return glyphs
    }
}
