/// The one writer of JSON text in the project: every file and every `--json` output is written
/// through it, so escaping and separators are the same everywhere. Compact (no spaces), members
/// in the order they are written. Numbers whose text a format fixes (`%.6f`, `%.6g`, a Float's
/// shortest form) are formatted by the caller and written with `number(text:)`.
///
/// ```swift
/// var w = JSONWriter()
/// w.object { o in
///     o.member("source", "a.json")
///     o.member("top", array: { for d in [7, 1] { $0.int(d) } })
/// }
/// w.text  // {"source":"a.json","top":[7,1]}
/// ```
public struct JSONWriter {
    /// How control characters other than tab, line feed and carriage return are escaped.
    public enum ControlEscapes: Sendable {
        /// All as `\u00xx`: the project's own outputs.
        case unicode
        /// Backspace and form feed as `\b` and `\f`, as serde_json writes them: safetensors
        /// headers keep the bytes of the reference (Python/Rust) writer.
        case short
    }

    public private(set) var text = ""
    public let controlEscapes: ControlEscapes
    /// True after a value, when the next value or key needs a comma first.
    private var needsComma = false

    public init(controlEscapes: ControlEscapes = .unicode) {
        self.controlEscapes = controlEscapes
    }

    // MARK: Values

    public mutating func null() { scalar("null") }
    public mutating func bool(_ b: Bool) { scalar(b ? "true" : "false") }
    public mutating func int(_ v: Int) { scalar(String(v)) }
    /// An integer, or null for nil.
    public mutating func int(_ v: Int?) { scalar(v.map(String.init) ?? "null") }
    /// Integers without `.0` while exact (|v| < 2^53), else Swift's shortest round-trip form;
    /// non-finite values (which JSON cannot hold) as null.
    public mutating func number(_ v: Double) { scalar(JSONText.number(v)) }
    /// Number text the caller formatted (such as `String(format: "%.6f", v)`), written as it is.
    public mutating func number(text: String) { scalar(text) }
    /// Text that is already JSON (such as a value made by `JSONText.quote`), written as it is.
    public mutating func json(_ fragment: String) { scalar(fragment) }

    public mutating func string(_ s: String) {
        separate()
        writeString(s)
        needsComma = true
    }

    public mutating func value(_ v: JSONValue) {
        switch v {
        case .null: null()
        case .bool(let b): bool(b)
        case .number(let d): number(d)
        case .string(let s): string(s)
        case .array(let items): array { for item in items { $0.value(item) } }
        case .object(let members): object { for m in members { $0.member(m.key, m.value) } }
        }
    }

    public mutating func array(_ body: (inout JSONWriter) throws -> Void) rethrows {
        open("[")
        try body(&self)
        close("]")
    }

    public mutating func object(_ body: (inout JSONWriter) throws -> Void) rethrows {
        open("{")
        try body(&self)
        close("}")
    }

    // MARK: Object members

    /// The key of the next member; one value must follow.
    public mutating func key(_ name: String) {
        separate()
        writeString(name)
        text += ":"
        needsComma = false
    }

    public mutating func member(_ key: String, _ value: String) { self.key(key); string(value) }
    public mutating func member(_ key: String, _ value: Int) { self.key(key); int(value) }
    public mutating func member(_ key: String, _ value: Int?) { self.key(key); int(value) }
    public mutating func member(_ key: String, _ value: Bool) { self.key(key); bool(value) }
    public mutating func member(_ key: String, _ value: JSONValue) { self.key(key); self.value(value) }
    public mutating func member(_ key: String, number text: String) { self.key(key); number(text: text) }
    public mutating func member(_ key: String, json fragment: String) { self.key(key); json(fragment) }
    public mutating func member(_ key: String, array body: (inout JSONWriter) throws -> Void) rethrows {
        self.key(key)
        try array(body)
    }
    public mutating func member(_ key: String, object body: (inout JSONWriter) throws -> Void) rethrows {
        self.key(key)
        try object(body)
    }

    // MARK: Text

    private mutating func separate() {
        if needsComma { text += "," }
    }

    private mutating func scalar(_ s: String) {
        separate()
        text += s
        needsComma = true
    }

    private mutating func open(_ bracket: String) {
        separate()
        text += bracket
        needsComma = false
    }

    private mutating func close(_ bracket: String) {
        text += bracket
        needsComma = true
    }

    /// A string literal: quote, backslash and control characters escaped, everything else
    /// (non-ASCII included) as raw UTF-8.
    private mutating func writeString(_ s: String) {
        text += "\""
        let utf8 = s.utf8
        var plainStart = utf8.startIndex
        var index = plainStart
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 {
                text += String(s[plainStart..<index])
                switch byte {
                case UInt8(ascii: "\""): text += "\\\""
                case UInt8(ascii: "\\"): text += "\\\\"
                case 0x0A: text += "\\n"
                case 0x0D: text += "\\r"
                case 0x09: text += "\\t"
                case 0x08 where controlEscapes == .short: text += "\\b"
                case 0x0C where controlEscapes == .short: text += "\\f"
                default:
                    let hex = String(byte, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
                plainStart = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        text += String(s[plainStart..<utf8.endIndex])
        text += "\""
    }
}
