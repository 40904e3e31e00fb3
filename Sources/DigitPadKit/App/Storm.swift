import DigitApp
import DigitKit

/// One event of a random storm, in window coordinates (mouse) or touch-normalized ones
/// (fingers: 0…1 across the window, values outside that range and NaN included on purpose).
public enum StormEvent: Equatable, Sendable {
    case mouseMotion(x: Int, y: Int, buttonDown: Bool)
    case mouseButton(x: Int, y: Int, button: Int, down: Bool)
    case wheel(dy: Int)
    case finger(id: Int64, x: Float, y: Float, phase: FingerPhase, pressure: Float)
    case key(ScriptKey)
    /// A real resize of the window (SDL_SetWindowSize).
    case resize(width: Int, height: Int)
    /// A window event with made-up sizes that the program must not trust.
    case bogusWindowEvent(kind: Int, data1: Int32, data2: Int32)
    case focusLost
    /// A dropped file that does not exist.
    case dropMissingFile
    /// A user event the program did not register.
    case unknownUserEvent

    public enum FingerPhase: Equatable, Sendable { case down, motion, up }
}

/// Seeded random events for robustness tests: clicks, drags, touches, keys, resizes and
/// odd events (NaN touches, coordinates far outside the window, events for no one). Never
/// Escape or a quit request: the storm must leave the program running.
public struct Storm {
    private var random: SplitMix64
    private var mouseDown = false
    private var mouseX = 100, mouseY = 100
    private var activeFingers: [Int64] = []

    public init(seed: UInt64) { random = SplitMix64(seed: seed) }

    static let keys = ["c", "s", "o", "z", "x", "a", "q", "7", "3", "0", "9", "backspace", "delete", "return", "space", "tab"]

    /// The next event for a window of `width × height` pixels.
    public mutating func next(width: Int, height: Int) -> StormEvent {
        let w = max(width, 1), h = max(height, 1)
        let roll = random.nextFloat()
        switch roll {
        case ..<0.40:
            // Drags are walks, so strokes look like strokes; sometimes a jump far away.
            if random.nextFloat() < 0.05 {
                mouseX = Int(random.uniform(-2000, 4000))
                mouseY = Int(random.uniform(-2000, 4000))
            } else {
                mouseX = min(max(mouseX + Int(random.uniform(-25, 25)), -50), w + 50)
                mouseY = min(max(mouseY + Int(random.uniform(-25, 25)), -50), h + 50)
            }
            return .mouseMotion(x: mouseX, y: mouseY, buttonDown: mouseDown)
        case ..<0.50:
            mouseDown.toggle()
            let button = random.nextFloat() < 0.85 ? 1 : (random.nextFloat() < 0.5 ? 3 : 2)
            if mouseDown {
                mouseX = Int(random.uniform(0, Float(w)))
                mouseY = Int(random.uniform(0, Float(h)))
            }
            return .mouseButton(x: mouseX, y: mouseY, button: button, down: mouseDown)
        case ..<0.53:
            return .wheel(dy: Int(random.uniform(-5, 5)))
        case ..<0.72:
            return fingerEvent()
        case ..<0.84:
            let name = Storm.keys[Int(random.next() % UInt64(Storm.keys.count))]
            return .key(ScriptKey(name, ctrl: random.nextFloat() < 0.2, shift: random.nextFloat() < 0.1))
        case ..<0.87:
            return .resize(width: Int(random.uniform(1, 1600)), height: Int(random.uniform(1, 1200)))
        case ..<0.91:
            let data = [Int32.min, -1, 0, 1, 100_000, Int32.max]
            // SDL's window event ids 0…16 except 14 (close), which would end the program.
            let kinds = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16]
            return .bogusWindowEvent(kind: kinds[Int(random.next() % UInt64(kinds.count))],
                                     data1: data[Int(random.next() % UInt64(data.count))],
                                     data2: data[Int(random.next() % UInt64(data.count))])
        case ..<0.95:
            return .focusLost
        case ..<0.955:
            return .dropMissingFile
        default:
            return .unknownUserEvent
        }
    }

    private mutating func fingerEvent() -> StormEvent {
        let odd: [Float] = [.nan, .infinity, -.infinity, -3, 7, 1e30]
        func coordinate() -> Float {
            random.nextFloat() < 0.03 ? odd[Int(random.next() % UInt64(odd.count))] : random.uniform(-0.1, 1.1)
        }
        let pressure = random.nextFloat() < 0.05 ? Float.nan : random.nextFloat()
        if activeFingers.isEmpty || (activeFingers.count < 3 && random.nextFloat() < 0.2) {
            let id = Int64(random.next() % 5)
            if !activeFingers.contains(id) { activeFingers.append(id) }
            return .finger(id: id, x: coordinate(), y: coordinate(), phase: .down, pressure: pressure)
        }
        let id = activeFingers[Int(random.next() % UInt64(activeFingers.count))]
        if random.nextFloat() < 0.15 {
            activeFingers.removeAll { $0 == id }
            return .finger(id: id, x: coordinate(), y: coordinate(), phase: .up, pressure: pressure)
        }
        // Sometimes a finger nobody put down.
        let who = random.nextFloat() < 0.05 ? Int64(random.next() % 1000) : id
        return .finger(id: who, x: coordinate(), y: coordinate(), phase: .motion, pressure: pressure)
    }
}
