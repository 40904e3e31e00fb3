import DigitApp
import DigitKit
import Foundation

/// The window's Adapt (A, or the Adapt button): a personal profile (`WriterProfile`) learned from
/// the labelled drawings in the save folder and those saved since the window opened, written into
/// the save folder as `profile.safetensors` and read with from then on. It is `digits adapt` on the
/// save folder (`WriterAdaptation`, the same examples and the same choice of blend); it takes
/// seconds, so the window runs it on an `AdaptationWorker`.
public enum PadAdaptation {
    /// The profile's name in the save folder (`--profile` reads it back in a later session).
    public static let profileName = "profile.safetensors"

    /// A drawing Save wrote in this session, and where.
    public struct Saved: Sendable {
        public var path: String
        public var drawing: Drawing
        public init(path: String, drawing: Drawing) {
            self.path = path
            self.drawing = drawing
        }
    }

    /// What an adaptation made. The recognizer is made on the worker's thread and handed over
    /// once, to the window's recognition worker: it is never used by two threads.
    public struct Outcome: @unchecked Sendable {
        /// The base weights with the new profile in place (`profileName` is the profile's file name).
        public var recognizer: DigitRecognizer
        public var profilePath: String
        public var report: WriterAdaptation.Report
        /// Drawings that gave digits, and the digits (a number gives several).
        public var drawings: Int
        public var digits: Int
        /// Drawings found that gave none (no digit label, unreadable, a number cut otherwise).
        public var skipped: Int

        /// What the status line says, longest first (the line shows the first that fits): how
        /// many drawings, the blend, and the top-1 errors on them before → after (each drawing
        /// read by a refit that did not see it).
        public var status: StatusLine {
            let learned = "learned \(drawings) drawing\(drawings == 1 ? "" : "s")"
            let digitCount = digits == drawings ? "" : " (\(digits) digits)"
            let result: String
            if report.folds == 0 {
                result = "too few to check: weights kept"
            } else if report.blend == 0 {
                result = "no gain: weights kept · errors \(report.before.errors)→\(report.after.errors)"
            } else {
                result = "blend \(report.blend) · errors \(report.before.errors)→\(report.after.errors)"
            }
            return StatusLine("\(learned)\(digitCount) · \(result) · wrote \(profilePath)", kind: .info,
                              shorter: ["\(learned) · \(result)", "\(drawings) drawings · \(result)"])
        }
    }

    /// The status line while an adaptation runs.
    public static func runningStatus(saveDirectory: String?) -> StatusLine {
        let place = saveDirectory.flatMap { $0.isEmpty || $0 == "." ? nil : $0 } ?? "the working directory"
        return StatusLine("learning your hand from the labelled drawings in \(place)…", kind: .info,
                          shorter: ["learning your hand…"])
    }

    /// The status line when A is pressed while an adaptation runs.
    public static let busyStatus = StatusLine("still learning your hand: wait for it, then A again", kind: .info,
                                              shorter: ["still learning your hand…"])

    /// The status line of an adaptation that failed (nothing labelled, a folder or file problem).
    public static func failedStatus(_ error: DigitError) -> StatusLine {
        StatusLine("adapt: \(error)", kind: .error)
    }

    /// Where Adapt writes the profile: `profileName` in the save folder (nil: the working directory).
    public static func profilePath(saveDirectory: String?) -> String {
        guard let directory = saveDirectory, !directory.isEmpty, directory != "." else { return profileName }
        return directory.hasSuffix("/") ? directory + profileName : directory + "/" + profileName
    }

    /// The drawings to learn from: every `.json` and `.jsonl` file in `folder` (`DrawingLoader.load`,
    /// one failure record for a file that cannot be read), then the drawings `saved` in this
    /// session whose file is not among them (moved or deleted since: they are still in memory).
    /// Throws when the folder cannot be listed.
    public static func gather(folder: String?, saved: [Saved]) throws -> [DrawingRecord] {
        let directory = folder.flatMap { $0.isEmpty ? nil : $0 } ?? "."
        var records = try DrawingLoader.load(directory)
        func key(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }
        let onDisk = Set(records.map { key($0.source) })
        for (i, s) in saved.enumerated() where !onDisk.contains(key(s.path)) {
            records.append(DrawingRecord(source: s.path, index: i, line: nil, writer: nil, result: .success(s.drawing)))
        }
        return records
    }

    /// Learns a profile for `base` from the labelled drawings (`gather`), writes it atomically to
    /// `profilePath(saveDirectory:)`, and returns a recognizer that reads with it. `base` is the
    /// weights as they are, without any profile: a profile adapts those, whatever profile the
    /// window reads with now. Throws a one-line `DigitError` when no drawing has a digit label,
    /// when the folder cannot be listed or the profile cannot be written.
    /// The new recognizer consults the second opinion at `secondOpinion` when unsure, as the
    /// window's did.
    public static func run(base: ModelFile, saveDirectory: String?, saved: [Saved], threshold: Float,
                           options: WriterAdaptation.Options = .init(), threads: Int, secondOpinion: String? = nil) throws -> Outcome {
        let folder = saveDirectory.flatMap { $0.isEmpty ? nil : $0 } ?? "."
        let records = try gather(folder: folder, saved: saved)
        let reader = try DigitRecognizer(model: base, threshold: threshold)
        let (examples, skipped) = WriterAdaptation.examples(from: records, recognizer: reader)
        guard !examples.isEmpty else {
            // Said first what is missing, then how to make it: a narrow status line keeps the start.
            let place = folder == "." ? "the working directory" : folder
            throw DigitError(.usage, records.isEmpty
                ? "no drawings in \(place) to learn from: write a digit, type it (0-9), save it (S), then A"
                : "no labelled drawings among the \(records.count) in \(place): type the digits (0-9) before saving (S), then A")
        }
        var options = options
        options.threshold = threshold
        let opinion = try secondOpinion.map { try SecondOpinion(path: $0) }
        let (profile, report) = try WriterAdaptation(options: options).adapt(
            model: base, examples: examples, opinion: opinion, threads: threads,
            record: ["adapt_source": "digitpad, the save folder \(folder)"])
        let path = profilePath(saveDirectory: saveDirectory)
        try profile.write(to: path)
        let recognizer = try DigitRecognizer(model: try profile.apply(to: base, file: path), threshold: threshold)
        recognizer.secondOpinion = opinion
        return Outcome(recognizer: recognizer, profilePath: path, report: report, drawings: Set(examples.map(\.group)).count,
                       digits: examples.count, skipped: skipped.count)
    }
}
