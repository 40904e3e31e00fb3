import DigitApp
import DigitKit
import Foundation

/// `digits adapt`: a personal profile from one writer's labelled drawings.
struct AdaptCommand: CLICommand {
    static let name = "adapt"
    static let summary = "learn one person's hand from labelled drawings into a profile (--profile)"
    static let help = """
    Usage: digits adapt FILE... --out PROFILE [options]

    Makes a personal profile from labelled drawings by one writer: stroke JSON or JSON Lines
    with a "label", UNIPEN files, or folders of them (the drawings the window saves). A drawing
    labelled with one digit is that digit; one labelled with a number ("407") gives its digits
    when the reader cuts it into as many pieces.

    The digit network's last layer is refitted to the drawings (the layers before it frozen,
    pulled toward the base weights, synthetic non-digits held at the base's answer so letters
    stay refused). How much of the refit to keep is chosen by cross-validation on the drawings
    themselves (up to 5 folds, read as recognize reads them: the second opinion asked where the
    network is unsure): the lowest log loss among the choices that make fewer top-1 errors or
    more right answers, and no more errors, no more wrong answers and no fewer right answers,
    than the weights as they are.
    When none does, the profile keeps the weights as they are (blend 0).

    Prints the digits learned per digit, the cross-validated figures before and after, and the
    blend and pull kept. Use the profile with `digits recognize --profile`, `digits eval --profile` and
    `digitpad --profile`; it works only with the weights it was made from.

    Options:
      --out PROFILE      the profile to write (atomically; safetensors, under 1 MB)
      --weights FILE     the weights to adapt (default: $DIGITS_WEIGHTS, else the shipped weights)
    \(secondOpinionHelp)
      --writers LIST     only these writers' drawings (UNIPEN writer numbers or "writer" fields)
      --seed N           random seed of the distortions (default 1)
      --threads N        worker threads (default: all cores)

    \(CLI.exitCodesHelp)
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        guard let out = try args.option("--out") else { throw DigitError(.usage, "missing --out PROFILE (see --help)") }
        let weights = try args.option("--weights")
        let opinionPath = try args.option("--second-opinion")
        let threads = try args.int("--threads", default: Parallel.processorCount, range: 1...256)
        var options = WriterAdaptation.Options()
        options.seed = UInt64(try args.int("--seed", default: 1, range: 0...Int(Int32.max)))
        let keep = try Writers.selection(&args)
        let files = try args.positionals()
        guard !files.isEmpty else { throw DigitError(.usage, "no drawings: give labelled stroke files or folders (see --help)") }
        let start = Date()
        let model = try loadModel(weights)
        let recognizer = try DigitRecognizer(model: model)
        recognizer.secondOpinion = try SecondOpinion.load(choice: opinionPath, weights: weights, now: true)
        var records: [DrawingRecord] = []
        for file in files { records += try DrawingLoader.load(file).filter { keep($0.writer) } }
        let (examples, skipped) = WriterAdaptation.examples(from: records, recognizer: recognizer)
        guard !examples.isEmpty else {
            // One line, naming the file when there is one: the skipped drawings would all be listed otherwise.
            let unlabelled = skipped.allSatisfy { $0.hasSuffix(": no digit label") }
            throw DigitError(.usage, file: files.count == 1 ? files[0] : nil, records.isEmpty ? "no drawings found"
                : unlabelled ? "none of the \(records.count) drawings has a digit label (\"label\": \"7\", or \"407\" for a number)"
                : "none of the \(records.count) drawings gave a labelled digit; the first: \(skipped.first ?? "")")
        }
        for s in skipped.prefix(10) { printError("digits adapt: skipped \(s)") }
        if skipped.count > 10 { printError("digits adapt: skipped \(skipped.count - 10) more") }
        let record = ["adapt_command": (["digits"] + CommandLine.arguments.dropFirst()).joined(separator: " ")]
        let (profile, report) = try WriterAdaptation(options: options).adapt(model: model, examples: examples,
                                                                              opinion: recognizer.secondOpinion, threads: threads, record: record)
        try profile.write(to: out)
        print("learned from \(Set(examples.map(\.group)).count) drawings, \(examples.count) digits"
              + (skipped.isEmpty ? "" : " (\(skipped.count) drawings skipped)"))
        print("digit     " + (0..<10).map { String(format: "%4d", $0) }.joined())
        print("drawings  " + report.perDigit.map { String(format: "%4d", $0) }.joined())
        if report.folds > 0 {
            func line(_ name: String, _ f: WriterAdaptation.Figures) -> String {
                String(format: "%@  %d top-1 errors, answered %.1f%%, right among answered %.2f%%, %d right and ≥ %.0f%% sure",
                       name, f.errors, 100 * Double(f.answered) / Double(max(f.count, 1)),
                       100 * Double(f.rightAnswered) / Double(max(f.answered, 1)), f.rightSure, 100 * options.sureThreshold)
            }
            print("your drawings, each read by a refit that did not see it (\(report.folds) folds, \(report.before.count) digits):")
            print(line("  base weights", report.before))
            print(line("  with profile", report.after))
        } else {
            print("one drawing: no cross-validation, so the profile keeps the base weights")
        }
        print(report.blend == 0
              ? "adapting did not help on your drawings: the profile keeps the base weights (blend 0)"
              : "blend \(report.blend), pull \(report.pull): the profile keeps that share of the refit")
        print(String(format: "wrote %@ (%.1f s)", out, Date().timeIntervalSince(start)))
        return ExitCode.ok
    }
}
