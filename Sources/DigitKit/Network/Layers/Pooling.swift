import Foundation

/// What the pooling kinds (`MaxPool2D`, `AvgPool2D`) share: a square window of `kernel` moved by
/// `stride`, no padding (floor mode). Weight file: `kernel` and `stride` (default: the kernel).
public protocol PoolingLayer: Layer {
    var kernel: Int { get }
    var stride: Int { get }
    init(kernel: Int, stride: Int?)
}

extension PoolingLayer {
    public init(entry: LayerEntry) throws {
        let kernel = try entry.int("kernel", range: 1...16)
        self.init(kernel: kernel, stride: try entry.int("stride", default: kernel, range: 1...16))
    }

    public var entryFields: [(key: String, value: String)]? { [("kernel", "\(kernel)"), ("stride", "\(stride)")] }

    public func outputShape(for input: ActivationShape) throws -> ActivationShape {
        guard input.height >= kernel, input.width >= kernel else {
            throw DigitError(.format, "pool kernel \(kernel) is larger than the input \(input)")
        }
        return ActivationShape(height: (input.height - kernel) / stride + 1, width: (input.width - kernel) / stride + 1,
                               channels: input.channels)
    }
}
