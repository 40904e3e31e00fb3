import DigitKernels
import Foundation

/// The network as it trains: the training form of each layer of an architecture, a forward pass
/// in training or evaluation mode, the backward pass, and its tensors in the weight file's layouts.
final class TrainingNetwork {
    let architecture: [any Layer]
    let layers: [TrainingLayer]
    let capacity: Int
    let outputs: Int
    /// What the network gives per image: 1×1×outputs, or 1×columns×outputs for a line model.
    let outputShape: ActivationShape

    /// A digit network takes 28×28 images and ends in one value per class; a line network
    /// (`input` other than 28×28) ends in one row of columns, a value per class each.
    init(architecture: [any Layer], capacity: Int, seed: UInt64,
         input: ActivationShape = ActivationShape(height: 28, width: 28, channels: 1)) throws {
        self.architecture = architecture
        self.capacity = capacity
        var rng = SplitMix64(seed: seed).derived(0x1417)
        var logical = input, layout = logical
        let isLine = input.height != 28 || input.width != 28
        var built: [TrainingLayer] = []
        for layer in architecture {
            logical = try layer.outputShape(for: logical)
            let t = layer.training(input: layout, capacity: capacity, rng: &rng)
            built.append(t)
            if !(layer is Flatten) { layout = t.outShape }
        }
        guard logical.height == 1, logical.width == 1 || isLine else {
            throw DigitError(.usage, "the architecture must end with a linear layer, it ends with \(logical)")
        }
        outputs = logical.channels
        outputShape = logical
        layers = built
    }

    var parameters: [Parameter] { layers.flatMap(\.parameters) }
    var multiplyAdds: Int { layers.reduce(0) { $0 + $1.multiplyAdds } }

    /// Logits (N × outputs) of the normalized inputs `x` (N × 784).
    func forward(_ x: FloatBuffer, _ ctx: BatchContext) -> FloatBuffer {
        var a = x
        for layer in layers { a = layer.forward(a, ctx) }
        return a
    }

    func backward(_ dLogits: FloatBuffer, _ ctx: BatchContext) {
        for p in parameters { p.prepare(chunks: ctx.chunks.count) }
        var d = dLogits
        for (i, layer) in layers.enumerated().reversed() {
            guard let next = layer.backward(d, ctx, needInputGrad: i > 0) else { break }
            d = next
        }
        for p in parameters { p.reduce(chunks: ctx.chunks.count) }
    }

    func exportTensors() -> [String: TensorData] {
        var t: [String: TensorData] = [:]
        for layer in layers { t.merge(layer.exportTensors()) { a, _ in a } }
        return t
    }

    /// Loads tensors written by `exportTensors` (same architecture), to resume or fine-tune.
    func importTensors(_ tensors: [String: TensorData]) throws {
        for (name, t) in exportTensors() {
            guard let given = tensors[name], given.shape == t.shape else {
                throw DigitError(.format, at: "tensor '\(name)'", "missing or of the wrong shape for this architecture")
            }
        }
        for layer in layers { layer.importTensors(tensors) }
    }
}
