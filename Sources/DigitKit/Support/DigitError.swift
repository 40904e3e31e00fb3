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

    /// `file: location: message`, one line.
    public var description: String {
        var parts: [String] = []
        if let file { parts.append(file) }
        if let location { parts.append(location) }
        parts.append(message.replacingOccurrences(of: "\n", with: " "))
        return parts.joined(separator: ": ")
    }

    /// The same error, attributed to `file` unless it already names one.
    public func inFile(_ name: String) -> DigitError {
        var copy = self
        if copy.file == nil { copy.file = name }
        return copy
    }
}
