import Foundation

/// Lines of writing cut from labelled images (`LineImage`), held as 8-bit strips: what the line
/// model trains and is tuned on. Loading a folder decodes every image once; `cache` keeps the
/// strips in a file so a second run reads them in a second.
public struct LineSet: Sendable {
    public private(set) var labels: [String] = []
    public private(set) var widths: [Int] = []
    private var offsets: [Int] = []
    private var pixels: [UInt8] = []

    public init() {}

    public var count: Int { labels.count }

    public mutating func append(_ strip: LineImage, label: String) {
        offsets.append(pixels.count)
        widths.append(strip.width)
        labels.append(label)
        pixels += strip.pixels.map { UInt8(min(255, max(0, ($0 * 255).rounded()))) }
    }

    public mutating func append(contentsOf other: LineSet) {
        for i in 0..<other.count { append(other.strip(i), label: other.labels[i]) }
    }

    /// Strip `i` as ink strengths 0…1.
    public func strip(_ i: Int) -> LineImage {
        let n = LineImage.height * widths[i]
        return LineImage(pixels: pixels[offsets[i]..<(offsets[i] + n)].map { Float($0) / 255 }, width: widths[i])
    }

    /// The labelled images of `folder` (`labels.csv` or `labels.tsv`), each cut to its line;
    /// `keep` chooses the labels to load. Images are read on `threads` threads; `progress` is
    /// told how many are done. With `cache`, the strips are read from that file when it was made
    /// from the same list (and `variant`), else made and written there. `change`, given an
    /// image's place in the list, returns the image to cut instead (a softened copy,
    /// `ScanDegradation`), or nil to leave that image out; `variant` names it in the cache's tag.
    public static func load(folder: String, keep: (String) -> Bool = { _ in true }, threads: Int = Parallel.processorCount,
                            cache: String? = nil, variant: String = "", change: (@Sendable (Int, DecodedImage) -> DecodedImage?)? = nil,
                            progress: (Int, Int) -> Void = { _, _ in }) throws -> LineSet {
        let all = try Inputs.labelEntries(folder)
        let items = all.filter { keep($0.label) }
        guard !items.isEmpty else { throw DigitError(.format, file: folder, "no labelled images to read") }
        let tag = "cut \(LineImage.version)\(variant.isEmpty ? "" : " " + variant)\n"
            + items.map { "\($0.file)\t\($0.label)" }.joined(separator: "\n")
        if let cache, let set = try? read(cache: cache, tag: tag) { return set }
        let strips = try Parallel.map(items.count, threads: threads, progress: progress) { i -> LineImage? in
            let path = (folder as NSString).appendingPathComponent(items[i].file)
            do {
                let image = try ImageDecoder.read(path: path, maxSide: 1200)
                guard let change else { return LineImage(image: image) }
                return change(i, image).map { LineImage(image: $0) }
            } catch let e as DigitError { throw e.inFile(path) }
        }
        var set = LineSet()
        for (i, strip) in strips.enumerated() { if let strip { set.append(strip, label: items[i].label) } }
        if let cache { try set.write(cache: cache, tag: tag) }
        return set
    }

    // MARK: - The cache file: a text header (magic, tag's hash, count), then per strip its width,
    // its label and its bytes.

    private static let magic = "digits-line-strips 1"

    func write(cache path: String, tag: String) throws {
        var out = Array("\(Self.magic)\n\(Self.hash(tag))\n\(count)\n".utf8)
        for i in 0..<count {
            out += Array("\(widths[i])\t\(labels[i])\n".utf8)
            out += pixels[offsets[i]..<(offsets[i] + LineImage.height * widths[i])]
        }
        try FileIO.writeAtomically(out, to: path)
    }

    static func read(cache path: String, tag: String) throws -> LineSet {
        let bytes = try FileIO.read(path, limit: 1 << 31)
        var at = 0
        func line() throws -> String {
            guard let end = bytes[at...].firstIndex(of: 10) else { throw DigitError(.format, file: path, "truncated") }
            defer { at = end + 1 }
            return String(decoding: bytes[at..<end], as: UTF8.self)
        }
        guard try line() == magic, try line() == hash(tag), let n = Int(try line()) else {
            throw DigitError(.format, file: path, "not a strip cache of these images")
        }
        var set = LineSet()
        for _ in 0..<n {
            let head = try line().split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            guard head.count == 2, let w = Int(head[0]), w > 0, at + LineImage.height * w <= bytes.count else {
                throw DigitError(.format, file: path, "bad strip entry")
            }
            set.offsets.append(set.pixels.count)
            set.widths.append(w)
            set.labels.append(String(head[1]))
            set.pixels += bytes[at..<(at + LineImage.height * w)]
            at += LineImage.height * w
        }
        return set
    }

    /// FNV-1a of the text, in hex: which list of images a cache was made from.
    private static func hash(_ text: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return String(h, radix: 16)
    }
}

/// Strips placed in a line model's fixed training width, distorted when training: scale, stretch,
/// shear and shift; ink strength, gamma and blur; noise (a camera's or a scanner's grain).
public struct LineSamples: Sendable {
    public let lines: LineSet
    /// The training input's width (its height is `LineImage.height`).
    public let width: Int
    /// How many times wider than the strip the sample is drawn (`ModelFile.lineStretch`), before
    /// the distortions; lines that come out wider than `width` are squeezed to it.
    public let stretch: Float

    public init(_ set: LineSet, width: Int, stretch: Float = 1) {
        lines = set
        self.width = width
        self.stretch = stretch
    }

    public var count: Int { lines.count }
    public func label(_ i: Int) -> [Int] { LineSymbols.classes(of: lines.labels[i]) }

    /// Writes sample `i` into `pixels` (`LineImage.height` × `width`).
    public func render(_ i: Int, augment: Bool, rng: inout SplitMix64, into pixels: UnsafeMutablePointer<Float>) {
        let strip = lines.strip(i)
        let h = LineImage.height, sw = Float(strip.width)
        for j in 0..<(h * width) { pixels[j] = 0 }
        // The map from the sample's pixels back to the strip's: x_s = (x - dx) / sx + shear · (y - h/2), y_s = (y - dy) / sy.
        var sy: Float = 1, sx: Float = stretch, shear: Float = 0, dy: Float = 0
        if augment {
            sy = rng.uniform(0.8, 1.12)
            sx = stretch * sy * rng.uniform(0.8, 1.25)
            shear = rng.uniform(-0.2, 0.2)
            dy = rng.uniform(-2.5, 2.5) + Float(h) * (1 - sy) / 2
        }
        var outWidth = sw * sx
        if outWidth > Float(width) {
            sx *= Float(width) / outWidth
            outWidth = Float(width)
        }
        let dx = augment ? rng.uniform(0, max(0, Float(width) - outWidth)) : max(0, Float(width) - outWidth) / 2
        let vals = strip.pixels
        for y in 0..<h {
            for x in 0..<width {
                let ys = (Float(y) + 0.5 - dy) / sy
                let xs = (Float(x) + 0.5 - dx) / sx + shear * (ys - Float(h) / 2)
                pixels[y * width + x] = LineImage.sample(vals, width: strip.width, height: h, x: xs, y: ys, radius: 0.5)
            }
        }
        guard augment else { return }
        // Ink: strength and gamma (faint pencil to marker), sometimes a blur, then grain.
        let gain = rng.uniform(0.55, 1.1), gamma = rng.uniform(0.6, 1.6)
        for j in 0..<(h * width) { pixels[j] = min(1, gain * pow(pixels[j], gamma)) }
        if rng.nextFloat() < 0.3 {
            var copy = [Float](repeating: 0, count: h * width)
            for y in 0..<h {
                for x in 0..<width {
                    var s: Float = 0
                    for yy in max(0, y - 1)...min(h - 1, y + 1) { for xx in max(0, x - 1)...min(width - 1, x + 1) { s += pixels[yy * width + xx] } }
                    copy[y * width + x] = s / 9
                }
            }
            for j in 0..<(h * width) { pixels[j] = copy[j] }
        }
        let noise = rng.uniform(0, 0.08)
        if noise > 0.01 {
            for j in 0..<(h * width) { pixels[j] = min(1, max(0, pixels[j] + noise * rng.normal())) }
        }
    }
}
