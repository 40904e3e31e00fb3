/// Named networks: lists of layers, trained by `Trainer` and described in the weight file.
public enum Architecture {
    /// The compact CNN in the LeNet tradition (LeCun et al. 1998), with batch normalization after
    /// every convolution (Ioffe & Szegedy 2015) and dropout before the classifier. Deviations from
    /// LeNet-5: ReLU instead of tanh, max pooling instead of trainable subsampling, four
    /// convolutions (5×5 then 3×3) instead of two, no C5/F6 fully connected layers.
    ///
    ///     conv 1→16 5×5 pad 2, BN, ReLU, maxpool 2   → 16×14×14
    ///     conv 16→32 3×3 pad 1, BN, ReLU             → 32×14×14
    ///     conv 32→32 3×3 pad 1, BN, ReLU, maxpool 2  → 32×7×7
    ///     conv 32→64 3×3 pad 0, BN, ReLU             → 64×5×5
    ///     flatten, dropout 0.3, linear 1600→classes
    ///
    /// About 49,000 parameters and 3.5 million multiply-adds per image.
    public static func standard(classes: Int = 10) -> [any Layer] { compact(lastChannels: 64, classes: classes) }

    /// `standard` with a wider last convolution (128 channels instead of 64) and so a larger
    /// classifier, 32→128 3×3 then linear 3200→classes: about 84,000 parameters and 4.0 million
    /// multiply-adds per image.
    public static func wide(classes: Int = 10) -> [any Layer] { compact(lastChannels: 128, classes: classes) }

    private static func compact(lastChannels: Int, classes: Int) -> [any Layer] {
        [
            Conv2D("conv1", outChannels: 16, kernel: 5, padding: 2), BatchNorm2D("bn1"), ReLU(), MaxPool2D(),
            Conv2D("conv2", outChannels: 32, kernel: 3, padding: 1), BatchNorm2D("bn2"), ReLU(),
            Conv2D("conv3", outChannels: 32, kernel: 3, padding: 1), BatchNorm2D("bn3"), ReLU(), MaxPool2D(),
            Conv2D("conv4", outChannels: lastChannels, kernel: 3, padding: 0), BatchNorm2D("bn4"), ReLU(),
            Flatten(), Dropout(0.3), Linear("fc", outCount: classes),
        ]
    }

    /// The second opinion, consulted only when the compact network is unsure (`SecondOpinion`):
    /// the compact layout with twice the channels in its first three convolutions, inside the
    /// second opinion's envelope of 1 M parameters and 20 M multiply-adds.
    ///
    ///     conv 1→32 5×5 pad 2, BN, ReLU, maxpool 2    → 32×14×14
    ///     conv 32→64 3×3 pad 1, BN, ReLU              → 64×14×14
    ///     conv 64→64 3×3 pad 1, BN, ReLU, maxpool 2   → 64×7×7
    ///     conv 64→128 3×3 pad 0, BN, ReLU             → 128×5×5
    ///     flatten, dropout 0.3, linear 3200→classes
    ///
    /// About 170,000 parameters and 13.2 million multiply-adds per image.
    public static func opinion(classes: Int = 10) -> [any Layer] {
        [
            Conv2D("conv1", outChannels: 32, kernel: 5, padding: 2), BatchNorm2D("bn1"), ReLU(), MaxPool2D(),
            Conv2D("conv2", outChannels: 64, kernel: 3, padding: 1), BatchNorm2D("bn2"), ReLU(),
            Conv2D("conv3", outChannels: 64, kernel: 3, padding: 1), BatchNorm2D("bn3"), ReLU(), MaxPool2D(),
            Conv2D("conv4", outChannels: 128, kernel: 3, padding: 0), BatchNorm2D("bn4"), ReLU(),
            Flatten(), Dropout(0.3), Linear("fc", outCount: classes),
        ]
    }

    /// A small network for tests: trains in seconds.
    public static func tiny(classes: Int = 10) -> [any Layer] {
        [
            Conv2D("conv1", outChannels: 16, kernel: 5, padding: 2), BatchNorm2D("bn1"), ReLU(), MaxPool2D(),
            Conv2D("conv2", outChannels: 16, kernel: 3, padding: 1), BatchNorm2D("bn2"), ReLU(), MaxPool2D(),
            Flatten(), Linear("fc", outCount: classes),
        ]
    }

    /// The architecture named `name` (`standard`, `wide`, `tiny`), or nil.
    public static func named(_ name: String, classes: Int = 10) -> [any Layer]? {
        switch name {
        case "standard": return standard(classes: classes)
        case "wide": return wide(classes: classes)
        case "tiny": return tiny(classes: classes)
        case "opinion": return opinion(classes: classes)
        default: return nil
        }
    }

    public static let names = ["standard", "wide", "tiny", "opinion"]
}

extension Architecture {
    /// The paper reader's line model: convolutions over a line 32 pixels tall down to four rows,
    /// each column's four rows laid side by side as its features (one column per 8 pixels of the
    /// line; where in the height a stroke is matters: a 9's loop against a 6's, a mark on the base
    /// line), convolutions across neighbouring columns, and a score per column for each of
    /// `LineSymbols.classes` (CTC; `LineTrainer`).
    ///
    ///     conv 1→16 3×3, BN, ReLU, maxpool 2        → 16×16×W/2
    ///     conv 16→32 3×3, BN, ReLU, maxpool 2       → 32×8×W/4
    ///     conv 32→48 3×3, BN, ReLU                  → 48×8×W/4
    ///     conv 48→48 3×3, BN, ReLU, maxpool 2       → 48×4×W/8
    ///     conv 48→128 3×3, BN, ReLU                 → 128×4×W/8
    ///     rows side by side                         → 512×1×W/8
    ///     conv 512→160 1×1, BN, ReLU
    ///     conv 160→128 3×3, BN, ReLU                (across columns: the rows above and below are zero
    ///     conv 128→128 3×3, BN, ReLU, dropout 0.2    padding, counted in the multiply-adds all the same)
    ///     conv 128→13 1×1                           → 13×1×W/8
    ///
    /// About 511,000 parameters and 48.7 million multiply-adds for a 32×256 line.
    public static func line() -> [any Layer] {
        [
            Conv2D("conv1", outChannels: 16, kernel: 3, padding: 1), BatchNorm2D("bn1"), ReLU(), MaxPool2D(),
            Conv2D("conv2", outChannels: 32, kernel: 3, padding: 1), BatchNorm2D("bn2"), ReLU(), MaxPool2D(),
            Conv2D("conv3", outChannels: 48, kernel: 3, padding: 1), BatchNorm2D("bn3"), ReLU(),
            Conv2D("conv4", outChannels: 48, kernel: 3, padding: 1), BatchNorm2D("bn4"), ReLU(), MaxPool2D(),
            Conv2D("conv5", outChannels: 128, kernel: 3, padding: 1), BatchNorm2D("bn5"), ReLU(),
            HeightFlatten(),
            Conv2D("conv6", outChannels: 160, kernel: 1, padding: 0), BatchNorm2D("bn6"), ReLU(),
            Conv2D("conv7", outChannels: 128, kernel: 3, padding: 1), BatchNorm2D("bn7"), ReLU(),
            Conv2D("conv8", outChannels: 128, kernel: 3, padding: 1), BatchNorm2D("bn8"), ReLU(), Dropout(0.2),
            Conv2D("conv9", outChannels: LineSymbols.classes.count, kernel: 1, padding: 0),
        ]
    }
}
