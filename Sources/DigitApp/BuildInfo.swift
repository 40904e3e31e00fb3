import DigitKit

/// Which compiled copy of the kernels runs, for reports (`digits version`, `bench`, `train`).
public enum BuildInfo {
    /// One line: the copy that runs and the ones this CPU could run.
    public static var kernelMode: String {
        "\(KernelVariant.active) kernels, chosen at run time (this CPU runs: "
            + KernelVariant.available.map(\.description).joined(separator: ", ") + ")"
    }

    /// Whether the kernels that run use fused multiply-add.
    public static var fastPath: Bool { KernelVariant.active.fusedMultiplyAdd }
}
