import DigitKit
import Foundation

/// The properties every fuzz target checks on each input. The libFuzzer entries in `Fuzz/`
/// (built by `scripts/fuzz`, which compiles this file with the other check files into a
/// FuzzSupport module on top of DigitKit) abort when one
/// is violated; `FuzzCorpusTests` replays the committed corpus `Fixtures/fuzz/<target>/` through
/// the same checks. A trap inside the library is a failure too: the fuzzer reports it as a crash.
///
/// Each check returns the violated properties, empty when the input was handled correctly:
/// either decoded into values that satisfy the documented contracts, or refused with a
/// `DigitError` whose one-line description names the source.
public enum FuzzChecks {
    /// The fuzz targets, each a folder of `Fixtures/fuzz/` and an entry `Fuzz/<Name>.swift`.
    public static let targets = ["strokes", "unipen", "idx", "safetensors", "model", "images", "gzip", "labels", "profiles"]

    public static func run(_ target: String, _ bytes: [UInt8]) -> [String] {
        switch target {
        case "strokes": return strokes(bytes)
        case "unipen": return unipen(bytes)
        case "idx": return idx(bytes)
        case "safetensors": return safetensors(bytes)
        case "model": return model(bytes)
        case "images": return checkImageDecoding(bytes)
        case "gzip": return checkGzip(bytes)
        case "labels": return labels(bytes)
        case "profiles": return profiles(bytes)
        default: return ["unknown fuzz target \(target)"]
        }
    }

    /// Small limits, so that inputs of a few kilobytes also reach every limit check.
    public static let tightLimits = StrokeLimits(maxFileBytes: 4096, maxPointsPerDrawing: 24,
                                          maxStrokesPerDrawing: 4, maxCoordinate: 1000)

    // MARK: - Targets

    /// Stroke JSON / JSON Lines through `DrawingLoader.decode`: the detected format with the default
    /// limits (its drawings also round-tripped and rasterized), then JSON Lines with tight limits.
    public static func strokes(_ bytes: [UInt8]) -> [String] {
        var problems: [String] = []
        let runs: [(DrawingLoader.Format, StrokeLimits)] = [(.detect, StrokeLimits()), (.jsonLines, tightLimits)]
        for (run, (format, limits)) in runs.enumerated() {
            do {
                let records = try DrawingLoader.decode(bytes, source: "fuzz.json", format: format, limits: limits)
                problems += checkRecords(records, source: "fuzz.json", limits: limits, deep: run == 0)
            } catch {
                problems += checkError(error, source: "fuzz.json")
            }
            problems += checkPlainDecoder(bytes, limits: limits)
        }
        return problems
    }

    /// Whenever the stroke fast path (`StrokeJSON.decodePlain`) accepts a document, the full
    /// parser and decoder accept it too, with the same drawing and writer.
    public static func checkPlainDecoder(_ bytes: [UInt8], limits: StrokeLimits) -> [String] {
        guard let (fast, fastWriter) = bytes.withUnsafeBufferPointer({ StrokeJSON.decodePlain($0, range: 0..<$0.count, limits: limits) }) else {
            return []
        }
        do {
            let value = try JSONParser.parse(bytes)
            let full = try StrokeJSON.decode(value, limits: limits)
            var problems: [String] = []
            if full != fast { problems.append("decodePlain gave another drawing than the full decoder") }
            if StrokeJSON.writer(of: value) != fastWriter { problems.append("decodePlain gave another writer than the full decoder") }
            return problems
        } catch {
            return ["decodePlain accepted a document the full decoder refuses: \(error)"]
        }
    }

    /// UNIPEN through `UNIPEN.parse`, default and tight limits.
    public static func unipen(_ bytes: [UInt8]) -> [String] {
        var problems: [String] = []
        for limits in [StrokeLimits(), tightLimits] {
            do {
                let records = try UNIPEN.parse(bytes, source: "fuzz.tra", limits: limits)
                if records.isEmpty { problems.append("UNIPEN.parse returned no records instead of throwing") }
                problems += checkRecords(records, source: "fuzz.tra", limits: limits, deep: limits == StrokeLimits())
            } catch {
                problems += checkError(error, source: "fuzz.tra")
            }
        }
        return problems + checkUNIPEN(bytes)
    }

    /// The decompression limit of the idx and gzip targets: 1 MiB.
    public static let gzipLimit = 1 << 20

    /// IDX images and labels, raw and (when the input is gzip) decompressed; every input is also
    /// inflated as a raw DEFLATE stream behind a minimal gzip header, so the fuzzer explores the
    /// inflater without having to find the magic bytes first.
    public static func idx(_ bytes: [UInt8]) -> [String] {
        var problems = checkIDX(bytes, file: "fuzz-idx")
        if Gzip.isGzip(bytes) {
            do {
                let raw = try Gzip.decompress(bytes, file: "fuzz-idx.gz", limit: gzipLimit)
                if raw.count > gzipLimit { problems.append("decompressed \(raw.count) bytes, over the limit \(gzipLimit)") }
                problems += checkIDX(raw, file: "fuzz-idx.gz")
            } catch {
                problems += checkError(error, source: "fuzz-idx.gz")
            }
        }
        let header: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]
        do {
            let raw = try Gzip.decompress(header + bytes, file: "fuzz.deflate", limit: gzipLimit)
            if raw.count > gzipLimit { problems.append("decompressed \(raw.count) bytes, over the limit \(gzipLimit)") }
        } catch {
            problems += checkError(error, source: "fuzz.deflate")
        }
        return problems
    }

    /// A safetensors file: the container (and its exact round trip through the writer), then the
    /// same bytes as a weight file (`ModelFile.parse`, which builds and validates the network).
    public static func safetensors(_ bytes: [UInt8]) -> [String] {
        var problems: [String] = []
        let name = "fuzz.safetensors"
        do {
            let file = try SafetensorsFile.parse(bytes, file: name)
            problems += checkSafetensorsRoundTrip(file)
        } catch {
            problems += checkError(error, source: name)
        }
        do {
            _ = try ModelFile.parse(bytes, file: name)
        } catch {
            problems += checkError(error, source: name)
        }
        problems += checkpoint(bytes)
        return problems
    }

    /// The options and parameters of the training checkpoint seed (`Fixtures/fuzz/safetensors/
    /// checkpoint.safetensors`, written by `writeCheckpointSeed`): a checkpoint must carry the
    /// fingerprint of the run's options to be read at all.
    public static let checkpointOptions = TrainingOptions(architecture: [Linear("fc", outCount: 2)], epochs: 3, batchSize: 2, dataTag: "fuzz")
    public static let checkpointParameters: [(name: String, count: Int)] = [("fc.weight", 6), ("fc.bias", 2)]

    /// The same bytes as a training checkpoint (`TrainingCheckpoint.parse`): read only with the
    /// options it was made with, and then every parameter's optimizer state of its size, the
    /// epochs done within the run's, the history's rows in order.
    static func checkpoint(_ bytes: [UInt8]) -> [String] {
        let name = "fuzz.checkpoint"
        do {
            let c = try TrainingCheckpoint.parse(bytes, file: name, options: checkpointOptions, parameters: checkpointParameters,
                                                 prefixes: ["adam.m", "adam.v"])
            var problems: [String] = []
            if !(0...checkpointOptions.epochs).contains(c.epochsDone) { problems.append("checkpoint: epochs done \(c.epochsDone)") }
            for prefix in ["adam.m", "adam.v"] {
                if c.optimizer[prefix]?.map(\.count) != checkpointParameters.map(\.count) {
                    problems.append("checkpoint: the state \(prefix) does not match the parameters")
                }
            }
            if c.network.keys.contains(where: { $0.hasPrefix("adam.") }) { problems.append("checkpoint: optimizer state among the network's tensors") }
            return problems
        } catch {
            return checkError(error, source: name)
        }
    }

    /// Writes the checkpoint seed of the `safetensors` target to `path`.
    public static func writeCheckpointSeed(to path: String) throws {
        try TrainingCheckpoint(epochsDone: 1, history: [EpochSummary(epoch: 1, epochs: 3, trainLoss: 2, trainAccuracy: 0, validationLoss: 2.5,
                                                                    validationAccuracy: 0.5, learningRate: 0.001, seconds: 1,
                                                                    imagesPerSecond: 10)],
                               network: ["fc.weight": TensorData(shape: [2, 3], values: [1, 2, 3, 4, 5, 6]),
                                         "fc.bias": TensorData(shape: [2], values: [0, 1])],
                               optimizer: ["adam.m": checkpointParameters.map { [Float](repeating: 0.5, count: $0.count) },
                                           "adam.v": checkpointParameters.map { [Float](repeating: 0.25, count: $0.count) }])
            .write(to: path, parameterNames: checkpointParameters.map(\.name), options: checkpointOptions)
    }

    /// A weight file that loads must give a network that runs: an image and a drawing are
    /// recognized (10 probabilities, 3 candidates, a digit 0…9 or none, valid JSON output).
    /// Slower than `safetensors` (the network runs), so fuzzed separately.
    public static func model(_ bytes: [UInt8]) -> [String] {
        var problems: [String] = []
        let name = "fuzz.safetensors"
        do {
            let recognizer = try DigitRecognizer(model: try ModelFile.parse(bytes, file: name))
            let ramp = (0..<784).map { Float($0 % 28) / 27 }
            let drawing = Drawing(strokes: [[StrokePoint(x: 0, y: 0), StrokePoint(x: 10, y: 30)]])
            for r in [recognizer.recognize(pixels: ramp), recognizer.recognize(drawing)] {
                if r.probabilities.count != 10 || r.top.count != 3 {
                    problems.append("recognition has \(r.probabilities.count) probabilities and \(r.top.count) candidates")
                }
                if let d = r.digit, !(0...9).contains(d) { problems.append("recognized digit \(d)") }
                let line = r.jsonLine(source: name, index: 0, label: nil)
                if (try? JSONParser.parse(Array(line.utf8))) == nil { problems.append("recognition JSON is not JSON: \(line)") }
            }
        } catch {
            problems += checkError(error, source: name)
        }
        return problems
    }

    // MARK: - Properties

    /// A refusal must be a `DigitError` naming `source`, with a bounded one-line description.
    public static func checkError(_ error: Error, source: String) -> [String] {
        guard let e = error as? DigitError else { return ["threw \(type(of: error)), not a DigitError: \(error)"] }
        var problems: [String] = []
        if e.file != source { problems.append("error does not name the file: \(e)") }
        let text = e.description
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == "\u{2028}" || $0 == "\u{2029}" }) {
            problems.append("error description holds a control character: \(text.debugDescription)")
        }
        if text.count > 2000 { problems.append("error description is \(text.count) characters long") }
        if e.message.isEmpty { problems.append("error without a message at \(e.location ?? "?")") }
        return problems
    }

    /// Records are numbered 0, 1, 2…; failures are errors naming the source; drawings pass
    /// `checkDrawing`.
    public static func checkRecords(_ records: [DrawingRecord], source: String, limits: StrokeLimits, deep: Bool) -> [String] {
        var problems: [String] = []
        var previousLine = 0
        for (i, record) in records.enumerated() {
            if record.index != i { problems.append("record \(i) has index \(record.index)") }
            if record.source != source { problems.append("record \(i) names source \(record.source)") }
            if let line = record.line {
                if line <= previousLine { problems.append("record \(i) at line \(line) after line \(previousLine)") }
                previousLine = line
            }
            switch record.result {
            case .failure(let error):
                problems += checkError(error, source: source)
            case .success(let drawing):
                problems += checkDrawing(drawing, limits: limits, deep: deep).map { "record \(i): \($0)" }
            }
        }
        return problems
    }

    /// The drawing keeps the limits and holds finite numbers in range; when `deep`, it also
    /// survives an encode/decode round trip unchanged and rasterizes to 784 values in 0…1.
    public static func checkDrawing(_ drawing: Drawing, limits: StrokeLimits, deep: Bool = true) -> [String] {
        var problems: [String] = []
        if drawing.strokes.count > limits.maxStrokesPerDrawing { problems.append("\(drawing.strokes.count) strokes") }
        if drawing.pointCount > limits.maxPointsPerDrawing { problems.append("\(drawing.pointCount) points") }
        let bound = Float(limits.maxCoordinate)
        for point in drawing.strokes.joined() {
            if !(abs(point.x) <= bound && abs(point.y) <= bound) { problems.append("point (\(point.x), \(point.y)) out of range") }
            if let t = point.t, !t.isFinite { problems.append("time \(t)") }
            if let p = point.p, !(0...1).contains(p) { problems.append("pressure \(p)") }
        }
        if let label = drawing.label,
           label.isEmpty || label.count > StrokeJSON.maxLabelCharacters
           || label.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            problems.append("label \(label.debugDescription)")
        }
        for side in [drawing.canvasWidth, drawing.canvasHeight] {
            if let side, !(side > 0 && side.isFinite) { problems.append("canvas side \(side)") }
        }
        guard problems.isEmpty, deep else { return problems }

        // What import-unipen writes and recognize reads back must be the same drawing.
        let line = StrokeJSON.encode(drawing)
        do {
            let again = try StrokeJSON.decode(try JSONParser.parse(Array(line.utf8)), limits: limits)
            if again != drawing { problems.append("encode/decode round trip changed the drawing: \(line.prefix(200))") }
        } catch {
            problems.append("the encoded drawing does not decode: \(error) in \(line.prefix(200))")
        }

        // The rasterizer is linear in the points; very long drawings are left to its own tests.
        guard drawing.pointCount <= 4000 else { return problems }
        // The spline allocates per call: only short drawings take that path too.
        for smoothing in drawing.pointCount <= 200 ? [RasterOptions.Smoothing.none, .catmullRom, .sparse] : [.none, .sparse] {
            let image = Rasterizer(options: RasterOptions(smoothing: smoothing)).rasterize(drawing)
            if image.count != 784 { problems.append("raster of \(image.count) pixels") }
            if let bad = image.first(where: { !($0 >= 0 && $0 <= 1) }) { problems.append("pixel value \(bad) (\(smoothing))") }
            if drawing.isEmpty, image.contains(where: { $0 != 0 }) { problems.append("an empty drawing has ink") }
            if !drawing.isEmpty, !image.contains(where: { $0 > 0 }) { problems.append("a drawing with points is blank (\(smoothing))") }
        }
        return problems
    }

    public static func checkIDX(_ bytes: [UInt8], file: String) -> [String] {
        var problems: [String] = []
        do {
            let images = try IDX.parseImages(bytes, file: file)
            if images.pixels.count != images.count * images.rows * images.columns || images.pixels.count != bytes.count - 16 {
                problems.append("\(images.pixels.count) pixels for \(images.count)×\(images.rows)×\(images.columns)")
            }
            if images.rows > IDX.maxSide || images.columns > IDX.maxSide { problems.append("side over the maximum") }
            if images.count > 0, images.image(images.count - 1).count != images.imageSize { problems.append("last image size") }
        } catch {
            problems += checkError(error, source: file)
        }
        do {
            let labels = try IDX.parseLabels(bytes, file: file)
            if labels.count != bytes.count - 8 { problems.append("\(labels.count) labels in \(bytes.count) bytes") }
            // Pairing with as many 1×1 images must work exactly when every label is a digit.
            let paired = (try? IDXImages(count: labels.count, rows: 1, columns: 1, pixels: labels))
                .flatMap { try? MNISTSet(images: $0, labels: labels, imagesFile: "images", labelsFile: file) }
            if (paired != nil) != labels.allSatisfy({ $0 <= 9 }) { problems.append("MNISTSet label check is wrong") }
        } catch {
            problems += checkError(error, source: file)
        }
        return problems
    }

    public static func checkSafetensorsRoundTrip(_ file: SafetensorsFile) -> [String] {
        var problems: [String] = []
        for (name, t) in file.tensors {
            var product = 1
            for d in t.shape { product = product.multipliedReportingOverflow(by: d).partialValue }
            if t.values.count != (t.shape.contains(0) ? 0 : product) {
                problems.append("tensor \(name) holds \(t.values.count) values for shape \(t.shape)")
            }
        }
        do {
            let again = try SafetensorsFile.parse(try file.serialized(), file: "again")
            if again.metadata != file.metadata { problems.append("metadata changed in a write/read round trip") }
            if Set(again.tensors.keys) != Set(file.tensors.keys) { problems.append("tensor names changed in a round trip") }
            for (name, t) in file.tensors {
                guard let u = again.tensors[name] else { continue }
                if u.shape != t.shape || u.values.map(\.bitPattern) != t.values.map(\.bitPattern) {
                    problems.append("tensor \(name) changed in a write/read round trip")
                }
            }
        } catch {
            problems.append("a file that was read cannot be written and read back: \(error)")
        }
        return problems
    }
}
