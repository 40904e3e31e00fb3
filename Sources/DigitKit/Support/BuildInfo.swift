/// How this build's kernels were compiled (see Package.swift, `DIGITS_CPU`).
public enum BuildInfo {
    #if DIGITS_FMA
    public static let kernelMode = "fast (DIGITS_CPU: target CPU + fused multiply-add)"
    public static let fastPath = true
    #else
    public static let kernelMode = "portable (no target CPU; separate multiply and add)"
    public static let fastPath = false
    #endif
}
