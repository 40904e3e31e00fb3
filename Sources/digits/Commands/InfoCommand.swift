import DigitApp
import DigitKit
import Foundation

struct InfoCommand: CLICommand {
    static let name = "info"
    static let summary = "describe a weight file: layers, parameters, multiply-adds, provenance"
    static let help = """
    Usage: digits info [--weights FILE]

    Loads and validates the weight file (default: $DIGITS_WEIGHTS, else the shipped weights)
    and prints the inference network layer by layer — output shape, parameters, multiply-adds per
    image, batch norm folded into the convolution before it — and the file's metadata.

    \(CLI.exitCodesHelp)
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        let model = try loadModel(try args.option("--weights"))
        _ = try args.positionals().first.map { throw DigitError(.usage, "unexpected argument '\($0)'") }
        let network = try model.makeNetwork()
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
        print(row("total", "\(network.classCount)", "\(network.parameterCount)", "\(network.multiplyAdds)"))
        print("")
        print("input: p/255, then (x - \(model.inputMean)) / \(model.inputStd); temperature \(model.temperature)")
        for key in model.provenance.keys.sorted() { print("\(key): \(model.provenance[key]!)") }
        return ExitCode.ok
    }
}
