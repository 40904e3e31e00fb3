/// The one source of randomness in DigitKit: SplitMix64 (Steele, Lea, Flood 2014), small,
/// fast and fully determined by its seed, so `--seed` reproduces a training run exactly.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public private(set) var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform float in [0, 1).
    public mutating func nextFloat() -> Float { Float(next() >> 40) * (1.0 / Float(1 << 24)) }

    /// A uniform float in [lo, hi).
    public mutating func uniform(_ lo: Float, _ hi: Float) -> Float { lo + (hi - lo) * nextFloat() }

    /// A standard normal sample (Box–Muller).
    public mutating func normal() -> Float {
        let u1 = max(nextFloat(), 1e-7), u2 = nextFloat()
        return (-2 * _log(u1)).squareRoot() * _cos(2 * Float.pi * u2)
    }

    /// `items` in a random order (Fisher–Yates, from the last item down).
    public mutating func shuffled<T>(_ items: [T]) -> [T] {
        var order = items
        for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, Int(next() % UInt64(i + 1))) }
        return order
    }

    /// An independent generator derived from this one's seed and `stream`, for per-image or
    /// per-thread randomness that does not depend on scheduling.
    public func derived(_ stream: UInt64) -> SplitMix64 {
        var g = SplitMix64(seed: state ^ (stream &* 0xD6E8_FEB8_6659_FD93))
        _ = g.next()
        return g
    }
}

import Foundation
@inline(__always) private func _log(_ x: Float) -> Float { Foundation.log(x) }
@inline(__always) private func _cos(_ x: Float) -> Float { Foundation.cos(x) }
