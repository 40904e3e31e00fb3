import DigitApp
import DigitKit
import DigitPadKit
import Foundation

/// Asks the recognition worker about the drawing (or the image shown) and puts its readings on
/// the panel and the canvas: after every change, and live while a stroke is drawn when a reading
/// takes less than `liveLimit`. While a stroke is drawn the panel follows at most every
/// `panelInterval`, so most frames only add ink. Under `--print` every reading after a change
/// (not the live ones) is printed as a JSON line.
final class AnswerFlow {
    enum Kind {
        /// While a stroke is drawn: may be skipped, never printed.
        case live
        /// After a stroke's end, undo, clear, open: printed under `--print`.
        case change
        /// Not a change of the drawing (the window's first, empty reading; the drawing read again
        /// with a new profile): not printed.
        case quiet
    }

    private let controller: PadController
    private let worker: RecognitionWorker
    private let printing: Bool
    private let single: Bool
    private let hasNotADigitOutput: Bool
    private var printIndex = 0
    /// A live request that could not start because the worker was busy.
    private var liveWanted = false
    /// A reading waiting for its turn on the panel while a stroke is drawn.
    private var held: AnswerView?
    private var lastPanelUpdate = 0.0

    /// Shortest time between two panel updates while drawing (seconds): 20 a second is live
    /// enough to watch.
    static let panelInterval = 0.05
    /// Live reading while drawing only when a reading takes less than this (seconds).
    static let liveLimit = 0.05

    /// `wake` is called on the worker's thread when an answer is ready.
    init(recognizer: DigitRecognizer, controller: PadController, options: PadOptions, wake: @escaping @Sendable () -> Void) {
        self.controller = controller
        printing = options.printRecognitions
        single = options.single
        hasNotADigitOutput = recognizer.network.classCount > 10
        var reading = NumberReaderOptions()
        reading.maxDigits = options.maxDigits
        worker = RecognitionWorker(recognizer: recognizer, single: options.single, options: reading, wake: wake)
    }

    /// Asks for a reading of the drawing as it is now. A live request (a stroke in progress)
    /// waits while the worker is busy, and is dropped when readings are too slow to be live.
    func request(_ kind: Kind) {
        if kind == .live {
            guard worker.isFree, worker.lastDuration < AnswerFlow.liveLimit else {
                liveWanted = worker.lastDuration < AnswerFlow.liveLimit
                return
            }
        }
        liveWanted = false
        let document = controller.document
        let source: RecognitionWorker.Request.Source, mapping: CanvasMapping
        if let image = controller.image {
            source = .image(path: image.path)
            mapping = image.mapping
        } else {
            // Canvas pixels, as saved: the boxes come back in them.
            let side = Float(max(controller.layout.canvas.width, 1))
            source = .drawing(document.drawing(side: side))
            mapping = CanvasMapping(scale: 1 / side, offsetX: 0, offsetY: 0)
        }
        worker.submit(.init(source: source, revision: document.revision, isChange: kind == .change,
                            keep: kind == .change && printing, label: document.label, mapping: mapping,
                            boxesArePaths: controller.image == nil))
    }

    /// Reads with `recognizer` from now on (a new personal profile), and reads the drawing again
    /// with it.
    func use(_ recognizer: DigitRecognizer) {
        worker.use(recognizer)
        request(.quiet)
    }

    /// Takes the readings that arrived, prints those after changes (`--print`) and shows the newest.
    func collect(now: Double) {
        for answer in worker.takeAnswers() {
            let request = answer.request
            let view: AnswerView
            switch answer.reading {
            case let .success(reading):
                if request.isChange && printing {
                    let line = single && answer.recognition != nil
                        ? answer.recognition!.jsonLine(source: "window", index: printIndex, label: request.label)
                        : reading.jsonLine(source: "window", index: printIndex, label: request.label)
                    FileHandle.standardOutput.write(Data((line + "\n").utf8))
                    printIndex += 1
                }
                view = AnswerView(reading, revision: request.revision, mapping: request.mapping, boxesArePaths: request.boxesArePaths,
                                  showBoxes: !single, hasNotADigitOutput: hasNotADigitOutput, profile: answer.profile)
            case let .failure(error):
                if request.isChange { printError("digitpad: cannot read the drawing: \(error)") }
                var failed = AnswerView(text: "", confidence: 0, digits: [], threshold: controller.answer.threshold,
                                        revision: request.revision, hasNotADigitOutput: hasNotADigitOutput, error: error.message)
                failed.profile = answer.profile
                view = failed
            }
            if view.revision >= (held?.revision ?? Int.min) { held = view }
        }
        if let view = held, !controller.document.isStroking || now - lastPanelUpdate >= AnswerFlow.panelInterval {
            controller.show(view)
            held = nil
            lastPanelUpdate = now
        }
        if liveWanted && worker.isFree {
            liveWanted = false
            if controller.document.isStroking { request(.live) }
        }
    }

    /// When a reading held back while drawing is due on the panel, or nil.
    var panelDue: Double? { held == nil ? nil : lastPanelUpdate + AnswerFlow.panelInterval }

    /// Nothing asked and unanswered, nothing waiting to be shown.
    var isSettled: Bool { worker.isIdle && !liveWanted && held == nil }
}
