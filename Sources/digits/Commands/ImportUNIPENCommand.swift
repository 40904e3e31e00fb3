import DigitApp
import DigitKit
import Foundation

/// `digits import-unipen FILE --out x.jsonl`: UNIPEN digits to labelled stroke JSON Lines.
struct ImportUNIPENCommand: CLICommand {
    static let name = "import-unipen"
    static let summary = "convert a UNIPEN digit file (pendigits) to stroke JSON Lines"
    static let help = """
    Usage: digits import-unipen FILE --out OUT.jsonl

    Reads the digits of a UNIPEN file (.SEGMENT DIGIT … "d", .COMMENT d writer n, .PEN_DOWN/.PEN_UP
    blocks of "x y" lines) and writes one stroke JSON object per digit, in file order:
      {"label":"8","writer":12,"canvas":{"width":500,"height":500},"strokes":[[[267,167],…]]}
    Tablet y grows upward, so y is flipped: y' = 500 - y. The output is written atomically.
    Digits that cannot be read are reported on stderr and left out; the exit code is then 1.

    Options:
      --out PATH   the JSON Lines file to write (required)

    \(CLI.exitCodesHelp)
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        guard let out = try args.option("--out") else { throw DigitError(.usage, "missing --out PATH (see --help)") }
        let files = try args.positionals()
        guard files.count == 1, let file = files.first else {
            throw DigitError(.usage, "expected exactly one UNIPEN file, got \(files.count)")
        }
        let limits = StrokeLimits()
        let records = try UNIPEN.parse(try FileIO.read(file, limit: limits.maxFileBytes), source: file, limits: limits)
        var text = ""
        var written = 0
        var failed = 0
        var writers = Set<Int>()
        for record in records {
            switch record.result {
            case .success(let drawing):
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
        printError("read \(records.count) digits by \(writers.count) writers from \(file); wrote \(written) to \(out)"
            + (failed > 0 ? "; \(failed) could not be read" : ""))
        return failed > 0 ? ExitCode.badInput : ExitCode.ok
    }
}
