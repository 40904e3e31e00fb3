import DigitKit
import Dispatch
import Foundation

/// Robust summaries of repeated timings.
public enum Statistics {
    /// The median: the middle value, or the mean of the two middle values for an even count; 0 for none.
    public static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let s = values.sorted()
        let m = s.count / 2
        return s.count % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2
    }

    /// The `p`-th percentile (0…100) by the nearest-rank method: the smallest value with at least
    /// `p`% of the values at or below it; 0 for none.
    public static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let s = values.sorted()
        let rank = (p / 100 * Double(s.count)).rounded(.up)
        let index = min(max(Int(rank) - 1, 0), s.count - 1)
        return s[index]
    }
}

/// A monotonic clock, in nanoseconds since an arbitrary origin.
@inline(__always)
func monotonicNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Seconds taken by `body`.
@inline(__always)
func measureSeconds(_ body: () throws -> Void) rethrows -> Double {
    let start = monotonicNanoseconds()
    try body()
    return Double(monotonicNanoseconds() - start) / 1e9
}

/// CPU time consumed by the whole process (all threads), in nanoseconds.
func processCPUNanoseconds() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return UInt64(t.tv_sec) &* 1_000_000_000 &+ UInt64(t.tv_nsec)
}
