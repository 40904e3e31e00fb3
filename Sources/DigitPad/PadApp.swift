import CSDL2
import DigitApp
import DigitKit
import DigitPadKit
import Foundation

/// The window's glue. SDL events become `PadInput` for the `PadController`, which holds the
/// window's behaviour; its effects become actions here: recognition requests (`AnswerFlow`),
/// Save and Open (`PadFiles`), Adapt (`AdaptationWorker`), quitting. Each frame renders what
/// changed into the `Surface` and `PadView` shows it. `EventLoop` runs it all; `--replay`,
/// `--screenshot` and `--exit` are the only timed work.
final class PadApp: EventLoopClient {
    private let options: PadOptions
    private let view: PadView
    private let controller: PadController
    private var surface: Surface
    private let loop: EventLoop
    private let answers: AnswerFlow
    private let files: PadFiles
    /// The weights without any profile: what Adapt adapts.
    private let base: ModelFile
    private let adaptation: AdaptationWorker
    private let replayDrawing: Drawing?
    private var replay: Replay?
    /// The whole picture must be copied to the window again (it was exposed).
    private var needsPresent = true
    /// `--screenshot` and `--exit` have been carried out.
    private var finished = false
    private var exitCode = ExitCode.ok

    /// Opens the window; throws `DigitError(.io)` when there is none. `recognizer` reads with
    /// `base` and the `--profile`, if any; `replay` is the drawing of `--replay`, `openRecords`
    /// or `openImage` what `--open` holds, all read before.
    init(options: PadOptions, recognizer: DigitRecognizer, base: ModelFile, inkWidth: Float, replay: Drawing?,
         openRecords: [DrawingRecord]?, openImage: PadImage?) throws {
        self.options = options
        self.base = base
        replayDrawing = replay
        files = PadFiles(openFile: options.open, saveDirectory: options.saveDirectory, openRecords: openRecords,
                         openImage: openImage)
        view = try PadView(title: "DigitPad", width: options.width, height: options.height)
        loop = EventLoop()
        let size = view.outputSize
        controller = PadController(width: size.width, height: size.height, threshold: recognizer.threshold, inkWidth: inkWidth,
                                   single: options.single, defaultLabel: options.label)
        surface = Surface(width: size.width, height: size.height, fill: PadTheme.background)
        answers = AnswerFlow(recognizer: recognizer, controller: controller, options: options, wake: loop.waker)
        adaptation = AdaptationWorker(wake: loop.waker)
    }

    /// Runs until the window is closed, Esc, or (with `--exit`) the replay is done. Returns the exit code.
    func run() -> Int32 {
        answers.request(.quiet)
        if let file = options.open { show(files.open(file, index: 0)) }
        if let replayDrawing { replay = Replay(drawing: replayDrawing, rate: options.replayRate, start: loop.now) }
        loop.run(self)
        if options.frameStats { printError("digitpad: " + loop.statsLine(renderer: view.rendererName)) }
        return exitCode
    }

    // MARK: - Events

    func handle(_ event: inout SDL_Event) -> Bool {
        switch SDLEvents.decode(&event, outputSize: view.outputSize, pixelScale: view.pixelScale,
                                replaying: !(replay?.isDone ?? true)) {
        case let .input(input):
            if case .resize = input { view.setNeedsFullCopy() }
            let before = controller.document.revision
            apply(controller.handle(input))
            switch input {
            case .press, .move, .release: return controller.document.revision != before
            default: return false
            }
        case .exposed:
            needsPresent = true
            view.setNeedsFullCopy()
        case let .dropped(path):
            show(files.open(path, index: 0))
        case .ignored:
            break
        }
        return false
    }

    private func apply(_ effects: [PadEffect]) {
        for effect in effects {
            switch effect {
            case let .recognize(live): answers.request(live ? .live : .change)
            case .save:
                controller.setStatus(controller.image == nil ? files.save(currentDrawing)
                                     : StatusLine("an image is shown: Save writes drawings (C clears the image)", kind: .error))
            case .open: show(files.openNext())
            case .adapt: startAdapting()
            case .quit: loop.quit()
            }
        }
    }

    /// Learns a profile on the adaptation worker; `collectAdaptation` puts it to use.
    private func startAdapting() {
        let base = self.base, saveDirectory = options.saveDirectory, saved = files.saved, threshold = options.threshold
        let opinion = SecondOpinion.path(choice: options.secondOpinion, weights: options.weights)
        // One core is left to drawing and reading.
        let threads = max(1, Parallel.processorCount - 1)
        let started = adaptation.start {
            try PadAdaptation.run(base: base, saveDirectory: saveDirectory, saved: saved, threshold: threshold, threads: threads,
                                  secondOpinion: opinion)
        }
        controller.setStatus(started ? PadAdaptation.runningStatus(saveDirectory: saveDirectory) : PadAdaptation.busyStatus)
    }

    /// A finished adaptation: its recognizer reads from now on, and the status line says what it learned.
    private func collectAdaptation() {
        guard let outcome = adaptation.take() else { return }
        switch outcome {
        case let .success(done):
            answers.use(done.recognizer)
            controller.setStatus(done.status)
        case let .failure(error):
            // Nothing labelled is the person's to fix and the status line says how; a file or
            // folder problem also goes to stderr, as Save's do.
            if error.kind != .usage { printError("digitpad: adapt: \(error)") }
            controller.setStatus(PadAdaptation.failedStatus(error))
        }
    }

    /// The drawing in canvas pixels, as it is saved and recognized.
    private var currentDrawing: Drawing {
        controller.document.drawing(side: Float(max(controller.layout.canvas.width, 1)))
    }

    /// Puts an opened drawing or image on the canvas (and asks for its reading), or shows why
    /// there is none.
    private func show(_ opened: PadFiles.Opened) {
        switch opened {
        case let .drawing(drawing, status):
            controller.load(PadDocument(drawing: drawing, in: CanvasMapping(fitting: drawing)))
            controller.setStatus(status)
            answers.request(.change)
        case let .image(image, status):
            controller.load(image: image)
            controller.setStatus(status)
            answers.request(.change)
        case let .failed(status):
            controller.setStatus(status)
        }
    }

    // MARK: - Frames

    func frame(now: Double) -> Bool {
        collectAdaptation()
        answers.collect(now: now)
        guard controller.hasChanges || needsPresent else { return false }
        controller.render(into: &surface)
        view.present(&surface)
        needsPresent = false
        return true
    }

    func prepare(now: Double) {
        // Finishing first: events pushed now are handled only in the coming batch.
        finishIfDone()
        replay?.pushDue(now: now, layout: controller.layout, view: view)
    }

    func wakeTime(now: Double) -> Double? {
        let due = [answers.panelDue, replay?.nextDue].compactMap { $0 }.min()
        if let due { return due }
        // Waiting to finish: look again shortly.
        return isAutomated && !finished ? now + 0.005 : nil
    }

    // MARK: - --screenshot and --exit

    private var isAutomated: Bool { options.replay != nil || options.exitWhenDone || options.screenshot != nil }

    /// Once the replay is sent, every answer shown and the picture current: the screenshot, then
    /// (with `--exit`) the end.
    private func finishIfDone() {
        guard isAutomated, !finished, replay?.isDone ?? true, answers.isSettled, !adaptation.isBusy, isPictureCurrent else { return }
        finished = true
        if let path = options.screenshot { saveScreenshot(to: path) }
        if options.exitWhenDone { loop.quit() }
    }

    /// The picture matches the window's size and every change has been drawn.
    private var isPictureCurrent: Bool {
        let size = view.outputSize
        return size.width == controller.layout.width && size.height == controller.layout.height && !controller.hasChanges
    }

    private func saveScreenshot(to path: String) {
        controller.render(into: &surface)
        do {
            try FileIO.writeAtomically(try view.screenshotPNG(of: &surface), to: path)
        } catch {
            var e = error as? DigitError ?? DigitError(.io, "\(error)")
            if e.file == nil { e.file = path }
            printError("digitpad: \(e)")
            exitCode = ExitCode.io
        }
    }
}
