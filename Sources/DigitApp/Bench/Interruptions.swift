import DigitKit
import Foundation

/// How often something other than this program stops the thread, and for how long: timer ticks,
/// other interrupts, and on a virtual machine the host taking the virtual CPU away. Every timing
/// of `digits bench` carries this noise; a short task that meets one such gap takes the gap's
/// length longer, which is what sets a tail latency such as the end-to-end p99.
public struct Interruptions: Sendable, Equatable {
    /// Gaps per second of spinning.
    public var perSecond: Double
    /// The share of the spinning time the thread did not run (0…1).
    public var fractionLost: Double
    /// Gap lengths (µs): median, 90th percentile, longest.
    public var gapP50: Double
    public var gapP90: Double
    public var gapMax: Double
    public var count: Int
    /// How far the thread's CPU clock advanced during the spin, as a share of the wall time
    /// (nil when not measured). Near 1 although `fractionLost` is not 0 means the stops are
    /// charged to the thread as CPU time, as on a VM whose host takes the virtual CPU away.
    public var cpuClockShare: Double?

    /// The summary of `gaps` (µs each) seen in `seconds` of spinning.
    public init(gaps: [Double], seconds: Double, cpuSeconds: Double? = nil) {
        cpuClockShare = cpuSeconds.flatMap { seconds > 0 ? $0 / seconds : nil }
        count = gaps.count
        perSecond = seconds > 0 ? Double(gaps.count) / seconds : 0
        fractionLost = seconds > 0 ? min(gaps.reduce(0, +) / 1e6 / seconds, 1) : 0
        gapP50 = Statistics.percentile(gaps, 50)
        gapP90 = Statistics.percentile(gaps, 90)
        gapMax = gaps.max() ?? 0
    }

    /// The chance that a task running `microseconds` meets at least one gap, taking the gaps as
    /// arriving at random at the measured rate: 1 − e^(−rate × time).
    public func hitProbability(microseconds: Double) -> Double {
        1 - Foundation.exp(-perSecond * microseconds / 1e6)
    }
}

extension Benchmark {
    /// Reads the monotonic clock in a tight loop on this thread for `seconds` and returns every
    /// step between two readings longer than `threshold` µs (a reading takes well under 1 µs, so
    /// a longer step is time the thread was not running), with the time actually spun.
    public static func interruptionGaps(seconds: Double, threshold: Double = 5) -> (gaps: [Double], seconds: Double, cpuSeconds: Double) {
        var gaps: [Double] = []
        gaps.reserveCapacity(1 << 16)
        let limit = UInt64(threshold * 1e3)
        let cpuStart = threadCPUNanoseconds()
        let start = monotonicNanoseconds()
        let end = start + UInt64(max(seconds, 0) * 1e9)
        var last = start
        while last < end {
            let now = monotonicNanoseconds()
            if now - last > limit, gaps.count < 1 << 16 { gaps.append(Double(now - last) / 1e3) }
            last = now
        }
        let cpu = Double(threadCPUNanoseconds() - cpuStart) / 1e9
        return (gaps, Double(last - start) / 1e9, cpu)
    }

    /// `interruptionGaps` summarized.
    public static func interruptions(seconds: Double) -> Interruptions {
        let (gaps, spun, cpu) = interruptionGaps(seconds: seconds)
        return Interruptions(gaps: gaps, seconds: spun, cpuSeconds: cpu)
    }
}
