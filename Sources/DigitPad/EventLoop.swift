import CSDL2
import DigitPadKit
import Foundation

/// What the event loop runs: the window's reactions to events, and its frames.
protocol EventLoopClient: AnyObject {
    /// Timed work before the loop waits: replay events that are due, and what ends a run
    /// (`--screenshot`, `--exit`).
    func prepare(now: Double)
    /// When to wake up without an event, in seconds on the loop's clock; nil sleeps until one comes.
    func wakeTime(now: Double) -> Double?
    /// Handles one event; returns true when it was input that changed the drawing.
    func handle(_ event: inout SDL_Event) -> Bool
    /// After a batch of events (or a wake-up): brings the picture up to date. Returns true when
    /// a frame was presented.
    func frame(now: Double) -> Bool
}

/// The frame loop. It sleeps in `SDL_WaitEvent` until an event comes or the client's wake time
/// passes, takes every queued event as one batch, then lets the client draw one frame for it;
/// events that arrive while a frame is drawn make the next batch. It ends on `quit()`, SDL's
/// quit request or the window's close button.
///
/// Frames that drew input are timed from taking the batch to the presented picture, in wall time
/// and in the loop thread's CPU time: on a busy machine the first includes waiting for a core,
/// the second does not.
final class EventLoop {
    private let started = DispatchTime.now().uptimeNanoseconds
    /// The event another thread pushes to wake the loop (SDL_PushEvent is thread-safe).
    private let wakeType: UInt32
    private var running = false
    private var wallTimes = FrameStats()
    private var cpuTimes = FrameStats()

    /// Registers the wake-up event: call after SDL is started.
    init() {
        let event = SDL_RegisterEvents(1)
        wakeType = event == UInt32.max ? SDL_USEREVENT.rawValue : event
    }

    /// Seconds since the loop was made.
    var now: Double { Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 }

    /// Wakes the loop from any thread, so that it draws a frame (a recognition answer is waiting).
    var waker: @Sendable () -> Void {
        let type = wakeType
        return { SDLEvents.pushUser(type: type) }
    }

    /// Ends the loop after the current batch and its frame.
    func quit() { running = false }

    func run(_ client: EventLoopClient) {
        running = true
        var event = SDL_Event()
        while running {
            client.prepare(now: now)
            guard running else { break }
            let got: Int32
            if let wake = client.wakeTime(now: now) {
                // At most a second, so that a clock that jumps cannot stall the loop.
                let milliseconds = min(max((wake - now) * 1000, 0), 1000).rounded(.up)
                got = SDL_WaitEventTimeout(&event, Int32(milliseconds))
            } else {
                got = SDL_WaitEvent(&event)
            }
            let batchStart = DispatchTime.now().uptimeNanoseconds
            let cpuStart = EventLoop.threadCPUMilliseconds()
            var drew = false
            if got != 0 {
                repeat { drew = dispatch(&event, to: client) || drew } while SDL_PollEvent(&event) != 0
            }
            if client.frame(now: now) && drew {
                wallTimes.add(milliseconds: Double(DispatchTime.now().uptimeNanoseconds - batchStart) / 1e6)
                cpuTimes.add(milliseconds: EventLoop.threadCPUMilliseconds() - cpuStart)
            }
        }
    }

    private func dispatch(_ event: inout SDL_Event, to client: EventLoopClient) -> Bool {
        switch event.type {
        case wakeType:
            return false   // answers are collected in every frame
        case SDLEvents.type(SDL_QUIT):
            running = false
            return false
        case SDLEvents.type(SDL_WINDOWEVENT) where event.window.event == SDLEvents.windowEvent(SDL_WINDOWEVENT_CLOSE):
            running = false
            return false
        default:
            return client.handle(&event)
        }
    }

    /// The `--frame-stats` line: `frames 412 · p50 1.21 ms · p99 3.80 ms · max 5.02 ms (frame loop
    /// CPU: p50 0.20 ms · p99 3.10 ms; renderer software)`.
    func statsLine(renderer: String) -> String {
        let cpu = cpuTimes.summary.split(separator: "·").dropFirst().prefix(2)
            .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " · ")
        return "\(wallTimes.summary) (frame loop CPU: \(cpu); renderer \(renderer))"
    }

    static func threadCPUMilliseconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) * 1e3 + Double(t.tv_nsec) / 1e6
    }
}
