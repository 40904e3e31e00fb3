import DigitApp
import DigitKit
import Foundation

struct InfoCommand: CLICommand {
    static let name = "info"
    static let summary = "describe a weight file: layers, parameters, multiply-adds, provenance"
    static let help = """
    Usage: digits info [--weights FILE | --second-opinion | --paper]

    Loads and validates the weight file (default: $DIGITS_WEIGHTS, else the shipped weights)
    and prints the inference network layer by layer — output shape, parameters, multiply-adds per
    image, batch norm folded into the convolution before it — and the file's metadata.

      --weights FILE   a weight file: the digit network's, or a line model's (the paper reader's)
      --second-opinion the shipped second opinion (Weights/second-opinion.safetensors, or
                       $DIGITS_SECOND_OPINION), consulted when the compact network is unsure
      --paper          the shipped paper model (Weights/paper-lines.safetensors, or
                       $DIGITS_PAPER_WEIGHTS): a line model, described for a 32×256 line

    \(CLI.exitCodesHelp)
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        let weights = try args.option("--weights")
        let paper = args.flag("--paper")
        let opinion = args.flag("--second-opinion")
        _ = try args.positionals().first.map { throw DigitError(.usage, "unexpected argument '\($0)'") }
        guard [paper, opinion, weights != nil].filter({ $0 }).count <= 1 else {
            throw DigitError(.usage, "--weights, --second-opinion and --paper go apart: name one model")
        }
        let model: ModelFile
        if paper {
            model = try ModelFile.load(path: try LineReader.defaultWeightsPath())
        } else if opinion {
            guard let path = SecondOpinion.defaultPath() else {
                throw DigitError(.io, "no second opinion found: DIGITS_SECOND_OPINION is not set and the shipped one is not at "
                    + SecondOpinion.candidates.joined(separator: " or "))
            }
            model = try ModelFile.load(path: path)
        } else {
            model = try loadModel(weights)
        }
        let network = try model.makeNetwork(width: 256)
        let width = max(network.summary.map { $0.layer.count }.max() ?? 0, 5)
        func row(_ a: String, _ b: String, _ c: String, _ d: String) -> String {
            "| " + a.padding(toLength: width, withPad: " ", startingAt: 0) + " | " + b.padding(toLength: 9, withPad: " ", startingAt: 0)
                + " | " + String(repeating: " ", count: max(0, 10 - c.count)) + c + " | " + String(repeating: " ", count: max(0, 13 - d.count)) + d + " |"
        }
        print(row("layer", "output", "parameters", "multiply-adds"))
        print("|" + String(repeating: "-", count: width + 2) + "|-----------|-----------:|--------------:|")
        for s in network.summary where s.layer != "flatten" {
            print(row(s.layer, s.output, s.parameters == 0 ? "" : "\(s.parameters)", s.multiplyAdds == 0 ? "" : "\(s.multiplyAdds)"))
        }
        print(row("total", model.isLineModel ? "\(network.outputShape.width)×\(network.classCount)" : "\(network.classCount)",
                  "\(network.parameterCount)", "\(network.multiplyAdds)"))
        print("")
        if model.isLineModel {
            let stretch = model.lineStretch == 1 ? "" : ", drawn \(String(format: "%g", model.lineStretch)) times as wide as cut (\(String(format: "%g", 8 / model.lineStretch)) pixels of the cut line)"
            print("a line model: lines 32 pixels tall (multiply-adds above for 256 wide), a column per 8 pixels\(stretch), "
                + "each scoring \(LineSymbols.classes) (_ blank, * not a digit, . a mark)")
        }
        if let mix = model.provenance["second_opinion_mix"] {
            print("a second opinion: consulted when the compact network is unsure (its likeliest class a digit below the threshold); "
                + "the answer is p ∝ p_compact^(1-\(mix)) · p_this^\(mix)")
        } else if !paper, !model.isLineModel, weights == nil, let path = SecondOpinion.defaultPath() {
            print("second opinion when unsure: \(path) (digits info --second-opinion)")
        }
        print("input: p/255, then (x - \(model.inputMean)) / \(model.inputStd); temperature \(model.temperature)")
        for key in model.provenance.keys.sorted() { print("\(key): \(model.provenance[key]!)") }
        return ExitCode.ok
    }
}
