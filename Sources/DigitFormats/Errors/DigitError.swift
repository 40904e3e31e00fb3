import Foundation

/// The one error type of DigitKit. It carries what a person needs to fix the input:
/// the file, the place in it (a line, a JSON path such as `strokes[2][5]`, a byte offset)
/// and what was wrong. Front ends print `description` as one line and exit non-zero.
public struct DigitError: Error, CustomStringConvertible, Equatable, Sendable {
    public enum Kind: String, Sendable {
        /// The input is malformed (bad JSON, wrong magic, inconsistent sizes…).
        case format
        /// The input is well formed but exceeds a documented limit (file size, points, nesting…).
        case limit
        /// A file could not be opened, read or written.
        case io
        /// A command-line argument is missing or invalid.
        case usage
    }

    public var kind: Kind
    /// The file the problem is in, as the user named it (`-` for standard input).
    public var file: String?
    /// Where in the file: `line 3`, `strokes[2][5]`, `line 3: strokes[0]`, `byte 16`.
    public var location: String?
    public var message: String

    public init(_ kind: Kind, file: String? = nil, at location: String? = nil, _ message: String) {
        self.kind = kind
        self.file = file
        self.location = location
        self.message = message
    }

    /// The longest message `description` shows, in characters; longer ones are cut with `…`.
    public static let maxMessageCharacters = 500

    /// `file: location: message`, one line: control characters (line breaks, tabs, escape
    /// sequences, U+2028/U+2029) become spaces or `\u{…}` so that a hostile file name or quoted
    /// input cannot break the line or drive the terminal, and the message is cut at
    /// `maxMessageCharacters`.
    public var description: String {
        var parts: [String] = []
        if let file { parts.append(DigitError.oneLine(file, limit: 1000)) }
        if let location { parts.append(DigitError.oneLine(location, limit: 200)) }
        parts.append(DigitError.oneLine(message, limit: DigitError.maxMessageCharacters))
        return parts.joined(separator: ": ")
    }

    /// `text` with line breaks and tabs as spaces, other control characters as `\u{…}`, and at
    /// most `limit` characters written, escapes included (then `…`).
    static func oneLine(_ text: String, limit: Int) -> String {
        // `limit` counts what is written, escapes included: a name made of control characters
        // (each shown as `\u{7f}`, 6 characters) must not make the line 6 times longer.
        var out = String.UnicodeScalarView()
        var count = 0
        for scalar in text.unicodeScalars {
            var escaped: String?
            switch scalar.value {
            case 0x0A, 0x0D, 0x09, 0x0B, 0x0C, 0x85, 0x2028, 0x2029:
                escaped = " "
            case 0..<0x20, 0x7F, 0x80..<0xA0:
                escaped = "\\u{" + String(scalar.value, radix: 16) + "}"
            default:
                break
            }
            let width = escaped?.unicodeScalars.count ?? 1
            if count + width > limit {
                out.append("…")
                break
            }
            if let escaped { out.append(contentsOf: escaped.unicodeScalars) } else { out.append(scalar) }
            count += width
        }
        return String(out)
    }

    /// The same error, attributed to `file` unless it already names one.
    public func inFile(_ name: String) -> DigitError {
        var copy = self
        if copy.file == nil { copy.file = name }
        return copy
    }
}
