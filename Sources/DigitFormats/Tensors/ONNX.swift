/// An ONNX model built node by node and written as a `ModelProto` in protobuf's wire format, by
/// hand and with no dependency: just the messages and fields a feed-forward float network needs.
///
/// Wire format (protobuf encoding): each field is a key `(field number << 3) | wire type` as a
/// varint, then its value — wire type 0 a varint (int64 as 64-bit two's complement), 2 a varint
/// length and that many bytes (strings, bytes, nested messages), 5 four bytes little-endian (float).
/// Repeated scalars are written one key per element (proto2's unpacked form, as `onnx.proto`
/// declares them). Field numbers, from onnx/onnx `onnx/onnx.proto`:
///
///     ModelProto          ir_version 1, producer_name 2, producer_version 3, graph 7, opset_import 8
///     OperatorSetIdProto  domain 1, version 2
///     GraphProto          node 1, name 2, initializer 5, input 11, output 12
///     NodeProto           input 1, output 2, name 3, op_type 4, attribute 5
///     AttributeProto      name 1, f 2, i 3, ints 8, type 20 (FLOAT 1, INT 2, INTS 7)
///     TensorProto         dims 1, data_type 2 (FLOAT 1), name 8, raw_data 9
///     ValueInfoProto      name 1, type 2
///     TypeProto           tensor_type 1 → elem_type 1, shape 2 → dim 1 → dim_value 1 | dim_param 2
///
/// Fields are written in field-number order, as protobuf's own serializers do. Tensors are row-major
/// float32, little-endian in `raw_data`.
public struct ONNXGraph: Sendable {
    /// One dimension of a graph input or output: a size, or a name for a size given at run time (the batch).
    public enum Dimension: Sendable, Equatable {
        case fixed(Int)
        case named(String)
    }

    /// A node attribute.
    public enum Attribute: Sendable, Equatable {
        case int(String, Int)
        case ints(String, [Int])
        case float(String, Float)

        public var name: String {
            switch self {
            case let .int(name, _), let .ints(name, _), let .float(name, _): return name
            }
        }
    }

    public struct Node: Sendable, Equatable {
        public var opType: String
        public var inputs: [String]
        public var outputs: [String]
        public var attributes: [Attribute]
        public var name: String?
    }

    /// A constant float tensor of the graph (a weight).
    public struct Initializer: Sendable, Equatable {
        public var name: String
        public var dims: [Int]
        public var values: [Float]
    }

    /// A graph input or output: a float tensor of these dimensions.
    public struct Value: Sendable, Equatable {
        public var name: String
        public var dims: [Dimension]
    }

    public var name: String
    /// IR version 8 and opset 17 (ONNX 1.13): what every ONNX Runtime that runs opset 17 reads.
    public var irVersion = 8
    public var opsetVersion = 17
    public var producerName = "digits"
    public var producerVersion: String?

    public private(set) var nodes: [Node] = []
    public private(set) var initializers: [Initializer] = []
    public private(set) var inputs: [Value] = []
    public private(set) var outputs: [Value] = []

    /// Names `freshValue` never returns: initializers and the fixed names of the graph.
    private var reserved = Set<String>()
    /// Every value some node, input or initializer defines; the index of the node that makes each node output.
    private var defined = Set<String>()
    private var producers: [String: Int] = [:]
    private var nextValue = 0

    public init(name: String) { self.name = name }

    /// Keeps `freshValue` away from these names (give it every tensor name before the first fresh value).
    public mutating func reserve<S: Sequence>(_ names: S) where S.Element == String {
        reserved.formUnion(names)
    }

    /// A value name not used yet: `x0`, `x1`, … skipping reserved and defined names.
    public mutating func freshValue() -> String {
        while true {
            let candidate = "x\(nextValue)"
            nextValue += 1
            if !reserved.contains(candidate) && !defined.contains(candidate) {
                reserved.insert(candidate)
                return candidate
            }
        }
    }

    /// Adds a constant float tensor (row-major `values`, `dims` empty for a scalar) and returns its
    /// name. Adding the same name again keeps the first (two nodes may share a weight); a name that
    /// a node or an input already defines, or values that do not fill `dims`, are errors.
    @discardableResult
    public mutating func addInitializer(_ name: String, dims: [Int], values: [Float]) throws -> String {
        if initializers.contains(where: { $0.name == name }) { return name }
        guard !defined.contains(name) else {
            throw DigitError(.format, at: "tensor '\(name)'", "the name is already a value of the ONNX graph")
        }
        var count: Int? = 1
        for d in dims {
            let product = count.map { $0.multipliedReportingOverflow(by: d) }
            count = d < 0 || product?.overflow != false ? nil : product?.partialValue
        }
        guard count == values.count else {
            throw DigitError(.format, at: "tensor '\(name)'", "\(values.count) values do not fill the shape \(dims)")
        }
        initializers.append(Initializer(name: name, dims: dims, values: values))
        reserved.insert(name)
        defined.insert(name)
        return name
    }

    /// Adds a node (nodes must come in an order where each input is defined before it is used).
    public mutating func addNode(_ opType: String, inputs: [String], outputs: [String], attributes: [Attribute] = [],
                                 name: String? = nil) {
        for output in outputs {
            producers[output] = nodes.count
            defined.insert(output)
        }
        nodes.append(Node(opType: opType, inputs: inputs, outputs: outputs, attributes: attributes, name: name))
    }

    /// Adds a node with one output, a fresh value, and returns that value's name.
    public mutating func node(_ opType: String, _ inputs: [String], _ attributes: [Attribute] = []) -> String {
        let output = freshValue()
        addNode(opType, inputs: inputs, outputs: [output], attributes: attributes)
        return output
    }

    /// The node that makes `value`, nil for an input, an initializer or an unknown name.
    public func producer(of value: String) -> Node? { producers[value].map { nodes[$0] } }

    public mutating func addInput(_ name: String, dims: [Dimension]) {
        inputs.append(Value(name: name, dims: dims))
        defined.insert(name)
        reserved.insert(name)
    }

    public mutating func addOutput(_ name: String, dims: [Dimension]) {
        outputs.append(Value(name: name, dims: dims))
    }

    // MARK: - Writing

    /// The `ModelProto` bytes: what `onnx.load` and `onnxruntime.InferenceSession` read.
    public func serialized() -> [UInt8] {
        var model = ProtobufWriter()
        model.int(1, irVersion)
        model.string(2, producerName)
        if let producerVersion { model.string(3, producerVersion) }
        model.message(7) { graph in
            for node in nodes { graph.message(1) { Self.write(node, &$0) } }
            graph.string(2, name)
            for tensor in initializers { graph.message(5) { Self.write(tensor, &$0) } }
            for value in inputs { graph.message(11) { Self.write(value, &$0) } }
            for value in outputs { graph.message(12) { Self.write(value, &$0) } }
        }
        model.message(8) { opset in
            opset.string(1, "")
            opset.int(2, opsetVersion)
        }
        return model.bytes
    }

    private static func write(_ node: Node, _ w: inout ProtobufWriter) {
        for input in node.inputs { w.string(1, input) }
        for output in node.outputs { w.string(2, output) }
        if let name = node.name { w.string(3, name) }
        w.string(4, node.opType)
        for attribute in node.attributes {
            w.message(5) { a in
                a.string(1, attribute.name)
                switch attribute {
                case let .float(_, value):
                    a.float(2, value)
                    a.int(20, 1)
                case let .int(_, value):
                    a.int(3, value)
                    a.int(20, 2)
                case let .ints(_, values):
                    for v in values { a.int(8, v) }
                    a.int(20, 7)
                }
            }
        }
    }

    private static func write(_ tensor: Initializer, _ w: inout ProtobufWriter) {
        for d in tensor.dims { w.int(1, d) }
        w.int(2, 1)  // FLOAT
        w.string(8, tensor.name)
        var raw: [UInt8] = []
        raw.reserveCapacity(tensor.values.count * 4)
        for v in tensor.values {
            let b = v.bitPattern
            raw += [UInt8(truncatingIfNeeded: b), UInt8(truncatingIfNeeded: b >> 8), UInt8(truncatingIfNeeded: b >> 16),
                    UInt8(truncatingIfNeeded: b >> 24)]
        }
        w.data(9, raw)
    }

    private static func write(_ value: Value, _ w: inout ProtobufWriter) {
        w.string(1, value.name)
        w.message(2) { type in
            type.message(1) { tensor in
                tensor.int(1, 1)  // FLOAT
                tensor.message(2) { shape in
                    for dim in value.dims {
                        shape.message(1) { d in
                            switch dim {
                            case let .fixed(n): d.int(1, n)
                            case let .named(s): d.string(2, s)
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Protobuf's wire format, the subset `ONNXGraph` writes.
struct ProtobufWriter {
    private(set) var bytes: [UInt8] = []

    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    private mutating func key(_ field: Int, _ wireType: UInt64) { varint(UInt64(field) << 3 | wireType) }

    /// An int64 field: negative values take ten bytes, as protobuf writes them.
    mutating func int(_ field: Int, _ value: Int) {
        key(field, 0)
        varint(UInt64(bitPattern: Int64(value)))
    }

    mutating func float(_ field: Int, _ value: Float) {
        key(field, 5)
        let b = value.bitPattern
        bytes += [UInt8(truncatingIfNeeded: b), UInt8(truncatingIfNeeded: b >> 8), UInt8(truncatingIfNeeded: b >> 16),
                  UInt8(truncatingIfNeeded: b >> 24)]
    }

    mutating func data(_ field: Int, _ data: [UInt8]) {
        key(field, 2)
        varint(UInt64(data.count))
        bytes += data
    }

    mutating func string(_ field: Int, _ text: String) { data(field, Array(text.utf8)) }

    /// A nested message, written by `body`, then prefixed with its length.
    mutating func message(_ field: Int, _ body: (inout ProtobufWriter) -> Void) {
        var inner = ProtobufWriter()
        body(&inner)
        data(field, inner.bytes)
    }
}
