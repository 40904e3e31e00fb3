// TEMPORARY stand-ins for DigitKit API that lands on main soon (Recognition, DigitRecognizer,
// StrokeJSON, DrawingLoader, Rasterizer). Same signatures as agreed; crude bodies so the window
// can be built and looked at. Delete this file as soon as `git merge main` brings the real ones.
import DigitKit
import Foundation

public struct StrokeLimits: Sendable {
    public var maxFileBytes = 64 << 20
    public var maxPoints = 1_000_000
    public var maxStrokes = 10_000
    public init() {}
}

public struct RasterOptions: Sendable, Equatable {
    public var penWidth: Float = 2.0
    public var softness: Float = 1.0
    public var box: Float = 20
    public init() {}
}

public struct Rasterizer {
    public var options: RasterOptions
    public init(options: RasterOptions = .init()) { self.options = options }

    public func rasterize(_ d: Drawing) -> [Float] {
        var out = [Float](repeating: 0, count: 784)
        let points = d.strokes.flatMap { $0 }
        guard let first = points.first else { return out }
        var minX = first.x, maxX = first.x, minY = first.y, maxY = first.y
        for p in points { minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y) }
        let extent = max(maxX - minX, maxY - minY, 1e-6)
        let scale = (options.box - options.penWidth) / extent
        let cx = (minX + maxX) / 2, cy = (minY + maxY) / 2
        func map(_ p: StrokePoint) -> (Float, Float) { ((p.x - cx) * scale + 14, (p.y - cy) * scale + 14) }
        let r = options.penWidth / 2
        for stroke in d.strokes {
            for i in stroke.indices {
                let a = map(stroke[max(i - 1, 0)]), b = map(stroke[i])
                for y in 0..<28 {
                    for x in 0..<28 {
                        let px = Float(x) + 0.5 - a.0, py = Float(y) + 0.5 - a.1
                        let dx = b.0 - a.0, dy = b.1 - a.1
                        let l = dx * dx + dy * dy
                        let t = l > 0 ? min(max((px * dx + py * dy) / l, 0), 1) : 0
                        let ex = px - t * dx, ey = py - t * dy
                        let c = min(max(r + 0.5 - (ex * ex + ey * ey).squareRoot(), 0), 1)
                        out[y * 28 + x] = max(out[y * 28 + x], c)
                    }
                }
            }
        }
        return out
    }
}

public struct Recognition: Sendable {
    public var digit: Int?
    public var confidence: Float
    public var probabilities: [Float]
    public var top: [(digit: Int, probability: Float)]
    public var raster: [Float]
    public var isEmpty: Bool
    public var threshold: Float

    public func jsonLine(source: String, index: Int, label: String?) -> String {
        let digitText = digit.map(String.init) ?? "null"
        let topText = top.map { "[\($0.digit),\($0.probability)]" }.joined(separator: ",")
        let labelText = label.map { ",\"label\":\"\($0)\"" } ?? ""
        return "{\"source\":\"\(source)\",\"index\":\(index),\"digit\":\(digitText),\"confidence\":\(confidence),\"top\":[\(topText)]\(labelText)}"
    }
}

public final class DigitRecognizer {
    public var threshold: Float
    private let rasterizer = Rasterizer()

    public static func defaultWeightsPath() -> String? { nil }

    public init(weightsPath: String? = nil, threshold: Float = 0.9) throws {
        self.threshold = threshold
    }

    public func recognize(_ drawing: Drawing) -> Recognition {
        let raster = rasterizer.rasterize(drawing)
        if drawing.isEmpty {
            return Recognition(digit: nil, confidence: 0.1, probabilities: Array(repeating: 0.1, count: 10),
                               top: [(0, 0.1), (1, 0.1), (2, 0.1)], raster: raster, isEmpty: true, threshold: threshold)
        }
        let guess = (drawing.strokes.count * 7 + drawing.pointCount) % 10
        let confidence: Float = drawing.pointCount % 3 == 0 ? 0.6 : 0.95
        var probabilities = Array(repeating: (1 - confidence) / 9, count: 10)
        probabilities[guess] = confidence
        let order = probabilities.indices.sorted { probabilities[$0] > probabilities[$1] }
        return Recognition(digit: confidence >= threshold ? guess : nil, confidence: confidence, probabilities: probabilities,
                           top: order.prefix(3).map { ($0, probabilities[$0]) }, raster: raster, isEmpty: false,
                           threshold: threshold)
    }
}

public enum StrokeJSON {
    public static func encode(_ drawing: Drawing, extra: [(String, String)] = []) -> String {
        var parts: [String] = []
        if let label = drawing.label { parts.append("\"label\":\"\(label)\"") }
        if let w = drawing.canvasWidth, let h = drawing.canvasHeight { parts.append("\"canvas\":{\"width\":\(w),\"height\":\(h)}") }
        let strokes = drawing.strokes.map { s in "[" + s.map { "[\($0.x),\($0.y)]" }.joined(separator: ",") + "]" }
        parts.append("\"strokes\":[" + strokes.joined(separator: ",") + "]")
        for (k, v) in extra { parts.append("\"\(k)\":\(v)") }
        return "{" + parts.joined(separator: ",") + "}"
    }
}

public struct DrawingRecord: Sendable {
    public var source: String
    public var index: Int
    public var line: Int?
    public var writer: Int?
    public var result: Result<Drawing, DigitError>
}

public enum DrawingLoader {
    public static func load(_ path: String, limits: StrokeLimits = .init()) throws -> [DrawingRecord] {
        let bytes = try FileIO.read(path, limit: limits.maxFileBytes)
        let text = String(decoding: bytes, as: UTF8.self)
        let lines = path.hasSuffix(".jsonl") ? text.split(separator: "\n").map(String.init) : [text]
        return lines.enumerated().map { i, line in
            DrawingRecord(source: path, index: i, line: path.hasSuffix(".jsonl") ? i + 1 : nil, writer: nil,
                          result: decode(line).mapError { $0.inFile(path) })
        }
    }

    private static func decode(_ text: String) -> Result<Drawing, DigitError> {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let strokes = object["strokes"] as? [[Any]] else {
            return .failure(DigitError(.format, "not a stroke JSON object"))
        }
        var result: [[StrokePoint]] = []
        for stroke in strokes {
            var points: [StrokePoint] = []
            for p in stroke {
                if let pair = p as? [Double], pair.count >= 2 {
                    points.append(StrokePoint(x: Float(pair[0]), y: Float(pair[1])))
                } else if let o = p as? [String: Any], let x = o["x"] as? Double, let y = o["y"] as? Double {
                    points.append(StrokePoint(x: Float(x), y: Float(y), t: (o["t"] as? Double).map(Float.init)))
                } else {
                    return .failure(DigitError(.format, "bad point"))
                }
            }
            result.append(points)
        }
        var label = object["label"] as? String
        if label == nil, let n = object["label"] as? Int { label = String(n) }
        let canvas = object["canvas"] as? [String: Double]
        return .success(Drawing(strokes: result, label: label, canvasWidth: canvas?["width"].map(Float.init),
                                canvasHeight: canvas?["height"].map(Float.init)))
    }
}
