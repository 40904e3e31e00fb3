import Foundation

/// A training run's state after its last finished epoch, written atomically after every epoch so
/// an interrupted run (Ctrl-C, a kill, a power cut) resumes where it stopped and ends with the
/// weights an uninterrupted run would have written, bit for bit. Both trainers use it: the digit
/// network's (`Trainer`, with its SGD velocities) and the line model's (`LineTrainer`, with Adam's
/// two moments).
///
/// The file is a safetensors file: the network's tensors under their own names, the optimizer's
/// state under `prefix.parameter` names, and the metadata `format` ("digits-checkpoint"),
/// `epochs_done`, `options` (the options' fingerprint: a resume with other options is refused),
/// `threads` and `history` (one row per finished epoch).
package struct TrainingCheckpoint {
    package var epochsDone: Int
    package var history: [EpochSummary]
    /// The network's tensors, as `TrainingNetwork.exportTensors()` gives them.
    package var network: [String: TensorData]
    /// The optimizer's state: for each prefix ("velocity", "adam.m", …), one array per parameter,
    /// in the order of `TrainingNetwork.parameters`.
    package var optimizer: [String: [[Float]]]

    package static let format = "digits-checkpoint"

    package init(epochsDone: Int, history: [EpochSummary], network: [String: TensorData], optimizer: [String: [[Float]]]) {
        (self.epochsDone, self.history, self.network, self.optimizer) = (epochsDone, history, network, optimizer)
    }

    /// Writes the checkpoint atomically; `parameterNames` are the network's parameters in order.
    package func write(to path: String, parameterNames: [String], options: TrainingOptions) throws {
        var tensors = network
        for (prefix, arrays) in optimizer {
            for (name, values) in zip(parameterNames, arrays) {
                tensors[prefix + "." + name] = TensorData(shape: [values.count], values: values)
            }
        }
        let historyText = history.map {
            "\($0.epoch) \($0.trainLoss) \($0.trainAccuracy) \($0.validationLoss) \($0.validationAccuracy) \($0.learningRate) \($0.seconds) \($0.imagesPerSecond)"
        }.joined(separator: ";")
        try SafetensorsFile(tensors: tensors, metadata: [
            "format": Self.format, "epochs_done": String(epochsDone), "options": options.fingerprint,
            "threads": String(options.threads), "history": historyText,
        ]).write(to: path)
    }

    /// Reads a checkpoint written with the same options, for a network whose parameters are
    /// `parameters` (name and size, in order) and an optimizer whose state is under `prefixes`.
    /// Throws a one-line error naming the file for anything else: another file, other options,
    /// a missing or mis-sized state tensor.
    static func read(path: String, options: TrainingOptions, parameters: [(name: String, count: Int)],
                     prefixes: [String]) throws -> TrainingCheckpoint {
        try parse(try FileIO.read(path, limit: SafetensorsFile.maxFileBytes), file: path, options: options, parameters: parameters,
                  prefixes: prefixes)
    }

    /// The checkpoint in `bytes` (read from `file`, named in errors), as `read` takes it.
    package static func parse(_ bytes: [UInt8], file path: String, options: TrainingOptions, parameters: [(name: String, count: Int)],
                              prefixes: [String]) throws -> TrainingCheckpoint {
        let file = try SafetensorsFile.parse(bytes, file: path)
        guard file.metadata["format"] == format, let done = file.metadata["epochs_done"].flatMap(Int.init), done >= 0 else {
            throw DigitError(.format, file: path, "not a digits training checkpoint")
        }
        guard file.metadata["options"] == options.fingerprint else {
            throw DigitError(.usage, file: path, "checkpoint was made with other training options; delete it or use the same options")
        }
        let isState = { (name: String) in prefixes.contains { name.hasPrefix($0 + ".") } }
        var network: [String: TensorData] = [:]
        for (name, t) in file.tensors where !isState(name) { network[name] = t }
        var optimizer: [String: [[Float]]] = [:]
        for prefix in prefixes {
            optimizer[prefix] = try parameters.map { p in
                guard let t = file.tensors[prefix + "." + p.name], t.values.count == p.count else {
                    throw DigitError(.format, file: path, at: "tensor '\(prefix).\(p.name)'", "missing or of the wrong size")
                }
                return t.values
            }
        }
        let history: [EpochSummary] = (file.metadata["history"] ?? "").split(separator: ";").compactMap { row in
            let f = row.split(separator: " ").compactMap { Double($0) }
            guard f.count == 8 else { return nil }
            return EpochSummary(epoch: Int(f[0]), epochs: options.epochs, trainLoss: Float(f[1]), trainAccuracy: Float(f[2]),
                                validationLoss: Float(f[3]), validationAccuracy: Float(f[4]), learningRate: Float(f[5]),
                                seconds: f[6], imagesPerSecond: f[7])
        }
        return TrainingCheckpoint(epochsDone: min(done, options.epochs), history: history, network: network, optimizer: optimizer)
    }
}

extension TrainingNetwork {
    /// The parameters' names and sizes, in order: what a checkpoint's optimizer state is keyed by.
    var parameterLayout: [(name: String, count: Int)] { parameters.map { ($0.name, $0.count) } }
}

extension Array where Element == FloatBuffer {
    /// The buffers' values, one array each (an optimizer's state for a checkpoint).
    var arrays: [[Float]] { map(\.array) }

    /// Copies `arrays` into the buffers, which have their sizes (checked by `TrainingCheckpoint.read`).
    func load(_ arrays: [[Float]]) {
        for (buffer, values) in zip(self, arrays) {
            values.withUnsafeBufferPointer { v in if let base = v.baseAddress { buffer.pointer.update(from: base, count: v.count) } }
        }
    }
}
