/// The network as it trains: the layers of an `Architecture`, a forward pass in training or
/// evaluation mode, the backward pass, and export to the weight-file description.
final class TrainingNetwork {
    let layers: [TrainingLayer]
    let capacity: Int
    private var specs: [LayerSpec] = []
    private var exporters: [(inout [String: TensorData]) -> Void] = []
    private var importers: [String: (TensorData) -> Void] = [:]

    init(architecture: [ArchitectureLayer], capacity: Int, seed: UInt64) {
        self.capacity = capacity
        var rng = SplitMix64(seed: seed).derived(0x1417)
        var shape = ActivationShape(height: 28, width: 28, channels: 1)
        var built: [TrainingLayer] = []
        var convIndex = 0, bnIndex = 0
        for layer in architecture {
            switch layer {
            case let .conv(outChannels, kernel, padding):
                convIndex += 1
                let name = "conv\(convIndex)"
                let conv = Conv2DLayer(name: name, input: shape, outChannels: outChannels, kernel: kernel, padding: padding,
                                       capacity: capacity, rng: &rng)
                built.append(conv)
                specs.append(.conv2d(weight: name + ".weight", bias: name + ".bias", stride: 1, padding: padding))
                let wShape = [outChannels, shape.channels, kernel, kernel]
                exporters.append { t in
                    t[name + ".weight"] = TensorData(shape: wShape, values: conv.exportedWeight())
                    t[name + ".bias"] = TensorData(shape: [outChannels], values: conv.bias.value.array)
                }
                importers[name + ".weight"] = { conv.importWeight($0.values) }
                importers[name + ".bias"] = { $0.values.withUnsafeBufferPointer { conv.bias.value.pointer.update(from: $0.baseAddress!, count: $0.count) } }
                shape = conv.outShape
            case .batchNorm:
                bnIndex += 1
                let name = "bn\(bnIndex)"
                let bn = BatchNormLayer(name: name, shape: shape, capacity: capacity)
                built.append(bn)
                specs.append(.batchnorm2d(weight: name + ".weight", bias: name + ".bias", runningMean: name + ".running_mean",
                                          runningVar: name + ".running_var", eps: Double(bn.eps)))
                let c = shape.channels
                exporters.append { t in
                    t[name + ".weight"] = TensorData(shape: [c], values: bn.gamma.value.array)
                    t[name + ".bias"] = TensorData(shape: [c], values: bn.beta.value.array)
                    t[name + ".running_mean"] = TensorData(shape: [c], values: bn.runningMean.array)
                    t[name + ".running_var"] = TensorData(shape: [c], values: bn.runningVar.array)
                }
                for (suffix, buffer) in [("weight", bn.gamma.value), ("bias", bn.beta.value),
                                         ("running_mean", bn.runningMean), ("running_var", bn.runningVar)] {
                    importers[name + "." + suffix] = { t in t.values.withUnsafeBufferPointer { buffer.pointer.update(from: $0.baseAddress!, count: $0.count) } }
                }
            case .relu:
                built.append(ReLULayer(inShape: shape, outShape: shape, capacity: capacity))
                specs.append(.relu)
            case .maxPool:
                let pool = MaxPoolLayer(input: shape, kernel: 2, stride: 2, capacity: capacity)
                built.append(pool)
                specs.append(.maxpool2d(kernel: 2, stride: 2))
                shape = pool.outShape
            case let .dropout(rate):
                built.append(DropoutLayer(shape: shape, rate: rate, capacity: capacity))
            case .flatten:
                specs.append(.flatten)
            case let .linear(outCount):
                let name = "fc"
                let fc = LinearLayer(name: name, input: shape, outCount: outCount, capacity: capacity, rng: &rng)
                built.append(fc)
                specs.append(.linear(weight: name + ".weight", bias: name + ".bias"))
                let inCount = shape.count
                exporters.append { t in
                    t[name + ".weight"] = TensorData(shape: [outCount, inCount], values: fc.exportedWeight())
                    t[name + ".bias"] = TensorData(shape: [outCount], values: fc.bias.value.array)
                }
                importers[name + ".weight"] = { fc.importWeight($0.values) }
                importers[name + ".bias"] = { $0.values.withUnsafeBufferPointer { fc.bias.value.pointer.update(from: $0.baseAddress!, count: $0.count) } }
                shape = fc.outShape
            }
        }
        layers = built
    }

    var parameters: [Parameter] { layers.flatMap(\.parameters) }
    var multiplyAdds: Int { layers.reduce(0) { $0 + $1.multiplyAdds } }

    /// Logits (N × 10) of the normalized inputs `x` (N × 784).
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

    /// The inference description: layers and tensors in PyTorch layouts (batch norm not folded).
    var layerSpecs: [LayerSpec] { specs }

    func exportTensors() -> [String: TensorData] {
        var t: [String: TensorData] = [:]
        for e in exporters { e(&t) }
        return t
    }

    /// Loads tensors written by `exportTensors` (same architecture), e.g. to resume or fine-tune.
    func importTensors(_ tensors: [String: TensorData]) throws {
        let expected = exportTensors()
        for (name, t) in expected {
            guard let given = tensors[name], given.shape == t.shape else {
                throw DigitError(.format, at: "tensor '\(name)'", "missing or of the wrong shape for this architecture")
            }
            importers[name]?(given)
        }
    }
}
