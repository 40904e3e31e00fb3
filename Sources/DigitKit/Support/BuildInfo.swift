/// How this build's kernels were compiled (see Package.swift, `DIGITS_CPU`) and which compiled
/// copy of them runs (`KernelVariant.active`).
public enum BuildInfo {
    #if DIGITS_FMA
    /// The library's own compile.
    public static let compiled = "DIGITS_CPU: target CPU + fused multiply-add"
    #else
    public static let compiled = "portable: baseline CPU, separate multiply and add"
    #endif

    /// One line for reports: the build and the kernels that run.
    public static var kernelMode: String {
        switch KernelVariant.active {
        case .builtIn:
            #if DIGITS_FMA
            return "fast (\(compiled))"
            #else
            return KernelVariant.compiled.count > 1 ? "portable (\(compiled); the AVX2/AVX-512 copies are not used on this CPU or were turned off with DIGITS_KERNELS)"
                : "portable (\(compiled))"
            #endif
        case .avx2: return "portable build, AVX2 + FMA kernels chosen at run time"
        case .avx512: return "portable build, AVX-512 + FMA kernels chosen at run time"
        }
    }

    /// Whether the kernels that run use fused multiply-add (the fast path).
    public static var fastPath: Bool { KernelVariant.active.fusedMultiplyAdd }
}
