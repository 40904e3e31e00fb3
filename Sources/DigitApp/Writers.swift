import DigitKit
import Foundation

/// Writer selections on the command line (`--writers`, `--holdout-writers`).
public enum Writers {
    /// A writer list from the command line: numbers and ranges, `1,4,10-12`.
    public static func parse(_ text: String?, _ name: String) throws -> Set<Int>? {
        guard let text else { return nil }
        var set = Set<Int>()
        for part in text.split(separator: ",") {
            // Writers are non-negative, so "-" only separates the ends of a range.
            let bounds = part.split(separator: "-", omittingEmptySubsequences: false).map { UInt32($0.trimmingCharacters(in: .whitespaces)) }
            if bounds.count == 1, let v = bounds[0] { set.insert(Int(v)) }
            else if bounds.count == 2, let a = bounds[0], let b = bounds[1], a <= b, b - a < 100_000 { set.formUnion(Int(a)...Int(b)) }
            else { throw DigitError(.usage, "\(name) takes numbers and ranges like 1,4,10-12, got '\(text)'") }
        }
        return set
    }

    /// `--writers LIST` and `--exclude-writers LIST` read from `args`, as a test on a drawing's
    /// writer: with `--writers` only those (a drawing without a writer is left out), without the
    /// excluded ones. Everything passes when neither is given.
    public static func selection(_ args: inout Arguments) throws -> @Sendable (Int?) -> Bool {
        let only = try parse(try args.option("--writers"), "--writers")
        let excluded = try parse(try args.option("--exclude-writers"), "--exclude-writers")
        return { writer in
            if let only, !(writer.map { only.contains($0) } ?? false) { return false }
            if let excluded, let w = writer, excluded.contains(w) { return false }
            return true
        }
    }
}
