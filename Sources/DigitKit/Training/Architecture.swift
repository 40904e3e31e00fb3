/// The layers of a trainable network, in order. Names (`conv1`, `bn1`, `fc`) become tensor names
/// in the weight file.
public enum ArchitectureLayer: Equatable, Sendable, CustomStringConvertible {
    case conv(outChannels: Int, kernel: Int, padding: Int)
    case batchNorm
    case relu
    case maxPool
    case dropout(Float)
    case flatten
    case linear(outCount: Int)

    /// Compact text: `conv16k5p2`, `bn`, `relu`, `maxpool`, `dropout0.3`, `flatten`, `linear10`.
    public var description: String {
        switch self {
        case let .conv(c, k, p): return "conv\(c)k\(k)p\(p)"
        case .batchNorm: return "bn"
        case .relu: return "relu"
        case .maxPool: return "maxpool"
        case let .dropout(r): return "dropout\(r)"
        case .flatten: return "flatten"
        case let .linear(n): return "linear\(n)"
        }
    }
}

public enum Architecture {
    /// The default network: a compact VGG-style CNN in the LeNet tradition (LeCun et al. 1998), with
    /// batch normalization after every convolution (Ioffe & Szegedy 2015) and dropout before the
    /// classifier. Deviations from LeNet-5: ReLU instead of tanh, max pooling instead of trainable
    /// subsampling, four convolutions (5×5 then 3×3) instead of two, no C5/F6 fully connected layers.
    ///
    ///     conv 1→16 5×5 pad 2, BN, ReLU, maxpool 2   → 16×14×14
    ///     conv 16→32 3×3 pad 1, BN, ReLU             → 32×14×14
    ///     conv 32→32 3×3 pad 1, BN, ReLU, maxpool 2  → 32×7×7
    ///     conv 32→64 3×3 pad 0, BN, ReLU             → 64×5×5
    ///     flatten, dropout 0.3, linear 1600→10
    ///
    /// About 49,000 parameters and 3.5 million multiply-adds per image.
    public static let standard = compact(lastChannels: 64)

    /// The shipped network (Weights/README.md): `standard` with a wider last convolution (128
    /// channels instead of 64) and so a larger classifier, 32→128 3×3 then linear 3200→10.
    /// About 84,000 parameters and 4.0 million multiply-adds per image.
    public static let wide = compact(lastChannels: 128)

    /// The layers of `standard` and `wide`, which differ only in the last convolution's width.
    private static func compact(lastChannels: Int) -> [ArchitectureLayer] {
        [
            .conv(outChannels: 16, kernel: 5, padding: 2), .batchNorm, .relu, .maxPool,
            .conv(outChannels: 32, kernel: 3, padding: 1), .batchNorm, .relu,
            .conv(outChannels: 32, kernel: 3, padding: 1), .batchNorm, .relu, .maxPool,
            .conv(outChannels: lastChannels, kernel: 3, padding: 0), .batchNorm, .relu,
            .flatten, .dropout(0.3), .linear(outCount: 10),
        ]
    }

    /// A small network for tests: trains in seconds.
    public static let tiny: [ArchitectureLayer] = [
        .conv(outChannels: 16, kernel: 5, padding: 2), .batchNorm, .relu, .maxPool,
        .conv(outChannels: 16, kernel: 3, padding: 1), .batchNorm, .relu, .maxPool,
        .flatten, .linear(outCount: 10),
    ]
}
