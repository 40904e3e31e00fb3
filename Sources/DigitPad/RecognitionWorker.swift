import DigitApp
import DigitKit
import DigitPadKit
import Foundation

/// Reads drawings and images on its own serial queue with its own `DigitRecognizer`, so the frame
/// loop never waits for the network. Requests and answers pass through a lock-protected mailbox;
/// `wake` (an SDL user event) tells the frame loop that an answer is waiting.
final class RecognitionWorker: @unchecked Sendable {
    struct Request {
        enum Source {
            case drawing(Drawing)
            /// An image file, read with `DigitRecognizer.read(imageAt:)`.
            case image(path: String)
        }
        var source: Source
        var revision: Int
        /// Printed under `--print`: a stroke's end, undo, clear, open (not a live reading).
        var isChange: Bool
        /// Never replaced by a newer request (changes under `--print`, which are all reported).
        var keep: Bool
        /// The label the drawing had when it was asked about (printed).
        var label: String?
        /// The reading's coordinates (canvas pixels, image pixels) → canvas units.
        var mapping: CanvasMapping
        /// The boxes will surround pen paths (a drawing), not pixels of ink (an image).
        var boxesArePaths: Bool
    }

    struct Answer {
        var request: Request
        /// The reading, or why there is none (a drawing of too many parts, an image that went bad).
        var reading: Result<NumberReading, DigitError>
        /// `--single`: the one recognition the reading was made of (what `recognize --single` prints).
        var recognition: Recognition?
        var seconds: Double
        /// The personal profile of the recognizer that read it (`DigitRecognizer.profileName`).
        var profile: String?
    }

    private let queue = DispatchQueue(label: "digitpad.recognition")
    private let lock = NSLock()
    /// Used on `queue` only (`use(_:)` replaces it there).
    private var recognizer: DigitRecognizer
    private let single: Bool
    private let options: NumberReaderOptions
    private let wake: @Sendable () -> Void
    private var pending: [Request] = []
    private var answers: [Answer] = []
    private var running = false
    private var lastSeconds = 0.0

    /// `single`: each drawing is one digit (`recognize`); else a number (`read`, with `options`).
    init(recognizer: DigitRecognizer, single: Bool, options: NumberReaderOptions, wake: @escaping @Sendable () -> Void) {
        self.recognizer = recognizer
        self.single = single
        self.options = options
        self.wake = wake
        running = true
        queue.async { self.warmUp() }
    }

    /// One reading of a dot before any request: it measures how long an answer takes (which
    /// decides whether the window reads live while drawing) and warms the caches.
    private func warmUp() {
        let start = DispatchTime.now().uptimeNanoseconds
        _ = read(.drawing(Drawing(strokes: [[StrokePoint(x: 0, y: 0)]])))
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        lock.lock()
        lastSeconds = seconds
        running = false
        lock.unlock()
    }

    /// Reads with `newRecognizer` from the next request on (after Adapt). It is swapped on the
    /// worker's queue, between two readings, and used there only.
    func use(_ newRecognizer: DigitRecognizer) {
        queue.async { self.recognizer = newRecognizer }
    }

    /// Queues a request. Requests not marked `keep` that are still waiting are dropped: only
    /// the newest state of the drawing is worth reading.
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

    /// How long the last reading took, in seconds.
    var lastDuration: Double {
        lock.lock()
        defer { lock.unlock() }
        return lastSeconds
    }

    /// The reading of `source`, as `digits recognize` makes it (`--single`: as `recognize --single`).
    private func read(_ source: Request.Source) -> (Result<NumberReading, DigitError>, Recognition?) {
        do {
            switch source {
            case let .drawing(drawing):
                guard single else { return (.success(try recognizer.read(drawing, options: options)), nil) }
                let (reading, r) = recognizer.readAsOneDigit(drawing)
                return (.success(reading), r)
            case let .image(path):
                var page = ImageOptions()
                page.reader.maxDigits = single ? 1 : options.maxDigits
                return (.success(try recognizer.read(imageAt: path, options: page)), nil)
            }
        } catch let error as DigitError {
            return (.failure(error), nil)
        } catch {
            return (.failure(DigitError(.format, "\(error)")), nil)
        }
    }

    private func runOne() {
        lock.lock()
        guard !pending.isEmpty else { lock.unlock(); return }
        let request = pending.removeFirst()
        running = true
        lock.unlock()

        let start = DispatchTime.now().uptimeNanoseconds
        let (reading, recognition) = read(request.source)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9

        lock.lock()
        answers.append(Answer(request: request, reading: reading, recognition: recognition, seconds: seconds,
                              profile: recognizer.profileName))
        running = false
        if case .drawing = request.source { lastSeconds = seconds }
        lock.unlock()
        wake()
    }
}
