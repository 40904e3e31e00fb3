import DigitApp
import DigitKit
import Foundation

struct VersionCommand: CLICommand {
    static let name = "version"
    static let summary = "print the version"
    static let help = """
    Usage: digits version

    Prints the DigitKit version, then how the build was compiled and which compiled copy of the
    compute kernels runs on this CPU (a plain x86-64 build chooses AVX2 or AVX-512 kernels at run
    time; DIGITS_KERNELS=built-in|avx2|avx512 picks one).
    """
    static func run(_ args: inout Arguments) throws -> Int32 {
        _ = try args.positionals().first.map { throw DigitError(.usage, "unexpected argument '\($0)'") }
        print("digits \(DigitKitVersion.string)")
        print("build: \(BuildInfo.kernelMode)")
        print("kernels: \(KernelVariant.active.rawValue) (this build and CPU: \(KernelVariant.available.map(\.rawValue).joined(separator: ", ")))")
        return ExitCode.ok
    }
}
