import DigitKit
import Foundation

/// The properties the label file reader (`LabelFile`, a folder's labels.csv and labels.tsv) keeps
/// on every input: the `labels` fuzz target; `FuzzCorpusTests` replays its seeds.
extension FuzzChecks {
    /// The bytes as labels.csv and as labels.tsv. Each is refused with a `DigitError` naming the
    /// file, or read into entries that keep `LabelFile`'s contract: names and labels non-empty,
    /// within their lengths, UTF-8 without control characters, each name once, lines increasing
    /// and within the input's. Read entries written back as CSV, every field quoted, read again
    /// as the same entries (so the quoting is undone exactly: a TSV's entries too).
    public static func labels(_ bytes: [UInt8]) -> [String] {
        var problems: [String] = []
        let breaks = bytes.filter { $0 == 0x0A || $0 == 0x0D }.count
        for format in [LabelFile.Format.csv, .tsv] {
            let source = "fuzz-labels.\(format.rawValue)"
            do {
                let entries = try LabelFile.parse(bytes, file: source, format: format)
                problems += checkLabelEntries(entries, lineBound: breaks + 1).map { "\(format.rawValue): \($0)" }
                var again = "filename,label\n"
                for entry in entries { again += quoted(entry.file) + "," + quoted(entry.label) + "\n" }
                do {
                    let reread = try LabelFile.parse(Array(again.utf8), file: "again.csv", format: .csv)
                    if reread.map({ [$0.file, $0.label] }) != entries.map({ [$0.file, $0.label] }) {
                        problems.append("\(format.rawValue): the entries written as quoted CSV read back differently")
                    }
                    if reread.map(\.line) != Array((0..<entries.count).map { $0 + 2 }) {
                        problems.append("\(format.rawValue): quoted CSV of one entry a line read back at lines \(reread.map(\.line).prefix(10))")
                    }
                } catch {
                    problems.append("\(format.rawValue): the entries written as quoted CSV are refused: \(error)")
                }
            } catch {
                problems += checkError(error, source: source)
            }
        }
        return problems
    }

    /// `LabelFile.Entry`'s contract.
    public static func checkLabelEntries(_ entries: [LabelFile.Entry], lineBound: Int) -> [String] {
        var problems: [String] = []
        var names = Set<String>()
        var previous = 0
        func hasControl(_ s: String) -> Bool { s.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } }
        for entry in entries {
            if entry.file.isEmpty || entry.file.utf8.count > LabelFile.maxNameBytes || hasControl(entry.file) {
                problems.append("file name \(entry.file.debugDescription.prefix(100)) at line \(entry.line)")
            }
            if !(1...LabelFile.maxLabelCharacters).contains(entry.label.count) || hasControl(entry.label) {
                problems.append("label \(entry.label.debugDescription.prefix(100)) at line \(entry.line)")
            }
            if !names.insert(entry.file).inserted { problems.append("\(entry.file.debugDescription.prefix(100)) is listed twice") }
            if entry.line <= previous || entry.line > lineBound { problems.append("entry at line \(entry.line) after line \(previous)") }
            previous = entry.line
        }
        return problems
    }

    /// `text` as one quoted CSV field. Byte by byte: a `"` followed by a combining mark is one
    /// Character to String's comparisons, but still a quote to CSV.
    static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = [0x22]
        for b in text.utf8 { bytes += b == 0x22 ? [0x22, 0x22] : [b] }
        return String(decoding: bytes + [0x22], as: UTF8.self)
    }
}
