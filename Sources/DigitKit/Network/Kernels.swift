import DigitKernels
import Foundation

/// Which compiled copy of the compute kernels runs (the C target DigitKernels): one for any CPU of
/// the architecture, and on x86-64 one for AVX2 + FMA and one for AVX-512 + FMA. The library runs
/// the best copy this CPU supports (`active`), chosen once at load; `DIGITS_KERNELS=portable|avx2|avx512`
/// picks another (a name this CPU cannot run is reported once on stderr and ignored).
public enum KernelVariant: String, CaseIterable, Sendable, CustomStringConvertible {
    /// Any x86-64 CPU (SSE2; multiply and add rounded apart), or NEON with fused multiply-add on arm64.
    case portable
    /// AVX2 + FMA (Intel Haswell, 2013, and later; AMD Zen and later).
    case avx2
    /// AVX-512 F/BW/DQ/VL + FMA (Intel Skylake-SP, 2017, and later; AMD Zen 4 and later).
    case avx512

    var isa: dk_isa {
        switch self {
        case .portable: return DK_PORTABLE
        case .avx2: return DK_AVX2
        case .avx512: return DK_AVX512
        }
    }

    init(isa: dk_isa) {
        switch isa {
        case DK_AVX2: self = .avx2
        case DK_AVX512: self = .avx512
        default: self = .portable
        }
    }

    /// The kernels of this copy, or nil when this build or CPU does not have it.
    public var kernels: UnsafePointer<dk_kernels>? { dk_kernels_for(isa) }

    /// The copies this CPU runs, slowest first.
    public static var available: [KernelVariant] { allCases.filter { $0.kernels != nil } }

    /// The copy the library runs.
    public static var active: KernelVariant { KernelVariant(isa: dk_active().pointee.isa) }

    /// The copy's name: `portable` (`neon` on arm64), `avx2`, `avx512`.
    public var description: String { kernels.map { String(cString: $0.pointee.name) } ?? rawValue }

    /// Whether this copy multiplies and adds in one fused instruction (same rounding as another
    /// fused copy; the portable x86-64 copy rounds the product first).
    public var fusedMultiplyAdd: Bool { (kernels?.pointee.fused_multiply_add ?? 0) != 0 }

    /// Runs `iterations` steps of 16 independent 16-lane multiply-add chains (256 multiply-adds a
    /// step, no memory traffic): the compute peak one core reaches with this copy.
    public func maddPeak(iterations: Int, scale: Float = 0.999_999) -> Float {
        (kernels ?? dk_active()).pointee.madd_peak(iterations, scale)
    }
}

/// Softmax of `logits / temperature` into `probabilities`, numerically stable.
func softmax(_ logits: UnsafePointer<Float>, count: Int, temperature: Float = 1,
             into probabilities: UnsafeMutablePointer<Float>) {
    dk_softmax(logits, count, temperature, probabilities)
}

/// CPU time consumed by the calling thread, in nanoseconds.
public func threadCPUNanoseconds() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return UInt64(t.tv_sec) &* 1_000_000_000 &+ UInt64(t.tv_nsec)
}
