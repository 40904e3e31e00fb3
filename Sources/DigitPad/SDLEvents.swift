import CSDL2
import DigitPadKit

/// SDL events in, `PadInput` out; and the reverse for replays, scripts and storms, which are
/// pushed into SDL's queue (SDL_PushEvent) so the same handler consumes them as real input.
enum SDLEvents {
    static func type(_ t: SDL_EventType) -> UInt32 { t.rawValue }
    static func windowEvent(_ e: SDL_WindowEventID) -> UInt8 { UInt8(truncatingIfNeeded: e.rawValue) }

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
        case code(SDLK_0)...code(SDLK_9): return ctrl ? nil : .digit(Int(sym - code(SDLK_0)))
        case code(SDLK_KP_1)...code(SDLK_KP_9): return .digit(Int(sym - code(SDLK_KP_1)) + 1)
        case code(SDLK_KP_0): return .digit(0)
        default: return nil
        }
    }

    static func keycode(for key: ScriptKey) -> SDL_Keycode {
        let named: [String: SDL_KeyCode] = ["backspace": SDLK_BACKSPACE, "delete": SDLK_DELETE, "escape": SDLK_ESCAPE,
                                            "return": SDLK_RETURN, "space": SDLK_SPACE, "tab": SDLK_TAB]
        if let k = named[key.name] { return SDL_Keycode(bitPattern: k.rawValue) }
        // Letters and digits: SDL's key code is the lower-case ASCII code.
        return SDL_Keycode(key.name.unicodeScalars.first.map { Int32($0.value) } ?? 0)
    }

    // MARK: - Synthesis

    static func push(_ event: inout SDL_Event) {
        // A full queue drops the event; the storm and replays are paced well below SDL's limit.
        _ = SDL_PushEvent(&event)
    }

    static func pushMouseButton(window: UInt32, x: Int32, y: Int32, button: UInt8, down: Bool) {
        var e = SDL_Event()
        e.button.type = down ? type(SDL_MOUSEBUTTONDOWN) : type(SDL_MOUSEBUTTONUP)
        e.button.windowID = window
        e.button.which = 0
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
        e.motion.which = 0
        e.motion.state = buttonDown ? CSDL2_ButtonMask(1) : 0
        e.motion.x = x
        e.motion.y = y
        push(&e)
    }

    static func pushFinger(window: UInt32, id: Int64, x: Float, y: Float, phase: StormEvent.FingerPhase, pressure: Float) {
        var e = SDL_Event()
        switch phase {
        case .down: e.tfinger.type = type(SDL_FINGERDOWN)
        case .motion: e.tfinger.type = type(SDL_FINGERMOTION)
        case .up: e.tfinger.type = type(SDL_FINGERUP)
        }
        e.tfinger.touchId = syntheticTouchDevice
        e.tfinger.fingerId = id
        e.tfinger.x = x
        e.tfinger.y = y
        e.tfinger.pressure = pressure
        e.tfinger.windowID = window
        push(&e)
    }

    /// A device id no real touch screen has, for fingers made up by replays and storms.
    static let syntheticTouchDevice: SDL_TouchID = 0x4449_4749   // "DIGI"

    static func pushKey(window: UInt32, _ key: ScriptKey) {
        let sym = keycode(for: key)
        var mod: UInt32 = 0
        if key.ctrl { mod |= KMOD_LCTRL.rawValue }
        if key.shift { mod |= KMOD_LSHIFT.rawValue }
        for down in [true, false] {
            var e = SDL_Event()
            e.key.type = down ? type(SDL_KEYDOWN) : type(SDL_KEYUP)
            e.key.windowID = window
            e.key.state = UInt8(down ? SDL_PRESSED : SDL_RELEASED)
            e.key.keysym.sym = sym
            e.key.keysym.scancode = SDL_GetScancodeFromKey(sym)
            e.key.keysym.mod = UInt16(truncatingIfNeeded: mod)
            push(&e)
        }
    }

    static func pushWheel(window: UInt32, dy: Int32) {
        var e = SDL_Event()
        e.wheel.type = type(SDL_MOUSEWHEEL)
        e.wheel.windowID = window
        e.wheel.y = dy
        push(&e)
    }

    static func pushWindowEvent(window: UInt32, kind: UInt8, data1: Int32, data2: Int32) {
        var e = SDL_Event()
        e.window.type = type(SDL_WINDOWEVENT)
        e.window.windowID = window
        e.window.event = kind
        e.window.data1 = data1
        e.window.data2 = data2
        push(&e)
    }

    static func pushDrop(window: UInt32, path: String) {
        var e = SDL_Event()
        e.drop.type = type(SDL_DROPFILE)
        e.drop.windowID = window
        e.drop.file = SDL_strdup(path)   // the handler frees it with SDL_free, as for real drops
        push(&e)
    }

    static func pushUser(type: UInt32) {
        var e = SDL_Event()
        e.user.type = type
        push(&e)
    }
}
