import DigitApp
import DigitKit

/// One pointer event of a replay, in canvas units (0…1 across the canvas, y downward).
public struct ReplayEvent: Equatable, Sendable {
    public enum Phase: Sendable { case down, move, up }
    public var phase: Phase
    public var x: Float
    public var y: Float
    /// Seconds after the start of the replay at which to send it.
    public var time: Double

    public init(_ phase: Phase, x: Float, y: Float, time: Double) {
        self.phase = phase
        self.x = x
        self.y = y
        self.time = time
    }
}

/// Turns a drawing into the pointer events a hand would have made: a press at each stroke's
/// first point, a move for every further point, a release at its last point.
public enum ReplayPlan {
    /// Longest pause kept from recorded times, so a file with a long break replays promptly.
    public static let maxGap = 0.5
    /// Pause between strokes when the drawing has no times.
    public static let strokeGap = 0.08

    /// Events for `drawing` placed by `CanvasMapping(fitting:)` and kept inside the canvas.
    /// Timing: the recorded `t` values when every point has one and they never go backwards
    /// (gaps capped at `maxGap`); otherwise `rate` points per second with `strokeGap` between
    /// strokes; `rate` 0 sends everything at time 0 (as fast as the program takes it).
    public static func events(for drawing: Drawing, rate: Double) -> [ReplayEvent] {
        let mapping = CanvasMapping(fitting: drawing)
        let strokes = drawing.strokes.filter { !$0.isEmpty }
        let points = strokes.flatMap { $0 }
        var recorded = !points.isEmpty && points.allSatisfy { $0.t?.isFinite == true }
        if recorded {
            var last = -Float.infinity
            for p in points {
                guard let t = p.t, t >= last else { recorded = false; break }
                last = t
            }
        }
        let step = rate > 0 ? 1 / rate : 0
        var events: [ReplayEvent] = []
        events.reserveCapacity(points.count + strokes.count)
        var clock = 0.0
        var previousT: Float?
        for stroke in strokes {
            for (i, p) in stroke.enumerated() {
                if recorded, let t = p.t {
                    if let previousT { clock += min(Double(t - previousT), maxGap) }
                    previousT = t
                } else if !events.isEmpty {
                    clock += i == 0 ? (rate > 0 ? strokeGap : 0) : step
                }
                let (u, v) = mapping.toCanvas(p.x, p.y)
                events.append(ReplayEvent(i == 0 ? .down : .move, x: inside(u), y: inside(v), time: clock))
            }
            if let last = events.last {
                if !recorded { clock += step }
                events.append(ReplayEvent(.up, x: last.x, y: last.y, time: clock))
            }
        }
        return events
    }

    /// Keeps a coordinate on the canvas, a hair inside its far edge (which belongs to the panel).
    static func inside(_ v: Float) -> Float { v.isNaN ? 0 : min(max(v, 0), 0.999) }
}
