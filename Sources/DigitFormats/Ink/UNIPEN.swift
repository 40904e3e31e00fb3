/// Reader for UNIPEN digit files such as the UCI pendigits trajectories (`pendigits-orig.tra`).
///
/// What is read (everything else is skipped, including the free-text arguments of other keywords):
/// - `.SEGMENT DIGIT <delineation> <quality> "d"` declares a digit labelled `d` ("0"…"9"). The
///   delineation lists the pen-down components it is made of, numbered from 0 in file order
///   (`12`, `6-7`, `1,3-4`). When it is `?` or absent, the digit is made of the components that
///   follow the `.SEGMENT` line up to the next `.SEGMENT`. Other hierarchies (`WORD`…) are ignored.
/// - `.COMMENT <digit> <writer> <n>` (three integers) names the writer. It applies to the segment
///   it follows (pendigits writes it right after `.SEGMENT`) and to every later segment until the
///   next such comment. Other comments are free text and ignored.
/// - `.PEN_DOWN` starts a component: lines of two integers `x y` up to `.PEN_UP`.
///
/// Tablet coordinates have **y growing upward** in a 500 × 500 box; drawings are returned in the
/// toolkit's convention (y downward) with `y' = 500 - y` (`x` unchanged), which keeps pendigits
/// coordinates in 0…500, and a 500 × 500 canvas.
///
/// Problems inside one digit (a malformed coordinate line, a missing `.PEN_UP`, a limit, a
/// component already used by an earlier digit) make that digit's record a failure naming the
/// line; the other digits are still returned. Since each component belongs to one digit at most,
/// the points returned never exceed the points in the file.
public enum UNIPEN {
    /// The height of the tablet box used to flip y: `y' = tabletHeight - y`.
    public static let tabletHeight: Float = 500

    /// True when the first non-blank byte is `.` followed by an uppercase letter (a UNIPEN keyword).
    public static func looksLikeUNIPEN(_ bytes: [UInt8]) -> Bool {
        var i = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
        return i + 1 < bytes.count && bytes[i] == UInt8(ascii: ".")
            && (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(bytes[i + 1])
    }

    /// Reads every digit of a UNIPEN file, in file order. Throws only when the file holds no
    /// `.SEGMENT DIGIT` at all (it is then not a UNIPEN digit file).
    public static func parse(_ bytes: [UInt8], source: String, limits: StrokeLimits = .init()) throws -> [DrawingRecord] {
        var reader = Reader(source: source, limits: limits)
        bytes.withUnsafeBufferPointer { reader.read($0) }
        guard !reader.segments.isEmpty else {
            throw DigitError(.format, file: source, "no .SEGMENT DIGIT found: not a UNIPEN digit file")
        }
        return reader.records()
    }
}

private struct Component {
    /// x, y pairs, already flipped to y downward.
    var xy: [Float] = []
    var line: Int
    var error: DigitError?
}

private struct Segment {
    var line: Int
    var label: String?
    var error: DigitError?
    /// Component indices named by the delineation, or nil to take the following components.
    var delineation: [ClosedRange<Int>]?
    var followStart: Int
    var followEnd: Int
    var writer: Int?
}

private struct Reader {
    let source: String
    let limits: StrokeLimits
    var components: [Component] = []
    var segments: [Segment] = []
    var penDown = false
    /// True while the latest `.SEGMENT` is a digit, so that a `.COMMENT` after it applies to it.
    var inDigitSegment = false
    var writer: Int?

    init(source: String, limits: StrokeLimits) {
        self.source = source
        self.limits = limits
    }

    func error(_ kind: DigitError.Kind = .format, line: Int, _ message: String) -> DigitError {
        DigitError(kind, file: source, at: "line \(line)", message)
    }

    mutating func read(_ bytes: UnsafeBufferPointer<UInt8>) {
        var lineStart = 0
        var lineNumber = 0
        while lineStart < bytes.count {
            lineNumber += 1
            var lineEnd = lineStart
            while lineEnd < bytes.count, bytes[lineEnd] != 0x0A { lineEnd += 1 }
            let tokens = tokenize(bytes, lineStart..<lineEnd)
            if let first = tokens.first {
                if bytes[first.lowerBound] == UInt8(ascii: ".") {
                    keyword(bytes, tokens: tokens, line: lineNumber, lineRange: lineStart..<lineEnd)
                } else if penDown {
                    coordinates(bytes, tokens: tokens, line: lineNumber)
                }
            }
            lineStart = lineEnd + 1
        }
        if penDown, let last = components.indices.last, components[last].error == nil {
            components[last].error = error(line: components[last].line,
                                           "the file ends inside the .PEN_DOWN block opened here (missing .PEN_UP)")
        }
        if inDigitSegment, let last = segments.indices.last { segments[last].followEnd = components.count }
    }

    /// Byte ranges of the space/tab separated tokens of one line (a final CR is whitespace).
    func tokenize(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> [Range<Int>] {
        var tokens: [Range<Int>] = []
        var i = range.lowerBound
        while i < range.upperBound {
            while i < range.upperBound, isSpace(bytes[i]) { i += 1 }
            let start = i
            while i < range.upperBound, !isSpace(bytes[i]) { i += 1 }
            if i > start { tokens.append(start..<i) }
        }
        return tokens
    }

    func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D }

    func text(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    mutating func keyword(_ bytes: UnsafeBufferPointer<UInt8>, tokens: [Range<Int>], line: Int, lineRange: Range<Int>) {
        let name = text(bytes, tokens[0])
        switch name {
        case ".PEN_DOWN":
            if penDown, let last = components.indices.last, components[last].error == nil {
                components[last].error = error(line: components[last].line,
                                               "a .PEN_DOWN block opened here has no .PEN_UP before line \(line)")
            }
            penDown = true
            components.append(Component(line: line))
        case ".PEN_UP":
            penDown = false
        case ".SEGMENT":
            if penDown, let last = components.indices.last, components[last].error == nil {
                components[last].error = error(line: components[last].line,
                                               "a .PEN_DOWN block opened here has no .PEN_UP before the .SEGMENT at line \(line)")
                penDown = false
            }
            if inDigitSegment, let last = segments.indices.last { segments[last].followEnd = components.count }
            inDigitSegment = tokens.count > 1 && text(bytes, tokens[1]) == "DIGIT"
            if inDigitSegment { segments.append(segment(bytes, tokens: tokens, line: line, lineRange: lineRange)) }
        case ".COMMENT":
            let numbers = tokens.dropFirst().map { Int(text(bytes, $0)) }
            if numbers.count == 3, let w = numbers[1] {
                writer = w
                if inDigitSegment, let last = segments.indices.last { segments[last].writer = w }
            }
        default:
            break
        }
    }

    func segment(_ bytes: UnsafeBufferPointer<UInt8>, tokens: [Range<Int>], line: Int, lineRange: Range<Int>) -> Segment {
        var result = Segment(line: line, followStart: components.count, followEnd: components.count, writer: writer)
        // The label is the first double-quoted string on the line.
        let quote = UInt8(ascii: "\"")
        var open = lineRange.lowerBound
        while open < lineRange.upperBound, bytes[open] != quote { open += 1 }
        var close = open + 1
        while close < lineRange.upperBound, bytes[close] != quote { close += 1 }
        if close < lineRange.upperBound {
            let label = text(bytes, (open + 1)..<close)
            if label.utf8.count == 1, let byte = label.utf8.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                result.label = label
            } else {
                result.error = error(line: line, "the digit label must be one of \"0\"…\"9\", found \"\(label.prefix(20))\"")
            }
        } else {
            result.error = error(line: line, "expected a quoted digit label such as \"7\" on the .SEGMENT DIGIT line")
        }
        if tokens.count > 2, bytes[tokens[2].lowerBound] != quote {
            let field = text(bytes, tokens[2])
            if field != "?" {
                if let ranges = parseDelineation(field) {
                    result.delineation = ranges
                } else if result.error == nil {
                    result.error = error(line: line, "unsupported delineation '\(field.prefix(40))': expected component numbers such as 12, 6-7 or 1,3-4")
                }
            }
        }
        return result
    }

    /// `12`, `6-7`, `1,3-4` → ranges of component indices; nil when the text is anything else.
    func parseDelineation(_ field: String) -> [ClosedRange<Int>]? {
        var ranges: [ClosedRange<Int>] = []
        for part in field.split(separator: ",", omittingEmptySubsequences: false) {
            let ends = part.split(separator: "-", omittingEmptySubsequences: false)
            guard ends.count == 1 || ends.count == 2,
                  ends.allSatisfy({ !$0.isEmpty && $0.count <= 9 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
                  let low = Int(ends[0]), let high = Int(ends[ends.count - 1]), low <= high
            else { return nil }
            ranges.append(low...high)
        }
        return ranges
    }

    mutating func coordinates(_ bytes: UnsafeBufferPointer<UInt8>, tokens: [Range<Int>], line: Int) {
        guard let c = components.indices.last, components[c].error == nil else { return }
        guard tokens.count == 2, let x = integer(bytes, tokens[0]), let y = integer(bytes, tokens[1]) else {
            let shown = tokens.map { text(bytes, $0) }.joined(separator: " ")
            components[c].error = error(line: line, "expected a coordinate line 'x y' of two integers, found '\(shown.prefix(40))'")
            return
        }
        // The limit applies to the flipped y that is returned (and written by import-unipen).
        let flipped = Double(UNIPEN.tabletHeight) - Double(y)
        guard Double(abs(x)) <= limits.maxCoordinate, abs(flipped) <= limits.maxCoordinate else {
            components[c].error = error(.limit, line: line, "coordinate outside the limit of ±\(JSONValue.format(limits.maxCoordinate))")
            return
        }
        guard components[c].xy.count / 2 < limits.maxPointsPerDrawing else {
            components[c].error = error(.limit, line: line, "more than the limit of \(limits.maxPointsPerDrawing) points per drawing")
            return
        }
        components[c].xy.append(Float(x))
        components[c].xy.append(Float(flipped))
    }

    /// An optionally signed decimal integer of at most 12 digits, else nil.
    func integer(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        var i = range.lowerBound
        var negative = false
        if bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
            negative = bytes[i] == UInt8(ascii: "-")
            i += 1
        }
        guard i < range.upperBound, range.upperBound - i <= 12 else { return nil }
        var value = 0
        while i < range.upperBound {
            let digit = bytes[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int(digit)
            i += 1
        }
        return negative ? -value : value
    }

    func records() -> [DrawingRecord] {
        // The .SEGMENT line of the digit each component belongs to (0: none yet).
        var owner = [Int](repeating: 0, count: components.count)
        return segments.enumerated().map { index, segment in
            DrawingRecord(source: source, index: index, line: segment.line, writer: segment.writer,
                          result: Result { try drawing(segment, owner: &owner) }.mapError { $0 as? DigitError ?? error(line: segment.line, "\($0)") })
        }
    }

    func drawing(_ segment: Segment, owner: inout [Int]) throws -> Drawing {
        if let failure = segment.error { throw failure }
        let following = segment.followEnd > segment.followStart ? [segment.followStart...(segment.followEnd - 1)] : []
        let ranges = segment.delineation ?? following
        var strokeCount = 0
        for range in ranges {
            guard range.upperBound < components.count else {
                throw error(line: segment.line, "the delineation names component \(range.upperBound), but the file has only \(components.count) .PEN_DOWN blocks")
            }
            strokeCount += range.count
            if strokeCount > limits.maxStrokesPerDrawing {
                throw error(.limit, line: segment.line, "more than the limit of \(limits.maxStrokesPerDrawing) strokes per drawing")
            }
        }
        // A component belongs to one digit at most. Shared components would let a small file name
        // the same million points from millions of segments (terabytes of drawings).
        for range in ranges {
            for c in range {
                guard owner[c] == 0 else {
                    throw error(line: segment.line, "component \(c) is already part of the digit at line \(owner[c]); a .PEN_DOWN block can belong to one digit only")
                }
                owner[c] = segment.line
            }
        }
        var strokes: [[StrokePoint]] = []
        var pointCount = 0
        for range in ranges {
            for c in range {
                let component = components[c]
                if let failure = component.error { throw failure }
                pointCount += component.xy.count / 2
                if pointCount > limits.maxPointsPerDrawing {
                    throw error(.limit, line: segment.line, "more than the limit of \(limits.maxPointsPerDrawing) points per drawing")
                }
                var stroke: [StrokePoint] = []
                stroke.reserveCapacity(component.xy.count / 2)
                var i = 0
                while i + 1 < component.xy.count {
                    stroke.append(StrokePoint(x: component.xy[i], y: component.xy[i + 1]))
                    i += 2
                }
                strokes.append(stroke)
            }
        }
        return Drawing(strokes: strokes, label: segment.label, canvasWidth: 500, canvasHeight: 500)
    }
}
