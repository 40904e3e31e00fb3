import DigitKit
import DigitPadKit
import DigitTestSupport
import Foundation
import XCTest

/// What the window tests read: fixtures and the weights.
enum PadFixtures {
    static func path(_ relative: String) -> String { TestPaths.fixtures.appendingPathComponent(relative).path }
    static let seven = path("window/seven.json")
    static let four = path("window/four-two-strokes.json")
    /// `$DIGITS_WEIGHTS` when set (as the program itself would use), else the shipped file.
    static let weights = ProcessInfo.processInfo.environment["DIGITS_WEIGHTS"].flatMap { $0.isEmpty ? nil : $0 }
        ?? TestPaths.weights.path

    static func drawing(_ path: String) throws -> Drawing { try DrawingLoader.load(path)[0].result.get() }
}

/// A test step that did not happen in time, or a program that ended too early.
struct WindowFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The real `digitpad` on a virtual X display, used as a person would use it: the mouse and
/// the keyboard through xdotool, the picture read from the screen, the answers from `--print`
/// on stdout. Everything the window does happens in its own time, so every check waits for
/// what it expects, with a generous limit, and fails with what it saw last.
final class PadWindow {
    let display: VirtualDisplay
    let process: Executable.Running
    /// The X window id.
    let id: String
    /// The working directory of the program.
    let folder: URL

    static let timeout = 60.0

    /// Starts `digitpad --weights W [--size SIZE] ARGUMENTS` in `folder` on `display` (by default
    /// a new one) and waits until its window is drawn. Nil, with one test failure, when Xvfb or
    /// xdotool are missing.
    static func start(_ test: XCTestCase, _ arguments: [String] = [], size: String? = "640x400", in folder: URL? = nil,
                      on display: VirtualDisplay? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> PadWindow? {
        guard let display = try display ?? VirtualDisplay.start(for: test, file: file, line: line),
              let program = Executable.named("digitpad", file: file, line: line) else { return nil }
        let folder = try folder ?? temporaryFolder(test)
        let process = try program.start(["--weights", PadFixtures.weights] + (size.map { ["--size", $0] } ?? []) + arguments,
                                        in: folder, environment: environment(display))
        test.addTeardownBlock {
            if process.process.isRunning { kill(process.process.processIdentifier, SIGKILL) }
            _ = Executable.finish(process, timeout: 30)
        }
        var found: [String] = []
        let deadline = Date().addingTimeInterval(timeout)
        while found.isEmpty {
            guard process.process.isRunning else {
                throw WindowFailure("digitpad ended before its window showed: \(process.stderrSoFar)")
            }
            guard Date() < deadline else { throw WindowFailure("no DigitPad window within \(timeout) s") }
            found = try display.windows(named: "^DigitPad$", pid: process.process.processIdentifier)
            if found.isEmpty { usleep(50_000) }
        }
        let window = PadWindow(display: display, process: process, id: found[0], folder: folder)
        try display.xdotool(["windowfocus", window.id])
        _ = try window.waitForPicture("the window's first picture") { shot in
            let c = shot.layout.canvas
            return !c.isEmpty && shot.pixel(2, 2) == PadTheme.background && shot.pixel(c.x - 1, c.y - 1) == PadTheme.canvasFrame
        }
        try window.settle()
        return window
    }

    /// How digitpad is run on `display`: X11 with SDL's software renderer (light on a shared
    /// machine, and what the frame times measure), and a click right after the window gets the
    /// focus counts (SDL drops it otherwise, as the first click a window manager uses to focus it).
    static func environment(_ display: VirtualDisplay) -> [String: String?] {
        display.environment.merging(["SDL_VIDEODRIVER": "x11", "SDL_RENDER_DRIVER": "software", "SDL_AUDIODRIVER": "dummy",
                                     "SDL_MOUSE_FOCUS_CLICKTHROUGH": "1"]) { $1 }
    }

    private init(display: VirtualDisplay, process: Executable.Running, id: String, folder: URL) {
        self.display = display
        self.process = process
        self.id = id
        self.folder = folder
    }

    // MARK: - Looking

    /// The window's place on the screen and its size now.
    func geometry() throws -> (x: Int, y: Int, width: Int, height: Int) { try display.geometry(of: id) }

    /// The layout of the window at its size now.
    func layout() throws -> PadLayout {
        let g = try geometry()
        return PadLayout(width: g.width, height: g.height)
    }

    /// What the window shows now: a still picture, the same in two readings 30 ms apart. (The
    /// screen file is read while the server writes it, so one reading can be half old, half new.)
    func screenshot() throws -> Screenshot {
        try waitForPicture("a still picture") { _ in true }
    }

    private func capture() throws -> Screenshot {
        let g = try geometry()
        return Screenshot(width: g.width, height: g.height, pixels: try display.capture(x: g.x, y: g.y, width: g.width, height: g.height))
    }

    /// Looks at the window until `condition` holds in a still picture, and returns that picture.
    @discardableResult
    func waitForPicture(_ what: String, timeout: Double = PadWindow.timeout,
                        until condition: (Screenshot) -> Bool) throws -> Screenshot {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            try requireRunning()
            let shot = try capture()
            if condition(shot) {
                usleep(30_000)
                let again = try capture()
                if again.width == shot.width && again.height == shot.height && again.pixels == shot.pixels { return again }
                continue
            }
            guard Date() < deadline else {
                throw WindowFailure("the window did not show \(what) within \(timeout) s (canvas ink \(shot.ink(in: shot.layout.canvas)), "
                                    + "preview ink \(shot.ink(in: shot.layout.previewImage)))")
            }
            usleep(20_000)
        }
    }

    /// Returns once the window has handled every event sent so far and drawn the result: the
    /// pointer goes onto the Undo button, which lights up, and off again, which it shows too.
    /// X delivers events in order, and the window draws a frame after each batch of them.
    /// (Recognition runs beside the frames: wait for an answer with `waitForLines` or a picture.)
    func settle() throws {
        let g = try geometry()
        let layout = PadLayout(width: g.width, height: g.height)
        guard let button = layout.buttons[.undo] else { throw WindowFailure("a \(g.width)×\(g.height) window has no buttons") }
        // Beside the title, clear of the rounded corners.
        let probe = (x: button.x + max(6, button.width / 8), y: button.y + button.height / 2)
        try display.xdotool(["mousemove", "\(g.x + Int(button.midX))", "\(g.y + Int(button.midY))"])
        try waitForPicture("the Undo button lit under the pointer") { $0.pixel(probe.x, probe.y) == PadTheme.buttonHover }
        try display.xdotool(["mousemove", "\(g.x + 3)", "\(g.y + 3)"])
        try waitForPicture("the Undo button back to normal") { $0.pixel(probe.x, probe.y) == PadTheme.button }
    }

    // MARK: - Answers and the end

    /// The lines printed so far (`--print`: one per change: a stroke's end, undo, clear, open).
    var lines: [String] { process.stdoutSoFar.split(separator: "\n").map(String.init) }

    /// Waits until at least `count` lines are printed and returns them all.
    @discardableResult
    func waitForLines(_ count: Int, timeout: Double = PadWindow.timeout) throws -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let printed = lines
            if printed.count >= count { return printed }
            try requireRunning()
            guard Date() < deadline else {
                throw WindowFailure("\(printed.count) of \(count) answers printed within \(timeout) s: \(printed)")
            }
            usleep(20_000)
        }
    }

    func requireRunning() throws {
        guard process.process.isRunning else {
            throw WindowFailure("digitpad ended (status \(process.process.terminationStatus)): \(process.stderrSoFar)")
        }
    }

    /// Presses Esc and waits for the program to end.
    func quit() throws -> Executable.Result {
        try display.xdotool(["key", "Escape"])
        return Executable.finish(process, timeout: PadWindow.timeout)
    }

    // MARK: - Doing

    /// Presses keys (xdotool's names: `c`, `ctrl+z`, `BackSpace`, `Delete`, `9`).
    func key(_ keys: String...) throws { try display.xdotool(["key"] + keys) }

    /// Clicks a panel button with the primary mouse button.
    func click(_ button: PadButton) throws {
        let g = try geometry()
        guard let r = PadLayout(width: g.width, height: g.height).buttons[button] else {
            throw WindowFailure("a \(g.width)×\(g.height) window has no \(button) button")
        }
        try display.xdotool(["mousemove", "\(g.x + Int(r.midX))", "\(g.y + Int(r.midY))", "click", "1"])
    }

    /// A secondary click in the middle of the canvas.
    func rightClickCanvas() throws {
        let g = try geometry()
        let c = PadLayout(width: g.width, height: g.height).canvas
        try display.xdotool(["mousemove", "\(g.x + Int(c.midX))", "\(g.y + Int(c.midY))", "click", "3"])
    }

    func resize(width: Int, height: Int) throws { try display.xdotool(["windowsize", id, "\(width)", "\(height)"]) }

    /// Draws `drawing` with the mouse, fitted into the canvas as `--replay` places it: for each
    /// stroke a press, a move to every point and a release. `label` (default: the drawing's own,
    /// when it is made of digits) is typed first, as a person would label it. `pointsPerSecond` paces
    /// the moves; by default they come as fast as xdotool sends them. Returns the window pixels
    /// of each stroke, as sent (a point on the same pixel as the one before is not a move).
    @discardableResult
    func draw(_ drawing: Drawing, label: String? = nil, pointsPerSecond: Double? = nil) throws -> [[(x: Int, y: Int)]] {
        let g = try geometry()
        let layout = PadLayout(width: g.width, height: g.height)
        var words: [String] = []
        if let text = label ?? drawing.label, !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) {
            words += ["key"] + text.map { String($0) }
        }
        let pause = pointsPerSecond.map { ["sleep", String(format: "%.4f", 1 / $0)] } ?? []
        var strokes: [[(x: Int, y: Int)]] = []
        for event in ReplayPlan.events(for: drawing, rate: 0) {
            let p = layout.windowPoint(event.x, event.y)
            let point = (x: Int(p.x.rounded(.down)), y: Int(p.y.rounded(.down)))
            let move = ["mousemove", "\(g.x + point.x)", "\(g.y + point.y)"]
            switch event.phase {
            case .down:
                words += move + ["mousedown", "1"]
                strokes.append([point])
            case .move:
                guard let last = strokes.last?.last, last != point else { continue }
                words += pause + move
                strokes[strokes.count - 1].append(point)
            case .up:
                words += ["mouseup", "1"]
            }
        }
        try display.xdotool(words)
        return strokes
    }
}
