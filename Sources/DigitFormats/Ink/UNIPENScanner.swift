import Foundation

/// A `.PEN_DOWN` or `.PEN_UP` block that holds samples.
struct UNIPENComponent {
    var penDown: Bool
    /// Its samples are `xs[start ..< start + count]` and `ys[…]`, as read (not flipped).
    var start: Int
    var count: Int
    /// Index in `UNIPENInput.files`.
    var file: Int32
    /// The line of its `.PEN_DOWN`/`.PEN_UP` keyword.
    var line: Int32
    /// Index in `UNIPENInput.writers`, or -1.
    var writer: Int32
}

/// What every `.SEGMENT` leaves, selected or not: enough to end the `?` delineations before it.
struct UNIPENSegmentMark {
    /// Index in `UNIPENInput.levels`.
    var level: Int32
    /// Index in `UNIPENInput.setStarts`.
    var set: Int32
    /// `components.count` at the `.SEGMENT` line: where a `?` delineation starts.
    var followStart: Int
}

/// A selected `.SEGMENT` statement as read, before its delineation is resolved.
struct UNIPENSegmentStatement {
    /// Index in `UNIPENInput.marks`.
    var mark: Int
    var file: Int
    var line: Int
    var level: String
    var delineation: String?
    var quality: String?
    var label: String?
    /// Why the statement's fields cannot be read, if so.
    var syntaxError: String?
    /// The writer in effect at the line (index in `writers`, or -1).
    var writer: Int32
}

/// Everything the first pass reads from the main file and its includes.
struct UNIPENInput {
    var xs: [Float] = []
    var ys: [Float] = []
    var components: [UNIPENComponent] = []
    /// The first problem of each component that has one (a malformed sample line, a limit).
    var componentErrors: [Int: DigitError] = [:]
    /// Every `.SEGMENT`, in reading order.
    var marks: [UNIPENSegmentMark] = []
    /// The selected ones (see `UNIPEN.Labels`), in reading order.
    var segments: [UNIPENSegmentStatement] = []
    /// Level names, as written, each once.
    var levels: [String] = []
    /// The first component of each set; set 0 starts the input.
    var setStarts: [Int] = [0]
    /// The source, then each included file as found.
    var files: [String] = []
    var writers: [String] = []
    /// The number each writer stands for (`DrawingRecord.writer`), parallel to `writers`.
    var writerNumbers: [Int] = []
    /// The levels of the last `.HIERARCHY`, coarsest first.
    var hierarchy: [String] = []
    var xDim: Double?
    var yDim: Double?
    var pointsPerSecond: Double?
    var problems: [DigitError] = []
}

/// The first pass: statements to components, segments and header values, following includes.
struct UNIPENScanner {
    let limits: StrokeLimits
    let labels: UNIPEN.Labels
    let include: UNIPEN.IncludeResolver?
    let maxIncludeDepth: Int
    var input = UNIPENInput()
    var levelIndex: [String: Int32] = [:]
    /// Bytes read so far, main file included: all files together stay within `limits.maxFileBytes`.
    var bytesRead = 0
    var includesRead = 0
    /// Canonical paths of the files being read, outermost first.
    var includeStack: [String] = []

    /// What continuation lines belong to.
    enum Statement { case other, pen, segment }
    var statement = Statement.other
    // The current pen statement.
    var penDown = true
    var penLine = 0
    var penComponent = -1
    var penFailed = false
    // The current segment statement, while its label continues on the next lines.
    var pendingSegment: UNIPENSegmentStatement?
    var pendingLabel = LabelReader()
    // Header state.
    var coordCount = 2
    var xField = 0
    var yField = 1
    var coordNames = "X Y"
    var coordError: String?
    var writer: Int32 = -1
    var writerIndex: [String: Int32] = [:]

    init(source: String, limits: StrokeLimits, labels: UNIPEN.Labels, include: UNIPEN.IncludeResolver?, maxIncludeDepth: Int) {
        self.limits = limits
        self.labels = labels
        self.include = include
        self.maxIncludeDepth = maxIncludeDepth
        input.files = [source]
    }

    mutating func scanMain(_ bytes: [UInt8]) {
        bytesRead = bytes.count
        if include != nil { includeStack = [UNIPEN.IncludeResolver.canonical(input.files[0])] }
        bytes.withUnsafeBufferPointer { scan($0, file: 0, depth: 0) }
    }

    // MARK: - Lines

    mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>, file: Int, depth: Int) {
        var start = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }
        var line = 0
        while start < bytes.count {
            line += 1
            var end = start
            while end < bytes.count, bytes[end] != 0x0A { end += 1 }
            var first = start
            while first < end, isBlank(bytes[first]) { first += 1 }
            if first < end {
                if bytes[first] == UInt8(ascii: "."), first + 1 < end, (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(bytes[first + 1]) {
                    keyword(bytes, first..<end, line: line, file: file, depth: depth)
                } else {
                    switch statement {
                    case .pen: samples(bytes, first..<end, line: line, file: file)
                    case .segment: continueLabel(bytes, first..<end)
                    case .other: break
                    }
                }
            }
            start = end + 1
        }
        endStatement()
    }

    /// Ends the statement in progress (a keyword line or the end of a file does).
    mutating func endStatement() {
        if var segment = pendingSegment {
            if pendingLabel.open, !pendingLabel.closed, segment.syntaxError == nil {
                segment.syntaxError = "the label has no closing quote"
            }
            if pendingLabel.tooLong, segment.syntaxError == nil {
                segment.syntaxError = "the label is longer than \(LabelReader.maxBytes) bytes"
            }
            segment.label = pendingLabel.text
            if UNIPENScanner.isSelected(level: segment.level, label: segment.label, labels: labels) {
                input.segments.append(segment)
            }
            pendingSegment = nil
        }
        statement = .other
    }

    mutating func keyword(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, line: Int, file: Int, depth: Int) {
        endStatement()
        var end = range.lowerBound
        while end < range.upperBound, !isBlank(bytes[end]) { end += 1 }
        let name = text(bytes, range.lowerBound..<end)
        let rest = end..<range.upperBound
        switch name {
        case ".PEN_DOWN", ".PEN_UP":
            statement = .pen
            penDown = name == ".PEN_DOWN"
            penLine = line
            penComponent = -1
            penFailed = false
            if rest.contains(where: { !isBlank(bytes[$0]) }) { samples(bytes, rest, line: line, file: file) }
        case ".SEGMENT":
            segment(bytes, rest, line: line, file: file)
        case ".INCLUDE":
            if let first = tokens(bytes, rest, max: 1).first {
                includeFile(text(bytes, first), line: line, file: file, depth: depth)
            }
        case ".START_SET":
            input.setStarts.append(input.components.count)
        case ".COORD":
            coordinates(bytes, rest)
        case ".X_DIM":
            input.xDim = firstNumber(bytes, rest).flatMap { $0 > 0 ? $0 : nil }
        case ".Y_DIM":
            input.yDim = firstNumber(bytes, rest).flatMap { $0 > 0 ? $0 : nil }
        case ".POINTS_PER_SECOND":
            input.pointsPerSecond = firstNumber(bytes, rest).flatMap { $0 > 0 ? $0 : nil }
        case ".HIERARCHY":
            input.hierarchy = tokens(bytes, rest, max: 64).map { text(bytes, $0) }
        case ".WRITER_ID":
            if let first = tokens(bytes, rest, max: 1).first {
                let name = text(bytes, first.prefix(200))
                setWriter(name, number: UNIPEN.writerNumber(name))
            }
        case ".COMMENT":
            // pendigits: `.COMMENT d w n` (digit, writer, sample number). Other comments are free text.
            let words = tokens(bytes, rest, max: 4)
            if words.count == 3, words.allSatisfy({ integer(bytes, $0) != nil }), let w = integer(bytes, words[1]) {
                setWriter(String(w), number: w)
            }
        default:
            break
        }
    }

    /// Whether a segment becomes a record: every `DIGIT` segment, and those labelled with one
    /// digit (`.digits`) or with any text (`.all`).
    static func isSelected(level: String, label: String?, labels: UNIPEN.Labels) -> Bool {
        if level == "DIGIT" { return true }
        switch labels {
        case .digits: return isDigit(label)
        case .all: return !(label ?? "").isEmpty
        }
    }

    static func isDigit(_ label: String?) -> Bool {
        guard let label, label.utf8.count == 1, let byte = label.utf8.first else { return false }
        return (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    mutating func setWriter(_ name: String, number: Int) {
        if let known = writerIndex[name] {
            writer = known
        } else {
            writer = Int32(input.writers.count)
            writerIndex[name] = writer
            input.writers.append(name)
            input.writerNumbers.append(number)
        }
    }

    // MARK: - Samples

    mutating func coordinates(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        let names = tokens(bytes, range, max: 17).map { text(bytes, $0) }
        coordNames = names.joined(separator: " ")
        coordCount = names.count
        coordError = nil
        if names.count > 16 {
            coordError = "the .COORD line names more than 16 values per sample"
        } else if let x = names.firstIndex(of: "X"), let y = names.firstIndex(of: "Y") {
            xField = x
            yField = y
        } else {
            coordError = "the .COORD line '\(coordNames.prefix(60))' names no X and Y"
        }
    }

    /// One continuation line of a `.PEN_DOWN`/`.PEN_UP` statement.
    mutating func samples(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, line: Int, file: Int) {
        if penComponent < 0 {
            penComponent = input.components.count
            input.components.append(UNIPENComponent(penDown: penDown, start: input.xs.count, count: 0,
                                                    file: Int32(file), line: Int32(clamping: penLine), writer: writer))
        }
        guard !penFailed else { return }
        if let coordError {
            fail(.format, line: line, file: file, coordError)
            return
        }
        var values = (0.0, 0.0)
        var field = 0
        var i = range.lowerBound
        while i < range.upperBound {
            while i < range.upperBound, isBlank(bytes[i]) { i += 1 }
            guard i < range.upperBound else { break }
            let tokenStart = i
            while i < range.upperBound, !isBlank(bytes[i]) { i += 1 }
            guard let value = number(bytes, tokenStart..<i) else {
                fail(.format, line: line, file: file, sampleMessage(bytes, range))
                return
            }
            if field == xField { values.0 = value }
            if field == yField { values.1 = value }
            field += 1
            if field == coordCount {
                field = 0
                guard abs(values.0) <= limits.maxCoordinate, abs(values.1) <= limits.maxCoordinate else {
                    fail(.limit, line: line, file: file, "coordinate outside the limit of ±\(UNIPENBuilder.format(limits.maxCoordinate))")
                    return
                }
                guard input.components[penComponent].count < limits.maxPointsPerDrawing else {
                    fail(.limit, line: line, file: file, "more than the limit of \(limits.maxPointsPerDrawing) points per drawing")
                    return
                }
                input.xs.append(Float(values.0))
                input.ys.append(Float(values.1))
                input.components[penComponent].count += 1
            }
        }
        if field != 0 { fail(.format, line: line, file: file, sampleMessage(bytes, range)) }
    }

    func sampleMessage(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        let shown = tokens(bytes, range, max: 8).map { text(bytes, $0.prefix(24)) }.joined(separator: " ")
        let expected = coordCount == 2 ? "a coordinate line 'x y' of two numbers"
            : "samples of \(coordCount) numbers (\(coordNames.prefix(60)))"
        return "expected \(expected), found '\(shown.prefix(40))'"
    }

    mutating func fail(_ kind: DigitError.Kind, line: Int, file: Int, _ message: String) {
        penFailed = true
        if input.componentErrors[penComponent] == nil {
            input.componentErrors[penComponent] = DigitError(kind, file: input.files[file], at: "line \(line)", message)
        }
    }

    // MARK: - Segments

    /// `.SEGMENT level [delineation [quality]] ["label"]`; the label may continue on the next lines.
    mutating func segment(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, line: Int, file: Int) {
        var quote = range.lowerBound
        while quote < range.upperBound, bytes[quote] != UInt8(ascii: "\"") { quote += 1 }
        let fields = tokens(bytes, range.lowerBound..<quote, max: 4).map { text(bytes, $0) }
        let level = fields.first ?? ""
        if levelIndex[level] == nil {
            levelIndex[level] = Int32(input.levels.count)
            input.levels.append(level)
        }
        input.marks.append(UNIPENSegmentMark(level: levelIndex[level] ?? 0, set: Int32(input.setStarts.count - 1),
                                             followStart: input.components.count))
        var segment = UNIPENSegmentStatement(
            mark: input.marks.count - 1, file: file, line: line, level: input.levels[Int(levelIndex[level] ?? 0)],
            delineation: fields.count > 1 ? fields[1] : nil, quality: fields.count > 2 ? fields[2] : nil,
            label: nil, syntaxError: nil, writer: writer)
        if fields.count == 2, ["OK", "BAD", "GOOD"].contains(fields[1]) {
            // `.SEGMENT CHARACTER OK "7"`: a quality and no delineation (uplib reads it as `?`).
            segment.delineation = nil
            segment.quality = fields[1]
        }
        if fields.isEmpty {
            segment.syntaxError = "expected '.SEGMENT level delineation quality \"label\"', found no level"
        } else if fields.count > 3, quote < range.upperBound {
            segment.syntaxError = "expected '.SEGMENT level delineation quality \"label\"', found more than 3 fields before the label"
        }
        pendingLabel = LabelReader()
        pendingSegment = segment
        statement = .segment
        if quote < range.upperBound {
            pendingLabel.open = true
            continueLabel(bytes, (quote + 1)..<range.upperBound)
        } else {
            endStatement()
        }
    }

    /// More of the label of the pending segment: the rest of its line, then continuation lines.
    mutating func continueLabel(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        guard pendingSegment != nil, pendingLabel.open, !pendingLabel.closed else { return }
        if pendingLabel.started { pendingLabel.append(0x20) }  // a line break inside a label counts as a space
        pendingLabel.started = true
        pendingLabel.feed(bytes, range)
        if pendingLabel.closed { endStatement() }
    }

    // MARK: - Includes

    mutating func includeFile(_ name: String, line: Int, file: Int, depth: Int) {
        guard let include else { return }
        let from = input.files[file]
        func problem(_ kind: DigitError.Kind, _ message: String) {
            input.problems.append(DigitError(kind, file: from, at: "line \(line)", message))
        }
        guard depth < maxIncludeDepth else {
            return problem(.limit, "'\(name)' is not read: includes nest more than \(maxIncludeDepth) deep")
        }
        guard includesRead < UNIPEN.maxIncludeFiles else {
            return problem(.limit, "'\(name)' is not read: more than \(UNIPEN.maxIncludeFiles) includes")
        }
        let candidates = include.candidates(for: name, includedFrom: from)
        guard let path = candidates.first(where: UNIPEN.IncludeResolver.isRegularFile) else {
            let folders = candidates.prefix(4).map { UNIPEN.IncludeResolver.folder(of: $0) }.joined(separator: ", ")
            return problem(.io, "cannot find the included file '\(name)' (looked in \(folders)\(candidates.count > 4 ? ", …" : ""); "
                           + "set \(UNIPEN.IncludeResolver.environmentVariable) to the distribution's include folder)")
        }
        let canonical = UNIPEN.IncludeResolver.canonical(path)
        if includeStack.contains(canonical) {
            return problem(.format, "'\(name)' is not read: it includes itself (\(path))")
        }
        let bytes: [UInt8]
        switch UNIPEN.IncludeResolver.readRegularFile(path, limit: limits.maxFileBytes - bytesRead) {
        case .success(let read): bytes = read
        case .failure(let error) where error.kind == .limit:
            return problem(.limit, "'\(name)' is not read: the files of this input would hold more than the limit of \(limits.maxFileBytes) bytes")
        case .failure(let error):
            return problem(.io, "cannot read the included file \(path): \(error.message)")
        }
        bytesRead += bytes.count
        includesRead += 1
        input.files.append(path)
        includeStack.append(canonical)
        bytes.withUnsafeBufferPointer { scan($0, file: input.files.count - 1, depth: depth + 1) }
        includeStack.removeLast()
    }

    // MARK: - Tokens and numbers

    func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0B || byte == 0x0C }

    /// The blank-separated words of a range, at most `max`.
    func tokens(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, max: Int) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var i = range.lowerBound
        while i < range.upperBound, found.count < max {
            while i < range.upperBound, isBlank(bytes[i]) { i += 1 }
            let start = i
            while i < range.upperBound, !isBlank(bytes[i]) { i += 1 }
            if i > start { found.append(start..<i) }
        }
        return found
    }

    func text(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    func firstNumber(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Double? {
        tokens(bytes, range, max: 1).first.flatMap { number(bytes, $0) }
    }

    /// An optionally signed integer of at most 12 digits.
    func integer(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        guard !bytes[range].contains(UInt8(ascii: ".")), let value = number(bytes, range) else { return nil }
        return Int(value)
    }

    /// A UNIPEN number: optional sign, at most 12 digits, optionally a dot and at most 12 more
    /// digits, at least one digit in all (`12`, `-3`, `+4.25`, `.5`, `7.`).
    func number(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Double? {
        var i = range.lowerBound
        var negative = false
        if i < range.upperBound, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
            negative = bytes[i] == UInt8(ascii: "-")
            i += 1
        }
        guard let (whole, wholeDigits) = digits(bytes, &i, range.upperBound) else { return nil }
        var value = Double(whole)
        var fractionDigits = 0
        if i < range.upperBound, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard let (fraction, count) = digits(bytes, &i, range.upperBound) else { return nil }
            fractionDigits = count
            if fractionDigits > 0 { value += Double(fraction) / pow(10, Double(fractionDigits)) }
        }
        guard i == range.upperBound, wholeDigits + fractionDigits > 0 else { return nil }
        return negative ? -value : value
    }

    /// The run of decimal digits at `i` (moving `i` past it): its value and length; nil when it
    /// is longer than 12 digits.
    private func digits(_ bytes: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ end: Int) -> (value: Int, count: Int)? {
        var value = 0, count = 0
        while i < end, bytes[i] &- UInt8(ascii: "0") < 10 {
            guard count < 12 else { return nil }
            value = value * 10 + Int(bytes[i] &- UInt8(ascii: "0"))
            count += 1
            i += 1
        }
        return (value, count)
    }
}

/// A `[L]` label being read: text between double quotes, `\"`, `\\`, `\t`, `\n` escapes.
struct LabelReader {
    /// The opening quote was seen.
    var open = false
    /// A line of the label has been read (the next one starts with a space).
    var started = false
    var closed = false
    var escaped = false
    var bytes: [UInt8] = []
    var tooLong = false

    static let maxBytes = 4096

    var text: String? { open ? String(decoding: bytes, as: UTF8.self) : nil }

    mutating func append(_ byte: UInt8) {
        if bytes.count < LabelReader.maxBytes { bytes.append(byte) } else { tooLong = true }
    }

    mutating func feed(_ source: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        var i = range.lowerBound
        while i < range.upperBound, !closed {
            let byte = source[i]
            if escaped {
                switch byte {
                case UInt8(ascii: "t"): append(0x09)
                case UInt8(ascii: "n"): append(0x0A)
                default: append(byte)
                }
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                closed = true
            } else {
                append(byte == 0x09 || byte == 0x0D ? 0x20 : byte)
            }
            i += 1
        }
    }
}
