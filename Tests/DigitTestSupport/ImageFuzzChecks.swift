import DigitKit
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
                if maxSide == nil && problems.isEmpty { problems += checkPageReading(image) }
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
        if !(1...8).contains(image.orientation) || (image.orientation != 1 && image.format != .jpeg) {
            problems.append("orientation \(image.orientation) of a \(image.format) image")
        }
        return problems
    }

    /// A recognizer on a tiny fixed network (flatten → linear to 10 digits and "not a digit"), so
    /// the page reader's every step runs on any image without the shipped weights.
    static let pageRecognizer: DigitRecognizer? = {
        let weights: [Float] = (0..<(11 * 784)).map { (i: Int) -> Float in
            let v: Int = (i * 7919) % 201 - 100
            return Float(v) / 2000
        }
        let model = ModelFile(layers: [Flatten(), Linear("fc", outCount: 11)],
                              tensors: ["fc.weight": TensorData(shape: [11, 784], values: weights),
                                        "fc.bias": TensorData(shape: [11], values: Array(repeating: 0, count: 11))],
                              inputMean: 0.1307, inputStd: 0.3081, temperature: 1, provenance: [:])
        var refusing = model
        refusing.classes = ModelFile.digitAndRefusalClasses
        return try? DigitRecognizer(model: refusing)
    }()

    /// The same with a tiny fixed line model (a 3×3 convolution to the 13 classes, rows averaged,
    /// lines drawn twice as wide as the shipped model's), so the paper reader's every step
    /// (`LineImage`, `LineReader`) runs on any image too.
    static let lineRecognizer: DigitRecognizer? = {
        guard let base = pageRecognizer else { return nil }
        let classes = LineSymbols.classes.count
        let weights: [Float] = (0..<(classes * 9)).map { (i: Int) -> Float in Float((i * 7919) % 201 - 100) / 200 }
        var model = ModelFile(layers: [Conv2D("conv", outChannels: classes, kernel: 3, padding: 1), HeightPool()],
                              tensors: ["conv.weight": TensorData(shape: [classes, 1, 3, 3], values: weights),
                                        "conv.bias": TensorData(shape: [classes], values: (0..<classes).map { Float($0 == 0 ? 1 : 0) })],
                              inputMean: 0.08, inputStd: 0.22, temperature: 1, provenance: [:])
        model.classes = LineSymbols.classes
        model.lineStretch = 2
        guard let recognizer = try? DigitRecognizer(model: base.model), let lines = try? LineReader(model: model) else { return nil }
        recognizer.lineReader = lines
        return recognizer
    }()

    /// Reading the decoded image as a page (`read(image:)`), with the cutting reader and with the
    /// paper reader, gives one text character per digit (and a space between lines),
    /// finite confidences and boxes inside the stored image, or a `DigitError`; never a trap.
    public static func checkPageReading(_ image: DecodedImage) -> [String] {
        guard let cutting = pageRecognizer, let lines = lineRecognizer else { return ["the page-reading recognizers could not be built"] }
        cutting.lineReader = nil
        return checkPageReading(image, cutting) + checkPageReading(image, lines)
    }

    static func checkPageReading(_ image: DecodedImage, _ recognizer: DigitRecognizer) -> [String] {
        do {
            let reading = try recognizer.read(image: image)
            var problems: [String] = []
            // One character per digit, and a space between lines (a page may hold several).
            let expected = reading.digits.count + reading.lineStarts.count
            if reading.text.count != expected || reading.text.filter({ $0 == " " }).count != reading.lineStarts.count {
                problems.append("text \(reading.text) for \(reading.digits.count) digits in \(reading.lines.count) lines")
            }
            if reading.lines.contains(where: \.isEmpty) { problems.append("an empty line in \(reading.lines)") }
            if !reading.confidence.isFinite { problems.append("reading confidence \(reading.confidence)") }
            let (w, h) = (Float(image.originalWidth), Float(image.originalHeight))
            for d in reading.digits {
                let b = d.box
                if !(b.x0 >= 0 && b.y0 >= 0 && b.x1 <= w + 1 && b.y1 <= h + 1 && b.x0 <= b.x1 && b.y0 <= b.y1) {
                    problems.append("box \(b) outside the \(image.originalWidth)×\(image.originalHeight) image")
                }
                if !(d.confidence.isFinite && d.notADigit.isFinite) { problems.append("digit confidence \(d.confidence)") }
            }
            return problems
        } catch let error as DigitError {
            return checkError(error.inFile("fuzz.img"), source: "fuzz.img")
        } catch {
            return checkError(error, source: "fuzz.img")
        }
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
