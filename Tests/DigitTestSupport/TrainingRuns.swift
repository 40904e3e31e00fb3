import DigitKit

extension TrainingOptions {
    /// The options of a short training run in a test: `architecture`, `epochs` epochs of `batchSize`
    /// images after `warmupEpochs` of warm-up, on `threads` threads from `seed`; everything else at
    /// its default.
    public static func shortRun(_ architecture: [any Layer], epochs: Int, batchSize: Int, warmupEpochs: Float,
                                threads: Int, seed: UInt64 = TrainingOptions().seed) -> TrainingOptions {
        var o = TrainingOptions()
        o.architecture = architecture
        o.epochs = epochs
        o.batchSize = batchSize
        o.warmupEpochs = warmupEpochs
        o.threads = threads
        o.seed = seed
        return o
    }
}
