import Foundation
// TEMPORARY until the strokes branch lands its JSON parser: same shape, backed by JSONSerialization.
public enum JSONValue: Equatable {
    case null, bool(Bool), number(Double), string(String), array([JSONValue]), object([(String, JSONValue)])
    public static func == (a: JSONValue, b: JSONValue) -> Bool { false }
    public static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        guard let any = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else {
            throw DigitError(.format, "invalid JSON")
        }
        return convert(any)
    }
    static func convert(_ any: Any) -> JSONValue {
        if let a = any as? [Any] { return .array(a.map(convert)) }
        if let d = any as? [String: Any] { return .object(d.map { ($0.key, convert($0.value)) }) }
        if let s = any as? String { return .string(s) }
        if let n = any as? NSNumber { return .number(n.doubleValue) }
        return .null
    }
}
