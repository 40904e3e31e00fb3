import DigitKit
import DigitPadKit

/// `--replay`: a drawing animated in the window. Its strokes become mouse events (`ReplayPlan`),
/// pushed into SDL's queue when they are due, which the window handles exactly as it handles a
/// real mouse. A drawing labelled with digits is labelled as a person would: its digit keys first.
final class Replay {
    private let events: [ReplayEvent]
    private var next = 0
    /// The label's digits, still to be typed.
    private var labelKeys: [Int]
    /// The loop's clock when the replay started.
    private let start: Double

    /// Pushed per frame at most, so that frames (and their redraws) interleave with a fast replay
    /// as they would with real input.
    static let eventsPerFrame = 64

    init(drawing: Drawing, rate: Double, start: Double) {
        events = ReplayPlan.events(for: drawing, rate: rate)
        labelKeys = drawing.labelDigits ?? []
        self.start = start
    }

    var isDone: Bool { labelKeys.isEmpty && next >= events.count }

    /// When the next event is due on the loop's clock, or nil when all are sent.
    var nextDue: Double? {
        if !labelKeys.isEmpty { return start }
        return next < events.count ? start + events[next].time : nil
    }

    /// Pushes the events due at `now` into the window `view` whose canvas `layout` places.
    func pushDue(now: Double, layout: PadLayout, view: PadView) {
        var budget = Replay.eventsPerFrame
        while budget > 0, !labelKeys.isEmpty {
            SDLEvents.pushDigitKey(window: view.windowID, labelKeys.removeFirst())
            budget -= 1
        }
        let scale = view.pixelScale
        while budget > 0, next < events.count, start + events[next].time <= now {
            let e = events[next]
            let p = layout.windowPoint(e.x, e.y)
            let x = Replay.coordinate(p.x / scale.x), y = Replay.coordinate(p.y / scale.y)
            switch e.phase {
            case .down: SDLEvents.pushMouseButton(window: view.windowID, x: x, y: y, button: 1, down: true)
            case .move: SDLEvents.pushMouseMotion(window: view.windowID, x: x, y: y, buttonDown: true)
            case .up: SDLEvents.pushMouseButton(window: view.windowID, x: x, y: y, button: 1, down: false)
            }
            next += 1
            budget -= 1
        }
    }

    /// A window coordinate as a mouse reports it: a whole pixel.
    static func coordinate(_ v: Float) -> Int32 {
        v.isFinite ? Int32(min(max(v.rounded(.down), -1_000_000), 1_000_000)) : 0
    }
}
