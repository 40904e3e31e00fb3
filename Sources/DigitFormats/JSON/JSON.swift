/// A JSON value (RFC 8259). Numbers are held as `Double` (always finite: the parser rejects
/// numbers that overflow to ±infinity); object members keep their order as written.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])

    /// Parses one JSON document with `JSONParser` (default depth limit 64).
    public static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        try JSONParser.parse(bytes)
    }

    /// The value of the first member named `key` when this is an object, else nil.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        for member in members where member.key == key { return member.value }
        return nil
    }

    /// What kind of value this is, phrased for error messages: "a number", "an array"…
    public var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The value named for an error message: "the number 3", "a string", "an array"…
    public var described: String {
        if case let .number(v) = self { return "the number \(JSONValue.format(v))" }
        return kindDescription
    }

    /// Compact JSON text (no spaces). Numbers print as integers when they are whole and
    /// |v| < 2^53, otherwise in Swift's shortest round-trip form, so `parse(serialized())`
    /// gives back the same value. Recursive: meant for values of bounded depth, like parsed ones.
    public func serialized() -> String {
        var writer = JSONWriter()
        writer.value(self)
        return writer.text
    }

    /// A finite number as JSON text; non-finite values (which JSON cannot hold) print as `null`.
    static func format(_ v: Double) -> String {
        guard v.isFinite else { return "null" }
        if v == v.rounded(), abs(v) < 9_007_199_254_740_992 {
            return v == 0 ? (v.sign == .minus ? "-0" : "0") : String(Int64(v))
        }
        return v.description
    }
}

/// One `"key": value` member of a JSON object.
public struct JSONMember: Equatable, Sendable {
    public var key: String
    public var value: JSONValue

    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}

/// A strict RFC 8259 JSON parser working directly on UTF-8 bytes.
///
/// - Any value may be the top level; only whitespace may follow it. A leading UTF-8 byte order
///   mark is skipped (RFC 8259 §8.1 allows ignoring it).
/// - Strings must be valid UTF-8 (RFC 3629: no overlong forms, no encoded surrogates, nothing above
///   U+10FFFF); `\u` escapes must pair surrogates correctly; control characters below U+0020 must be escaped.
/// - Numbers follow the JSON grammar exactly (no leading zeros, `+`, `.5`, `1.`, hex, NaN or
///   Infinity) and are rounded correctly to `Double`; a number whose magnitude overflows to
///   infinity (such as `1e999`) is an error, one that underflows becomes ±0.
/// - Duplicate keys in one object are an error (RFC 8259 leaves their meaning open).
/// - Nesting deeper than `maxDepth` arrays/objects (default 64) is a `.limit` error. The parser
///   keeps its own stack instead of recursing, so no input can overflow the call stack.
///
/// Errors are `DigitError(.format)` (or `.limit`) located as `line L, column C (byte B)`:
/// lines and columns are 1-based, columns count Unicode scalars, the byte offset is 0-based.
public enum JSONParser {
    public static let defaultMaxDepth = 64

    /// Parses one JSON document.
    public static func parse(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth) throws -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer in
            var parser = Parser(buffer: buffer, start: 0, end: buffer.count, firstLine: 1, maxDepth: maxDepth)
            return try parser.parseDocument()
        }
    }

    /// Parses one JSON document.
    public static func parse(_ text: String, maxDepth: Int = defaultMaxDepth) throws -> JSONValue {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }

    /// Parses the document held in `bytes[range]`, byte offsets in errors counted from the start of
    /// `bytes` (a document embedded in a file, like a safetensors header). With
    /// `allowDuplicateKeys`, objects keep repeated keys in order, for a caller that words the error.
    public static func parse(_ bytes: [UInt8], range: Range<Int>, maxDepth: Int = defaultMaxDepth,
                             allowDuplicateKeys: Bool = false) throws -> JSONValue {
        try bytes.withUnsafeBufferPointer {
            var parser = Parser(buffer: $0, start: range.lowerBound, end: range.upperBound, firstLine: 1, maxDepth: maxDepth)
            parser.allowDuplicateKeys = allowDuplicateKeys
            return try parser.parseDocument()
        }
    }

    /// Parses the document held in `buffer[range]`, reporting positions as if the range started
    /// on line `firstLine` and byte offsets relative to the whole buffer (used for JSON Lines).
    static func parse(
        _ buffer: UnsafeBufferPointer<UInt8>, range: Range<Int>, firstLine: Int, maxDepth: Int = defaultMaxDepth
    ) throws -> JSONValue {
        var parser = Parser(buffer: buffer, start: range.lowerBound, end: range.upperBound, firstLine: firstLine, maxDepth: maxDepth)
        return try parser.parseDocument()
    }
}

private let quote = UInt8(ascii: "\"")
private let backslash = UInt8(ascii: "\\")

/// Exact powers of ten representable in a Double (10^22 is the largest), for the fast path of
/// number conversion (Clinger 1990): a mantissa below 2^53 times or divided by one of these is
/// rounded correctly by a single IEEE operation.
private let exactPowersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]

/// ±mantissa × 10^exponent for a mantissa below 2^53 and |exponent| ≤ 22, correctly rounded. Both
/// number readers (`parseNumber` and the stroke fast path's `plainNumber`) convert through this one
/// function, which is what makes their results the same bits.
@inline(__always)
private func exactDecimal(_ mantissa: UInt64, exponent: Int, negative: Bool) -> Double {
    var result = Double(mantissa)
    if exponent >= 0 { result *= exactPowersOfTen[exponent] } else { result /= exactPowersOfTen[-exponent] }
    return negative ? -result : result
}

private struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    let start: Int
    let end: Int
    let firstLine: Int
    let maxDepth: Int
    var pos: Int
    var allowDuplicateKeys = false

    init(buffer: UnsafeBufferPointer<UInt8>, start: Int, end: Int, firstLine: Int, maxDepth: Int) {
        bytes = buffer
        self.start = start
        self.end = end
        self.firstLine = firstLine
        self.maxDepth = maxDepth
        pos = start
    }

    /// An open array or object: where its elements start on the element stack, and for an
    /// object the key of the member being parsed.
    private struct Frame {
        var isObject: Bool
        var start: Int
        var key = ""
    }

    mutating func parseDocument() throws -> JSONValue {
        if pos + 3 <= end, bytes[pos] == 0xEF, bytes[pos + 1] == 0xBB, bytes[pos + 2] == 0xBF { pos += 3 }
        // An explicit stack of open containers instead of recursion: no input can overflow the
        // call stack. Finished elements wait on two flat stacks and are moved (not copied) into
        // an exactly sized array when their container closes.
        var frames: [Frame] = []
        var items = MoveStack<JSONValue>()
        var members = MoveStack<JSONMember>()
        defer {
            items.destroy()
            members.destroy()
        }
        skipWhitespace()
        parsing: while true {
            var value: JSONValue
            switch try peekValueStart() {
            case UInt8(ascii: "["):
                if frames.count >= maxDepth { throw depthError() }
                pos += 1
                skipWhitespace()
                if pos < end, bytes[pos] == UInt8(ascii: "]") {
                    pos += 1
                    value = .array([])
                } else {
                    frames.append(Frame(isObject: false, start: items.count))
                    continue parsing
                }
            case UInt8(ascii: "{"):
                if frames.count >= maxDepth { throw depthError() }
                pos += 1
                skipWhitespace()
                if pos < end, bytes[pos] == UInt8(ascii: "}") {
                    pos += 1
                    value = .object([])
                } else {
                    frames.append(Frame(isObject: true, start: members.count, key: try parseKey()))
                    continue parsing
                }
            case quote:
                value = .string(try parseString())
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                value = .null
            default:
                value = .number(try parseNumber())
            }
            // A value is complete: hand it to the innermost open container, closing as many
            // containers as the following brackets say.
            while true {
                let top = frames.count - 1
                guard top >= 0 else {
                    skipWhitespace()
                    if pos < end { throw error("unexpected \(describeByte(at: pos)) after the JSON value") }
                    return value
                }
                let isObject = frames[top].isObject
                if isObject {
                    members.push(JSONMember(frames[top].key, consume value))
                } else {
                    items.push(consume value)
                }
                skipWhitespace()
                guard pos < end else {
                    throw error("unexpected end of input inside \(isObject ? "an object" : "an array")")
                }
                let byte = bytes[pos]
                if byte == UInt8(ascii: ",") {
                    pos += 1
                    if isObject { frames[top].key = try parseKey() }
                    continue parsing
                }
                if isObject {
                    guard byte == UInt8(ascii: "}") else {
                        throw error("expected ',' or '}' after an object member, found \(describeByte(at: pos))")
                    }
                    let object = members.popArray(from: frames[top].start)
                    if !allowDuplicateKeys, let duplicate = firstDuplicate(object) {
                        throw error("duplicate key \"\(duplicate)\" in the object ending here")
                    }
                    pos += 1
                    value = .object(object)
                } else {
                    guard byte == UInt8(ascii: "]") else {
                        throw error("expected ',' or ']' after an array element, found \(describeByte(at: pos))")
                    }
                    pos += 1
                    value = .array(items.popArray(from: frames[top].start))
                }
                frames.removeLast()
            }
        }
    }

    /// Skips whitespace and returns the first byte of the value there, or throws if none can start.
    @inline(__always)
    private mutating func peekValueStart() throws -> UInt8 {
        skipWhitespace()
        guard pos < end else { throw error("expected a JSON value, found end of input") }
        let byte = bytes[pos]
        switch byte {
        case UInt8(ascii: "["), UInt8(ascii: "{"), quote, UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"),
             UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return byte
        default:
            if let word = nonNumberWord(at: pos) { throw nonNumberError(word) }
            throw error("expected a JSON value, found \(describeByte(at: pos))")
        }
    }

    /// `NaN`, `Infinity` or `-Infinity` (as other programs print non-finite numbers) at `index`.
    private func nonNumberWord(at index: Int) -> String? {
        for word in ["NaN", "Infinity", "-Infinity", "inf", "-inf"] {
            let utf8 = Array(word.utf8)
            if index + utf8.count <= end, (0..<utf8.count).allSatisfy({ bytes[index + $0] == utf8[$0] }) { return word }
        }
        return nil
    }

    private func nonNumberError(_ word: String) -> DigitError {
        error("\(word) is not a number JSON allows (no NaN or infinities); write a finite number")
    }

    /// `"key"` followed by `:`, with the whitespace around them.
    @inline(__always)
    private mutating func parseKey() throws -> String {
        skipWhitespace()
        guard pos < end, bytes[pos] == quote else {
            throw error("expected a string key in the object, found \(describeByte(at: pos))")
        }
        let key = try parseString()
        skipWhitespace()
        guard pos < end, bytes[pos] == UInt8(ascii: ":") else {
            throw error("expected ':' after the object key \"\(key)\", found \(describeByte(at: pos))")
        }
        pos += 1
        return key
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while pos < end {
            let byte = bytes[pos]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            pos += 1
        }
    }

    private mutating func expectLiteral(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        let literal = UnsafeBufferPointer(start: word.utf8Start, count: count)
        for i in 0..<count where pos + i >= end || bytes[pos + i] != literal[i] {
            throw error("expected '\(word)', found \(describeByte(at: pos + i))", at: pos + i)
        }
        pos += count
    }

    // MARK: Strings

    private mutating func parseString() throws -> String {
        let open = pos
        pos += 1
        let contentStart = pos
        while pos < end {
            let byte = bytes[pos]
            if byte == quote {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[contentStart..<pos]), as: UTF8.self)
                pos += 1
                return text
            }
            if byte == backslash { return try parseEscapedString(contentStart: contentStart, open: open) }
            if byte < 0x20 { throw error("control character \(hexByte(byte)) in a string must be escaped") }
            if byte < 0x80 { pos += 1 } else { try skipUTF8Sequence() }
        }
        throw error("unterminated string (opened at byte \(open))", at: open)
    }

    /// The slow path, taken from the first backslash on: decodes escapes into a byte buffer.
    private mutating func parseEscapedString(contentStart: Int, open: Int) throws -> String {
        var buffer = Array(UnsafeBufferPointer(rebasing: bytes[contentStart..<pos]))
        while pos < end {
            let byte = bytes[pos]
            if byte == quote {
                pos += 1
                return String(decoding: buffer, as: UTF8.self)
            }
            if byte < 0x20 { throw error("control character \(hexByte(byte)) in a string must be escaped") }
            if byte >= 0x80 {
                let first = pos
                try skipUTF8Sequence()
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[first..<pos]))
                continue
            }
            guard byte == backslash else {
                buffer.append(byte)
                pos += 1
                continue
            }
            guard pos + 1 < end else { break }
            let escape = bytes[pos + 1]
            switch escape {
            case quote, backslash, UInt8(ascii: "/"): buffer.append(escape)
            case UInt8(ascii: "b"): buffer.append(0x08)
            case UInt8(ascii: "f"): buffer.append(0x0C)
            case UInt8(ascii: "n"): buffer.append(0x0A)
            case UInt8(ascii: "r"): buffer.append(0x0D)
            case UInt8(ascii: "t"): buffer.append(0x09)
            case UInt8(ascii: "u"):
                let escapeStart = pos
                var scalar = try hex4(at: pos + 2)
                pos += 6
                if (0xDC00...0xDFFF).contains(scalar) {
                    throw error("lone low surrogate \\u\(String(scalar, radix: 16, uppercase: true)) in a string", at: escapeStart)
                }
                if (0xD800...0xDBFF).contains(scalar) {
                    guard pos + 1 < end, bytes[pos] == backslash, bytes[pos + 1] == UInt8(ascii: "u") else {
                        throw error("lone high surrogate \\u\(String(scalar, radix: 16, uppercase: true)) in a string", at: escapeStart)
                    }
                    let low = try hex4(at: pos + 2)
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw error("high surrogate \\u\(String(scalar, radix: 16, uppercase: true)) is not followed by a low surrogate", at: escapeStart)
                    }
                    pos += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                appendUTF8(scalar, to: &buffer)
                continue
            default:
                throw error("invalid escape '\\\(describeRaw(escape))' in a string")
            }
            pos += 2
        }
        throw error("unterminated string (opened at byte \(open))", at: open)
    }

    private func hex4(at index: Int) throws -> UInt32 {
        var value: UInt32 = 0
        for i in index..<(index + 4) {
            guard i < end else { throw error("incomplete \\u escape, found end of input", at: i) }
            let byte = bytes[i]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("expected a hex digit in a \\u escape, found \(describeByte(at: i))", at: i)
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    private func appendUTF8(_ scalar: UInt32, to buffer: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            buffer.append(UInt8(scalar))
        case 0x80..<0x800:
            buffer.append(UInt8(0xC0 | scalar >> 6))
            buffer.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            buffer.append(UInt8(0xE0 | scalar >> 12))
            buffer.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            buffer.append(UInt8(0x80 | scalar & 0x3F))
        default:
            buffer.append(UInt8(0xF0 | scalar >> 18))
            buffer.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            buffer.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            buffer.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Validates one multi-byte UTF-8 sequence at `pos` (RFC 3629 table) and steps over it.
    private mutating func skipUTF8Sequence() throws {
        let lead = bytes[pos]
        let count: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF  // allowed range of the second byte
        switch lead {
        case 0xC2...0xDF: count = 2
        case 0xE0: count = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: count = 3
        case 0xED: count = 3; high = 0x9F  // U+D800…U+DFFF are not characters
        case 0xF0: count = 4; low = 0x90
        case 0xF1...0xF3: count = 4
        case 0xF4: count = 4; high = 0x8F  // nothing above U+10FFFF
        default: throw error("invalid UTF-8 byte \(hexByte(lead)) in a string")
        }
        for i in 1..<count {
            guard pos + i < end else { throw error("truncated UTF-8 sequence in a string", at: pos) }
            let byte = bytes[pos + i]
            let range = i == 1 ? low...high : 0x80...0xBF
            guard range.contains(byte) else {
                throw error("invalid UTF-8 sequence in a string (byte \(hexByte(byte)) after \(hexByte(lead)))", at: pos)
            }
        }
        pos += count
    }

    // MARK: Numbers

    private mutating func parseNumber() throws -> Double {
        let numberStart = pos
        var negative = false
        if bytes[pos] == UInt8(ascii: "-") {
            negative = true
            pos += 1
        }
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var exponent = 0
        var inexact = false
        guard pos < end, isDigit(bytes[pos]) else {
            if negative, let word = nonNumberWord(at: numberStart) { throw error(nonNumberError(word).message, at: numberStart) }
            throw error("expected a digit in the number, found \(describeByte(at: pos))")
        }
        if bytes[pos] == UInt8(ascii: "0") {
            pos += 1
            if pos < end, isDigit(bytes[pos]) {
                throw error("a number must not have leading zeros", at: numberStart)
            }
        } else {
            while pos < end, isDigit(bytes[pos]) {
                if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(bytes[pos] &- UInt8(ascii: "0"))
                    significantDigits += 1
                } else {
                    if bytes[pos] != UInt8(ascii: "0") { inexact = true }
                    exponent += 1
                }
                pos += 1
            }
        }
        if pos < end, bytes[pos] == UInt8(ascii: ".") {
            pos += 1
            guard pos < end, isDigit(bytes[pos]) else {
                throw error("expected a digit after the decimal point, found \(describeByte(at: pos))")
            }
            while pos < end, isDigit(bytes[pos]) {
                let digit = bytes[pos] &- UInt8(ascii: "0")
                if mantissa == 0 && digit == 0 {
                    exponent -= 1  // leading zeros of a fraction are not significant
                } else if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                    significantDigits += 1
                    exponent -= 1
                } else if digit != 0 {
                    inexact = true
                }
                pos += 1
            }
        }
        if pos < end, bytes[pos] == UInt8(ascii: "e") || bytes[pos] == UInt8(ascii: "E") {
            pos += 1
            var exponentNegative = false
            if pos < end, bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-") {
                exponentNegative = bytes[pos] == UInt8(ascii: "-")
                pos += 1
            }
            guard pos < end, isDigit(bytes[pos]) else {
                throw error("expected a digit in the exponent, found \(describeByte(at: pos))")
            }
            var value = 0
            while pos < end, isDigit(bytes[pos]) {
                // Saturate: any exponent this large already means overflow or underflow.
                if value < 1_000_000 { value = value * 10 + Int(bytes[pos] &- UInt8(ascii: "0")) }
                pos += 1
            }
            exponent += exponentNegative ? -value : value
        }
        if mantissa == 0 && !inexact { return negative ? -0.0 : 0.0 }
        var result: Double
        if !inexact, significantDigits <= 15, (-22...22).contains(exponent) {
            result = exactDecimal(mantissa, exponent: exponent, negative: negative)
        } else {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[numberStart..<pos]), as: UTF8.self)
            guard let converted = Double(text) else {
                throw error("number \(text) cannot be converted", at: numberStart)
            }
            result = converted
        }
        guard result.isFinite else {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[numberStart..<min(pos, numberStart + 40)]), as: UTF8.self)
            throw error("number \(text)\(pos - numberStart > 40 ? "…" : "") is too large: it overflows to infinity", at: numberStart)
        }
        return result
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    // MARK: Errors

    private func depthError() -> DigitError {
        var e = error("nesting deeper than \(maxDepth) arrays/objects")
        e.kind = .limit
        return e
    }

    private func error(_ message: String, at index: Int? = nil) -> DigitError {
        DigitError(.format, at: location(of: min(index ?? pos, end)), message)
    }

    /// `line L, column C (byte B)` for a byte index.
    func location(of index: Int) -> String {
        var line = firstLine
        var column = 1
        var i = start
        while i < index {
            let byte = bytes[i]
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            i += 1
        }
        return "line \(line), column \(column) (byte \(index))"
    }

    private func describeByte(at index: Int) -> String {
        guard index < end else { return "end of input" }
        let byte = bytes[index]
        switch byte {
        case 0x20: return "a space"
        case 0x0A, 0x0D: return "a line break"
        case 0x21...0x7E: return "'\(describeRaw(byte))'"
        default: return "byte \(hexByte(byte))"
        }
    }

    private func describeRaw(_ byte: UInt8) -> String {
        (0x20...0x7E).contains(byte) ? String(UnicodeScalar(byte)) : hexByte(byte)
    }

    private func hexByte(_ byte: UInt8) -> String {
        let hex = String(byte, radix: 16, uppercase: true)
        return "0x" + (hex.count < 2 ? "0" : "") + hex
    }
}

/// A growable stack whose top elements become a new exactly sized array when their container
/// closes. The owner must call `destroy()` exactly once.
private struct MoveStack<Element> {
    private var base: UnsafeMutablePointer<Element>
    private var capacity = 64
    private(set) var count = 0

    init() {
        base = .allocate(capacity: capacity)
    }

    @inline(__always)
    mutating func push(_ element: consuming Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: consume element)
        count += 1
    }

    private mutating func grow() {
        let bigger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity *= 2
    }

    /// The elements from `start` to the top, in order, removed from the stack.
    mutating func popArray(from start: Int) -> [Element] {
        let n = count - start
        guard n > 0 else { return [] }
        let source = base + start
        count = start
        // Elements are moved one by one into a reserved array: measured faster than both
        // Array(unsafeUninitializedCapacity:) (a run-time generic metadata lookup per call) and
        // copying then deinitializing (a retain and release per element).
        var array: [Element] = []
        array.reserveCapacity(n)
        for i in 0..<n { array.append((source + i).move()) }
        return array
    }

    func destroy() {
        base.deinitialize(count: count)
        base.deallocate()
    }
}

/// Returns a key that occurs twice among `members`, if any. Small objects (points) are checked pairwise.
private func firstDuplicate(_ members: [JSONMember]) -> String? {
    if members.count <= 12 {
        for i in members.indices {
            for j in (i + 1)..<members.count where members[i].key == members[j].key { return members[i].key }
        }
        return nil
    }
    var seen = Set<String>()
    for member in members where !seen.insert(member.key).inserted { return member.key }
    return nil
}

/// Token-level reading of a JSON document for decoders that want their values straight from the
/// bytes, without building a `JSONValue` tree (the stroke fast path, `StrokeJSON.decodePlain`).
/// It recognises only the plain subset those decoders accept: every method returns nil or false
/// as soon as the input is anything else — malformed or merely unusual (escapes or non-ASCII in a
/// key) — and the caller then falls back to `JSONParser`, which accepts or rejects the document
/// and words the error. Numbers go through the parser's own conversion, so a value read here is
/// bit for bit the value `JSONParser` would produce.
struct JSONScanner {
    private var parser: Parser

    init(_ buffer: UnsafeBufferPointer<UInt8>, range: Range<Int>) {
        parser = Parser(buffer: buffer, start: range.lowerBound, end: range.upperBound, firstLine: 1, maxDepth: 0)
    }

    /// Skips whitespace; true (and steps over it) when the next byte is `byte`.
    @inline(__always)
    mutating func consume(_ byte: UInt8) -> Bool { parser.consumePlain(byte) }

    /// A `"key":` whose key is printable ASCII without escapes; the key's bytes.
    mutating func key() -> UnsafeBufferPointer<UInt8>? { parser.plainKey() }

    /// A `"c":` whose key is one printable ASCII character other than `\\` and `"`; that
    /// character. Nil for any other key (or none).
    @inline(__always)
    mutating func shortKey() -> UInt8? { parser.plainShortKey() }

    /// A number (the parser's conversion, which refuses malformed and overflowing literals).
    @inline(__always)
    mutating func number() -> Double? { parser.plainNumber() }

    /// `null`.
    mutating func null() -> Bool { parser.plainLiteral("null") }

    /// A string of printable ASCII without escapes; its bytes.
    mutating func string() -> UnsafeBufferPointer<UInt8>? { parser.plainString() }

    /// True when only whitespace is left.
    mutating func atEnd() -> Bool { parser.plainAtEnd() }
}

private extension Parser {
    @inline(__always)
    mutating func consumePlain(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard pos < end, bytes[pos] == byte else { return false }
        pos += 1
        return true
    }

    mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
        skipWhitespace()
        guard pos < end, bytes[pos] == quote else { return nil }
        var i = pos + 1
        while i < end, bytes[i] != quote {
            guard bytes[i] >= 0x20, bytes[i] < 0x80, bytes[i] != backslash else { return nil }
            i += 1
        }
        guard i < end else { return nil }
        defer { pos = i + 1 }
        return UnsafeBufferPointer(rebasing: bytes[(pos + 1)..<i])
    }

    @inline(__always)
    mutating func plainShortKey() -> UInt8? {
        skipWhitespace()
        guard pos + 2 < end, bytes[pos] == quote, bytes[pos + 2] == quote else { return nil }
        let key = bytes[pos + 1]
        guard key >= 0x20, key < 0x80, key != backslash, key != quote else { return nil }
        pos += 3
        return consumePlain(UInt8(ascii: ":")) ? key : nil
    }

    mutating func plainKey() -> UnsafeBufferPointer<UInt8>? {
        guard let key = plainString(), consumePlain(UInt8(ascii: ":")) else { return nil }
        return key
    }

    /// The common numbers of stroke files, `-?D+(.D+)?([eE][+-]?D+)?` with at most 15 digits
    /// before the exponent and a power of ten within ±22 in all, read as `parseNumber` reads them
    /// (the digits as an integer, converted by the same `exactDecimal`, so the same bits); nil for
    /// anything else (more digits, a leading zero, no number), which sends the caller to the full
    /// parser.
    @inline(__always)
    mutating func plainNumber() -> Double? {
        skipWhitespace()
        var i = pos
        guard i < end else { return nil }
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        var mantissa: UInt64 = 0
        let integerStart = i
        while i < end, case let digit = bytes[i] &- UInt8(ascii: "0"), digit < 10 {
            mantissa = mantissa &* 10 &+ UInt64(digit)
            i += 1
        }
        let integerDigits = i - integerStart
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return nil }
        var fractionDigits = 0
        if i < end, bytes[i] == UInt8(ascii: ".") {
            i += 1
            let fractionStart = i
            while i < end, case let digit = bytes[i] &- UInt8(ascii: "0"), digit < 10 {
                mantissa = mantissa &* 10 &+ UInt64(digit)
                i += 1
            }
            fractionDigits = i - fractionStart
            guard fractionDigits > 0 else { return nil }
        }
        guard integerDigits + fractionDigits <= 15 else { return nil }
        var exponent = -fractionDigits
        if i < end, bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            var exponentNegative = false
            if i < end, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
                exponentNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            let exponentStart = i
            var value = 0
            while i < end, i - exponentStart < 3, case let digit = bytes[i] &- UInt8(ascii: "0"), digit < 10 {
                value = value * 10 + Int(digit)
                i += 1
            }
            // No digit, or more than 3 (the full parser saturates those), is not plain.
            guard i > exponentStart, i == end || !isDigit(bytes[i]) else { return nil }
            exponent += exponentNegative ? -value : value
        }
        if mantissa == 0 {
            pos = i
            return negative ? -0.0 : 0.0
        }
        guard exponent >= -22 && exponent <= 22 else { return nil }
        pos = i
        return exactDecimal(mantissa, exponent: exponent, negative: negative)
    }

    mutating func plainLiteral(_ word: StaticString) -> Bool {
        skipWhitespace()
        guard (try? expectLiteral(word)) != nil else { return false }
        return true
    }

    mutating func plainAtEnd() -> Bool {
        skipWhitespace()
        return pos == end
    }
}
