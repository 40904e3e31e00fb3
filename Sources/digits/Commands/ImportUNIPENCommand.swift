import DigitApp
import DigitKit
import Foundation

/// `digits import-unipen FILE --out x.jsonl`: UNIPEN digits to labelled stroke JSON Lines.
struct ImportUNIPENCommand: CLICommand {
    static let name = "import-unipen"
    static let summary = "convert UNIPEN pen data (pendigits or a distribution) to stroke JSON Lines"
    static let help = """
    Usage: digits import-unipen FILE --out OUT.jsonl [options]

    Reads a UNIPEN file as distributed, following its .INCLUDE files, and writes one stroke JSON
    object per labelled segment, in file order:
      {"label":"8","writer":12,"canvas":{"width":500,"height":500},"strokes":[[[267,167],…]]}
    Segments of any level (.SEGMENT DIGIT, CHARACTER, …) whose label is one digit are read, with
    delineations N, N-M, N:s-M:t and lists; .PEN_UP blocks count as components but draw nothing.
    The y direction is detected from the ink (UNIPEN tablets grow y upward: y is then flipped to
    grow downward) unless --y-up or --y-down says it. The output is written atomically.

    .INCLUDE files are looked for beside the including file, in each folder of
    $UNIPEN_INCLUDE_PATH (or --include-path), and in an include/ folder of the file's folder or
    any folder above it. An include that cannot be read is a warning on stderr.
    Segments that cannot be read (points that do not exist, limits) are reported on stderr and
    left out; the exit code is then 1.

    Options:
      --out PATH            the JSON Lines file to write (required)
      --all-labels          every labelled segment (letters, words), not only digits
      --y-up | --y-down     the tablet's y direction, instead of detecting it
      --include-path DIRS   folders for .INCLUDE files (colon-separated), before $UNIPEN_INCLUDE_PATH

    \(CLI.exitCodesHelp)
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        guard let out = try args.option("--out") else { throw DigitError(.usage, "missing --out PATH (see --help)") }
        var options = UNIPEN.Options()
        if args.flag("--all-labels") { options.labels = .all }
        let up = args.flag("--y-up"), down = args.flag("--y-down")
        guard !(up && down) else { throw DigitError(.usage, "--y-up and --y-down exclude each other") }
        if up { options.yAxis = .up }
        if down { options.yAxis = .down }
        let includePath = try args.option("--include-path")
        let files = try args.positionals()
        guard files.count == 1, let file = files.first else {
            throw DigitError(.usage, "expected exactly one UNIPEN file, got \(files.count)")
        }
        var resolver = UNIPEN.IncludeResolver.environment()
        if let includePath { resolver.searchPath = UNIPEN.IncludeResolver.searchPath(parsing: includePath) + resolver.searchPath }
        let reading = try UNIPEN.read(file: file, options: options, include: resolver)
        for problem in reading.problems { printError("digits import-unipen: warning: \(problem)") }
        guard !reading.records.isEmpty else {
            throw DigitError(.format, file: file, options.labels == .digits ? "no .SEGMENT with a digit label found: not a UNIPEN digit file"
                                                                           : "no labelled .SEGMENT found: not UNIPEN pen data")
        }
        var text = ""
        var written = 0
        var failed = 0
        var writers = Set<Int>()
        for (record, segment) in zip(reading.records, reading.segments) {
            switch record.result {
            case .success(var drawing):
                drawing.label = segment.label ?? drawing.label
                let fields = record.writer.map { [JSONMember("writer", .number(Double($0)))] } ?? []
                text += StrokeJSON.encode(drawing, fields: fields) + "\n"
                written += 1
                if let writer = record.writer { writers.insert(writer) }
            case .failure(let error):
                printError("digits import-unipen: \(error)")
                failed += 1
            }
        }
        try FileIO.writeAtomically(text, to: out)
        printError("read \(reading.records.count) segments by \(writers.count) writers from \(reading.files.count) file"
            + "\(reading.files.count == 1 ? "" : "s") (y \(reading.yAxis)); wrote \(written) to \(out)"
            + (failed > 0 ? "; \(failed) could not be read" : ""))
        return failed > 0 ? ExitCode.badInput : ExitCode.ok
    }
}
