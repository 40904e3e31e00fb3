import DigitApp
import DigitKit
import Foundation

struct VersionCommand: CLICommand {
    static let name = "version"
    static let summary = "print the version"
    static let help = """
    Usage: digits version

    Prints the DigitKit version and which compiled copy of the compute kernels runs on this CPU
    (chosen at run time: portable, avx2 or avx512 on x86-64; DIGITS_KERNELS=NAME picks a slower one).
    """
    static func run(_ args: inout Arguments) throws -> Int32 {
        _ = try args.positionals().first.map { throw DigitError(.usage, "unexpected argument '\($0)'") }
        print("digits \(DigitKitVersion.string)")
        print("kernels: \(KernelVariant.active) (this CPU runs: \(KernelVariant.available.map(\.description).joined(separator: ", ")))")
        return ExitCode.ok
    }
}
