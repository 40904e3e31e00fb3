import Dispatch

/// Runs `tasks` independent closures on at most `threads` threads. Task `i` always computes the
/// same thing whichever thread runs it, so results that are combined in task order afterwards are
/// deterministic whatever the thread count.
public enum Parallel {
    public static func run(tasks: Int, threads: Int, _ body: (Int) -> Void) {
        let workers = max(1, min(threads, tasks))
        if workers == 1 {
            for i in 0..<tasks { body(i) }
            return
        }
        DispatchQueue.concurrentPerform(iterations: workers) { w in
            var i = w
            while i < tasks {
                body(i)
                i += workers
            }
        }
    }

    /// Splits `0..<count` into `parts` contiguous ranges of nearly equal size.
    public static func ranges(_ count: Int, parts: Int) -> [Range<Int>] {
        let parts = max(1, min(parts, count))
        return (0..<parts).map { p in (count * p / parts)..<(count * (p + 1) / parts) }
    }

    /// The number of processors available to this process.
    public static var processorCount: Int { ProcessInfo.processInfo.activeProcessorCount }
}

import Foundation
