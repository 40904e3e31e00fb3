import DigitApp
import DigitKit
import Foundation

/// Runs Adapt (`PadAdaptation.run`) on its own serial queue, so the frame loop never waits for the
/// seconds it takes: one adaptation at a time, its outcome left in a lock-protected mailbox, and
/// `wake` (an SDL user event in the window) called on the worker's thread when it is there. The
/// pattern of the window's `RecognitionWorker`.
public final class AdaptationWorker: @unchecked Sendable {
    public typealias Job = @Sendable () throws -> PadAdaptation.Outcome

    private let queue = DispatchQueue(label: "digitpad.adaptation", qos: .utility)
    private let lock = NSLock()
    private let wake: @Sendable () -> Void
    private var running = false
    private var outcome: Result<PadAdaptation.Outcome, DigitError>?

    public init(wake: @escaping @Sendable () -> Void) {
        self.wake = wake
    }

    /// Starts `job` unless an adaptation is running or its outcome is uncollected; returns whether
    /// it started.
    @discardableResult
    public func start(_ job: @escaping Job) -> Bool {
        lock.lock()
        guard !running && outcome == nil else { lock.unlock(); return false }
        running = true
        lock.unlock()
        queue.async {
            let result: Result<PadAdaptation.Outcome, DigitError>
            do {
                result = .success(try job())
            } catch let error as DigitError {
                result = .failure(error)
            } catch {
                result = .failure(DigitError(.io, "\(error)"))
            }
            self.lock.lock()
            self.outcome = result
            self.running = false
            self.lock.unlock()
            self.wake()
        }
        return true
    }

    /// The outcome of the adaptation that ended since the last call, if any.
    public func take() -> Result<PadAdaptation.Outcome, DigitError>? {
        lock.lock()
        defer { lock.unlock() }
        let taken = outcome
        outcome = nil
        return taken
    }

    /// An adaptation is running, or its outcome waits to be taken.
    public var isBusy: Bool {
        lock.lock()
        defer { lock.unlock() }
        return running || outcome != nil
    }
}
