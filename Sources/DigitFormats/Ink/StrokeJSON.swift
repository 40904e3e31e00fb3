/// Size limits applied to untrusted stroke input. Exceeding one is a `DigitError(.limit)`
/// that names the limit, so a user knows which one to raise.
public struct StrokeLimits: Sendable, Equatable {
    /// Largest input file (or standard input) in bytes. Default 64 MiB.
    public var maxFileBytes: Int
    /// Most points in one drawing, over all its strokes. Default 1,000,000.
    public var maxPointsPerDrawing: Int
    /// Most strokes in one drawing. Default 10,000.
    public var maxStrokesPerDrawing: Int
    /// Largest accepted |x| and |y| in canvas units. Default 1e7 (far beyond any screen or tablet,
    /// and small enough that Float keeps sub-unit precision up to about 1e6).
    public var maxCoordinate: Double

    public init(
        maxFileBytes: Int = 64 << 20,
        maxPointsPerDrawing: Int = 1_000_000,
        maxStrokesPerDrawing: Int = 10_000,
        maxCoordinate: Double = 1e7
    ) {
        self.maxFileBytes = maxFileBytes
        self.maxPointsPerDrawing = maxPointsPerDrawing
        self.maxStrokesPerDrawing = maxStrokesPerDrawing
        self.maxCoordinate = maxCoordinate
    }
}

/// The stroke JSON format (see docs/strokes.md):
///
/// ```json
/// {"label": "7", "canvas": {"width": 280, "height": 280},
///  "strokes": [[[12.0, 30.5], [14.2, 31.0]], [{"x": 40, "y": 10, "t": 0.016, "p": 0.8}]]}
/// ```
///
/// - `strokes` (required): an array of strokes, each an array of points in canvas units with
///   **y growing downward**. A point is `[x, y]`, `[x, y, t]` or an object with numbers `x`, `y`
///   and optional `t` (seconds, finite) and `p` (pressure in 0…1); other keys in a point object
///   are ignored. An empty `strokes` array or empty strokes are legal.
/// - `label` (optional): what was written: digits as a string (`"7"`, `"2026"`, `"007"`) or a
///   whole number (stored as its digits); any other string of at most 64 characters names a
///   drawing that is not a number (`"A"`, `"scribble"`); `null` means no label.
/// - `canvas` (optional, informative): an object with optional positive `width` and `height`.
/// - `writer` (optional): an integer naming the writer (kept by `DrawingLoader`, not by `Drawing`).
/// - Any other top-level key is ignored, so files may carry extra fields.
public enum StrokeJSON {
    /// Decodes one drawing. Errors are `DigitError`s located by JSON path (`strokes[2][5]`,
    /// `strokes[0][1].x`, `label`); `.limit` when a `StrokeLimits` value is exceeded.
    public static func decode(_ value: JSONValue, limits: StrokeLimits = .init()) throws -> Drawing {
        guard case .object = value else {
            throw DigitError(.format, at: "top level", "expected a drawing object with \"strokes\", found \(value.kindDescription)")
        }
        guard let strokesValue = value["strokes"] else {
            throw DigitError(.format, at: "top level", "missing the required key \"strokes\"")
        }
        guard case .array(let strokeValues) = strokesValue else {
            throw DigitError(.format, at: "strokes", "expected an array of strokes, found \(strokesValue.kindDescription)")
        }
        if strokeValues.count > limits.maxStrokesPerDrawing {
            throw DigitError(.limit, at: "strokes",
                             "\(strokeValues.count) strokes, more than the limit of \(limits.maxStrokesPerDrawing) per drawing")
        }
        var strokes: [[StrokePoint]] = []
        strokes.reserveCapacity(strokeValues.count)
        var totalPoints = 0
        for (s, strokeValue) in strokeValues.enumerated() {
            guard case .array(let pointValues) = strokeValue else {
                throw DigitError(.format, at: "strokes[\(s)]", "expected a stroke (an array of points), found \(strokeValue.kindDescription)")
            }
            totalPoints += pointValues.count
            if totalPoints > limits.maxPointsPerDrawing {
                throw DigitError(.limit, at: "strokes[\(s)]",
                                 "more than the limit of \(limits.maxPointsPerDrawing) points per drawing")
            }
            var stroke: [StrokePoint] = []
            stroke.reserveCapacity(pointValues.count)
            for (i, pointValue) in pointValues.enumerated() {
                stroke.append(try decodePoint(pointValue, stroke: s, index: i, limits: limits))
            }
            strokes.append(stroke)
        }
        var drawing = Drawing(strokes: strokes, label: try decodeLabel(value["label"]))
        if let canvas = value["canvas"] {
            guard case .object = canvas else {
                throw DigitError(.format, at: "canvas", "expected an object with \"width\" and \"height\", found \(canvas.kindDescription)")
            }
            drawing.canvasWidth = try decodeCanvasSide(canvas["width"], path: "canvas.width")
            drawing.canvasHeight = try decodeCanvasSide(canvas["height"], path: "canvas.height")
        }
        return drawing
    }

    /// The `writer` field of a drawing object when it is an integer (or a string holding one), else nil.
    public static func writer(of value: JSONValue) -> Int? {
        switch value["writer"] {
        case .number(let v)? where v == v.rounded() && abs(v) <= 1e15: return Int(v)
        case .string(let s)?: return Int(s)
        default: return nil
        }
    }

    private static let pointShape = "a point [x, y], [x, y, t] or {\"x\": …, \"y\": …}"

    private static func decodePoint(_ value: JSONValue, stroke s: Int, index i: Int, limits: StrokeLimits) throws -> StrokePoint {
        // Paths are built only when an error is thrown: string work per point would dominate decoding.
        var path: String { "strokes[\(s)][\(i)]" }
        switch value {
        case .array(let items):
            guard items.count == 2 || items.count == 3 else {
                throw DigitError(.format, at: path, "expected \(pointShape), found an array of \(items.count) element\(items.count == 1 ? "" : "s")")
            }
            let x = try coordinate(items[0], path: path + "[0]", limits: limits)
            let y = try coordinate(items[1], path: path + "[1]", limits: limits)
            let t = items.count == 3 ? try time(items[2], path: path + "[2]") : nil
            return StrokePoint(x: x, y: y, t: t)
        case .object:
            guard let xValue = value["x"], let yValue = value["y"] else {
                throw DigitError(.format, at: path, "a point object needs both \"x\" and \"y\"")
            }
            let x = try coordinate(xValue, path: path + ".x", limits: limits)
            let y = try coordinate(yValue, path: path + ".y", limits: limits)
            let t = try value["t"].map { try time($0, path: path + ".t") }
            var p: Float?
            if let pValue = value["p"] {
                guard case .number(let v) = pValue else {
                    throw DigitError(.format, at: path + ".p", "expected a pressure number in 0…1, found \(pValue.kindDescription)")
                }
                guard (0...1).contains(v) else {
                    throw DigitError(.format, at: path + ".p", "pressure \(JSONValue.format(v)) is outside 0…1")
                }
                p = Float(v)
            }
            return StrokePoint(x: x, y: y, t: t, p: p)
        default:
            throw DigitError(.format, at: path, "expected \(pointShape), found \(value.kindDescription)")
        }
    }

    private static func coordinate(_ value: JSONValue, path: @autoclosure () -> String, limits: StrokeLimits) throws -> Float {
        guard case .number(let v) = value else {
            throw DigitError(.format, at: path(), "expected a coordinate number, found \(value.kindDescription)")
        }
        // The parser never yields NaN or ±inf; a Drawing built elsewhere is checked by the rasterizer.
        guard abs(v) <= limits.maxCoordinate else {
            throw DigitError(.limit, at: path(),
                             "coordinate \(JSONValue.format(v)) is outside the limit of ±\(JSONValue.format(limits.maxCoordinate))")
        }
        return Float(v)
    }

    private static func time(_ value: JSONValue, path: @autoclosure () -> String) throws -> Float {
        guard case .number(let v) = value else {
            throw DigitError(.format, at: path(), "expected a time in seconds, found \(value.kindDescription)")
        }
        let t = Float(v)
        guard t.isFinite else {
            throw DigitError(.format, at: path(), "time \(JSONValue.format(v)) is not finite as a 32-bit float")
        }
        return t
    }

    /// The longest label, in characters.
    public static let maxLabelCharacters = 64

    private static func decodeLabel(_ value: JSONValue?) throws -> String? {
        switch value {
        case nil, .null?:
            return nil
        case .string(let s)?:
            guard !s.isEmpty, s.count <= maxLabelCharacters else {
                throw DigitError(.format, at: "label", "expected a label of 1…\(maxLabelCharacters) characters (digits such as \"7\" "
                                 + "or \"2026\", or a name for what is not a number), found \(s.count) characters")
            }
            guard !s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw DigitError(.format, at: "label", "the label holds a control character")
            }
            return s
        case .number(let v)?:
            guard v == v.rounded(), v >= 0, v < 1e15 else {
                throw DigitError(.format, at: "label", "expected a whole number 0…999999999999999, found the number \(JSONValue.format(v))")
            }
            return String(Int(v))
        case let other?:
            throw DigitError(.format, at: "label", "expected a label string such as \"7\" or \"2026\", or a whole number, found \(other.kindDescription)")
        }
    }

    private static func decodeCanvasSide(_ value: JSONValue?, path: String) throws -> Float? {
        guard let value else { return nil }
        guard case .number(let v) = value else {
            throw DigitError(.format, at: path, "expected a positive number, found \(value.kindDescription)")
        }
        guard v > 0, v <= 1e9 else {
            throw DigitError(.format, at: path, "canvas size must be in (0, 1e9], found \(JSONValue.format(v))")
        }
        return Float(v)
    }

    // MARK: Fast path

    /// The drawing and `writer` of a stroke JSON document in the plain form that programs write
    /// (the keys `strokes`, `label`, `canvas`, `writer` at most once each, ASCII keys, points as
    /// number arrays or `x`/`y`/`t`/`p` objects, every value within the limits), decoded straight
    /// from the bytes: several times faster than `JSONParser` + `decode(_:limits:)`, which build
    /// a tree first. Returns nil for anything else — any error, any other key, an escape — and the
    /// caller then decodes with the full parser, which gives the same result or the error. Tests
    /// and the `strokes` fuzz target check that both agree whenever this returns a drawing.
    public static func decodePlain(_ buffer: UnsafeBufferPointer<UInt8>, range: Range<Int>, limits: StrokeLimits) -> (Drawing, writer: Int?)? {
        var scanner = JSONScanner(buffer, range: range)
        guard scanner.consume(UInt8(ascii: "{")) else { return nil }
        var strokes: [[StrokePoint]]?
        var drawing = Drawing(strokes: [])
        var writer: Int?
        var seen = Set<Key>()
        repeat {
            guard let name = scanner.key(), let key = Key(name), seen.insert(key).inserted else { return nil }
            switch key {
            case .strokes: strokes = plainStrokes(&scanner, limits: limits)
            case .label: guard plainLabel(&scanner, into: &drawing) else { return nil }
            case .canvas: guard plainCanvas(&scanner, into: &drawing) else { return nil }
            case .writer:
                guard let v = scanner.number() else { return nil }
                writer = v == v.rounded() && abs(v) <= 1e15 ? Int(v) : nil
            }
            if key == .strokes && strokes == nil { return nil }
        } while scanner.consume(UInt8(ascii: ","))
        guard scanner.consume(UInt8(ascii: "}")), scanner.atEnd(), let strokes else { return nil }
        drawing.strokes = strokes
        return (drawing, writer)
    }

    private enum Key: Hashable {
        case strokes, label, canvas, writer
        init?(_ bytes: UnsafeBufferPointer<UInt8>) {
            switch String(decoding: bytes, as: UTF8.self) {
            case "strokes": self = .strokes
            case "label": self = .label
            case "canvas": self = .canvas
            case "writer": self = .writer
            default: return nil
            }
        }
    }

    private static func plainStrokes(_ scanner: inout JSONScanner, limits: StrokeLimits) -> [[StrokePoint]]? {
        guard scanner.consume(UInt8(ascii: "[")) else { return nil }
        var strokes: [[StrokePoint]] = []
        if scanner.consume(UInt8(ascii: "]")) { return strokes }
        var totalPoints = 0
        repeat {
            guard strokes.count < limits.maxStrokesPerDrawing, scanner.consume(UInt8(ascii: "[")) else { return nil }
            var stroke: [StrokePoint] = []
            if !scanner.consume(UInt8(ascii: "]")) {
                repeat {
                    totalPoints += 1
                    guard totalPoints <= limits.maxPointsPerDrawing, let point = plainPoint(&scanner, limits: limits) else { return nil }
                    stroke.append(point)
                } while scanner.consume(UInt8(ascii: ","))
                guard scanner.consume(UInt8(ascii: "]")) else { return nil }
            }
            strokes.append(stroke)
        } while scanner.consume(UInt8(ascii: ","))
        guard scanner.consume(UInt8(ascii: "]")) else { return nil }
        return strokes
    }

    @inline(__always)
    private static func plainPoint(_ scanner: inout JSONScanner, limits: StrokeLimits) -> StrokePoint? {
        @inline(__always) func coordinate(_ v: Double?) -> Float? {
            guard let v, abs(v) <= limits.maxCoordinate else { return nil }
            return Float(v)
        }
        @inline(__always) func time(_ v: Double?) -> Float? {
            guard let v, Float(v).isFinite else { return nil }
            return Float(v)
        }
        if scanner.consume(UInt8(ascii: "[")) {
            guard let x = coordinate(scanner.number()), scanner.consume(UInt8(ascii: ",")),
                  let y = coordinate(scanner.number()) else { return nil }
            var point = StrokePoint(x: x, y: y)
            if scanner.consume(UInt8(ascii: ",")) {
                guard let t = time(scanner.number()) else { return nil }
                point.t = t
            }
            return scanner.consume(UInt8(ascii: "]")) ? point : nil
        }
        guard scanner.consume(UInt8(ascii: "{")) else { return nil }
        var x: Float?, y: Float?, t: Float?, p: Float?
        repeat {
            guard let key = scanner.shortKey() else { return nil }
            switch key {
            case UInt8(ascii: "x") where x == nil: x = coordinate(scanner.number()); if x == nil { return nil }
            case UInt8(ascii: "y") where y == nil: y = coordinate(scanner.number()); if y == nil { return nil }
            case UInt8(ascii: "t") where t == nil: t = time(scanner.number()); if t == nil { return nil }
            case UInt8(ascii: "p") where p == nil:
                guard let v = scanner.number(), (0...1).contains(v) else { return nil }
                p = Float(v)
            default: return nil
            }
        } while scanner.consume(UInt8(ascii: ","))
        guard scanner.consume(UInt8(ascii: "}")), let x, let y else { return nil }
        return StrokePoint(x: x, y: y, t: t, p: p)
    }

    private static func plainLabel(_ scanner: inout JSONScanner, into drawing: inout Drawing) -> Bool {
        if scanner.null() { return true }
        if let text = scanner.string() {
            // Plain printable ASCII only; anything else goes through the full decoder.
            guard (1...maxLabelCharacters).contains(text.count), text.allSatisfy({ (0x20...0x7E).contains($0) }) else { return false }
            drawing.label = String(decoding: text, as: UTF8.self)
            return true
        }
        guard let v = scanner.number(), v == v.rounded(), v >= 0, v < 1e15 else { return false }
        drawing.label = String(Int(v))
        return true
    }

    private static func plainCanvas(_ scanner: inout JSONScanner, into drawing: inout Drawing) -> Bool {
        guard scanner.consume(UInt8(ascii: "{")) else { return false }
        if scanner.consume(UInt8(ascii: "}")) { return true }
        var width: Float?, height: Float?
        repeat {
            guard let key = scanner.key(), let v = scanner.number(), v > 0, v <= 1e9 else { return false }
            switch String(decoding: key, as: UTF8.self) {
            case "width" where width == nil: width = Float(v)
            case "height" where height == nil: height = Float(v)
            default: return false
            }
        } while scanner.consume(UInt8(ascii: ","))
        guard scanner.consume(UInt8(ascii: "}")) else { return false }
        drawing.canvasWidth = width
        drawing.canvasHeight = height
        return true
    }

    // MARK: Encoding

    /// One line of compact JSON for `drawing`: `label` (when present), then the `extra` fields as
    /// string values, then `canvas` (when known), then `strokes`. Points without `t` and `p` are
    /// written as `[x, y]` pairs, others as objects. Numbers are printed in the shortest form that
    /// reads back to the same `Float`. Extra keys that collide with `label`, `canvas` or `strokes`
    /// are dropped; a non-finite coordinate (impossible in decoded input) is written as `null`.
    public static func encode(_ drawing: Drawing, extra: [(String, String)] = []) -> String {
        encode(drawing, fields: extra.map { JSONMember($0.0, .string($0.1)) })
    }

    /// Like `encode(_:extra:)`, with extra fields of any JSON type (such as `"writer": 12`).
    public static func encode(_ drawing: Drawing, fields: [JSONMember]) -> String {
        var writer = JSONWriter()
        writer.object { o in
            if let label = drawing.label { o.member("label", label) }
            var seen: Set<String> = ["label", "canvas", "strokes"]
            for field in fields where seen.insert(field.key).inserted { o.member(field.key, field.value) }
            if drawing.canvasWidth != nil || drawing.canvasHeight != nil {
                o.member("canvas", object: { c in
                    if let w = drawing.canvasWidth { c.member("width", number: format(w)) }
                    if let h = drawing.canvasHeight { c.member("height", number: format(h)) }
                })
            }
            o.member("strokes", array: { strokes in
                for stroke in drawing.strokes {
                    strokes.array { points in
                        for point in stroke {
                            if point.t == nil && point.p == nil {
                                points.array { $0.number(text: format(point.x)); $0.number(text: format(point.y)) }
                            } else {
                                points.object { p in
                                    p.member("x", number: format(point.x))
                                    p.member("y", number: format(point.y))
                                    if let t = point.t { p.member("t", number: format(t)) }
                                    if let v = point.p { p.member("p", number: format(v)) }
                                }
                            }
                        }
                    }
                }
            })
        }
        return writer.text
    }

    /// Shortest text that reads back to the same Float: `12`, `30.5`, `1e+07`, `-0.016`.
    static func format(_ v: Float) -> String {
        guard v.isFinite else { return "null" }
        var text = v.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }
}
