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

    /// `transform` of each of `0..<count` on `threads` threads, in index order; `progress` is told
    /// every `every` items how many are done. The first error thrown is rethrown once all stop.
    public static func map<T>(_ count: Int, threads: Int, progress: (Int, Int) -> Void = { _, _ in }, every: Int = 200,
                              _ transform: (Int) throws -> T) throws -> [T] {
        var results = [T?](repeating: nil, count: count)
        var failure: Error?
        var done = 0
        let lock = NSLock()
        let parts = ranges(count, parts: max(1, threads) * 8)
        run(tasks: parts.count, threads: threads) { t in
            for i in parts[t] {
                let result = Result { try transform(i) }
                lock.lock()
                switch result {
                case let .success(value): results[i] = value
                case let .failure(error): failure = failure ?? error
                }
                done += 1
                let d = done
                lock.unlock()
                if d % every == 0 { progress(d, count) }
            }
        }
        if let failure { throw failure }
        return results.map { $0! }
    }

    /// The number of processors available to this process.
    public static var processorCount: Int { ProcessInfo.processInfo.activeProcessorCount }
}

import Foundation
