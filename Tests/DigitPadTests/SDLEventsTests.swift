import CSDL2
import DigitPadKit
import XCTest
@testable import DigitPad

/// How the window reads SDL's events, on events made up here: what xdotool cannot produce on a
/// virtual display (touches, dropped files, high-DPI scaling) is checked this way.
final class SDLEventsTests: XCTestCase {
    private let size = (width: 800, height: 600)

    /// SDL's video subsystem, with its dummy driver: SDL looks touch devices up there.
    override func setUpWithError() throws {
        SDL_SetHint(SDL_HINT_VIDEODRIVER, "dummy")
        guard SDL_InitSubSystem(UInt32(SDL_INIT_VIDEO)) == 0 else {
            throw WindowFailure("SDL's dummy video driver did not start: \(PadView.lastError())")
        }
        addTeardownBlock { SDL_QuitSubSystem(UInt32(SDL_INIT_VIDEO)) }
    }

    private func decode(_ event: SDL_Event, scale: (x: Float, y: Float) = (1, 1), replaying: Bool = false) -> WindowEvent {
        var e = event
        return SDLEvents.decode(&e, outputSize: size, pixelScale: scale, replaying: replaying)
    }

    private func finger(_ type: SDL_EventType, id: Int64, x: Float, y: Float, pressure: Float) -> SDL_Event {
        var e = SDL_Event()
        e.tfinger.type = type.rawValue
        e.tfinger.fingerId = id
        e.tfinger.x = x
        e.tfinger.y = y
        e.tfinger.pressure = pressure
        return e
    }

    private func mouseButton(_ type: SDL_EventType, x: Int32, y: Int32, button: UInt8, which: UInt32 = 0) -> SDL_Event {
        var e = SDL_Event()
        e.button = SDL_MouseButtonEvent(type: type.rawValue, timestamp: 0, windowID: 0, which: which, button: button,
                                        state: 0, clicks: 0, padding1: 0, x: x, y: y)
        return e
    }

    private func key(_ code: SDL_KeyCode, ctrl: Bool = false, repeats: Bool = false) -> SDL_KeyboardEvent {
        var k = SDL_KeyboardEvent()
        k.keysym.sym = SDL_Keycode(code.rawValue)
        k.keysym.mod = ctrl ? UInt16(KMOD_LCTRL.rawValue) : 0
        k.repeat = repeats ? 1 : 0
        return k
    }

    func testEvents_FingersDrawWhereTheyTouchInRenderPixels() {
        XCTAssertEqual(decode(finger(SDL_FINGERDOWN, id: 3, x: 0.25, y: 0.5, pressure: 0.5)),
                       .input(.press(.finger(3), x: 200, y: 300, button: 1, time: 0, pressure: 0.5)))
        XCTAssertEqual(decode(finger(SDL_FINGERMOTION, id: 3, x: 0.5, y: 0.75, pressure: 1)),
                       .input(.move(.finger(3), x: 400, y: 450, time: 0, pressure: 1)))
        XCTAssertEqual(decode(finger(SDL_FINGERUP, id: 3, x: 0.5, y: 0.75, pressure: 0)),
                       .input(.release(.finger(3), x: 400, y: 450, button: 1, time: 0)))
        XCTAssertEqual(decode(finger(SDL_FINGERMOTION, id: 4, x: 0.5, y: 0.5, pressure: 3)),
                       .input(.move(.finger(4), x: 400, y: 300, time: 0, pressure: nil)), "a pressure out of 0…1 is none")
    }

    func testEvents_MouseEventsSDLMadeFromTouchesAreIgnored() {
        XCTAssertEqual(decode(mouseButton(SDL_MOUSEBUTTONDOWN, x: 10, y: 10, button: 1, which: CSDL2_TouchMouseID())), .ignored)
        var motion = SDL_Event()
        motion.motion.type = SDL_MOUSEMOTION.rawValue
        motion.motion.which = CSDL2_TouchMouseID()
        XCTAssertEqual(decode(motion), .ignored)
    }

    func testEvents_WhileReplayingOnlyTheReplaysMouseDraws() {
        let real = mouseButton(SDL_MOUSEBUTTONDOWN, x: 10, y: 20, button: 1)
        let replayed = mouseButton(SDL_MOUSEBUTTONDOWN, x: 10, y: 20, button: 1, which: SDLEvents.replayMouseID)
        XCTAssertEqual(decode(real, replaying: true), .ignored)
        XCTAssertEqual(decode(replayed, replaying: true), .input(.press(.mouse, x: 10, y: 20, button: 1, time: 0, pressure: nil)))
        XCTAssertEqual(decode(real), .input(.press(.mouse, x: 10, y: 20, button: 1, time: 0, pressure: nil)), "after the replay")
        var motion = SDL_Event()
        motion.motion.type = SDL_MOUSEMOTION.rawValue
        XCTAssertEqual(decode(motion, replaying: true), .ignored)
    }

    func testEvents_MousePositionsAreScaledToRenderPixels() {
        XCTAssertEqual(decode(mouseButton(SDL_MOUSEBUTTONDOWN, x: 10, y: 20, button: 3), scale: (2, 2)),
                       .input(.press(.mouse, x: 20, y: 40, button: 3, time: 0, pressure: nil)))
        XCTAssertEqual(decode(mouseButton(SDL_MOUSEBUTTONUP, x: 10, y: 20, button: 1), scale: (2, 2)),
                       .input(.release(.mouse, x: 20, y: 40, button: 1, time: 0)))
    }

    func testEvents_AResizeTakesTheRenderersSizeNotTheEventsNumbers() {
        var e = SDL_Event()
        e.window.type = SDL_WINDOWEVENT.rawValue
        e.window.event = SDLEvents.windowEvent(SDL_WINDOWEVENT_SIZE_CHANGED)
        e.window.data1 = Int32.max
        e.window.data2 = -1
        XCTAssertEqual(decode(e), .input(.resize(width: 800, height: 600)))
        e.window.event = SDLEvents.windowEvent(SDL_WINDOWEVENT_LEAVE)
        XCTAssertEqual(decode(e), .input(.focusLost), "leaving the window ends a stroke")
        e.window.event = SDLEvents.windowEvent(SDL_WINDOWEVENT_EXPOSED)
        XCTAssertEqual(decode(e), .exposed)
    }

    func testEvents_ADroppedFileIsOpened() {
        var e = SDL_Event()
        e.drop.type = SDL_DROPFILE.rawValue
        e.drop.file = SDL_strdup("/tmp/dropped digit.json")   // freed by decode, as SDL asks
        XCTAssertEqual(decode(e), .dropped(path: "/tmp/dropped digit.json"))
    }

    func testEvents_KeysBecomeCommandsAndCtrlCDoesNotClear() {
        XCTAssertEqual(SDLEvents.padKey(key(SDLK_c)), .clear)
        XCTAssertNil(SDLEvents.padKey(key(SDLK_c, ctrl: true)))
        XCTAssertEqual(SDLEvents.padKey(key(SDLK_z, ctrl: true)), .undo)
        XCTAssertEqual(SDLEvents.padKey(key(SDLK_BACKSPACE, repeats: true)), .undo, "held Backspace repeats undo")
        XCTAssertNil(SDLEvents.padKey(key(SDLK_s, repeats: true)), "nothing else repeats")
        XCTAssertEqual(SDLEvents.padKey(key(SDLK_KP_7)), .digit(7))
        XCTAssertEqual(SDLEvents.padKey(key(SDLK_KP_0)), .digit(0))
        XCTAssertNil(SDLEvents.padKey(key(SDLK_7, ctrl: true)))
        XCTAssertEqual(SDLEvents.padKey(key(SDLK_a)), .adapt)
        XCTAssertNil(SDLEvents.padKey(key(SDLK_a, ctrl: true)), "Ctrl+A is select-all elsewhere, not seconds of work")
        XCTAssertNil(SDLEvents.padKey(key(SDLK_a, repeats: true)), "a held A adapts once")
    }
}
