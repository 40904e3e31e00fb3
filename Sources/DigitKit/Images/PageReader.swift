import Foundation

/// How photos and scans are prepared for reading.
public struct PageOptions: Sendable, Equatable {
    /// Images larger than this on their long side are reduced (by whole factors) before the ink is
    /// looked for; a JPEG is decoded at a reduced scale directly (`ImageDecoder`'s `maxSide`).
    public var workingSide = 1200
    /// Images at most this many pixels on each side are read as one pre-cropped digit.
    public var singleDigitSide = 64
    public var reader = NumberReaderOptions()
    public init() {}
}

extension DigitRecognizer {
    /// Reads the digits in an image file (PNG, JPEG, PGM/PPM): boxes in the file's pixels.
    public func read(imageAt path: String, options: PageOptions = .init()) throws -> NumberReading {
        let image = try ImageDecoder.read(path: path, maxSide: options.workingSide)
        do { return try read(image: image, options: options) } catch let e as DigitError { throw e.inFile(path) }
    }

    /// Reads the digits in a decoded image: one line of handwritten digits on paper (dark ink on
    /// light paper, or light on dark), or one pre-cropped digit (at most `singleDigitSide` pixels a
    /// side, either polarity). Boxes are in the stored image's pixels (`originalWidth`×`originalHeight`).
    ///
    /// The page is prepared as MNIST was made from scans: the background (paper, light gradients,
    /// shadows) is estimated block by block and removed, the ink found by a threshold with
    /// hysteresis, specks dropped, and the ink's connected components grouped into digits and
    /// touching digits split by the same candidate search as drawings (`read(_:)`). Each candidate
    /// keeps its anti-aliased gray levels, is fitted in 20×20 keeping its aspect and centred by
    /// mass in 28×28.
    public func read(image: DecodedImage, options: PageOptions = .init()) throws -> NumberReading {
        let page = Page(image)
        if image.width <= options.singleDigitSide && image.height <= options.singleDigitSide {
            return readSingle(page)
        }
        let working = page.reduced(toSide: options.workingSide)
        let ink = working.inkStrength()
        let found = InkComponents(ink)
        guard let line = found.line() else {
            return NumberReading(text: "", confidence: 0, digits: [], threshold: threshold)
        }
        let toImage = Float(working.factor * image.scale)
        let reading = try read(pieces: line.pieces.count, candidates: line.candidates, lineHeight: line.height,
                               box: line.box, strokes: { _ in [] }, options: options.reader) { run, pixels in
            line.render(run, ink: ink, into: pixels)
        }
        var scaled = reading
        for k in scaled.digits.indices {
            let b = scaled.digits[k].box
            scaled.digits[k].box = InkBox(x0: b.x0 * toImage, y0: b.y0 * toImage, x1: (b.x1 + 1) * toImage, y1: (b.y1 + 1) * toImage)
        }
        return scaled
    }

    /// A pre-cropped digit: 28×28 images go to the network as they are (with the polarity set to
    /// light ink on dark, as MNIST), other sizes are fitted and centred as MNIST was.
    private func readSingle(_ page: Page) -> NumberReading {
        let ink = page.polarized()
        var pixels = [Float](repeating: 0, count: 784)
        if page.width == 28 && page.height == 28 {
            for i in 0..<784 { pixels[i] = ink.values[i] }
        } else {
            let all = InkRegion(ink: ink, keep: nil)
            pixels.withUnsafeMutableBufferPointer { all.render(extentFloor: 0, into: $0) }
        }
        let r = recognize(pixels: pixels)
        let box = InkRegion(ink: ink, keep: nil).box.map {
            InkBox(x0: Float($0.x0 * page.scale), y0: Float($0.y0 * page.scale), x1: Float(($0.x1 + 1) * page.scale),
                   y1: Float(($0.y1 + 1) * page.scale))
        } ?? InkBox(x0: 0, y0: 0, x1: Float(page.width * page.scale), y1: Float(page.height * page.scale))
        return NumberReading(r, box: box, strokes: [])
    }
}

/// A gray image as floats, 0 = black … 255 = white, with the factor from its pixels to the stored image's.
struct Page {
    var width: Int, height: Int
    var values: [Float]
    /// Working pixels → decoded pixels.
    var factor = 1
    /// Decoded pixels → stored pixels (JPEG DCT scaling).
    var scale = 1

    init(width: Int, height: Int, values: [Float], factor: Int = 1, scale: Int = 1) {
        self.width = width
        self.height = height
        self.values = values
        self.factor = factor
        self.scale = scale
    }

    init(_ image: DecodedImage) {
        self.init(width: image.width, height: image.height, values: image.gray.map(Float.init), scale: image.scale)
    }

    /// Averages blocks of `k`×`k` pixels so the long side is at most `side`.
    func reduced(toSide side: Int) -> Page {
        let k = max(1, (max(width, height) + side - 1) / side)
        guard k > 1 else { return self }
        let w = width / k, h = height / k
        var out = [Float](repeating: 0, count: w * h)
        values.withUnsafeBufferPointer { v in
            for y in 0..<h {
                for x in 0..<w {
                    var sum: Float = 0
                    for dy in 0..<k { for dx in 0..<k { sum += v[(y * k + dy) * width + x * k + dx] } }
                    out[y * w + x] = sum / Float(k * k)
                }
            }
        }
        return Page(width: w, height: h, values: out, factor: factor * k, scale: scale)
    }

    /// The image as ink in 0…1 (1 = full ink), the polarity taken from the border: a dark border
    /// means light ink on a dark ground (MNIST), a light one dark ink on paper.
    func polarized() -> Page {
        var border: Float = 0, n: Float = 0
        for x in 0..<width { border += values[x] + values[(height - 1) * width + x]; n += 2 }
        for y in 0..<height { border += values[y * width] + values[y * width + width - 1]; n += 2 }
        let lightInk = border / n < 128
        return Page(width: width, height: height, values: values.map { lightInk ? $0 / 255 : (255 - $0) / 255 },
                    factor: factor, scale: scale)
    }

    /// Ink strength in 0…255 (0 = background): the polarity from the median (most of a page is
    /// paper), the background estimated as a low percentile of blocks about 1/24 of the image,
    /// smoothed and interpolated, then subtracted, so gradients and shadows leave no ink.
    func inkStrength() -> Page {
        let median = Self.percentile(values, 0.5)
        let inkHigh = values.map { median < 110 ? $0 : 255 - $0 }
        let block = max(8, max(width, height) / 24)
        let gx = (width + block - 1) / block, gy = (height + block - 1) / block
        var grid = [Float](repeating: 0, count: gx * gy)
        var sample: [Float] = []
        for by in 0..<gy {
            for bx in 0..<gx {
                sample.removeAll(keepingCapacity: true)
                for y in (by * block)..<min(height, (by + 1) * block) {
                    for x in (bx * block)..<min(width, (bx + 1) * block) { sample.append(inkHigh[y * width + x]) }
                }
                grid[by * gx + bx] = Self.percentile(sample, 0.3)
            }
        }
        // Blocks mostly covered by ink read high: a 3×3 median of the grid replaces them.
        var smooth = grid
        for by in 0..<gy {
            for bx in 0..<gx {
                var around: [Float] = []
                for dy in -1...1 { for dx in -1...1 {
                    let x = bx + dx, y = by + dy
                    if x >= 0, y >= 0, x < gx, y < gy { around.append(grid[y * gx + x]) }
                } }
                smooth[by * gx + bx] = Self.percentile(around, 0.5)
            }
        }
        var out = [Float](repeating: 0, count: width * height)
        for y in 0..<height {
            let fy = min(max((Float(y) + 0.5) / Float(block) - 0.5, 0), Float(gy - 1))
            let y0 = Int(fy), y1 = min(y0 + 1, gy - 1), ty = fy - Float(y0)
            for x in 0..<width {
                let fx = min(max((Float(x) + 0.5) / Float(block) - 0.5, 0), Float(gx - 1))
                let x0 = Int(fx), x1 = min(x0 + 1, gx - 1), tx = fx - Float(x0)
                let top = smooth[y0 * gx + x0] * (1 - tx) + smooth[y0 * gx + x1] * tx
                let bottom = smooth[y1 * gx + x0] * (1 - tx) + smooth[y1 * gx + x1] * tx
                out[y * width + x] = max(0, inkHigh[y * width + x] - (top * (1 - ty) + bottom * ty))
            }
        }
        return Page(width: width, height: height, values: out, factor: factor, scale: scale)
    }

    static func percentile(_ v: [Float], _ q: Float) -> Float {
        guard !v.isEmpty else { return 0 }
        // A 256-bin histogram: values are gray levels.
        var histogram = [Int](repeating: 0, count: 256)
        for x in v { histogram[min(255, max(0, Int(x)))] += 1 }
        let target = Int(q * Float(v.count - 1))
        var seen = 0
        for (level, count) in histogram.enumerated() {
            seen += count
            if seen > target { return Float(level) }
        }
        return 255
    }
}
