import Foundation

/// The random values one rendering drew, for messages and for tests that need to know what was
/// applied. Tones and colours are reflectances 0…1 (0 black, 1 white), on the output's scale.
public struct PaperEffects: Equatable, Sendable {
    /// Height of the ink of the whole drawing in pixels, after fitting it into the image.
    public var digitHeight: Float = 0
    /// Pen width in pixels (the mean; it varies along each stroke).
    public var penWidth: Float = 0
    /// Rotation in degrees, clockwise on the screen.
    public var rotation: Float = 0
    /// Keystone: the scale changes by this share per image long side, along x and along y.
    public var tiltX: Float = 0
    public var tiltY: Float = 0
    /// Light ink on a dark board.
    public var inverted = false
    public var ink = PaperColour(0, 0, 0)
    public var inkOpacity: Float = 1
    public var paper = PaperColour(1, 1, 1)
    /// Amplitude of the fibre and grain noise, as a share of the paper's tone.
    public var texture: Float = 0
    /// Light falls off by this share from the bright side to the dark side.
    public var gradient: Float = 0
    public var vignette: Float = 0
    /// Darkening inside the shadow (0 when there is none) and the width of its soft edge in pixels.
    public var shadow: Float = 0
    public var shadowSoftness: Float = 0
    /// Gaussian blur, standard deviation in pixels.
    public var blur: Float = 0
    /// Sensor noise, standard deviation on the 0…1 scale.
    public var noise: Float = 0
    public var jpegQuality = 90
    /// The `PaperArtefacts` kinds this image got (their raw names, in `PaperArtefacts.Kind`'s
    /// order); empty for a plain render.
    public var artefacts: [String] = []

    public init() {}
}

/// An RGB reflectance, each channel 0…1.
public struct PaperColour: Equatable, Sendable {
    public var r: Float
    public var g: Float
    public var b: Float

    public init(_ r: Float, _ g: Float, _ b: Float) {
        self.r = r
        self.g = g
        self.b = b
    }

    /// BT.601 luminance, the weights `DecodedImage` uses.
    public var luminance: Float { 0.299 * r + 0.587 * g + 0.114 * b }
}

/// A synthetic photograph of handwriting on paper, and where each digit is in it.
public struct PaperImage: Equatable, Sendable {
    public var width: Int
    public var height: Int
    /// Luminance, row-major, `width * height` bytes, 0 = black … 255 = white; from the RGB bytes
    /// with `DecodedImage`'s integer BT.601 formula when there is colour.
    public var gray: [UInt8]
    /// R, G, B bytes a pixel, row-major, when the renderer made colour; else nil.
    public var rgb: [UInt8]?
    /// One box per digit of the drawing, left to right in the order of the digit indices given to
    /// the renderer: every pixel the pen touched (before blur) lies in its digit's box, and the
    /// box is at most about a pixel larger than that ink. Clipped to the image.
    public var digitBoxes: [PixelRect]
    /// The drawing's label ("2026"), when it had one.
    public var label: String?
    /// Marks written after the number as amounts have them (".", ",", "=", "-", "/-";
    /// `PaperArtefacts`), in the writer's pen but not part of `label` and outside `digitBoxes`;
    /// nil when there are none.
    public var marks: String?
    /// Ink coverage 0…255 of each pixel as drawn, before light, blur and noise; only when the
    /// renderer's `keepsInkMask` is set (for tests), else nil.
    public var inkMask: [UInt8]?
    public var effects: PaperEffects

    public init(width: Int, height: Int, gray: [UInt8], rgb: [UInt8]? = nil, digitBoxes: [PixelRect], label: String? = nil,
                inkMask: [UInt8]? = nil, effects: PaperEffects = PaperEffects(), marks: String? = nil) {
        self.width = width
        self.height = height
        self.gray = gray
        self.rgb = rgb
        self.digitBoxes = digitBoxes
        self.label = label
        self.inkMask = inkMask
        self.effects = effects
        self.marks = marks
    }

    /// The columns `columns` of the image (as if the photo had been framed there): the boxes
    /// clipped to them and shifted, a box outside them empty at the nearer edge.
    public func cropped(columns: Range<Int>) -> PaperImage {
        let c = columns.clamped(to: 0..<width)
        func rows(_ bytes: [UInt8], _ channels: Int) -> [UInt8] {
            (0..<height).flatMap { y in bytes[((y * width + c.lowerBound) * channels)..<((y * width + c.upperBound) * channels)] }
        }
        var out = self
        out.width = c.count
        out.gray = rows(gray, 1)
        out.rgb = rgb.map { rows($0, 3) }
        out.inkMask = inkMask.map { rows($0, 1) }
        out.digitBoxes = digitBoxes.map { b in
            let x0 = min(max(b.x, c.lowerBound), c.upperBound) - c.lowerBound
            let x1 = max(min(b.maxX, c.upperBound), c.lowerBound) - c.lowerBound
            return PixelRect(x0: x0, y0: b.y, x1: max(x0, x1), y1: b.maxY)
        }
        return out
    }

    /// The rectangle `box` of the image (clipped to it), as if the photo had been framed there:
    /// the digit boxes clipped to it and shifted, a box outside it empty at the nearer corner.
    public func cropped(to box: PixelRect) -> PaperImage {
        let x0 = min(max(box.x, 0), width), x1 = min(max(box.maxX, x0), width)
        let y0 = min(max(box.y, 0), height), y1 = min(max(box.maxY, y0), height)
        func rows(_ bytes: [UInt8], _ channels: Int) -> [UInt8] {
            (y0..<y1).flatMap { y in bytes[((y * width + x0) * channels)..<((y * width + x1) * channels)] }
        }
        var out = self
        out.width = x1 - x0
        out.height = y1 - y0
        out.gray = rows(gray, 1)
        out.rgb = rgb.map { rows($0, 3) }
        out.inkMask = inkMask.map { rows($0, 1) }
        out.digitBoxes = digitBoxes.map { b in
            let bx0 = min(max(b.x, x0), x1) - x0, by0 = min(max(b.y, y0), y1) - y0
            let bx1 = max(min(b.maxX, x1), x0) - x0, by1 = max(min(b.maxY, y1), y0) - y0
            return PixelRect(x0: bx0, y0: by0, x1: max(bx0, bx1), y1: max(by0, by1))
        }
        return out
    }

    /// The image as a file: JPEG at the quality the renderer drew (the compression is one of the
    /// modelled effects), PNG, or PGM (gray even when there is colour). Colour is kept for JPEG
    /// and PNG when present.
    public func encoded(_ format: PaperFormat) throws -> [UInt8] {
        switch format {
        case .jpeg:
            if let rgb { return try JPEG.encode(rgb: rgb, width: width, height: height, quality: effects.jpegQuality) }
            return try JPEG.encode(gray: gray, width: width, height: height, quality: effects.jpegQuality)
        case .png:
            if let rgb { return try PNG.encode(rgb: rgb, width: width, height: height) }
            return try PNG.encode(gray: gray, width: width, height: height)
        case .pgm:
            return try PNM.encodeP5(gray: gray, width: width, height: height)
        }
    }
}

/// The file formats `PaperImage.encoded` writes.
public enum PaperFormat: String, CaseIterable, Sendable {
    case jpeg, png, pgm

    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .png: return "png"
        case .pgm: return "pgm"
        }
    }
}

/// The label file of a set of paper images: one line per image,
/// `FILE<TAB>LABEL<TAB>x0,y0,x1,y1;x0,y0,x1,y1;…` with the digit boxes left to right
/// (`PixelRect`, half-open pixel ranges), and a fourth field `<TAB>MARKS` only for an image with
/// marks after its number (`PaperImage.marks`: "/-"), which are not part of LABEL. FILE is
/// relative to the label file's folder.
public enum PaperLabels {
    public struct Entry: Equatable, Sendable {
        public var file: String
        public var label: String
        public var boxes: [PixelRect]
        /// `PaperImage.marks`; nil (no fourth field) when there are none.
        public var marks: String?

        public init(file: String, label: String, boxes: [PixelRect], marks: String? = nil) {
            self.file = file
            self.label = label
            self.boxes = boxes
            self.marks = marks
        }
    }

    /// One line, without the line break.
    public static func line(_ entry: Entry) -> String {
        let fields = entry.file + "\t" + entry.label + "\t" + entry.boxes.map { "\($0.x),\($0.y),\($0.maxX),\($0.maxY)" }.joined(separator: ";")
        guard let marks = entry.marks, !marks.isEmpty else { return fields }
        return fields + "\t" + marks
    }

    /// The entries of a label file; blank lines are skipped. Throws `.format` naming the line.
    public static func parse(_ text: String, file: String) throws -> [Entry] {
        var entries: [Entry] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if line.allSatisfy({ $0 == " " }) { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 3 || fields.count == 4, !fields[0].isEmpty else {
                throw DigitError(.format, file: file, at: "line \(index + 1)",
                                 "expected FILE<TAB>LABEL<TAB>BOXES[<TAB>MARKS], found \(fields.count) tab-separated fields")
            }
            var boxes: [PixelRect] = []
            for part in fields[2].split(separator: ";") {
                let v = part.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
                guard v.count == 4, let x0 = v[0], let y0 = v[1], let x1 = v[2], let y1 = v[3] else {
                    throw DigitError(.format, file: file, at: "line \(index + 1)", "expected a box x0,y0,x1,y1, found '\(part)'")
                }
                boxes.append(PixelRect(x0: x0, y0: y0, x1: x1, y1: y1))
            }
            let marks = fields.count == 4 && !fields[3].isEmpty ? String(fields[3]) : nil
            entries.append(Entry(file: String(fields[0]), label: String(fields[1]), boxes: boxes, marks: marks))
        }
        return entries
    }
}
