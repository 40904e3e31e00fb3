import DigitApp
import DigitKit

/// A key for scripts: a letter, a digit or a named key, with optional Ctrl and Shift.
public struct ScriptKey: Equatable, Sendable {
    /// "a"…"z", "0"…"9", or one of `ScriptKey.named`.
    public var name: String
    public var ctrl: Bool
    public var shift: Bool

    public init(_ name: String, ctrl: Bool = false, shift: Bool = false) {
        self.name = name
        self.ctrl = ctrl
        self.shift = shift
    }

    public static let named = ["backspace", "delete", "escape", "return", "space", "tab"]

    /// Parses `ctrl+z`, `shift+s`, `backspace`, `7`.
    public static func parse(_ text: String) -> ScriptKey? {
        var parts = text.lowercased().split(separator: "+").map(String.init)
        guard let last = parts.popLast() else { return nil }
        var key = ScriptKey(last)
        for modifier in parts {
            switch modifier {
            case "ctrl", "control": key.ctrl = true
            case "shift": key.shift = true
            default: return nil
            }
        }
        let aliases = ["esc": "escape", "enter": "return", "del": "delete"]
        key.name = aliases[key.name] ?? key.name
        let isSingle = key.name.count == 1 && key.name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("0"..."9").contains($0)
        }
        return isSingle || named.contains(key.name) ? key : nil
    }
}

/// One step of a `--script`. Steps run one after another; each waits until the events of the
/// previous one have been handled, and `wait`, `print` and `snapshot` also wait until the
/// answer for the current drawing is shown.
public enum ScriptStep: Equatable, Sendable {
    /// Replays drawing `index` of a stroke file through mouse events (`touch`: finger events).
    case draw(path: String, index: Int, touch: Bool)
    case key(ScriptKey)
    /// A primary click in the middle of a panel button.
    case click(PadButton)
    /// A secondary click in the middle of the canvas.
    case rightClick
    case resize(width: Int, height: Int)
    case wait
    /// Prints the current answer as a JSON line, like `--print` does after a stroke.
    case print
    case snapshot(String)
    /// `count` random mouse, touch, key and window events from a seeded generator.
    case storm(count: Int, seed: UInt64)

    /// Parses steps separated by `;` or newlines; words are separated by spaces.
    public static func parse(_ text: String) throws -> [ScriptStep] {
        var steps: [ScriptStep] = []
        let pieces = text.split(omittingEmptySubsequences: false) { $0 == ";" || $0 == "\n" }
        for (i, piece) in pieces.enumerated() {
            let words = piece.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let verb = words.first else { continue }
            let place = "--script step \(i + 1)"
            func fail(_ message: String) -> DigitError { DigitError(.usage, at: place, message) }
            func arguments(_ range: ClosedRange<Int>) throws {
                guard range.contains(words.count - 1) else {
                    throw fail("'\(verb)' takes \(range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)") argument(s), got \(words.count - 1)")
                }
            }
            func integer(_ text: String, _ range: ClosedRange<Int>, _ what: String) throws -> Int {
                guard let v = Int(text), range.contains(v) else {
                    throw fail("\(what) must be an integer in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
                }
                return v
            }
            switch verb.lowercased() {
            case "draw", "touch":
                try arguments(1...2)
                let index = words.count > 2 ? try integer(words[2], 0...10_000_000, "the drawing index") : 0
                steps.append(.draw(path: words[1], index: index, touch: verb.lowercased() == "touch"))
            case "key":
                try arguments(1...1)
                guard let key = ScriptKey.parse(words[1]) else {
                    throw fail("unknown key '\(words[1])' (a letter, a digit, \(ScriptKey.named.joined(separator: ", ")), with ctrl+ or shift+)")
                }
                steps.append(.key(key))
            case "undo": try arguments(0...0); steps.append(.key(ScriptKey("z", ctrl: true)))
            case "clear": try arguments(0...0); steps.append(.key(ScriptKey("c")))
            case "save": try arguments(0...0); steps.append(.key(ScriptKey("s")))
            case "open": try arguments(0...0); steps.append(.key(ScriptKey("o")))
            case "label":
                try arguments(1...1)
                let d = try integer(words[1], 0...9, "the label")
                steps.append(.key(ScriptKey(String(d))))
            case "click":
                try arguments(1...1)
                guard let button = PadButton(rawValue: words[1].lowercased()) else {
                    throw fail("unknown button '\(words[1])' (clear, undo, save or open)")
                }
                steps.append(.click(button))
            case "rightclick": try arguments(0...0); steps.append(.rightClick)
            case "resize":
                try arguments(2...2)
                steps.append(.resize(width: try integer(words[1], 1...8192, "the width"),
                                     height: try integer(words[2], 1...8192, "the height")))
            case "wait": try arguments(0...0); steps.append(.wait)
            case "print": try arguments(0...0); steps.append(.print)
            case "snapshot":
                try arguments(1...1)
                guard words[1].lowercased().hasSuffix(".png") else { throw fail("snapshot needs a .png file, got '\(words[1])'") }
                steps.append(.snapshot(words[1]))
            case "storm":
                try arguments(1...2)
                let count = try integer(words[1], 1...1_000_000, "the event count")
                var seed: UInt64 = 1
                if words.count > 2 {
                    guard let s = UInt64(words[2]) else { throw fail("the seed must be a non-negative integer, got '\(words[2])'") }
                    seed = s
                }
                steps.append(.storm(count: count, seed: seed))
            default:
                throw fail("unknown step '\(verb)' (draw, touch, key, undo, clear, save, open, label, click, rightclick, resize, wait, print, snapshot, storm)")
            }
        }
        return steps
    }
}
