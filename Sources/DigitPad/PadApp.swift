import CSDL2
import DigitApp
import DigitKit
import DigitPadKit
import Foundation

/// The frame loop: SDL events → `PadController` → effects (recognition, save, open) → render
/// into the `Surface` → texture → screen. It sleeps in `SDL_WaitEvent` when there is nothing to
/// do, and recognition answers arrive as an SDL user event from the worker.
final class PadApp {
    private let options: PadOptions
    private let window: SDLWindow
    private let controller: PadController
    private var surface: Surface
    private let worker: RecognitionWorker
    private let wakeEvent: UInt32
    /// Drawings named by `--replay` and `draw` steps, loaded before the window opened.
    private let scriptDrawings: [String: Drawing]

    private var steps: [ScriptStep]
    private var stepIndex = 0
    private var feed = Feed()
    private var storm: Storm?
    private var stormRemaining = 0

    private var cycle: OpenCycle
    private var openCache: (path: String, records: [DrawingRecord])?
    private var lastRecognition: Recognition?
    private var liveWanted = false
    private var printIndex = 0
    /// Wall time and the frame loop's own CPU time of every frame that drew input: on a busy
    /// machine the first includes waiting for a core, the second does not.
    private var stats = FrameStats()
    private var cpuStats = FrameStats()
    private var needsPresent = true
    private var finished = false
    private var screenshotTaken = false
    private var quitRequested = false
    private var exitCode: Int32 = 0
    private let started = DispatchTime.now().uptimeNanoseconds

    /// An answer waiting for its turn on the panel while a stroke is drawn.
    private var heldAnswer: AnswerView?
    private var lastPanelUpdate = 0.0
    /// Shortest time between two panel updates while drawing (seconds): 20 a second is live
    /// enough to watch, and frames in between only draw ink.
    private static let panelInterval = 0.05

    /// Live recognition while drawing only when an answer takes less than this (seconds).
    private static let liveLimit = 0.05

    /// `openRecords`: the drawings of `--open`, read before the window opened.
    init(options: PadOptions, recognizer: DigitRecognizer, inkWidth: Float, scriptDrawings: [String: Drawing],
         openRecords: [DrawingRecord]?) throws {
        self.options = options
        if let path = options.open, let openRecords { openCache = (path, openRecords) }
        self.scriptDrawings = scriptDrawings
        var steps = options.script
        if let replay = options.replay { steps.insert(.draw(path: replay, index: 0, touch: false), at: 0) }
        self.steps = steps
        cycle = OpenCycle(openFile: options.open)
        window = try SDLWindow(title: "DigitPad", width: options.width, height: options.height)
        let size = window.outputSize
        controller = PadController(width: size.width, height: size.height, threshold: recognizer.threshold, inkWidth: inkWidth)
        surface = Surface(width: size.width, height: size.height, fill: PadTheme.background)
        let event = SDL_RegisterEvents(1)
        wakeEvent = event == UInt32.max ? SDL_USEREVENT.rawValue : event
        let wakeType = wakeEvent
        worker = RecognitionWorker(recognizer: recognizer, wake: { SDLEvents.pushUser(type: wakeType) })
    }

    /// Runs until the window is closed, Esc, or (with `--exit`) the script is done. Returns the exit code.
    func run() -> Int32 {
        if let file = options.open { open(file, index: 0) }
        request(strokeEnded: false)
        var event = SDL_Event()
        while !quitRequested {
            feedDueEvents()
            let timeout = waitTimeout()
            let got = timeout < 0 ? SDL_WaitEvent(&event) : SDL_WaitEventTimeout(&event, timeout)
            let batchStart = DispatchTime.now().uptimeNanoseconds
            let cpuStart = PadApp.threadCPUMilliseconds()
            var drew = false
            if got != 0 {
                repeat { drew = handle(&event) || drew } while SDL_PollEvent(&event) != 0
            }
            collectAnswers()
            if controller.hasChanges || needsPresent {
                controller.render(into: &surface)
                window.present(&surface)
                needsPresent = false
                if drew {
                    stats.add(milliseconds: Double(DispatchTime.now().uptimeNanoseconds - batchStart) / 1e6)
                    cpuStats.add(milliseconds: PadApp.threadCPUMilliseconds() - cpuStart)
                }
            }
            advanceScript()
        }
        if options.frameStats {
            let cpu = cpuStats.summary.split(separator: "·").dropFirst().prefix(2)
                .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " · ")
            FileHandle.standardError.write(Data("digitpad: \(stats.summary) (frame loop CPU: \(cpu); renderer \(window.rendererName))\n".utf8))
        }
        return exitCode
    }

    // MARK: - Events

    /// Handles one SDL event; returns true when it was pointer input that changed the drawing.
    private func handle(_ e: inout SDL_Event) -> Bool {
        let type = e.type
        let time = Double(e.common.timestamp) / 1000
        let scale = window.pixelScale
        var input: PadInput?
        switch type {
        case SDLEvents.type(SDL_QUIT):
            quitRequested = true
        case SDLEvents.type(SDL_WINDOWEVENT):
            switch e.window.event {
            case SDLEvents.windowEvent(SDL_WINDOWEVENT_SIZE_CHANGED), SDLEvents.windowEvent(SDL_WINDOWEVENT_RESIZED):
                // The event's numbers are not trusted: the renderer says how big the picture is.
                let size = window.outputSize
                window.setNeedsFullCopy()
                input = .resize(width: size.width, height: size.height)
            case SDLEvents.windowEvent(SDL_WINDOWEVENT_EXPOSED), SDLEvents.windowEvent(SDL_WINDOWEVENT_RESTORED),
                 SDLEvents.windowEvent(SDL_WINDOWEVENT_SHOWN):
                needsPresent = true
                window.setNeedsFullCopy()
            case SDLEvents.windowEvent(SDL_WINDOWEVENT_FOCUS_LOST), SDLEvents.windowEvent(SDL_WINDOWEVENT_LEAVE):
                input = .focusLost
            case SDLEvents.windowEvent(SDL_WINDOWEVENT_CLOSE):
                quitRequested = true
            default:
                break
            }
        case SDLEvents.type(SDL_MOUSEBUTTONDOWN), SDLEvents.type(SDL_MOUSEBUTTONUP):
            let b = e.button
            guard b.which != CSDL2_TouchMouseID() else { break }   // a touch, handled as a finger
            let x = Float(b.x) * scale.x, y = Float(b.y) * scale.y
            input = type == SDLEvents.type(SDL_MOUSEBUTTONDOWN)
                ? .press(.mouse, x: x, y: y, button: Int(b.button), time: time, pressure: nil)
                : .release(.mouse, x: x, y: y, button: Int(b.button), time: time)
        case SDLEvents.type(SDL_MOUSEMOTION):
            let m = e.motion
            guard m.which != CSDL2_TouchMouseID() else { break }
            input = .move(.mouse, x: Float(m.x) * scale.x, y: Float(m.y) * scale.y, time: time, pressure: nil)
        case SDLEvents.type(SDL_FINGERDOWN), SDLEvents.type(SDL_FINGERMOTION), SDLEvents.type(SDL_FINGERUP):
            let f = e.tfinger
            // Touchpads report fingers relative to the pad, not the window: they do not draw.
            guard SDL_GetTouchDeviceType(f.touchId) != SDL_TOUCH_DEVICE_INDIRECT_RELATIVE else { break }
            let size = window.outputSize
            let x = f.x * Float(size.width), y = f.y * Float(size.height)
            let pressure: Float? = f.pressure > 0 && f.pressure <= 1 ? f.pressure : nil
            switch type {
            case SDLEvents.type(SDL_FINGERDOWN):
                input = .press(.finger(f.fingerId), x: x, y: y, button: 1, time: time, pressure: pressure)
            case SDLEvents.type(SDL_FINGERMOTION):
                input = .move(.finger(f.fingerId), x: x, y: y, time: time, pressure: pressure)
            default:
                input = .release(.finger(f.fingerId), x: x, y: y, button: 1, time: time)
            }
        case SDLEvents.type(SDL_KEYDOWN):
            if let key = SDLEvents.padKey(e.key) { input = .key(key) }
        case SDLEvents.type(SDL_DROPFILE):
            if let file = e.drop.file {
                let path = String(cString: file)
                SDL_free(file)
                open(path, index: 0)
            }
        default:
            break
        }
        guard let input else { return false }
        let before = controller.document.revision
        apply(controller.handle(input))
        switch input {
        case .press, .move, .release: return controller.document.revision != before
        default: return false
        }
    }

    private func apply(_ effects: [PadEffect]) {
        for effect in effects {
            switch effect {
            case let .recognize(strokeEnded): request(strokeEnded: strokeEnded)
            case .save: save()
            case .open: openNext()
            case .quit: quitRequested = true
            }
        }
    }

    // MARK: - Recognition

    private func request(strokeEnded: Bool) {
        let live = !strokeEnded && controller.document.isStroking
        if live {
            guard worker.isFree, worker.lastDuration < PadApp.liveLimit else {
                liveWanted = worker.lastDuration < PadApp.liveLimit
                return
            }
        }
        liveWanted = false
        let side = Float(max(controller.layout.canvas.width, 1))
        worker.submit(.init(drawing: controller.document.drawing(side: side), revision: controller.document.revision,
                            strokeEnded: strokeEnded, keep: strokeEnded && options.printRecognitions))
    }

    private func collectAnswers() {
        for answer in worker.takeAnswers() {
            let r = answer.recognition
            if answer.request.strokeEnded && options.printRecognitions {
                emit(r.jsonLine(source: "window", index: printIndex, label: answer.request.drawing.label))
            }
            if answer.request.revision >= controller.answer.revision { lastRecognition = r }
            let view = AnswerView(digit: r.digit, confidence: r.confidence, probabilities: r.probabilities,
                                  raster: r.raster, isEmpty: r.isEmpty, threshold: r.threshold,
                                  revision: answer.request.revision)
            if view.revision >= (heldAnswer?.revision ?? Int.min) { heldAnswer = view }
        }
        // While a stroke is drawn the panel follows at most every `panelInterval`, so most frames
        // only add ink; otherwise an answer shows at once.
        if let view = heldAnswer, !controller.document.isStroking || now - lastPanelUpdate >= PadApp.panelInterval {
            controller.show(view)
            heldAnswer = nil
            lastPanelUpdate = now
        }
        if liveWanted && worker.isFree {
            liveWanted = false
            if controller.document.isStroking { request(strokeEnded: false) }
        }
    }

    private func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
        printIndex += 1
    }

    private var isSettled: Bool { worker.isIdle && !liveWanted && heldAnswer == nil }

    // MARK: - Save and open

    private func save() {
        let side = Float(max(controller.layout.canvas.width, 1))
        let drawing = controller.document.drawing(side: side)
        guard !drawing.isEmpty else {
            controller.setStatus(StatusLine("nothing to save yet: draw a digit first", kind: .error))
            return
        }
        let directory = options.saveDirectory ?? "."
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let stem = "drawing-" + formatter.string(from: Date())
        var name = stem + ".json"
        var n = 2
        while FileManager.default.fileExists(atPath: join(directory, name)) {
            name = "\(stem)-\(n).json"
            n += 1
        }
        let path = join(directory, name)
        do {
            try FileIO.writeAtomically(StrokeJSON.encode(drawing) + "\n", to: path)
            let label = drawing.label.map { " (label \($0))" } ?? ""
            controller.setStatus(StatusLine("saved \(path)\(label)", kind: .info))
        } catch {
            report(error, prefix: "cannot save")
        }
    }

    private func openNext() {
        let directory = options.saveDirectory ?? "."
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let list = OpenCycle.candidates(openFile: options.open, directory: options.saveDirectory ?? "", entries: entries)
        guard let next = cycle.next(candidates: list) else {
            controller.setStatus(StatusLine("nothing to open: no .json or .jsonl file in \(directory) (see --open)", kind: .error))
            return
        }
        open(next.file, index: next.index)
    }

    private func open(_ path: String, index: Int) {
        let records: [DrawingRecord]
        if let cache = openCache, cache.path == path {
            records = cache.records
        } else {
            do {
                records = try DrawingLoader.load(path)
            } catch {
                cycle.showing(file: path, index: 0, count: 0)
                report(error, prefix: "cannot open")
                return
            }
            openCache = (path, records)
        }
        cycle.showing(file: path, index: index, count: records.count)
        guard index < records.count else {
            controller.setStatus(StatusLine("\(path) holds no drawing", kind: .error))
            return
        }
        switch records[index].result {
        case let .success(drawing):
            controller.load(PadDocument(drawing: drawing, in: CanvasMapping(fitting: drawing)))
            let place = records.count > 1 ? " (\(index + 1) of \(records.count))" : ""
            controller.setStatus(StatusLine("opened \(path)\(place)", kind: .info))
            request(strokeEnded: false)
        case let .failure(error):
            report(error, prefix: "cannot open")
        }
    }

    private func report(_ error: Error, prefix: String) {
        let text = (error as? DigitError)?.description ?? "\(error)"
        controller.setStatus(StatusLine("\(prefix): \(text)", kind: .error))
        FileHandle.standardError.write(Data("digitpad: \(prefix): \(text)\n".utf8))
    }

    private func join(_ directory: String, _ name: String) -> String {
        directory == "." ? name : (directory.hasSuffix("/") ? directory + name : directory + "/" + name)
    }

    // MARK: - Replays, scripts, storms

    private var now: Double { Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 }

    /// Milliseconds to wait for events: forever when idle, until the next scripted event, or a
    /// short poll while a script waits for an answer.
    private func waitTimeout() -> Int32 {
        if stormRemaining > 0 { return 0 }
        var wake: Double?
        if heldAnswer != nil { wake = lastPanelUpdate + PadApp.panelInterval }
        if let due = feed.nextDue { wake = min(wake ?? due, due) }
        if let wake { return Int32(min(max((wake - now) * 1000, 0), 1000).rounded(.up)) }
        if stepIndex < steps.count || (!finished && isAutomated) { return 5 }
        return -1
    }

    private var isAutomated: Bool { !steps.isEmpty || options.exitWhenDone || options.screenshot != nil }

    /// Pushes the scripted events that are due, at most 64 per frame so that frames (and their
    /// redraws) interleave with a storm or a fast replay as they would with real input.
    private func feedDueEvents() {
        var budget = 64
        let t = now
        while budget > 0, let item = feed.popDue(at: t) {
            push(item)
            budget -= 1
        }
        while budget > 0 && stormRemaining > 0, var s = storm {
            let size = window.outputSize
            let event = s.next(width: size.width, height: size.height)
            storm = s
            push(storm: event)
            stormRemaining -= 1
            budget -= 1
        }
    }

    private func windowPoint(canvasX u: Float, _ v: Float) -> (Int32, Int32) {
        let c = controller.layout.canvas
        let scale = window.pixelScale
        let x = (Float(c.x) + u * Float(c.width)) / scale.x
        let y = (Float(c.y) + v * Float(c.height)) / scale.y
        return (clampInt32(x), clampInt32(y))
    }

    private func clampInt32(_ v: Float) -> Int32 {
        v.isFinite ? Int32(min(max(v.rounded(.down), -1_000_000), 1_000_000)) : 0
    }

    private func push(_ item: Feed.Action) {
        let id = window.windowID
        switch item {
        case let .pointer(e, touch):
            if touch {
                let size = window.outputSize
                let c = controller.layout.canvas
                let x = (Float(c.x) + e.x * Float(c.width)) / Float(size.width)
                let y = (Float(c.y) + e.y * Float(c.height)) / Float(size.height)
                let phase: StormEvent.FingerPhase = e.phase == .down ? .down : e.phase == .move ? .motion : .up
                SDLEvents.pushFinger(window: id, id: 1, x: x, y: y, phase: phase, pressure: 0.5)
            } else {
                let (x, y) = windowPoint(canvasX: e.x, e.y)
                switch e.phase {
                case .down: SDLEvents.pushMouseButton(window: id, x: x, y: y, button: 1, down: true)
                case .move: SDLEvents.pushMouseMotion(window: id, x: x, y: y, buttonDown: true)
                case .up: SDLEvents.pushMouseButton(window: id, x: x, y: y, button: 1, down: false)
                }
            }
        case let .key(key):
            SDLEvents.pushKey(window: id, key)
        case let .click(button, down):
            guard let r = controller.layout.buttons[button] else { return }
            let scale = window.pixelScale
            SDLEvents.pushMouseButton(window: id, x: clampInt32(r.midX / scale.x), y: clampInt32(r.midY / scale.y),
                                      button: 1, down: down)
        case let .rightClick(down):
            let (x, y) = windowPoint(canvasX: 0.5, 0.5)
            SDLEvents.pushMouseButton(window: id, x: x, y: y, button: 3, down: down)
        }
    }

    private func push(storm event: StormEvent) {
        let id = window.windowID
        switch event {
        case let .mouseMotion(x, y, down):
            SDLEvents.pushMouseMotion(window: id, x: Int32(clamping: x), y: Int32(clamping: y), buttonDown: down)
        case let .mouseButton(x, y, button, down):
            SDLEvents.pushMouseButton(window: id, x: Int32(clamping: x), y: Int32(clamping: y),
                                      button: UInt8(clamping: button), down: down)
        case let .wheel(dy):
            SDLEvents.pushWheel(window: id, dy: Int32(clamping: dy))
        case let .finger(fingerID, x, y, phase, pressure):
            SDLEvents.pushFinger(window: id, id: fingerID, x: x, y: y, phase: phase, pressure: pressure)
        case let .key(key):
            SDLEvents.pushKey(window: id, key)
        case let .resize(w, h):
            window.setSize(width: w, height: h)
        case let .bogusWindowEvent(kind, data1, data2):
            SDLEvents.pushWindowEvent(window: id, kind: UInt8(clamping: kind), data1: data1, data2: data2)
        case .focusLost:
            SDLEvents.pushWindowEvent(window: id, kind: SDLEvents.windowEvent(SDL_WINDOWEVENT_FOCUS_LOST), data1: 0, data2: 0)
        case .dropMissingFile:
            SDLEvents.pushDrop(window: id, path: "/nonexistent/digitpad-storm.json")
        case .unknownUserEvent:
            SDLEvents.pushUser(type: SDL_USEREVENT.rawValue + 1000)
        }
    }

    /// Starts the next script steps once the previous ones are done.
    private func advanceScript() {
        while stepIndex < steps.count && feed.isEmpty && stormRemaining == 0 {
            let start = now
            switch steps[stepIndex] {
            case let .draw(path, index, touch):
                guard let drawing = scriptDrawings[PadApp.key(path, index)] else { break }
                // A labelled file is replayed as a person would label it: the digit key first.
                if let label = drawing.label, let key = ScriptKey.parse(label), label.count == 1, label.first?.isNumber == true {
                    feed.append(.key(key), due: start)
                }
                for e in ReplayPlan.events(for: drawing, rate: options.replayRate) {
                    feed.append(.pointer(e, touch: touch), due: start + e.time)
                }
            case let .key(key):
                feed.append(.key(key), due: start)
            case let .click(button):
                feed.append(.click(button, down: true), due: start)
                feed.append(.click(button, down: false), due: start)
            case .rightClick:
                feed.append(.rightClick(down: true), due: start)
                feed.append(.rightClick(down: false), due: start)
            case let .resize(w, h):
                window.setSize(width: w, height: h)
            case .wait:
                guard isSettled else { return }
            case .print:
                guard isSettled else { return }
                if let r = lastRecognition { emit(r.jsonLine(source: "window", index: printIndex, label: controller.document.label)) }
            case let .snapshot(path):
                guard isSettled, isPictureCurrent else { return }
                snapshot(to: path)
            case let .storm(count, seed):
                storm = Storm(seed: seed)
                stormRemaining = count
            }
            stepIndex += 1
        }
        guard stepIndex >= steps.count, feed.isEmpty, stormRemaining == 0, !finished, isAutomated else { return }
        guard isSettled, isPictureCurrent else { return }
        finished = true
        if let path = options.screenshot, !screenshotTaken {
            screenshotTaken = true
            snapshot(to: path)
        }
        if options.exitWhenDone { quitRequested = true }
    }

    /// The picture matches the window's size and every change has been drawn.
    private var isPictureCurrent: Bool {
        let size = window.outputSize
        return size.width == controller.layout.width && size.height == controller.layout.height && !controller.hasChanges
    }

    private func snapshot(to path: String) {
        controller.render(into: &surface)
        guard let shot = window.present(&surface, capture: true),
              let png = try? PNG.encode(rgb: shot.pixels.flatMap { [UInt8(truncatingIfNeeded: $0 >> 16), UInt8(truncatingIfNeeded: $0 >> 8),
                                                                    UInt8(truncatingIfNeeded: $0)] },
                                        width: shot.width, height: shot.height) else {
            FileHandle.standardError.write(Data("digitpad: \(path): cannot read the window's pixels: \(SDLWindow.lastError())\n".utf8))
            exitCode = 3
            return
        }
        do {
            try FileIO.writeAtomically(png, to: path)
        } catch {
            FileHandle.standardError.write(Data("digitpad: \(error)\n".utf8))
            exitCode = 3
        }
    }

    static func key(_ path: String, _ index: Int) -> String { "\(index)#\(path)" }

    static func threadCPUMilliseconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) * 1e3 + Double(t.tv_nsec) / 1e6
    }
}

/// Scripted events waiting to be pushed, in order, each with the time it is due.
struct Feed {
    enum Action {
        case pointer(ReplayEvent, touch: Bool)
        case key(ScriptKey)
        case click(PadButton, down: Bool)
        case rightClick(down: Bool)
    }

    private var items: [(due: Double, action: Action)] = []
    private var head = 0

    var isEmpty: Bool { head >= items.count }
    var nextDue: Double? { isEmpty ? nil : items[head].due }

    mutating func append(_ action: Action, due: Double) { items.append((due, action)) }

    mutating func popDue(at time: Double) -> Action? {
        guard head < items.count, items[head].due <= time else { return nil }
        defer {
            head += 1
            if head == items.count { items.removeAll(keepingCapacity: true); head = 0 }
        }
        return items[head].action
    }
}
