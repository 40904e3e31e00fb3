/// The labels of a folder of images: which file holds which text. Two formats, as data sets come:
///
/// - **CSV** (`labels.csv`), as RFC 4180 and spreadsheets write it: `filename,label` a line. A
///   field may be quoted (`"12,5"`, `""""` for a lone `"`), and a quoted field may hold commas,
///   doubled quotes and line breaks. A quote inside a field that does not start with one is an
///   error (it usually means the file was cut or written by hand), as is a quoted field the file
///   ends inside.
/// - **TSV** (`labels.tsv`, what `digits make-paper` and `digits mnist --png` write):
///   `FILE<TAB>LABEL` a line, no quoting.
///
/// Both: an optional UTF-8 byte order mark; lines end with LF, CRLF or CR; blank lines are
/// skipped; spaces around a field are not part of it (inside quotes they are); fields after the
/// second are ignored (make-paper's boxes); a first line `filename,label` (any case) is a header.
/// A file named twice with the same label is one entry; with two labels, an error.
/// Labels are 1…`maxLabelCharacters` characters and file names 1…`maxNameBytes` bytes, UTF-8,
/// neither holding a control character (a label is one line of text).
public enum LabelFile {
    public enum Format: String, Sendable {
        case csv, tsv

        var separator: UInt8 { self == .csv ? UInt8(ascii: ",") : 0x09 }
        var shape: String { self == .csv ? "FILE,LABEL" : "FILE<TAB>LABEL" }
    }

    /// One file's label, and the line its record starts on (1 for the first).
    public struct Entry: Equatable, Sendable {
        public var file: String
        public var label: String
        public var line: Int

        public init(file: String, label: String, line: Int) {
            self.file = file
            self.label = label
            self.line = line
        }
    }

    /// The largest label file read, in bytes: checked before reading.
    public static let maxFileBytes = 64 << 20
    /// The longest label, in characters: a stroke file's (`StrokeJSON.maxLabelCharacters`).
    public static let maxLabelCharacters = StrokeJSON.maxLabelCharacters
    /// The longest file name, in UTF-8 bytes (Linux's PATH_MAX).
    public static let maxNameBytes = 4096

    /// The format a label file's name says: `.csv` or `.tsv` (any case); nil for another name.
    public static func format(ofName name: String) -> Format? {
        let lower = name.lowercased()
        if lower.hasSuffix(".csv") { return .csv }
        if lower.hasSuffix(".tsv") { return .tsv }
        return nil
    }

    /// The entries of the label file at `path`, in the format its name says (CSV unless it ends in
    /// `.tsv`), refusing a file over `limit` bytes before reading it.
    public static func read(_ path: String, limit: Int = maxFileBytes) throws -> [Entry] {
        try parse(try FileIO.read(path, limit: limit), file: path, format: format(ofName: path) ?? .csv)
    }

    /// The entries of a label file's bytes, in file order. Throws `.format` naming `file` and the
    /// line for anything that is not a label file of `format` (see the type's description).
    public static func parse(_ bytes: [UInt8], file: String, format: Format) throws -> [Entry] {
        var scanner = Scanner(bytes: bytes, file: file, format: format)
        var entries: [Entry] = []
        var seen: [String: Int] = [:]   // file name → index in `entries`
        var first = true
        while let record = try scanner.record() {
            let fields = record.fields
            if fields.count == 1, fields[0].bytes.isEmpty, !fields[0].quoted { continue }   // a blank line
            defer { first = false }
            if first, fields.count >= 2, Self.isHeader(fields[0].bytes, fields[1].bytes) { continue }
            let at = "line \(record.line)"
            guard fields.count >= 2 else {
                throw DigitError(.format, file: file, at: at,
                                 "expected \(format.shape), found one field '\(String(decoding: fields[0].bytes.prefix(80), as: UTF8.self))'")
            }
            let name = try text(fields[0].bytes, what: "the file name", file: file, at: at)
            guard !name.isEmpty else { throw DigitError(.format, file: file, at: at, "the file name is empty") }
            guard fields[0].bytes.count <= maxNameBytes else {
                throw DigitError(.format, file: file, at: at, "a file name of \(fields[0].bytes.count) bytes; at most \(maxNameBytes)")
            }
            let label = try text(fields[1].bytes, what: "the label of \(name)", file: file, at: at)
            guard (1...maxLabelCharacters).contains(label.count) else {
                throw DigitError(.format, file: file, at: at, label.isEmpty ? "the label of \(name) is empty"
                                 : "the label of \(name) is \(label.count) characters long; at most \(maxLabelCharacters)")
            }
            if let earlier = seen[name] {
                guard entries[earlier].label == label else {
                    throw DigitError(.format, file: file, at: at,
                                     "\(name) is labelled '\(label)' here and '\(entries[earlier].label)' on line \(entries[earlier].line)")
                }
                continue
            }
            seen[name] = entries.count
            entries.append(Entry(file: name, label: label, line: record.line))
        }
        return entries
    }

    /// `filename,label` in any case: a header, not an entry.
    static func isHeader(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        String(decoding: a, as: UTF8.self).lowercased() == "filename" && String(decoding: b, as: UTF8.self).lowercased() == "label"
    }

    /// `bytes` as UTF-8 text without control characters.
    static func text(_ bytes: [UInt8], what: String, file: String, at: String) throws -> String {
        var scalars = String.UnicodeScalarView()
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let s):
                guard s.value >= 0x20, s.value != 0x7F else {
                    throw DigitError(.format, file: file, at: at,
                                     "\(what) holds a control character (U+\(String(s.value, radix: 16, uppercase: true))): a label and a file name are one line of text")
                }
                scalars.append(s)
            case .emptyInput: break decoding
            case .error: throw DigitError(.format, file: file, at: at, "\(what) is not UTF-8 text")
            }
        }
        return String(scalars)
    }

    /// Splits the bytes into records of fields, one pass, quoting as CSV has it.
    struct Scanner {
        struct Field {
            var bytes: [UInt8] = []
            var quoted = false
        }

        let bytes: [UInt8]
        let file: String
        let format: Format
        var i = 0
        /// The line at `i` (1-based).
        var line = 1

        static let quote = UInt8(ascii: "\""), space = UInt8(ascii: " "), cr: UInt8 = 0x0D, lf: UInt8 = 0x0A

        init(bytes: [UInt8], file: String, format: Format) {
            self.bytes = bytes
            self.file = file
            self.format = format
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        }

        /// The next record and the line it starts on; nil at the end of the bytes.
        mutating func record() throws -> (fields: [Field], line: Int)? {
            guard i < bytes.count else { return nil }
            let start = line
            var fields: [Field] = []
            while true {
                fields.append(try field())
                guard i < bytes.count, bytes[i] == format.separator else { break }
                i += 1
            }
            // The line's end: CRLF, LF or CR (or the end of the bytes).
            if i < bytes.count {
                if bytes[i] == Self.cr, i + 1 < bytes.count, bytes[i + 1] == Self.lf { i += 1 }
                i += 1
                line += 1
            }
            return (fields, start)
        }

        /// One field, up to (not past) the separator or the line's end.
        mutating func field() throws -> Field {
            var field = Field()
            while i < bytes.count, bytes[i] == Self.space { i += 1 }
            if format == .csv, i < bytes.count, bytes[i] == Self.quote {
                field.quoted = true
                let opened = line
                i += 1
                while true {
                    guard i < bytes.count else {
                        throw DigitError(.format, file: file, at: "line \(opened)",
                                         "the quoted field that starts here is not closed: the file ends inside it")
                    }
                    let b = bytes[i]
                    if b == Self.quote {
                        if i + 1 < bytes.count, bytes[i + 1] == Self.quote {
                            field.bytes.append(b)
                            i += 2
                            continue
                        }
                        i += 1
                        break
                    }
                    // A line break inside quotes belongs to the field; CRLF counts once.
                    if b == Self.lf || (b == Self.cr && !(i + 1 < bytes.count && bytes[i + 1] == Self.lf)) { line += 1 }
                    field.bytes.append(b)
                    i += 1
                }
                while i < bytes.count, bytes[i] == Self.space { i += 1 }
                if i < bytes.count, bytes[i] != format.separator, bytes[i] != Self.cr, bytes[i] != Self.lf {
                    throw DigitError(.format, file: file, at: "line \(line)",
                                     "expected a comma or the end of the line after a closing quote, found '\(Self.shown(bytes[i]))'")
                }
                return field
            }
            while i < bytes.count {
                let b = bytes[i]
                if b == format.separator || b == Self.cr || b == Self.lf { break }
                if format == .csv, b == Self.quote {
                    throw DigitError(.format, file: file, at: "line \(line)",
                                     "a quote inside a field that does not start with one: quote the whole field and double "
                                     + "the quotes inside (\"19\"\"\" for 19\")")
                }
                field.bytes.append(b)
                i += 1
            }
            while field.bytes.last == Self.space { field.bytes.removeLast() }
            return field
        }

        /// A byte as shown in a message: itself when printable ASCII, else its code.
        static func shown(_ b: UInt8) -> String {
            (0x21...0x7E).contains(b) ? String(UnicodeScalar(b)) : "byte 0x" + String(b, radix: 16, uppercase: true)
        }
    }
}
