import DigitApp
import DigitKit
import Foundation

struct InfoCommand: CLICommand {
    static let name = "info"
    static let summary = "describe a weight file: layers, parameters, multiply-adds, provenance"
    static let help = """
    Usage: digits info [--weights FILE | --paper]

    Loads and validates the weight file (default: $DIGITS_WEIGHTS, else the shipped weights)
    and prints the inference network layer by layer — output shape, parameters, multiply-adds per
    image, batch norm folded into the convolution before it — and the file's metadata.

      --weights FILE   a weight file: the digit network's, or a line model's (the paper reader's)
      --paper          the shipped paper model (Weights/paper-lines.safetensors, or
                       $DIGITS_PAPER_WEIGHTS): a line model, described for a 32×256 line

    \(CLI.exitCodesHelp)
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        let weights = try args.option("--weights")
        let paper = args.flag("--paper")
        _ = try args.positionals().first.map { throw DigitError(.usage, "unexpected argument '\($0)'") }
        guard !(paper && weights != nil) else { throw DigitError(.usage, "--paper and --weights go apart: name one model") }
        let model = paper ? try ModelFile.load(path: try LineReader.defaultWeightsPath()) : try loadModel(weights)
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
            print("a line model: lines 32 pixels tall (multiply-adds above for 256 wide), a column per 8 pixels, "
                + "each scoring \(LineSymbols.classes) (_ blank, * not a digit, . a mark)")
        }
        print("input: p/255, then (x - \(model.inputMean)) / \(model.inputStd); temperature \(model.temperature)")
        for key in model.provenance.keys.sorted() { print("\(key): \(model.provenance[key]!)") }
        return ExitCode.ok
    }
}
