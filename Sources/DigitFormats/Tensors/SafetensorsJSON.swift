/// A strict JSON reader for safetensors headers (RFC 8259 grammar), built to survive hostile input:
/// nesting is capped at `maxDepth` levels, so a header of 100,000 `[` fails with an error instead of
/// overflowing the stack; every failure names the absolute byte offset in the file.
///
/// It is not a general JSON library. Objects keep their members in document order, duplicates
/// included, so the caller can reject duplicate keys with a message that knows what the key means.
/// Numbers are kept as their literal text; the caller decides which forms it accepts.
indirect enum SafetensorsJSON {
    case object([(key: String, value: SafetensorsJSON)])
    case array([SafetensorsJSON])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    /// A short name of the value's kind for messages: "a string", "an array"…
    var kindName: String {
        switch self {
        case .object: return "an object"
        case .array: return "an array"
        case .string: return "a string"
        case .number(let text): return "the number \(text)"
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        }
    }

    /// The value of a number literal that is a non-negative integer in `0...Int.max`
    /// (`7`, not `7.0`, `7e0` or `-0`), or nil.
    var nonNegativeInt: Int? {
        guard case .number(let text) = self, text.first != "-" else { return nil }
        return Int(text)
    }

    /// Parses `bytes` as one JSON value, optionally followed by JSON whitespace.
    /// `baseOffset` is the file offset of `bytes[0]`, used in error locations.
    /// The caller must have checked that `bytes` is valid UTF-8.
    static func parse(_ bytes: [UInt8], baseOffset: Int, maxDepth: Int, file: String) throws -> SafetensorsJSON {
        var parser = Parser(bytes: bytes, base: baseOffset, maxDepth: maxDepth, file: file)
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        if parser.index < bytes.count {
            throw parser.error("unexpected \(parser.describeCurrent()) after the end of the JSON header")
        }
        return value
    }

    /// The byte offset of the first byte that is not part of well-formed UTF-8 (Unicode 15, table 3-7:
    /// no overlong forms, no surrogates, nothing above U+10FFFF), or nil when all of `bytes` is valid.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b < 0x80 { i += 1; continue }
            var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
            let length: Int
            switch b {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lo = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; hi = 0x9F
            case 0xF0: length = 4; lo = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; hi = 0x8F
            default: return i
            }
            guard i + length <= n else { return i }
            guard (lo...hi).contains(bytes[i + 1]) else { return i }
            for k in 2..<length where !(0x80...0xBF).contains(bytes[i + k]) { return i }
            i += length
        }
        return nil
    }

    private struct Parser {
        let bytes: [UInt8]
        let base: Int
        let maxDepth: Int
        let file: String
        var index = 0

        init(bytes: [UInt8], base: Int, maxDepth: Int, file: String) {
            self.bytes = bytes
            self.base = base
            self.maxDepth = maxDepth
            self.file = file
        }

        func error(_ message: String, at offset: Int? = nil) -> DigitError {
            DigitError(.format, file: file, at: "byte \(base + (offset ?? index))", "header: \(message)")
        }

        func describeCurrent() -> String {
            guard index < bytes.count else { return "end of header" }
            let b = bytes[index]
            if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
            return "byte 0x" + String(b, radix: 16, uppercase: true)
        }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        // Recursion depth is bounded by `maxDepth`, checked before each nested container.
        mutating func value(depth: Int) throws -> SafetensorsJSON {
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of header, expected a JSON value") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                guard depth < maxDepth else { throw error("JSON nested deeper than \(maxDepth) levels") }
                return try object(depth: depth + 1)
            case UInt8(ascii: "["):
                guard depth < maxDepth else { throw error("JSON nested deeper than \(maxDepth) levels") }
                return try array(depth: depth + 1)
            case UInt8(ascii: "\""):
                return .string(try string())
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return .number(try number())
            case UInt8(ascii: "t"):
                try literal("true"); return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false"); return .bool(false)
            case UInt8(ascii: "n"):
                try literal("null"); return .null
            default:
                throw error("unexpected \(describeCurrent()), expected a JSON value")
            }
        }

        mutating func literal(_ word: String) throws {
            for expected in word.utf8 {
                guard index < bytes.count, bytes[index] == expected else {
                    throw error("invalid literal, expected '\(word)'")
                }
                index += 1
            }
        }

        mutating func object(depth: Int) throws -> SafetensorsJSON {
            index += 1  // {
            var members: [(key: String, value: SafetensorsJSON)] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw error("unexpected \(describeCurrent()), expected a string key")
                }
                let key = try string()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                    throw error("unexpected \(describeCurrent()), expected ':' after a key")
                }
                index += 1
                members.append((key, try value(depth: depth)))
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of header inside an object") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                throw error("unexpected \(describeCurrent()), expected ',' or '}'")
            }
        }

        mutating func array(depth: Int) throws -> SafetensorsJSON {
            index += 1  // [
            var elements: [SafetensorsJSON] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                elements.append(try value(depth: depth))
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of header inside an array") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
                throw error("unexpected \(describeCurrent()), expected ',' or ']'")
            }
        }

        /// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? — returned as its text.
        mutating func number() throws -> String {
            let start = index
            func digits(_ p: inout Parser) -> Int {
                let s = p.index
                while p.index < p.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(p.bytes[p.index]) {
                    p.index += 1
                }
                return p.index - s
            }
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else {
                throw error("invalid number: expected a digit")
            }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                if index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                    throw error("invalid number: leading zero", at: start)
                }
            } else {
                _ = digits(&self)
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits(&self) > 0 else { throw error("invalid number: expected a digit after '.'") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard digits(&self) > 0 else { throw error("invalid number: expected a digit in the exponent") }
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func hex4() throws -> UInt32 {
            guard index + 4 <= bytes.count else { throw error("unexpected end of header inside a \\u escape") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let b = bytes[index]
                let d: UInt8
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): d = b - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): d = b - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): d = b - UInt8(ascii: "A") + 10
                default: throw error("invalid \\u escape: expected 4 hex digits")
                }
                v = v << 4 | UInt32(d)
                index += 1
            }
            return v
        }

        mutating func string() throws -> String {
            let start = index
            index += 1  // "
            var out: [UInt8] = []
            while true {
                guard index < bytes.count else { throw error("unterminated string", at: start) }
                let b = bytes[index]
                if b == UInt8(ascii: "\"") { index += 1; break }
                if b < 0x20 { throw error("control character 0x\(String(b, radix: 16)) inside a string must be escaped") }
                if b != UInt8(ascii: "\\") { out.append(b); index += 1; continue }
                let escapeAt = index
                index += 1
                guard index < bytes.count else { throw error("unterminated string", at: start) }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800...0xDBFF).contains(code) {
                        guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw error("lone UTF-16 surrogate in \\u escape", at: escapeAt)
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else {
                            throw error("lone UTF-16 surrogate in \\u escape", at: escapeAt)
                        }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(code) {
                        throw error("lone UTF-16 surrogate in \\u escape", at: escapeAt)
                    }
                    guard let scalar = Unicode.Scalar(code) else {
                        throw error("invalid \\u escape", at: escapeAt)
                    }
                    out.append(contentsOf: String(Character(scalar)).utf8)
                default:
                    index = escapeAt + 1
                    throw error("invalid escape \\ followed by \(describeCurrent()) in a string", at: escapeAt)
                }
            }
            // The header was validated as UTF-8 and escapes produce scalars, so decoding cannot repair anything.
            return String(decoding: out, as: UTF8.self)
        }
    }
}
