import DigitKit
import Foundation

/// A subcommand of `digits`.
protocol CLICommand {
    static var name: String { get }
    /// One line for the command list.
    static var summary: String { get }
    /// The full `--help` text.
    static var help: String { get }
    /// Runs with the arguments after the command name; returns the exit code.
    static func run(_ args: inout Arguments) throws -> Int32
}

/// Exit codes, documented in `digits --help` and the README.
enum ExitCode {
    static let ok: Int32 = 0
    /// Bad input: a malformed or over-limit file, or (for `recognize`) a drawing that could not be read.
    static let badInput: Int32 = 1
    /// Bad command line.
    static let usage: Int32 = 2
    /// A file could not be opened, read or written.
    static let io: Int32 = 3
    /// Stopped by Ctrl-C or SIGTERM (128 + SIGINT, as shells report it); `train` resumes when run again.
    static let interrupted: Int32 = 130

    static func of(_ error: DigitError) -> Int32 {
        switch error.kind {
        case .format, .limit: return badInput
        case .usage: return usage
        case .io: return io
        }
    }
}

enum CLI {
    static let exitCodesHelp = """
    Exit codes: 0 success; 1 bad input (malformed or over-limit file, or some drawings could not
                be read); 2 bad command line; 3 a file could not be read or written;
                130 interrupted by Ctrl-C (train: run the same command again to resume).
    Errors are one line on stderr: digits COMMAND: FILE: PLACE: what was wrong.
    """

    static func main(_ argv: [String], commands: [CLICommand.Type]) -> Int32 {
        let rest = Array(argv.dropFirst())
        guard let name = rest.first, name != "--help", name != "-h", name != "help" else {
            if rest.count >= 2, let cmd = commands.first(where: { $0.name == rest[1] }) {
                print(cmd.help)
                return ExitCode.ok
            }
            print(overview(commands))
            return rest.isEmpty ? ExitCode.usage : ExitCode.ok
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            printError("digits: unknown command '\(name)' (see digits --help)")
            return ExitCode.usage
        }
        var args = Arguments(Array(rest.dropFirst()))
        if args.flag("--help", "-h") {
            print(command.help)
            return ExitCode.ok
        }
        do {
            return try command.run(&args)
        } catch let error as DigitError {
            printError("digits \(name): \(error)")
            return ExitCode.of(error)
        } catch {
            printError("digits \(name): \(error)")
            return ExitCode.badInput
        }
    }

    static func overview(_ commands: [CLICommand.Type]) -> String {
        let width = commands.map { $0.name.count }.max() ?? 0
        let list = commands.map { "  \($0.name.padding(toLength: width, withPad: " ", startingAt: 0))  \($0.summary)" }
            .joined(separator: "\n")
        return """
        digits — handwritten-digit recognition

        Usage: digits <command> [options]    (digits <command> --help for details)

        Commands:
        \(list)

        \(exitCodesHelp)
        """
    }
}

/// Writes one line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write((line + "\n").data(using: .utf8)!)
}

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
