import Foundation

/// One drawing read from a source, or the reason it could not be read. A bad drawing does not
/// stop the others: commands answer the good ones and report the bad ones.
public struct DrawingRecord: Sendable {
    /// The file as the user named it (`-` for standard input; `dir/name.json` for files of a directory).
    public var source: String
    /// 0-based position within that source (JSON Lines: among the non-blank lines; UNIPEN: among the digits).
    public var index: Int
    /// 1-based line for JSON Lines (the drawing's line) and UNIPEN (its `.SEGMENT` line); nil for a `.json` file.
    public var line: Int?
    /// The UNIPEN writer, or the integer `"writer"` field of a JSON drawing.
    public var writer: Int?
    public var result: Result<Drawing, DigitError>

    public init(source: String, index: Int, line: Int?, writer: Int?, result: Result<Drawing, DigitError>) {
        self.source = source
        self.index = index
        self.line = line
        self.writer = writer
        self.result = result
    }
}

/// Reads drawings from the places a user can name: a file, a directory or standard input.
public enum DrawingLoader {
    /// How the bytes of a source are to be read.
    public enum Format: Sendable, Equatable {
        /// One stroke JSON object.
        case json
        /// One stroke JSON object per line; blank lines are skipped.
        case jsonLines
        /// UNIPEN digit file (see `UNIPEN`).
        case unipen
        /// UNIPEN when the content starts with a dot keyword; otherwise one JSON document if the
        /// whole content parses as one, else JSON Lines if the first non-blank line parses alone.
        case detect
    }

    /// A file (`.json`, `.jsonl`, UNIPEN by extension `.tra`/`.tes`/`.unipen` or by content
    /// starting with a dot keyword; any other name is detected by content), a directory (all
    /// `.json` and `.jsonl` files in it, sorted by name, not recursive), or `-` for standard input
    /// (detected by content). A UNIPEN file's `.INCLUDE`s are followed with `include` as
    /// `digits import-unipen` follows them (`UNIPEN.read`: the same search, depth, count and byte
    /// limits; standard input's from the current folder); nil reads the one file.
    /// Throws only when the whole source is unusable (missing, unreadable, over
    /// `limits.maxFileBytes`, a `.json` that is not JSON, a UNIPEN file without digits or with an
    /// include that could not be read and held its ink: `UNIPEN.Reading.includeFailure`); a bad
    /// drawing becomes a record with `.failure` so the good ones are still answered. In a
    /// directory, a file that cannot be used becomes one failure record for that file.
    public static func load(_ path: String, limits: StrokeLimits = .init(),
                            include: UNIPEN.IncludeResolver? = .environment()) throws -> [DrawingRecord] {
        var isDirectory: ObjCBool = false
        if path != "-", FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            return try loadDirectory(path, limits: limits)
        }
        let bytes = try FileIO.read(path, limit: limits.maxFileBytes)
        return try decode(bytes, source: path, format: format(forName: path), limits: limits, include: include)
    }

    /// The format implied by a file name's extension (`.detect` for `-` and unknown extensions).
    public static func format(forName name: String) -> Format {
        guard name != "-" else { return .detect }
        switch URL(fileURLWithPath: name).pathExtension.lowercased() {
        case "json": return .json
        case "jsonl", "ndjson": return .jsonLines
        case "tra", "tes", "unipen": return .unipen
        default: return .detect
        }
    }

    /// Reads drawings from bytes already in memory; `source` names them in records and errors,
    /// and is where UNIPEN `.INCLUDE`s are looked for from when `include` is given (see `load`).
    public static func decode(_ bytes: [UInt8], source: String, format: Format, limits: StrokeLimits = .init(),
                              include: UNIPEN.IncludeResolver? = nil) throws -> [DrawingRecord] {
        if bytes.count > limits.maxFileBytes {
            throw DigitError(.limit, file: source, "input is \(bytes.count) bytes, more than the limit of \(limits.maxFileBytes)")
        }
        switch format {
        case .json:
            return [try decodeDocument(bytes, source: source, limits: limits)]
        case .jsonLines:
            return decodeLines(bytes, source: source, limits: limits)
        case .unipen:
            return try UNIPEN.parse(bytes, source: source, limits: limits, include: include)
        case .detect:
            if UNIPEN.looksLikeUNIPEN(bytes) { return try UNIPEN.parse(bytes, source: source, limits: limits, include: include) }
            do {
                return [try decodeDocument(bytes, source: source, limits: limits)]
            } catch let documentError as DigitError {
                if isBlank(bytes) || firstNonBlankLineIsJSON(bytes) {
                    return decodeLines(bytes, source: source, limits: limits)
                }
                throw documentError
            }
        }
    }

    /// Parses one JSON document (throwing when it is not JSON) and decodes it as a drawing
    /// (a decoding problem becomes a failure record).
    private static func decodeDocument(_ bytes: [UInt8], source: String, limits: StrokeLimits) throws -> DrawingRecord {
        if let (drawing, writer) = bytes.withUnsafeBufferPointer({ StrokeJSON.decodePlain($0, range: 0..<$0.count, limits: limits) }) {
            return DrawingRecord(source: source, index: 0, line: nil, writer: writer, result: .success(drawing))
        }
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch let error as DigitError { throw error.inFile(source) }
        return record(value, source: source, index: 0, line: nil, limits: limits)
    }

    private static func record(_ value: JSONValue, source: String, index: Int, line: Int?, limits: StrokeLimits) -> DrawingRecord {
        let result: Result<Drawing, DigitError>
        do {
            result = .success(try StrokeJSON.decode(value, limits: limits))
        } catch let error as DigitError {
            var located = error.inFile(source)
            if let line { located.location = "line \(line)" + (error.location.map { ": " + $0 } ?? "") }
            result = .failure(located)
        } catch {
            result = .failure(DigitError(.format, file: source, "\(error)"))
        }
        return DrawingRecord(source: source, index: index, line: line, writer: StrokeJSON.writer(of: value), result: result)
    }

    private static func decodeLines(_ bytes: [UInt8], source: String, limits: StrokeLimits) -> [DrawingRecord] {
        var records: [DrawingRecord] = []
        bytes.withUnsafeBufferPointer { buffer in
            var start = 0
            var line = 0
            while start < buffer.count {
                line += 1
                var end = start
                while end < buffer.count, buffer[end] != 0x0A { end += 1 }
                if !isBlank(UnsafeBufferPointer(rebasing: buffer[start..<end])) {
                    let index = records.count
                    if let (drawing, writer) = StrokeJSON.decodePlain(buffer, range: start..<end, limits: limits) {
                        records.append(DrawingRecord(source: source, index: index, line: line, writer: writer, result: .success(drawing)))
                        start = end + 1
                        continue
                    }
                    do {
                        let value = try JSONParser.parse(buffer, range: start..<end, firstLine: line)
                        records.append(record(value, source: source, index: index, line: line, limits: limits))
                    } catch {
                        let failure = (error as? DigitError ?? DigitError(.format, at: "line \(line)", "\(error)")).inFile(source)
                        records.append(DrawingRecord(source: source, index: index, line: line, writer: nil, result: .failure(failure)))
                    }
                }
                start = end + 1
            }
        }
        return records
    }

    private static func loadDirectory(_ path: String, limits: StrokeLimits) throws -> [DrawingRecord] {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: path) } catch {
            throw DigitError(.io, file: path, "cannot list the directory")
        }
        let prefix = path.hasSuffix("/") ? path : path + "/"
        var records: [DrawingRecord] = []
        for name in names.sorted() {
            let suffix = URL(fileURLWithPath: name).pathExtension.lowercased()
            guard suffix == "json" || suffix == "jsonl" else { continue }
            let file = prefix + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            do {
                records += try decode(try FileIO.read(file, limit: limits.maxFileBytes), source: file, format: suffix == "json" ? .json : .jsonLines, limits: limits)
            } catch {
                let failure = (error as? DigitError ?? DigitError(.io, "\(error)")).inFile(file)
                records.append(DrawingRecord(source: file, index: 0, line: nil, writer: nil, result: .failure(failure)))
            }
        }
        return records
    }

    private static func isBlank<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    }

    private static func firstNonBlankLineIsJSON(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var start = 0
            while start < buffer.count {
                var end = start
                while end < buffer.count, buffer[end] != 0x0A { end += 1 }
                if !isBlank(UnsafeBufferPointer(rebasing: buffer[start..<end])) {
                    return (try? JSONParser.parse(buffer, range: start..<end, firstLine: 1)) != nil
                }
                start = end + 1
            }
            return false
        }
    }
}
