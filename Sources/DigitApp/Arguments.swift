import DigitKit
/// A small command-line parser shared by the `digits` tool and the `digitpad` window.
/// Options take the forms `--name value` and `--name=value`; anything else is positional
/// (a lone `-` is positional: it means standard input). Unknown options are usage errors, and so
/// is a value that starts with `--` after `--name` (`--name=--value` passes one on purpose).
/// Numbers are checked against their range; NaN and infinities are refused.
public struct Arguments {
    private var items: [String]
    private var consumed: [Bool]

    public init(_ items: [String]) {
        self.items = items
        consumed = Array(repeating: false, count: items.count)
    }

    /// True when `--name` (or one of its aliases) is present.
    public mutating func flag(_ names: String...) -> Bool {
        var found = false
        for i in items.indices where !consumed[i] && names.contains(items[i]) {
            consumed[i] = true
            found = true
        }
        return found
    }

    /// The value of `--name value` or `--name=value` (the last one wins), or nil.
    public mutating func option(_ names: String...) throws -> String? {
        var value: String?
        var i = 0
        while i < items.count {
            defer { i += 1 }
            if consumed[i] { continue }
            let item = items[i]
            for name in names {
                if item == name {
                    guard i + 1 < items.count, !consumed[i + 1] else {
                        throw DigitError(.usage, "option \(name) needs a value")
                    }
                    // `--out --ascii` is a forgotten value, not a file named --ascii (write --out=--ascii for that).
                    guard !items[i + 1].hasPrefix("--") else {
                        throw DigitError(.usage, "option \(name) needs a value, found the option '\(items[i + 1])'")
                    }
                    consumed[i] = true
                    consumed[i + 1] = true
                    value = items[i + 1]
                    i += 1
                } else if item.hasPrefix(name + "=") {
                    consumed[i] = true
                    value = String(item.dropFirst(name.count + 1))
                }
            }
        }
        return value
    }

    public mutating func int(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = try option(name) else { return fallback }
        guard let v = Int(text), range.contains(v) else {
            let expected = range.upperBound == Int.max ? "a whole number of at least \(range.lowerBound)"
                                                       : "an integer in \(range.lowerBound)...\(range.upperBound)"
            throw DigitError(.usage, "\(name) must be \(expected), got '\(text)'")
        }
        return v
    }

    public mutating func float(_ name: String, default fallback: Float, range: ClosedRange<Float>) throws -> Float {
        try float(name, range: range) ?? fallback
    }

    /// The option's value as a number in `range`, or nil when the option is absent.
    public mutating func float(_ name: String, range: ClosedRange<Float>) throws -> Float? {
        guard let text = try option(name) else { return nil }
        guard let v = Float(text), v.isFinite, range.contains(v) else {
            throw DigitError(.usage, "\(name) must be a number in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
        }
        return v
    }

    /// The positional arguments; call after reading every option. Fails on unknown options.
    public mutating func positionals() throws -> [String] {
        var result: [String] = []
        var i = 0
        var rest = false
        while i < items.count {
            defer { i += 1 }
            if consumed[i] { continue }
            let item = items[i]
            if !rest && item == "--" { rest = true; continue }
            if !rest && item.hasPrefix("-") && item != "-" {
                throw DigitError(.usage, "unknown option '\(item)' (see --help)")
            }
            consumed[i] = true
            result.append(item)
        }
        return result
    }
}
