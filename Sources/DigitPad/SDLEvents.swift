import CSDL2
import DigitPadKit

/// What one SDL event means to the window. (Quit requests and the wake-up event are the
/// event loop's and never get here.)
enum WindowEvent: Equatable {
    case input(PadInput)
    /// The window was exposed, restored or shown: its whole picture must be copied again.
    case exposed
    case dropped(path: String)
    case ignored
}

/// SDL events in, `WindowEvent`s out; and the reverse for `--replay`, whose mouse and key events
/// are pushed into SDL's queue (SDL_PushEvent) so the same handler consumes them as real input.
enum SDLEvents {
    static func type(_ t: SDL_EventType) -> UInt32 { t.rawValue }
    /// The mouse id of the events a replay pushes, so that the real mouse can be told apart.
    static let replayMouseID: UInt32 = 0x5EED
    static func windowEvent(_ e: SDL_WindowEventID) -> UInt8 { UInt8(truncatingIfNeeded: e.rawValue) }

    /// Decodes one event. `outputSize` is the drawable size in render pixels and `pixelScale`
    /// render pixels per window coordinate (they differ on high-DPI screens); touches arrive as
    /// 0…1 across the window. A dropped file's name is freed here. While `replaying`, the real
    /// mouse is ignored (a motion SDL reports when the window appears under the pointer would
    /// otherwise join the stroke being replayed).
    static func decode(_ e: inout SDL_Event, outputSize: (width: Int, height: Int),
                       pixelScale scale: (x: Float, y: Float), replaying: Bool = false) -> WindowEvent {
        let kind = e.type
        let time = Double(e.common.timestamp) / 1000
        switch kind {
        case type(SDL_WINDOWEVENT):
            switch e.window.event {
            case windowEvent(SDL_WINDOWEVENT_SIZE_CHANGED), windowEvent(SDL_WINDOWEVENT_RESIZED):
                // The event's numbers are not trusted: the renderer says how big the picture is.
                return .input(.resize(width: outputSize.width, height: outputSize.height))
            case windowEvent(SDL_WINDOWEVENT_EXPOSED), windowEvent(SDL_WINDOWEVENT_RESTORED),
                 windowEvent(SDL_WINDOWEVENT_SHOWN):
                return .exposed
            case windowEvent(SDL_WINDOWEVENT_FOCUS_LOST), windowEvent(SDL_WINDOWEVENT_LEAVE):
                return .input(.focusLost)
            default:
                return .ignored
            }
        case type(SDL_MOUSEBUTTONDOWN), type(SDL_MOUSEBUTTONUP):
            let b = e.button
            guard b.which != CSDL2_TouchMouseID() else { return .ignored }   // a touch, handled as a finger
            guard !replaying || b.which == replayMouseID else { return .ignored }
            let x = Float(b.x) * scale.x, y = Float(b.y) * scale.y
            return .input(kind == type(SDL_MOUSEBUTTONDOWN)
                ? .press(.mouse, x: x, y: y, button: Int(b.button), time: time, pressure: nil)
                : .release(.mouse, x: x, y: y, button: Int(b.button), time: time))
        case type(SDL_MOUSEMOTION):
            let m = e.motion
            guard m.which != CSDL2_TouchMouseID() else { return .ignored }
            guard !replaying || m.which == replayMouseID else { return .ignored }
            return .input(.move(.mouse, x: Float(m.x) * scale.x, y: Float(m.y) * scale.y, time: time, pressure: nil))
        case type(SDL_FINGERDOWN), type(SDL_FINGERMOTION), type(SDL_FINGERUP):
            let f = e.tfinger
            // Touchpads report fingers relative to the pad, not the window: they do not draw.
            guard SDL_GetTouchDeviceType(f.touchId) != SDL_TOUCH_DEVICE_INDIRECT_RELATIVE else { return .ignored }
            let x = f.x * Float(outputSize.width), y = f.y * Float(outputSize.height)
            let pressure: Float? = f.pressure > 0 && f.pressure <= 1 ? f.pressure : nil
            switch kind {
            case type(SDL_FINGERDOWN):
                return .input(.press(.finger(f.fingerId), x: x, y: y, button: 1, time: time, pressure: pressure))
            case type(SDL_FINGERMOTION):
                return .input(.move(.finger(f.fingerId), x: x, y: y, time: time, pressure: pressure))
            default:
                return .input(.release(.finger(f.fingerId), x: x, y: y, button: 1, time: time))
            }
        case type(SDL_KEYDOWN):
            return padKey(e.key).map { .input(.key($0)) } ?? .ignored
        case type(SDL_DROPFILE):
            guard let file = e.drop.file else { return .ignored }
            let path = String(cString: file)
            SDL_free(file)
            return .dropped(path: path)
        default:
            return .ignored
        }
    }

    /// A key press decoded into a command, or nil. Held-down repeats only repeat undo.
    static func padKey(_ key: SDL_KeyboardEvent) -> PadKey? {
        let sym = Int64(key.keysym.sym)
        let ctrl = UInt32(key.keysym.mod) & KMOD_CTRL.rawValue != 0
        let isRepeat = key.repeat != 0
        func code(_ k: SDL_KeyCode) -> Int64 { Int64(k.rawValue) }
        if sym == code(SDLK_BACKSPACE) || (ctrl && sym == code(SDLK_z)) { return .undo }
        if isRepeat { return nil }
        switch sym {
        case code(SDLK_ESCAPE): return .quit
        case code(SDLK_c): return ctrl ? nil : .clear   // Ctrl+C means copy elsewhere: it must not wipe a drawing
        case code(SDLK_DELETE): return .clear
        case code(SDLK_s): return .save
        case code(SDLK_o): return .open
        case code(SDLK_l): return ctrl ? nil : .clearLabel
        case code(SDLK_a): return ctrl ? nil : .adapt   // Ctrl+A selects all elsewhere: it must not start seconds of work
        case code(SDLK_0)...code(SDLK_9): return ctrl ? nil : .digit(Int(sym - code(SDLK_0)))
        case code(SDLK_KP_1)...code(SDLK_KP_9): return .digit(Int(sym - code(SDLK_KP_1)) + 1)
        case code(SDLK_KP_0): return .digit(0)
        default: return nil
        }
    }

    // MARK: - Synthesis

    private static func push(_ event: inout SDL_Event) {
        // A full queue drops the event; replays are paced well below SDL's limit.
        _ = SDL_PushEvent(&event)
    }

    static func pushMouseButton(window: UInt32, x: Int32, y: Int32, button: UInt8, down: Bool) {
        var e = SDL_Event()
        e.button.type = down ? type(SDL_MOUSEBUTTONDOWN) : type(SDL_MOUSEBUTTONUP)
        e.button.windowID = window
        e.button.which = replayMouseID
        e.button.button = button
        e.button.state = UInt8(down ? SDL_PRESSED : SDL_RELEASED)
        e.button.clicks = 1
        e.button.x = x
        e.button.y = y
        push(&e)
    }

    static func pushMouseMotion(window: UInt32, x: Int32, y: Int32, buttonDown: Bool) {
        var e = SDL_Event()
        e.motion.type = type(SDL_MOUSEMOTION)
        e.motion.windowID = window
        e.motion.which = replayMouseID
        e.motion.state = buttonDown ? CSDL2_ButtonMask(1) : 0
        e.motion.x = x
        e.motion.y = y
        push(&e)
    }

    /// A press and a release of a digit key (0…9) of the main keyboard.
    static func pushDigitKey(window: UInt32, _ digit: Int) {
        let sym = SDL_Keycode(SDLK_0.rawValue) + SDL_Keycode(min(max(digit, 0), 9))
        for down in [true, false] {
            var e = SDL_Event()
            e.key.type = down ? type(SDL_KEYDOWN) : type(SDL_KEYUP)
            e.key.windowID = window
            e.key.state = UInt8(down ? SDL_PRESSED : SDL_RELEASED)
            e.key.keysym.sym = sym
            e.key.keysym.scancode = SDL_GetScancodeFromKey(sym)
            push(&e)
        }
    }

    static func pushUser(type: UInt32) {
        var e = SDL_Event()
        e.user.type = type
        push(&e)
    }
}
