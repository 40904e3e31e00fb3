import Foundation

/// A one-line live progress display on stderr when it is a terminal; otherwise only finished lines.
public final class ProgressLine {
    public let live = isatty(2) != 0
    private var last = Date.distantPast

    public init() {}

    public func update(_ text: String) {
        guard live, Date().timeIntervalSince(last) > 0.2 else { return }
        last = Date()
        FileHandle.standardError.write(("\r\u{1B}[2K" + text).data(using: .utf8)!)
    }

    public func finish(_ text: String) {
        FileHandle.standardError.write(((live ? "\r\u{1B}[2K" : "") + text + "\n").data(using: .utf8)!)
    }

    public static func bar(_ fraction: Double, width: Int) -> String {
        let filled = Int((fraction * Double(width)).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: max(width - filled, 0)) + "]"
    }

    public static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "--" }
        let s = Int(seconds)
        return s >= 3600 ? String(format: "%dh%02dm", s / 3600, s / 60 % 60) : String(format: "%dm%02ds", s / 60, s % 60)
    }
}
