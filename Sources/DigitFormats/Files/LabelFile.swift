import Foundation

/// The labels of a folder of images, as data sets ship them: `labels.csv` (`filename,label`, a
/// header line, RFC 4180 quoting) or `labels.tsv` (`FILE<TAB>LABEL`, further fields ignored).
public enum LabelFile {
    public struct Entry: Equatable, Sendable {
        public var file: String
        public var label: String
        public init(file: String, label: String) {
            self.file = file
            self.label = label
        }
    }

    /// The most bytes a label file may have (64 MiB).
    public static let maxBytes = 64 << 20

    /// The entries of `folder`'s `labels.csv`, else its `labels.tsv`, in file order; an empty list
    /// when it has neither.
    public static func read(folder: String) throws -> [Entry] {
        for name in ["labels.csv", "labels.tsv"] {
            let path = (folder as NSString).appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: path) else { continue }
            let bytes = try FileIO.read(path, limit: maxBytes)
            return name.hasSuffix(".csv") ? try parseCSV(bytes, file: path) : try parseTSV(bytes, file: path)
        }
        return []
    }

    /// `FILE<TAB>LABEL` lines; empty lines are skipped.
    public static func parseTSV(_ bytes: [UInt8], file: String) throws -> [Entry] {
        let text = String(decoding: bytes, as: UTF8.self)
        var entries: [Entry] = []
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            guard !line.isEmpty else { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count >= 2, !fields[0].isEmpty, !fields[1].isEmpty else {
                throw DigitError(.format, file: file, at: "line \(n + 1)", "expected FILE<TAB>LABEL")
            }
            entries.append(Entry(file: String(fields[0]), label: String(fields[1])))
        }
        return entries
    }

    /// CSV with a `filename,label` header (the two named columns, in any order, others ignored);
    /// without a header the first two columns.
    public static func parseCSV(_ bytes: [UInt8], file: String) throws -> [Entry] {
        var records = try csvRecords(bytes, file: file)
        guard !records.isEmpty else { return [] }
        var fileColumn = 0, labelColumn = 1
        let head = records[0].fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if let f = head.firstIndex(where: { ["filename", "file", "image", "path"].contains($0) }),
           let l = head.firstIndex(where: { ["label", "text", "transcription"].contains($0) }) {
            fileColumn = f
            labelColumn = l
            records.removeFirst()
        }
        return try records.map { record in
            guard record.fields.count > max(fileColumn, labelColumn), !record.fields[fileColumn].isEmpty else {
                throw DigitError(.format, file: file, at: "line \(record.line)", "expected FILENAME,LABEL")
            }
            return Entry(file: record.fields[fileColumn], label: record.fields[labelColumn])
        }
    }

    /// The records of a CSV text (quoted fields may hold commas, quotes doubled, and line breaks),
    /// each with the line it starts on; blank lines are skipped.
    static func csvRecords(_ bytes: [UInt8], file: String) throws -> [(line: Int, fields: [String])] {
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        var records: [(line: Int, fields: [String])] = []
        var fields: [String] = [], field: [UInt8] = []
        var line = 1, recordLine = 1, quoted = false, wasQuoted = false, i = start
        func endField() {
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            wasQuoted = false
        }
        func endRecord() {
            endField()
            if !(fields.count == 1 && fields[0].isEmpty) { records.append((recordLine, fields)) }
            fields = []
        }
        while i < bytes.count {
            let b = bytes[i]
            if quoted {
                if b == UInt8(ascii: "\"") {
                    if i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "\"") { field.append(b); i += 1 } else { quoted = false }
                } else {
                    if b == 10 { line += 1 }
                    field.append(b)
                }
            } else {
                switch b {
                case UInt8(ascii: ","): endField()
                case 10:
                    endRecord()
                    line += 1
                    recordLine = line
                case 13: break
                case UInt8(ascii: "\""):
                    guard field.isEmpty, !wasQuoted else {
                        throw DigitError(.format, file: file, at: "line \(line)", "a quote inside an unquoted field")
                    }
                    quoted = true
                    wasQuoted = true
                default:
                    if wasQuoted { throw DigitError(.format, file: file, at: "line \(line)", "text after a closing quote") }
                    field.append(b)
                }
            }
            i += 1
        }
        if quoted { throw DigitError(.format, file: file, at: "line \(recordLine)", "a quoted field is not closed") }
        if !field.isEmpty || !fields.isEmpty || wasQuoted { endRecord() }
        return records
    }
}
