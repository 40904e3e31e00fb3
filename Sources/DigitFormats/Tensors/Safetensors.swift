/// A safetensors weight file holding 32-bit float tensors, read and written as specified by
/// huggingface/safetensors (the format `safetensors.torch.load_file` reads):
///
///     bytes 0..<8       N, the header length, unsigned 64-bit little-endian
///     bytes 8..<8+N     the header: UTF-8 JSON object starting with `{`, optionally followed by
///                       JSON whitespace (writers pad with spaces so the data starts 8-byte aligned)
///     bytes 8+N..<end   the data buffer
///
/// The header maps each tensor name to `{"dtype":"F32","shape":[d0,d1,…],"data_offsets":[begin,end]}`,
/// offsets relative to the start of the data buffer, and may hold `"__metadata__"`, an object of
/// string values. Tensor data is row-major (C order) IEEE-754 binary32, little-endian.
///
/// Reading is strict: the only dtype accepted is F32; every tensor's byte range must be exactly
/// 4 × (product of its shape) bytes inside the buffer; the ranges must cover the buffer with no
/// overlap, no hole and no trailing byte; keys may not repeat (names equal under Unicode canonical
/// equivalence count as the same, as they do in a Swift dictionary); a tensor entry has exactly the
/// keys dtype, shape and data_offsets. The reference Python library accepts repeated keys, extra
/// keys and `"__metadata__": null`; this reader rejects them. NaN and ±infinity are data and are kept
/// bit for bit.
public struct SafetensorsFile: Sendable {
    /// One F32 tensor. `values.count` is the product of `shape` (1 for the scalar shape `[]`,
    /// 0 when any dimension is 0), values in row-major order. `==` compares values with float
    /// equality, so a tensor holding NaN is not equal to itself.
    public struct Tensor: Equatable, Sendable {
        public var shape: [Int]
        public var values: [Float]

        public init(shape: [Int], values: [Float]) {
            self.shape = shape
            self.values = values
        }
    }

    public var tensors: [String: Tensor]
    /// The `__metadata__` object (string values only). Empty when the file has none; an empty
    /// dictionary is written as no `__metadata__` key at all.
    public var metadata: [String: String]

    public init(tensors: [String: Tensor] = [:], metadata: [String: String] = [:]) {
        self.tensors = tensors
        self.metadata = metadata
    }

    /// The largest file `read(path:)` accepts: 64 MiB, far above this toolkit's networks
    /// (a few MB) and low enough that a mistaken path cannot exhaust memory.
    public static let maxFileBytes = 64 << 20
    /// The largest header the format allows: 100,000,000 bytes (the reference implementation's limit).
    public static let maxHeaderBytes = 100_000_000
    /// JSON nesting allowed in a header. A valid header needs 3 levels (root, tensor entry, shape);
    /// the cap keeps hostile input from exhausting the stack.
    static let maxHeaderDepth = 64
    static let metadataKey = "__metadata__"

    /// Reads and validates the file at `path` (`-` for standard input), at most `maxFileBytes`.
    public static func read(path: String) throws -> SafetensorsFile {
        let bytes = try FileIO.read(path, limit: maxFileBytes)
        return try parse(bytes, file: path)
    }

    /// Writes `serialized()` to `path` atomically.
    public func write(to path: String) throws {
        let bytes: [UInt8]
        do { bytes = try serialized() } catch let error as DigitError { throw error.inFile(path) }
        try FileIO.writeAtomically(bytes, to: path)
    }

    // MARK: - Reading

    /// Parses a whole safetensors file held in `bytes`; `file` names it in errors.
    /// Throws `DigitError(.format)` naming the byte offset or the header entry at fault.
    public static func parse(_ bytes: [UInt8], file: String) throws -> SafetensorsFile {
        func fail(_ location: String, _ message: String) -> DigitError {
            DigitError(.format, file: file, at: location, message)
        }
        guard bytes.count >= 8 else {
            throw fail("byte 0", "file is \(bytes.count) bytes, too short for the 8-byte header length")
        }
        var declared: UInt64 = 0
        for i in 0..<8 { declared |= UInt64(bytes[i]) << (8 * UInt64(i)) }
        guard declared <= UInt64(maxHeaderBytes) else {
            throw fail("byte 0", "header length \(declared) is more than the format's limit of \(maxHeaderBytes) bytes")
        }
        let headerLength = Int(declared)
        guard headerLength <= bytes.count - 8 else {
            throw fail("byte 0", "header length \(headerLength) runs past the end of the file (\(bytes.count - 8) bytes follow the length)")
        }
        guard headerLength > 0, bytes[8] == UInt8(ascii: "{") else {
            throw fail("byte 8", "header must begin with '{' (a JSON object)")
        }
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes, range: 8..<(8 + headerLength), maxDepth: maxHeaderDepth, allowDuplicateKeys: true)
        } catch let e as DigitError {
            throw DigitError(e.kind, file: file, at: e.location.map { "header: \($0)" } ?? "header", e.message)
        }
        guard case .object(let members) = json else {
            throw fail("byte 8", "header is not a JSON object")
        }

        let dataStart = 8 + headerLength
        let bufferLength = bytes.count - dataStart
        var entries: [Entry] = []
        var metadata: [String: String]?
        var firstSpelling: [String: String] = [:]
        for member in members {
            let (name, value) = (member.key, member.value)
            if name == metadataKey {
                guard metadata == nil else { throw fail("header: \(metadataKey)", "appears twice") }
                metadata = try parseMetadata(value, file: file)
                continue
            }
            let location = "header: tensor \(quoted(name))"
            if let earlier = firstSpelling[name] {
                if Array(earlier.utf8) == Array(name.utf8) {
                    throw fail(location, "duplicate tensor name")
                }
                throw fail(location, "duplicate tensor name: canonically equivalent to the earlier name \(quoted(earlier)) (they differ only in Unicode normalization)")
            }
            firstSpelling[name] = name
            entries.append(try parseEntry(name, value, bufferLength: bufferLength, file: file))
        }

        // The buffer must be covered exactly once, in offset order; ties put empty tensors first.
        let ordered = entries.sorted {
            ($0.begin, $0.end) < ($1.begin, $1.end)
        }
        var covered = 0
        var previous: String?
        for entry in ordered {
            if entry.begin > covered {
                throw fail("header: tensor \(quoted(entry.name))",
                           "data_offsets begin at \(entry.begin) but the data before it ends at \(covered): \(entry.begin - covered) bytes of the buffer belong to no tensor (the buffer must be fully covered)")
            }
            if entry.begin < covered {
                throw fail("header: tensor \(quoted(entry.name))",
                           "data_offsets [\(entry.begin), \(entry.end)] overlap the data of tensor \(quoted(previous ?? "")), which ends at \(covered)")
            }
            covered = entry.end
            previous = entry.name
        }
        if covered < bufferLength {
            throw fail("byte \(dataStart + covered)",
                       "\(bufferLength - covered) trailing bytes after the last tensor's data (the buffer must be fully covered)")
        }

        var tensors: [String: Tensor] = [:]
        tensors.reserveCapacity(entries.count)
        bytes.withUnsafeBytes { raw in
            for entry in entries {
                let count = (entry.end - entry.begin) / 4
                let base = dataStart + entry.begin
                var values = [Float](repeating: 0, count: count)
                for i in 0..<count {
                    let bits = raw.loadUnaligned(fromByteOffset: base + 4 * i, as: UInt32.self)
                    values[i] = Float(bitPattern: UInt32(littleEndian: bits))
                }
                tensors[entry.name] = Tensor(shape: entry.shape, values: values)
            }
        }
        return SafetensorsFile(tensors: tensors, metadata: metadata ?? [:])
    }

    /// A validated tensor entry: `begin..<end` lies inside the buffer and holds 4 × count bytes.
    private struct Entry {
        var name: String
        var shape: [Int]
        var begin: Int
        var end: Int
    }

    private static func parseMetadata(_ value: JSONValue, file: String) throws -> [String: String] {
        guard case .object(let members) = value else {
            throw DigitError(.format, file: file, at: "header: \(metadataKey)",
                             "expected an object of string values, found \(value.described)")
        }
        var result: [String: String] = [:]
        for member in members {
            let (key, item) = (member.key, member.value)
            let location = "header: \(metadataKey) key \(quoted(key))"
            guard case .string(let text) = item else {
                throw DigitError(.format, file: file, at: location, "value is \(item.described), expected a string")
            }
            guard result.updateValue(text, forKey: key) == nil else {
                throw DigitError(.format, file: file, at: location, "duplicate metadata key")
            }
        }
        return result
    }

    private static func parseEntry(_ name: String, _ value: JSONValue, bufferLength: Int, file: String) throws -> Entry {
        let location = "header: tensor \(quoted(name))"
        func fail(_ message: String) -> DigitError { DigitError(.format, file: file, at: location, message) }

        guard case .object(let members) = value else {
            throw fail("expected an object with dtype, shape and data_offsets, found \(value.described)")
        }
        var fields: [String: JSONValue] = [:]
        for member in members {
            let (key, item) = (member.key, member.value)
            guard ["dtype", "shape", "data_offsets"].contains(key) else {
                throw fail("unexpected key \(quoted(key)) (a tensor entry has only dtype, shape and data_offsets)")
            }
            guard fields.updateValue(item, forKey: key) == nil else { throw fail("duplicate key \(quoted(key))") }
        }
        guard let dtype = fields["dtype"] else { throw fail("missing key 'dtype'") }
        guard let shapeValue = fields["shape"] else { throw fail("missing key 'shape'") }
        guard let offsetsValue = fields["data_offsets"] else { throw fail("missing key 'data_offsets'") }

        guard case .string(let dtypeName) = dtype else { throw fail("dtype is \(dtype.described), expected a string") }
        guard dtypeName == "F32" else {
            throw fail("dtype \(quoted(dtypeName)) is not supported: only F32 is supported")
        }

        guard case .array(let dims) = shapeValue else { throw fail("shape is \(shapeValue.described), expected an array of integers") }
        var shape: [Int] = []
        shape.reserveCapacity(dims.count)
        for (i, dim) in dims.enumerated() {
            guard let d = dim.nonNegativeInt else {
                throw fail("shape[\(i)] is \(dim.described), expected a non-negative integer (at most 2^53)")
            }
            shape.append(d)
        }
        guard let count = elementCount(shape) else {
            throw fail("shape \(shape) has too many elements (the product overflows)")
        }

        guard case .array(let offsets) = offsetsValue, offsets.count == 2 else {
            throw fail("data_offsets is \(offsetsValue.described), expected an array of two integers [begin, end]")
        }
        guard let begin = offsets[0].nonNegativeInt, let end = offsets[1].nonNegativeInt else {
            throw fail("data_offsets must be two non-negative integers, found [\(offsets[0].described), \(offsets[1].described)]")
        }
        guard end >= begin else { throw fail("data_offsets end \(end) is before begin \(begin)") }
        let (byteCount, overflow) = count.multipliedReportingOverflow(by: 4)
        guard !overflow, end - begin == byteCount else {
            throw fail("data_offsets [\(begin), \(end)] hold \(end - begin) bytes, but shape \(shape) of F32 needs \(overflow ? "more than Int.max" : String(byteCount))")
        }
        guard end <= bufferLength else {
            throw fail("data_offsets end \(end) is past the end of the \(bufferLength)-byte data buffer (is the file truncated?)")
        }
        return Entry(name: name, shape: shape, begin: begin, end: end)
    }

    /// The product of `shape`, or nil when the product of its non-zero dimensions overflows `Int`
    /// (so a consumer multiplying dimensions in any order cannot trap).
    static func elementCount(_ shape: [Int]) -> Int? {
        var product = 1
        var hasZero = false
        for d in shape {
            guard d >= 0 else { return nil }
            if d == 0 { hasZero = true; continue }
            let (p, overflow) = product.multipliedReportingOverflow(by: d)
            if overflow { return nil }
            product = p
        }
        return hasZero ? 0 : product
    }

    /// `'name'` with quotes, backslashes and control characters escaped, cut to 80 characters,
    /// so a hostile name cannot make an error message span lines or megabytes.
    static func quoted(_ name: String) -> String {
        var out = "'"
        var length = 0
        for scalar in name.unicodeScalars {
            if length == 80 { out += "…"; break }
            switch scalar {
            case "'": out += "\\'"
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
            length += 1
        }
        return out + "'"
    }

    // MARK: - Writing

    /// The file's bytes. The same content always gives the same bytes: tensors in the byte order
    /// of their names' UTF-8 (the Python writer's order for F32 tensors), their data in that order
    /// with no gaps, the header `{"__metadata__":{…sorted keys…},"name":{"dtype":"F32","shape":[…],
    /// "data_offsets":[b,e]},…}` without spaces, padded with spaces to a multiple of 8 bytes.
    /// Throws `DigitError(.format)` when a tensor's `values.count` is not the product of its shape,
    /// a dimension is negative, or a tensor is named `__metadata__`; `.limit` when the header
    /// would exceed `maxHeaderBytes`.
    public func serialized() throws -> [UInt8] {
        let names = tensors.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        // serde_json's escapes (\b, \f): the bytes the reference writer makes for the same content.
        var writer = JSONWriter(controlEscapes: .short)
        var offset = 0
        try writer.object { o in
            if !metadata.isEmpty {
                o.member(Self.metadataKey, object: { m in
                    for key in metadata.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                        m.member(key, metadata[key] ?? "")
                    }
                })
            }
            for name in names {
                guard let tensor = tensors[name] else { continue }
                let location = "tensor \(Self.quoted(name))"
                guard name != Self.metadataKey else {
                    throw DigitError(.format, at: location, "a tensor cannot be named \(Self.metadataKey), the format reserves it")
                }
                if let bad = tensor.shape.firstIndex(where: { $0 < 0 }) {
                    throw DigitError(.format, at: location, "shape[\(bad)] is \(tensor.shape[bad]), expected a non-negative integer")
                }
                guard let count = Self.elementCount(tensor.shape) else {
                    throw DigitError(.format, at: location, "shape \(tensor.shape) has too many elements (the product overflows)")
                }
                guard count == tensor.values.count else {
                    throw DigitError(.format, at: location, "shape \(tensor.shape) has \(count) elements, which does not match the \(tensor.values.count) values")
                }
                let end = offset + 4 * count
                o.member(name, object: { t in
                    t.member("dtype", "F32")
                    t.member("shape", array: { for d in tensor.shape { $0.int(d) } })
                    t.member("data_offsets", array: { $0.int(offset); $0.int(end) })
                })
                offset = end
            }
        }
        var header = Array(writer.text.utf8)
        while header.count % 8 != 0 { header.append(UInt8(ascii: " ")) }
        guard header.count <= Self.maxHeaderBytes else {
            throw DigitError(.limit, "header would be \(header.count) bytes, more than the format's limit of \(Self.maxHeaderBytes)")
        }

        var out: [UInt8] = []
        out.reserveCapacity(8 + header.count + offset)
        let length = UInt64(header.count)
        for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: length >> (8 * UInt64(i)))) }
        out += header
        for name in names {
            guard let tensor = tensors[name] else { continue }
            for v in tensor.values {
                let bits = v.bitPattern
                out.append(UInt8(truncatingIfNeeded: bits))
                out.append(UInt8(truncatingIfNeeded: bits >> 8))
                out.append(UInt8(truncatingIfNeeded: bits >> 16))
                out.append(UInt8(truncatingIfNeeded: bits >> 24))
            }
        }
        return out
    }
}

private extension JSONValue {
    /// The value of a number that is a whole number in 0...2^53 (where a Double is exact), or nil.
    var nonNegativeInt: Int? {
        guard case let .number(d) = self, d >= 0, d == d.rounded(), d <= 9_007_199_254_740_992 else { return nil }
        return Int(d)
    }
}
