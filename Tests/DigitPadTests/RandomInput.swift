import DigitKit

/// Seeded random input for a window, as xdotool commands: drags that wander like strokes, jumps
/// off the window and far away, presses and releases of the three buttons, the wheel, keys with
/// and without Ctrl and Shift, resizes down to 1×1 (no window manager holds the window to its
/// minimum size), moves partly off the screen, and the window hidden and shown again. Never Esc,
/// and never the digit 5: the window must still be running at the end, and a test can mark its
/// own answer with label 5.
struct RandomInput {
    private var random: SplitMix64
    private let window: String
    private(set) var held: Set<Int> = []
    private var x = 100, y = 100

    init(seed: UInt64, window: String) {
        random = SplitMix64(seed: seed)
        self.window = window
    }

    static let keys = ["c", "s", "o", "z", "x", "a", "q", "7", "3", "0", "9", "BackSpace", "Delete", "Return", "space", "Tab"]

    /// The next event, for a window of `width × height`; pointer positions are relative to it.
    mutating func next(width: Int, height: Int) -> [String] {
        let w = max(width, 1), h = max(height, 1)
        let roll = random.nextFloat()
        switch roll {
        case ..<0.55:
            if random.nextFloat() < 0.05 {
                x = Int(random.uniform(-2000, 4000))
                y = Int(random.uniform(-2000, 4000))
            } else {
                x = min(max(x + Int(random.uniform(-25, 25)), -50), w + 50)
                y = min(max(y + Int(random.uniform(-25, 25)), -50), h + 50)
            }
            return ["mousemove", "--window", window, "--", "\(x)", "\(y)"]
        case ..<0.67:
            let button = random.nextFloat() < 0.8 ? 1 : (random.nextFloat() < 0.5 ? 3 : 2)
            if held.remove(button) != nil { return ["mouseup", "\(button)"] }
            held.insert(button)
            x = Int(random.uniform(0, Float(w)))
            y = Int(random.uniform(0, Float(h)))
            return ["mousemove", "--window", window, "\(x)", "\(y)", "mousedown", "\(button)"]
        case ..<0.70:
            return ["click", random.nextFloat() < 0.5 ? "4" : "5"]
        case ..<0.87:
            var key = RandomInput.keys[Int(random.next() % UInt64(RandomInput.keys.count))]
            if random.nextFloat() < 0.1 { key = "shift+" + key }
            if random.nextFloat() < 0.2 { key = "ctrl+" + key }
            return ["key", "--delay", "0", key]
        case ..<0.93:
            return ["windowsize", window, "\(Int(random.uniform(1, 1600)))", "\(Int(random.uniform(1, 1200)))"]
        case ..<0.98:
            // `--`: the numbers may be negative.
            return ["windowmove", "--", window, "\(Int(random.uniform(-300, 1100)))", "\(Int(random.uniform(-300, 900)))"]
        default:
            return ["windowunmap", "--sync", window, "windowmap", "--sync", window, "windowfocus", window]
        }
    }

    /// Releases the buttons still held.
    mutating func releaseAll() -> [String] {
        defer { held.removeAll() }
        return held.sorted().flatMap { ["mouseup", "\($0)"] }
    }
}
