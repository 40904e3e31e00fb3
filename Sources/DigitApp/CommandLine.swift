import DigitKit
import Foundation

/// A subcommand of `digits`.
public protocol CLICommand {
    static var name: String { get }
    /// One line for the command list.
    static var summary: String { get }
    /// The full `--help` text.
    static var help: String { get }
    /// Runs with the arguments after the command name; returns the exit code.
    static func run(_ args: inout Arguments) throws -> Int32
}

/// Exit codes, documented in `digits --help` and the README.
public enum ExitCode {
    public static let ok: Int32 = 0
    /// Bad input: a malformed or over-limit file, or (for `recognize`) a drawing that could not be read.
    public static let badInput: Int32 = 1
    /// Bad command line.
    public static let usage: Int32 = 2
    /// A file could not be opened, read or written.
    public static let io: Int32 = 3
    /// Stopped by Ctrl-C or SIGTERM (128 + SIGINT, as shells report it); `train` resumes when run again.
    public static let interrupted: Int32 = 130

    public static func of(_ error: DigitError) -> Int32 {
        switch error.kind {
        case .format, .limit: return badInput
        case .usage: return usage
        case .io: return io
        }
    }
}

public enum CLI {
    public static let exitCodesHelp = """
    Exit codes: 0 success; 1 bad input (malformed or over-limit file, or some drawings could not
                be read); 2 bad command line; 3 a file could not be read or written;
                130 interrupted by Ctrl-C (train: run the same command again to resume).
    Errors are one line on stderr: digits COMMAND: FILE: PLACE: what was wrong.
    """

    public static func main(_ argv: [String], commands: [CLICommand.Type]) -> Int32 {
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

    public static func overview(_ commands: [CLICommand.Type]) -> String {
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
public func printError(_ line: String) {
    FileHandle.standardError.write((line + "\n").data(using: .utf8)!)
}

