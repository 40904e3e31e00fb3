import DigitKit
import Foundation

/// Ctrl-C (SIGINT) and SIGTERM for long commands. The first signal only sets a flag, which the
/// command polls at safe points (`digits train`: between batches, so never during a checkpoint
/// write); the command then stops and exits with `ExitCode.interrupted`. A second signal ends the
/// process at once, as if no handler were installed.
public enum Interruption {
    /// Set to 1 by the signal handler; read by the command.
    nonisolated(unsafe) static var requested: sig_atomic_t = 0

    public static func install() {
        requested = 0  // initializes the global before a handler can touch it
        for sig in [SIGINT, SIGTERM] {
            signal(sig) { number in
                Interruption.requested = 1
                signal(number, SIG_DFL)
            }
        }
    }

    public static var wasRequested: Bool { requested != 0 }
}
