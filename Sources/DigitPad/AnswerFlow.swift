import DigitApp
import DigitKit
import DigitPadKit
import Foundation

/// Asks the recognition worker about the drawing and puts its answers on the panel: after every
/// stroke, and live while a stroke is drawn when an answer takes less than `liveLimit`. While a
/// stroke is drawn the panel follows at most every `panelInterval`, so most frames only add ink.
/// Under `--print` every answer for a stroke's end is printed as a JSON line.
final class AnswerFlow {
    private let controller: PadController
    private let worker: RecognitionWorker
    private let printing: Bool
    private var printIndex = 0
    /// A live request that could not start because the worker was busy.
    private var liveWanted = false
    /// An answer waiting for its turn on the panel while a stroke is drawn.
    private var held: AnswerView?
    private var lastPanelUpdate = 0.0

    /// Shortest time between two panel updates while drawing (seconds): 20 a second is live
    /// enough to watch.
    static let panelInterval = 0.05
    /// Live recognition while drawing only when an answer takes less than this (seconds).
    static let liveLimit = 0.05

    /// `wake` is called on the worker's thread when an answer is ready.
    init(recognizer: DigitRecognizer, controller: PadController, printing: Bool, wake: @escaping @Sendable () -> Void) {
        self.controller = controller
        self.printing = printing
        worker = RecognitionWorker(recognizer: recognizer, wake: wake)
    }

    /// Asks for an answer about the drawing as it is now. A live request (a stroke in progress)
    /// waits while the worker is busy, and is dropped when answers are too slow to be live.
    func request(strokeEnded: Bool) {
        let live = !strokeEnded && controller.document.isStroking
        if live {
            guard worker.isFree, worker.lastDuration < AnswerFlow.liveLimit else {
                liveWanted = worker.lastDuration < AnswerFlow.liveLimit
                return
            }
        }
        liveWanted = false
        let side = Float(max(controller.layout.canvas.width, 1))
        worker.submit(.init(drawing: controller.document.drawing(side: side), revision: controller.document.revision,
                            strokeEnded: strokeEnded, keep: strokeEnded && printing))
    }

    /// Takes the answers that arrived, prints those for stroke ends (`--print`) and shows the newest.
    func collect(now: Double) {
        for answer in worker.takeAnswers() {
            let r = answer.recognition
            if answer.request.strokeEnded && printing {
                let line = r.jsonLine(source: "window", index: printIndex, label: answer.request.drawing.label)
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
                printIndex += 1
            }
            let view = AnswerView(digit: r.digit, confidence: r.confidence, probabilities: r.probabilities,
                                  raster: r.raster, isEmpty: r.isEmpty, threshold: r.threshold,
                                  revision: answer.request.revision)
            if view.revision >= (held?.revision ?? Int.min) { held = view }
        }
        if let view = held, !controller.document.isStroking || now - lastPanelUpdate >= AnswerFlow.panelInterval {
            controller.show(view)
            held = nil
            lastPanelUpdate = now
        }
        if liveWanted && worker.isFree {
            liveWanted = false
            if controller.document.isStroking { request(strokeEnded: false) }
        }
    }

    /// When an answer held back while drawing is due on the panel, or nil.
    var panelDue: Double? { held == nil ? nil : lastPanelUpdate + AnswerFlow.panelInterval }

    /// Nothing asked and unanswered, nothing waiting to be shown.
    var isSettled: Bool { worker.isIdle && !liveWanted && held == nil }
}
