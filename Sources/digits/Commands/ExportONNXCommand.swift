import DigitApp
import DigitKit
import Foundation

/// `digits export-onnx`: the weight file's network as an ONNX model, written by the layers themselves.
struct ExportONNXCommand: CLICommand {
    static let name = "export-onnx"
    static let summary = "write the network of a weight file as an ONNX model (for ONNX Runtime and other tools)"
    static let help = """
    Usage: digits export-onnx [--weights FILE] --out MODEL.onnx

    Loads and validates the weight file (default: $DIGITS_WEIGHTS, else the shipped weights)
    and writes its network as an ONNX model (IR version 8, opset 17), NCHW as in PyTorch:
      input   pixels  float (N, 1, 28, 28), 0…1 (0 = background, 1 = ink)
      output  logits  float (N, C), one per class of the file in its order: the ten digits, then
                      "not a digit" when the file has that output (C = 11 for the shipped model)
    The graph normalizes the pixels itself ((x - input_mean) / input_std), then runs each layer as
    its ONNX operator (Conv, BatchNormalization, Relu, MaxPool, AveragePool, GlobalAveragePool,
    Flatten, Gemm) with the file's tensors unchanged. The softmax temperature is not part of it.

    Options:
      --weights FILE     weight file
      --out PATH         where to write the model (replaced atomically)

    \(CLI.exitCodesHelp)
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        let weights = try args.option("--weights")
        let out = try args.option("--out")
        _ = try args.positionals().first.map { throw DigitError(.usage, "unexpected argument '\($0)'") }
        guard let out else { throw DigitError(.usage, "missing --out MODEL.onnx") }
        let path = try weights ?? DigitRecognizer.defaultWeightsPath()
        let bytes = try ModelFile.load(path: path).onnx(file: path)
        try FileIO.writeAtomically(bytes, to: out)
        printError("export-onnx: wrote \(bytes.count) bytes to \(out)")
        return ExitCode.ok
    }
}
