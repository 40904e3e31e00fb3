/// Reader for on-line handwriting in the UNIPEN 1.0 format: the files of the UNIPEN
/// distribution (NIST `train_r01_v07`: `data/` files that `.INCLUDE` headers and ink from
/// `include/`), the pendigits dialect (UCI `pendigits-orig.tra`) and traces other programs write.
///
/// Sources: the format definition `unipen.def` (I. Guyon, 1994) and the paper (Guyon, Schomaker,
/// Plamondon, Liberman, Janet, "UNIPEN project of on-line data exchange and recognizer
/// benchmarks", ICPR 1994); where the definition is silent, the reference library uplib 3.03
/// (Abbink, Schomaker, Vuurpijl: `uplib.c`, `upsiglib.c`) and the distributed files.
///
/// ## Statements
/// A line whose first word is `.` followed by an uppercase letter starts a statement; the lines
/// up to the next one continue it. Read: `.PEN_DOWN`, `.PEN_UP`, `.SEGMENT`, `.INCLUDE` (the
/// file is read where the statement stands, found by `IncludeResolver`), `.START_SET`, `.COORD`,
/// `.X_DIM`, `.Y_DIM`, `.POINTS_PER_SECOND`, `.HIERARCHY` (the last one counts, as in uplib),
/// `.WRITER_ID` and `.COMMENT d w n` (three integers: pendigits' writer comment). Every other
/// keyword (`.VERSION`, `.DT`, `.DATE`, `.START_BOX`, `.LEXICON`, `.AGE`, `.KEYWORD`-defined
/// ones…) is skipped with its continuation lines.
///
/// ## Ink
/// - `.PEN_DOWN` and `.PEN_UP` carry samples: numbers (signed decimals) in the order `.COORD`
///   names them (`X Y` when there is no `.COORD`; `T`, `P` and the others are read and not
///   kept), one or more samples a line. A block that holds at least one sample is a
///   *component*; empty blocks and `.DT` are not (as in uplib). A block ends at the next
///   keyword: `.PEN_DOWN` after `.PEN_DOWN`, or the end of the file, is no error.
/// - Components are numbered from 0 in reading order, an included file read where its
///   `.INCLUDE` stands, and again from 0 after each `.START_SET` (uplib refuses a second set;
///   unipen-rs starts a new component set). `.START_BOX` does not change the numbering.
/// - Only pen-down samples become ink. Pen-up components (hover) count for the numbering and
///   for point references, and contribute nothing to the drawing.
///
/// ## Segments
/// `.SEGMENT level delineation quality "label"`: quality and delineation may be left out (a lone
/// `OK`, `BAD` or `GOOD` is a quality). The label is a quoted string with the escapes `\"`,
/// `\\`, `\t`, `\n`; it may continue on the next lines. The delineation is a comma-separated
/// list of
/// - `N` (component N), `N-M` (components N to M),
/// - `N:s-M:t`: from point s of component N to point t of component M, both included; `N:s-M`
///   runs to the end of M, `N-M:t` starts at the beginning of N; `N:s` alone is one point.
/// Points are numbered from 0 within their component. Each pen-down piece becomes one stroke.
/// A delineation `?` (or none) takes the components after the `.SEGMENT` line up to the next
/// segment of the same or a coarser level (`.HIERARCHY` order, coarsest first; a level it does
/// not list counts as coarsest), as uplib does. Segments may come before or after their ink.
///
/// Which segments become records: with `Options.labels == .digits` (the default) every segment
/// whose label is one character `0`…`9`, at any level, plus every `DIGIT` segment (whose label
/// must then be a digit); with `.all`, every segment with a non-empty label. With `.digits`, a
/// segment with the same label and the same ink as one already returned (a one-digit `WORD`
/// around its `CHARACTER`) is not returned again.
///
/// ## Writers
/// The writer of a segment is the one in effect when its first stroke was written: the last
/// `.WRITER_ID` or pendigits `.COMMENT d w n` read before that component (before the `.SEGMENT`
/// line when it names no component). `DrawingRecord.writer` is the writer as a number: a
/// `.WRITER_ID` of 1…15 decimal digits is that number, the pendigits comment gives `w`, any other
/// name maps to `UNIPEN.writerNumber(_:)` (2^40 + a 40-bit FNV-1a hash of the name, stable
/// across files and runs). The name as written is in `Reading.segments[i].writer`.
///
/// ## Coordinates
/// Drawings use the toolkit's convention, **y growing downward**, x unchanged.
/// - Direction: UNIPEN tablets report y growing upward (uplib's renderers draw it so); programs
///   that record screen traces write y growing downward (Qt Virtual Keyboard's UNIPEN dumps).
///   Unless `Options.yAxis` says which, the ink decides: people begin digits at the top, so the
///   first point of a digit's first stroke lies in the upper part of that stroke's height (for
///   95% of pendigits' 7,494 digits). Each digit segment votes; the input is read as y-down only
///   when more first strokes start at their smallest y than at their largest. Without digit
///   segments every pen-down component votes. `Reading.yAxis` tells the result.
/// - Y upward is flipped, `y' = H − y`, with H: `.Y_DIM` when declared and every pen-down y is
///   in 0…`.Y_DIM`; else 500 when the input declares neither `.X_DIM` nor `.Y_DIM` and its ink
///   lies in the 0…500 square and spans at least half of it (pendigits' 500 × 500 tablet box:
///   those drawings, and only those, get a 500 × 500 canvas); else the largest pen-down y, so
///   that the ink starts at y' = 0. One H serves the whole input (main file and includes).
/// - Other drawings have no canvas: `.X_DIM`/`.Y_DIM` describe the whole writing area (a page, a
///   form of boxes), not a character's box, and the rasterizer would shrink small characters
///   drawn on a large canvas.
///
/// ## Errors and limits
/// A problem inside a segment makes that segment's record a failure naming the file and line
/// (the `.SEGMENT` line, or the bad sample line); the rest is read: a delineation naming a
/// component or a point that does not exist, a malformed delineation or `.SEGMENT` line, a
/// malformed sample line, a `DIGIT` segment without a digit label, a `StrokeLimits` limit
/// (coordinates are checked as read and after flipping). An `.INCLUDE` that cannot be read
/// (missing, nested deeper than `Options.maxIncludeDepth`, a cycle, past the byte budget) is
/// one entry in `Reading.problems` (file, line) and reading goes on; `Reading.includeFailure`
/// says when it leaves the reading unusable (`parse`, and so `DrawingLoader`, then throws it).
///
/// Work and memory are bounded by the input: a segment is checked arithmetically against the
/// components before any is visited, and the points returned never exceed the pen-down points
/// read (`.digits`) or `allLabelsPointFactor` times as many (`.all`, where a page, its lines,
/// words and characters share ink); a segment past that budget fails with a `.limit` error.
/// The main file and its includes together hold at most `limits.maxFileBytes` bytes, in at most
/// `maxIncludeFiles` includes.
public enum UNIPEN {
    /// The side of pendigits' tablet box, in tablet units: the H of `y' = H − y` and the canvas
    /// of drawings read in that box.
    public static let tabletHeight: Float = 500

    /// With `Labels.all`, the drawings returned hold at most this many times the pen-down points
    /// read: room for five levels that each cover all the ink, and some overlap.
    public static let allLabelsPointFactor = 8

    /// The most `.INCLUDE` files one reading follows.
    public static let maxIncludeFiles = 1000

    /// Which way the y coordinates of a file grow.
    public enum YAxis: String, Sendable, Equatable {
        /// y grows upward (the UNIPEN tablets' convention): flipped on reading.
        case up
        /// y grows downward (screen convention): kept.
        case down
    }

    /// Which segments become records.
    public enum Labels: Sendable, Equatable {
        /// Segments labelled with one digit `0`…`9`, at any level, and `DIGIT` segments.
        case digits
        /// Every segment with a non-empty label (letters, words such as "2026").
        case all
    }

    public struct Options: Sendable, Equatable {
        public var labels: Labels
        /// The y direction of the input; nil decides from the ink (see `UNIPEN`).
        public var yAxis: YAxis?
        /// How deep `.INCLUDE`s may nest (the main file is depth 0).
        public var maxIncludeDepth: Int

        public init(labels: Labels = .digits, yAxis: YAxis? = nil, maxIncludeDepth: Int = 8) {
            self.labels = labels
            self.yAxis = yAxis
            self.maxIncludeDepth = maxIncludeDepth
        }
    }

    /// What a record's `.SEGMENT` said, beside the drawing.
    public struct Segment: Sendable, Equatable {
        /// The level, as written (`CHARACTER`, `DIGIT`, `WORD`…).
        public var level: String
        /// The label, unescaped; any text (`Drawing.label` holds it only when it is a digit).
        public var label: String?
        /// The quality field as written (`?`, `OK`, `BAD`, `GOOD`…), if present.
        public var quality: String?
        /// The delineation as written, if present.
        public var delineation: String?
        /// The writer's name as written (`.WRITER_ID`, or `w` of pendigits' `.COMMENT d w n`).
        public var writer: String?
        /// The file that holds the `.SEGMENT` line: the source, or an included file's path.
        public var file: String
        /// The `.SEGMENT` line in that file, from 1.
        public var line: Int

        public init(level: String, label: String?, quality: String?, delineation: String?,
                    writer: String?, file: String, line: Int) {
            self.level = level
            self.label = label
            self.quality = quality
            self.delineation = delineation
            self.writer = writer
            self.file = file
            self.line = line
        }
    }

    /// Everything one reading returns.
    public struct Reading: Sendable {
        /// One record per selected segment, in reading order; `line` is the `.SEGMENT` line in
        /// the file that holds it (`segments[i].file`), `source` the name the caller gave.
        public var records: [DrawingRecord]
        /// What each record's `.SEGMENT` said: `segments[i]` belongs to `records[i]`.
        public var segments: [Segment]
        /// Problems outside any segment: an `.INCLUDE` that could not be read (file, line).
        public var problems: [DigitError]
        /// The y direction the input was read with.
        public var yAxis: YAxis
        /// The files read: the source first, then each include in the order read.
        public var files: [String]
        /// Pen-down samples read, over all files.
        public var inkPointCount: Int
        /// How many records failed for naming a component or a point past the ink read: after an
        /// `.INCLUDE` that could not be read, the sign that it held ink.
        public var segmentsMissingInk: Int

        /// What makes the reading unusable as a whole: the first `.INCLUDE` that could not be
        /// read, when a segment names ink that is not there (the include most likely held it, and
        /// every component after it is numbered wrong) or when no record was found (the segments
        /// may be in it). nil when every include was read, or when one that was not changes
        /// nothing the segments name: a file of headers only, such as pendigits' `dene.doc`.
        public var includeFailure: DigitError? {
            guard let first = problems.first, segmentsMissingInk > 0 || records.isEmpty else { return nil }
            return first
        }
    }

    /// True when the first non-blank byte is `.` followed by an uppercase letter (a UNIPEN keyword).
    public static func looksLikeUNIPEN(_ bytes: [UInt8]) -> Bool {
        var i = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
        return i + 1 < bytes.count && bytes[i] == UInt8(ascii: ".")
            && (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(bytes[i + 1])
    }

    /// The digits of a UNIPEN file already in memory, in reading order, following its
    /// `.INCLUDE`s with `include` as `read` does (relative to `source`'s folder; not at all when
    /// `include` is nil). Throws when `bytes` is over `limits.maxFileBytes`, when an include that
    /// could not be read leaves digits wrong or missing (`Reading.includeFailure`: the include,
    /// the file and line of its `.INCLUDE`, and for a missing one where it was looked for), or
    /// when there is no digit segment (it is then not a UNIPEN digit file).
    public static func parse(_ bytes: [UInt8], source: String, limits: StrokeLimits = .init(),
                             include: IncludeResolver? = nil) throws -> [DrawingRecord] {
        let reading = try read(bytes, source: source, limits: limits, include: include)
        if let failure = reading.includeFailure { throw failure }
        guard !reading.records.isEmpty else {
            throw DigitError(.format, file: source, "no .SEGMENT with a digit label found: not a UNIPEN digit file")
        }
        return reading.records
    }

    /// Reads a UNIPEN file already in memory. `source` names it in records and errors and is
    /// where relative `.INCLUDE`s start; with `include` nil, `.INCLUDE`s are not followed.
    /// Throws only when `bytes` is over `limits.maxFileBytes`.
    public static func read(_ bytes: [UInt8], source: String, limits: StrokeLimits = .init(),
                            options: Options = .init(), include: IncludeResolver? = nil) throws -> Reading {
        if bytes.count > limits.maxFileBytes {
            throw DigitError(.limit, file: source, "input is \(bytes.count) bytes, more than the limit of \(limits.maxFileBytes)")
        }
        var scanner = UNIPENScanner(source: source, limits: limits, labels: options.labels, include: include,
                                    maxIncludeDepth: max(0, options.maxIncludeDepth))
        scanner.scanMain(bytes)
        return UNIPENBuilder(input: scanner.input, source: source, limits: limits, options: options).reading()
    }

    /// Reads a UNIPEN file from disk, following its `.INCLUDE`s with `include` (by default the
    /// file's folder, `UNIPEN_INCLUDE_PATH` and the `include` folders beside its ancestors).
    /// Throws when the file cannot be read or is over `limits.maxFileBytes`.
    public static func read(file path: String, limits: StrokeLimits = .init(), options: Options = .init(),
                            include: IncludeResolver? = .environment()) throws -> Reading {
        let bytes = try IncludeResolver.readRegularFile(path, limit: limits.maxFileBytes).get()
        return try read(bytes, source: path, limits: limits, options: options, include: include)
    }

    /// The number a writer name stands for: the name itself when it is 1…15 decimal digits,
    /// else 2^40 + the 64-bit FNV-1a hash of its UTF-8 bytes modulo 2^40 (stable across files,
    /// runs and machines; exact in a JSON number).
    public static func writerNumber(_ name: String) -> Int {
        let utf8 = Array(name.utf8)
        if (1...15).contains(utf8.count), utf8.allSatisfy({ (0x30...0x39).contains($0) }), let n = Int(name) {
            return n
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return (1 << 40) + Int(hash & ((1 << 40) - 1))
    }
}
