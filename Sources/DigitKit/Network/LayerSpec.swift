import Foundation

/// One element of the `layers` metadata of a weight file: the inference network in order, with
/// tensor names in PyTorch layouts (conv weight `(out, in, kH, kW)`, linear weight `(out, in)`).
/// `flatten` follows PyTorch's NCHW order.
public enum LayerSpec: Equatable, Sendable {
    case conv2d(weight: String, bias: String?, stride: Int, padding: Int)
    case batchnorm2d(weight: String, bias: String, runningMean: String, runningVar: String, eps: Double)
    case relu
    case maxpool2d(kernel: Int, stride: Int)
    case avgpool2d(kernel: Int, stride: Int)
    case globalAvgPool
    case flatten
    case linear(weight: String, bias: String?)

    /// The JSON object of this layer, keys in a fixed order.
    public var json: String {
        func q(_ s: String) -> String { JSONText.quote(s) }
        switch self {
        case let .conv2d(w, b, s, p):
            return "{\"type\":\"conv2d\",\"weight\":\(q(w))" + (b.map { ",\"bias\":\(q($0))" } ?? "")
                + ",\"stride\":\(s),\"padding\":\(p)}"
        case let .batchnorm2d(w, b, m, v, eps):
            return "{\"type\":\"batchnorm2d\",\"weight\":\(q(w)),\"bias\":\(q(b)),\"running_mean\":\(q(m)),"
                + "\"running_var\":\(q(v)),\"eps\":\(eps)}"
        case .relu: return "{\"type\":\"relu\"}"
        case let .maxpool2d(k, s): return "{\"type\":\"maxpool2d\",\"kernel\":\(k),\"stride\":\(s)}"
        case let .avgpool2d(k, s): return "{\"type\":\"avgpool2d\",\"kernel\":\(k),\"stride\":\(s)}"
        case .globalAvgPool: return "{\"type\":\"global_avgpool\"}"
        case .flatten: return "{\"type\":\"flatten\"}"
        case let .linear(w, b): return "{\"type\":\"linear\",\"weight\":\(q(w))" + (b.map { ",\"bias\":\(q($0))" } ?? "") + "}"
        }
    }

    public static func jsonArray(_ layers: [LayerSpec]) -> String {
        "[" + layers.map(\.json).joined(separator: ",") + "]"
    }

    /// Parses the `layers` metadata string. Errors name the element (`layers[3].kernel`).
    public static func parseArray(_ text: String, file: String) throws -> [LayerSpec] {
        let value: JSONValue
        do { value = try JSONValue.parse(Array(text.utf8)) } catch let e as DigitError {
            throw DigitError(.format, file: file, at: "metadata 'layers'", "not valid JSON: \(e.message)")
        }
        guard case let .array(items) = value else {
            throw DigitError(.format, file: file, at: "metadata 'layers'", "expected a JSON array")
        }
        guard items.count <= 256 else {
            throw DigitError(.limit, file: file, at: "metadata 'layers'", "\(items.count) layers, at most 256 are allowed")
        }
        return try items.enumerated().map { i, item in try parse(item, path: "layers[\(i)]", file: file) }
    }

    static func parse(_ value: JSONValue, path: String, file: String) throws -> LayerSpec {
        guard case let .object(fields) = value else {
            throw DigitError(.format, file: file, at: path, "expected an object")
        }
        func field(_ name: String) -> JSONValue? { fields.first { $0.key == name }?.value }
        func optionalString(_ name: String) throws -> String? {
            guard let v = field(name) else { return nil }
            guard case let .string(s) = v else { throw DigitError(.format, file: file, at: "\(path).\(name)", "expected a string") }
            return s
        }
        func string(_ name: String) throws -> String {
            guard let s = try optionalString(name) else { throw DigitError(.format, file: file, at: "\(path).\(name)", "missing") }
            return s
        }
        func int(_ name: String, default fallback: Int? = nil, range: ClosedRange<Int>) throws -> Int {
            guard let v = field(name) else {
                if let fallback { return fallback }
                throw DigitError(.format, file: file, at: "\(path).\(name)", "missing")
            }
            guard case let .number(d) = v, d == d.rounded(), let n = Int(exactly: d), range.contains(n) else {
                throw DigitError(.format, file: file, at: "\(path).\(name)",
                                 "expected an integer in \(range.lowerBound)...\(range.upperBound)")
            }
            return n
        }
        let type = try string("type")
        switch type {
        case "conv2d":
            return .conv2d(weight: try string("weight"), bias: try optionalString("bias"),
                           stride: try int("stride", default: 1, range: 1...16),
                           padding: try int("padding", default: 0, range: 0...16))
        case "batchnorm2d":
            var eps = 1e-5
            if let v = field("eps") {
                guard case let .number(d) = v, d > 0, d < 1 else {
                    throw DigitError(.format, file: file, at: "\(path).eps", "expected a number in (0, 1)")
                }
                eps = d
            }
            return .batchnorm2d(weight: try string("weight"), bias: try string("bias"),
                                runningMean: try string("running_mean"), runningVar: try string("running_var"), eps: eps)
        case "relu": return .relu
        case "maxpool2d":
            let k = try int("kernel", range: 1...16)
            return .maxpool2d(kernel: k, stride: try int("stride", default: k, range: 1...16))
        case "avgpool2d":
            let k = try int("kernel", range: 1...16)
            return .avgpool2d(kernel: k, stride: try int("stride", default: k, range: 1...16))
        case "global_avgpool": return .globalAvgPool
        case "flatten": return .flatten
        case "linear": return .linear(weight: try string("weight"), bias: try optionalString("bias"))
        default:
            throw DigitError(.format, file: file, at: "\(path).type", "unknown layer type '\(type)'")
        }
    }
}

/// JSON text helpers for writers that must produce exact, deterministic bytes.
public enum JSONText {
    /// A JSON string literal for `s`, escaping quotes, backslashes and control characters.
    public static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 { out += String(format: "\\u%04x", u.value) } else { out.unicodeScalars.append(u) }
            }
        }
        return out + "\""
    }

    /// Shortest text that reads back as the same Float (`Float.description`), without a trailing `.0`
    /// for integers kept short ("1" not "1.0").
    public static func number(_ v: Float) -> String {
        if v == v.rounded(), abs(v) < 1e7 { return String(Int(v)) }
        return "\(v)"
    }

    public static func number(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int(v)) }
        return "\(v)"
    }
}
