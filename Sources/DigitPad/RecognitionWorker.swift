import DigitApp
import DigitKit
import DigitPadKit
import Foundation

/// Runs recognition on its own serial queue with its own `DigitRecognizer`, so the frame loop
/// never waits for the network. Requests and answers pass through a lock-protected mailbox;
/// `wake` (an SDL user event) tells the frame loop that an answer is waiting.
final class RecognitionWorker: @unchecked Sendable {
    struct Request {
        var drawing: Drawing
        var revision: Int
        var strokeEnded: Bool
        /// Never replaced by a newer request (stroke ends under `--print`, which are all reported).
        var keep: Bool
    }

    struct Answer {
        var request: Request
        var recognition: Recognition
        var seconds: Double
    }

    private let queue = DispatchQueue(label: "digitpad.recognition")
    private let lock = NSLock()
    /// Used on `queue` only.
    private let recognizer: DigitRecognizer
    private let wake: @Sendable () -> Void
    private var pending: [Request] = []
    private var answers: [Answer] = []
    private var running = false
    private var lastSeconds = 0.0

    init(recognizer: DigitRecognizer, wake: @escaping @Sendable () -> Void) {
        self.recognizer = recognizer
        self.wake = wake
        running = true
        queue.async { self.warmUp() }
    }

    /// One recognition of a dot before any request: it measures how long an answer takes (which
    /// decides whether the window recognizes live while drawing) and warms the caches.
    private func warmUp() {
        let start = DispatchTime.now().uptimeNanoseconds
        _ = recognizer.recognize(Drawing(strokes: [[StrokePoint(x: 0, y: 0)]]))
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        lock.lock()
        lastSeconds = seconds
        running = false
        lock.unlock()
    }

    /// Queues a request. Requests not marked `keep` that are still waiting are dropped: only
    /// the newest state of the drawing is worth recognizing.
    func submit(_ request: Request) {
        lock.lock()
        pending.removeAll { !$0.keep }
        pending.append(request)
        lock.unlock()
        queue.async { self.runOne() }
    }

    /// Answers that arrived since the last call, oldest first.
    func takeAnswers() -> [Answer] {
        lock.lock()
        defer { lock.unlock() }
        let taken = answers
        answers.removeAll()
        return taken
    }

    /// Nothing waiting, nothing running, no answer uncollected.
    var isIdle: Bool {
        lock.lock()
        defer { lock.unlock() }
        return pending.isEmpty && !running && answers.isEmpty
    }

    /// Nothing waiting or running (answers may be uncollected): a live request would start now.
    var isFree: Bool {
        lock.lock()
        defer { lock.unlock() }
        return pending.isEmpty && !running
    }

    /// How long the last recognition took, in seconds.
    var lastDuration: Double {
        lock.lock()
        defer { lock.unlock() }
        return lastSeconds
    }

    private func runOne() {
        lock.lock()
        guard !pending.isEmpty else { lock.unlock(); return }
        let request = pending.removeFirst()
        running = true
        lock.unlock()

        let start = DispatchTime.now().uptimeNanoseconds
        let recognition = recognizer.recognize(request.drawing)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9

        lock.lock()
        answers.append(Answer(request: request, recognition: recognition, seconds: seconds))
        running = false
        lastSeconds = seconds
        lock.unlock()
        wake()
    }
}
