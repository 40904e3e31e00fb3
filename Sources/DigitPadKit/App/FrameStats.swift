import DigitApp

/// Frame times, summarized by nearest-rank percentiles.
public struct FrameStats: Sendable {
    public private(set) var milliseconds: [Double] = []

    public init() {}

    public mutating func add(milliseconds value: Double) {
        if value.isFinite && value >= 0 { milliseconds.append(value) }
    }

    /// The `p`-th percentile (0…100) by nearest rank: the smallest value with at least p % of
    /// the samples at or below it. Nil without samples.
    public func percentile(_ p: Double) -> Double? {
        milliseconds.isEmpty ? nil : Statistics.percentile(milliseconds, p)
    }

    /// `frames 412 · p50 1.21 ms · p99 3.80 ms · max 5.02 ms`, or `frames 0`.
    public var summary: String {
        guard let p50 = percentile(50), let p99 = percentile(99), let max = milliseconds.max() else { return "frames 0" }
        func ms(_ v: Double) -> String {
            let hundredths = Int((v * 100).rounded())
            let fraction = hundredths % 100
            return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) ms"
        }
        return "frames \(milliseconds.count) · p50 \(ms(p50)) · p99 \(ms(p99)) · max \(ms(max))"
    }
}
