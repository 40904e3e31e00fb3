/// JSON text for writers that must produce exact, deterministic bytes.
public enum JSONText {
    /// A JSON string literal for `s`: quotes, backslashes and control characters escaped.
    public static func quote(_ s: String) -> String {
        var writer = JSONWriter()
        writer.string(s)
        return writer.text
    }

    /// `String(format: format, v)` (such as `%.6g`) for a finite value, else `null`.
    public static func number(_ v: Float, format: String) -> String {
        v.isFinite ? String(format: format, v) : "null"
    }

    /// Shortest text that reads back as the same Float (`Float.description`), integers without `.0`.
    public static func number(_ v: Float) -> String {
        if v == v.rounded(), abs(v) < 1e7 { return String(Int(v)) }
        return "\(v)"
    }

    /// A finite number as JSON text (integers without `.0`); non-finite values print as `null`.
    public static func number(_ v: Double) -> String { JSONValue.format(v) }
}
