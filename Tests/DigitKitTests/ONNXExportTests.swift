@testable import DigitKit
import Foundation
import DigitTestSupport
import XCTest

/// `ModelFile.onnx()` and the writer under it: the bytes read back as the ONNX messages they claim
/// to be (every key, length and nested message checked against the fields of `onnx.proto`), the
/// shipped network's operators in order with the file's tensors bit for bit, and the exact bytes of
/// small cases. That ONNX Runtime computes digits' logits from the export is checked by
/// scripts/check-onnx-export (it needs onnxruntime, which `swift test` does not have).
final class ONNXExportTests: XCTestCase {
    // MARK: - A strict protobuf reader

    struct ProtoError: Error, CustomStringConvertible {
        var description: String
    }

    enum WireValue {
        case varint(UInt64)
        case fixed32(UInt32)
        case bytes([UInt8])
    }

    /// One message: its fields in file order.
    struct Message {
        var fields: [(number: Int, value: WireValue)]

        /// Parses `bytes` to the last byte: each key a field number ≥ 1 and wire type 0, 2 or 5
        /// (the only ones ONNX's fields use), each varint at most 10 bytes, each length inside the message.
        init(_ bytes: ArraySlice<UInt8>) throws {
            var i = bytes.startIndex
            func varint() throws -> UInt64 {
                var value: UInt64 = 0
                for shift in stride(from: 0, to: 70, by: 7) {
                    guard i < bytes.endIndex else { throw ProtoError(description: "varint runs past the end at byte \(i)") }
                    let b = bytes[i]
                    i += 1
                    value |= UInt64(b & 0x7F) << UInt64(shift)
                    if b < 0x80 { return value }
                }
                throw ProtoError(description: "varint longer than 10 bytes at byte \(i)")
            }
            fields = []
            while i < bytes.endIndex {
                let key = try varint()
                let number = Int(key >> 3)
                guard number >= 1 else { throw ProtoError(description: "field number 0 at byte \(i)") }
                switch key & 7 {
                case 0: fields.append((number, .varint(try varint())))
                case 2:
                    let length = Int(try varint())
                    guard length <= bytes.endIndex - i else {
                        throw ProtoError(description: "field \(number): length \(length) runs past the end at byte \(i)")
                    }
                    fields.append((number, .bytes(Array(bytes[i..<(i + length)]))))
                    i += length
                case 5:
                    guard bytes.endIndex - i >= 4 else { throw ProtoError(description: "fixed32 runs past the end") }
                    let v = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[i + $1]) << UInt32(8 * $1) }
                    fields.append((number, .fixed32(v)))
                    i += 4
                default: throw ProtoError(description: "field \(number): unexpected wire type \(key & 7)")
                }
            }
        }

        func all(_ number: Int) -> [WireValue] { fields.filter { $0.number == number }.map(\.value) }

        func ints(_ number: Int) -> [Int] {
            all(number).compactMap { if case let .varint(v) = $0 { return Int(Int64(bitPattern: v)) } else { return nil } }
        }
        func int(_ number: Int) -> Int? { ints(number).last }

        func data(_ number: Int) -> [[UInt8]] {
            all(number).compactMap { if case let .bytes(b) = $0 { return b } else { return nil } }
        }
        func strings(_ number: Int) -> [String] { data(number).map { String(decoding: $0, as: UTF8.self) } }
        func string(_ number: Int) -> String? { strings(number).last }
        func messages(_ number: Int) throws -> [Message] { try data(number).map { try Message($0[...]) } }
        func message(_ number: Int) throws -> Message? { try messages(number).last }
    }

    /// The fields of the ONNX messages the export writes, from onnx/onnx `onnx/onnx.proto`: number →
    /// wire type and, for a nested message, its name.
    static let schema: [String: [Int: (wire: Int, message: String?)]] = [
        "ModelProto": [1: (0, nil), 2: (2, nil), 3: (2, nil), 7: (2, "GraphProto"), 8: (2, "OperatorSetIdProto")],
        "OperatorSetIdProto": [1: (2, nil), 2: (0, nil)],
        "GraphProto": [1: (2, "NodeProto"), 2: (2, nil), 5: (2, "TensorProto"), 11: (2, "ValueInfoProto"),
                       12: (2, "ValueInfoProto")],
        "NodeProto": [1: (2, nil), 2: (2, nil), 3: (2, nil), 4: (2, nil), 5: (2, "AttributeProto")],
        "AttributeProto": [1: (2, nil), 2: (5, nil), 3: (0, nil), 8: (0, nil), 20: (0, nil)],
        "TensorProto": [1: (0, nil), 2: (0, nil), 8: (2, nil), 9: (2, nil)],
        "ValueInfoProto": [1: (2, nil), 2: (2, "TypeProto")],
        "TypeProto": [1: (2, "TypeProto.Tensor")],
        "TypeProto.Tensor": [1: (0, nil), 2: (2, "TensorShapeProto")],
        "TensorShapeProto": [1: (2, "TensorShapeProto.Dimension")],
        "TensorShapeProto.Dimension": [1: (0, nil), 2: (2, nil)],
    ]

    /// Parses `bytes` as the message `name` and every message inside it; throws at the first key
    /// the schema does not have or whose wire type differs. Returns the number of messages read.
    @discardableResult
    static func validate(_ bytes: ArraySlice<UInt8>, as name: String, path: String = "") throws -> Int {
        let message: Message
        do { message = try Message(bytes) } catch let e as ProtoError {
            throw ProtoError(description: "\(path)\(name): \(e.description)")
        }
        guard let fields = schema[name] else { throw ProtoError(description: "no schema for \(name)") }
        var count = 1
        for (k, field) in message.fields.enumerated() {
            let at = "\(path)\(name).\(field.number)[\(k)]"
            guard let expected = fields[field.number] else { throw ProtoError(description: "\(at): not a field of \(name)") }
            let wire: Int
            switch field.value {
            case .varint: wire = 0
            case .bytes: wire = 2
            case .fixed32: wire = 5
            }
            guard wire == expected.wire else { throw ProtoError(description: "\(at): wire type \(wire), expected \(expected.wire)") }
            if let nested = expected.message, case let .bytes(b) = field.value {
                count += try validate(b[...], as: nested, path: at + " → ")
            }
        }
        return count
    }

    // MARK: - The shipped network

    private func shippedExport() throws -> (ModelFile, Message, Message) {
        let model = try ModelFile.load(path: TestPaths.weights.path)
        let bytes = try model.onnx()
        try Self.validate(bytes[...], as: "ModelProto")
        let root = try Message(bytes[...])
        return (model, root, try XCTUnwrap(root.message(7), "ModelProto.graph"))
    }

    func testONNXExport_ShippedNetworkIsAValidModelProtoAllTheWayDown() throws {
        let bytes = try ModelFile.load(path: TestPaths.weights.path).onnx()
        let messages = try Self.validate(bytes[...], as: "ModelProto")
        // Model, graph, 19 nodes, their 22 attributes, 28 initializers (26 tensors, mean, std), the
        // input and output (each: value, type, tensor type, shape, 4 or 2 dimensions: 14), opset.
        // A walk that stopped early would count fewer.
        XCTAssertEqual(messages, 1 + 1 + 19 + 22 + 28 + 14 + 1)
        let root = try Message(bytes[...])
        XCTAssertEqual(root.int(1), 8, "ir_version")
        XCTAssertEqual(root.string(2), "digits", "producer_name")
        XCTAssertEqual(root.string(3), DigitKitVersion.string, "producer_version")
        let opset = try XCTUnwrap(root.message(8))
        XCTAssertEqual(opset.string(1), "", "the default ONNX domain")
        XCTAssertEqual(opset.int(2), 17)
    }

    func testONNXExport_ShippedNetworkHasItsLayersOperatorsInOrder() throws {
        let (_, _, graph) = try shippedExport()
        let nodes = try graph.messages(1)
        let ops = nodes.compactMap { $0.string(4) }
        let block = ["Conv", "BatchNormalization", "Relu"]
        XCTAssertEqual(ops, ["Sub", "Div"] + block + ["MaxPool"] + block + block + ["MaxPool"] + block + ["Flatten", "Gemm", "Identity"])
        XCTAssertEqual(graph.string(2), "digits-cnn")

        // A chain: each node reads the value the one before it made (and initializers), every
        // value is made once, and the graph's input and output are the ends.
        let initializers = Set(try graph.messages(5).compactMap { $0.string(8) })
        var defined: Set<String> = ["pixels"]
        var previous = "pixels"
        for (k, node) in nodes.enumerated() {
            let inputs = node.strings(1), outputs = node.strings(2)
            XCTAssertEqual(inputs.first, previous, "node \(k) \(ops[k]) reads the previous value")
            for input in inputs.dropFirst() {
                XCTAssertTrue(initializers.contains(input), "node \(k) \(ops[k]) input \(input) is an initializer")
            }
            XCTAssertEqual(outputs.count, 1)
            for output in outputs {
                XCTAssertFalse(defined.contains(output) || initializers.contains(output), "\(output) is made twice")
                defined.insert(output)
            }
            previous = outputs[0]
        }
        XCTAssertEqual(previous, "logits")

        func attributes(_ node: Message) throws -> [String: Message] {
            Dictionary(uniqueKeysWithValues: try node.messages(5).map { ($0.string(1) ?? "", $0) })
        }
        let conv1 = try attributes(nodes[2])
        XCTAssertEqual(conv1.keys.sorted(), ["kernel_shape", "pads", "strides"])
        XCTAssertEqual(conv1["kernel_shape"]?.ints(8), [5, 5])
        XCTAssertEqual(conv1["pads"]?.ints(8), [2, 2, 2, 2])
        XCTAssertEqual(conv1["strides"]?.ints(8), [1, 1])
        XCTAssertEqual(conv1["pads"]?.int(20), 7, "type INTS")
        XCTAssertEqual(try attributes(nodes[6])["pads"]?.ints(8), [1, 1, 1, 1], "conv2 padding")
        XCTAssertEqual(nodes[2].strings(1).dropFirst(), ["conv1.weight", "conv1.bias"])
        let bn1 = try attributes(nodes[3])
        XCTAssertEqual(bn1["epsilon"]?.int(20), 1, "type FLOAT")
        guard case let .fixed32(eps)? = bn1["epsilon"]?.all(2).first else { return XCTFail("epsilon has no float") }
        XCTAssertEqual(Float(bitPattern: eps), 1e-5)
        XCTAssertEqual(nodes[3].strings(1).dropFirst(), ["bn1.weight", "bn1.bias", "bn1.running_mean", "bn1.running_var"])
        let pool = try attributes(nodes[5])
        XCTAssertEqual(pool["kernel_shape"]?.ints(8), [2, 2])
        XCTAssertEqual(pool["strides"]?.ints(8), [2, 2])
        XCTAssertEqual(try attributes(nodes[16])["axis"]?.int(3), 1, "Flatten axis")
        XCTAssertEqual(try attributes(nodes[17])["transB"]?.int(3), 1, "Gemm transB")
        XCTAssertEqual(nodes[17].strings(1).dropFirst(), ["fc.weight", "fc.bias"])
    }

    func testONNXExport_InitializersAreTheFilesTensorsBitForBit() throws {
        let (model, _, graph) = try shippedExport()
        var seen: [String: Message] = [:]
        for tensor in try graph.messages(5) {
            let name = try XCTUnwrap(tensor.string(8))
            XCTAssertNil(seen[name], "\(name) twice")
            seen[name] = tensor
            XCTAssertEqual(tensor.int(2), 1, "\(name): data_type FLOAT")
        }
        XCTAssertEqual(Set(seen.keys), Set(model.tensors.keys).union(["input_mean", "input_std"]))
        func floats(_ tensor: Message) -> [UInt32] {
            let raw = tensor.data(9).last ?? []
            return stride(from: 0, to: raw.count - 3, by: 4).map { i in
                (0..<4).reduce(UInt32(0)) { $0 | UInt32(raw[i + $1]) << UInt32(8 * $1) }
            }
        }
        for (name, t) in model.tensors {
            let tensor = try XCTUnwrap(seen[name])
            XCTAssertEqual(tensor.ints(1), t.shape, "\(name) dims")
            XCTAssertEqual(floats(tensor), bits(t.values), "\(name) values")
        }
        XCTAssertEqual(seen["input_mean"]?.ints(1), [], "a scalar")
        XCTAssertEqual(floats(try XCTUnwrap(seen["input_mean"])), [model.inputMean.bitPattern])
        XCTAssertEqual(floats(try XCTUnwrap(seen["input_std"])), [model.inputStd.bitPattern])
    }

    func testONNXExport_InputAndOutputHaveADynamicBatch() throws {
        let (_, _, graph) = try shippedExport()
        func describe(_ value: Message) throws -> String {
            let tensor = try XCTUnwrap(try value.message(2)?.message(1))
            XCTAssertEqual(tensor.int(1), 1, "elem_type FLOAT")
            let dims = try XCTUnwrap(tensor.message(2)).messages(1).map { d in d.string(2) ?? d.int(1).map(String.init) ?? "?" }
            return "\(value.string(1) ?? "") \(dims)"
        }
        XCTAssertEqual(try graph.messages(11).map(describe), ["pixels [\"N\", \"1\", \"28\", \"28\"]"])
        // Ten digits and "not a digit".
        XCTAssertEqual(try graph.messages(12).map(describe), ["logits [\"N\", \"11\"]"])
    }

    // MARK: - Other networks

    func testONNXExport_GlobalAveragePoolGetsAFlattenBeforeGemmAndDropoutNothing() throws {
        var rng = SplitMix64(seed: 3)
        let layers: [any Layer] = [Conv2D("c", outChannels: 4, kernel: 3, padding: 0, stride: 2), ReLU(), AvgPool2D(kernel: 2),
                                   GlobalAvgPool(), Dropout(0.5), Linear("fc", outCount: 10)]
        let tensors = ["c.weight": TensorData(shape: [4, 1, 3, 3], values: rng.floats(36)),
                       "c.bias": TensorData(shape: [4], values: rng.floats(4)),
                       "fc.weight": TensorData(shape: [10, 4], values: rng.floats(40)),
                       "fc.bias": TensorData(shape: [10], values: rng.floats(10))]
        let bytes = try ModelFile(layers: layers, tensors: tensors, inputMean: 0, inputStd: 1).onnx()
        try Self.validate(bytes[...], as: "ModelProto")
        let nodes = try XCTUnwrap(try Message(bytes[...]).message(7)).messages(1)
        XCTAssertEqual(nodes.compactMap { $0.string(4) },
                       ["Sub", "Div", "Conv", "Relu", "AveragePool", "GlobalAveragePool", "Flatten", "Gemm", "Identity"])
        let strides = try nodes[2].messages(5).first { $0.string(1) == "strides" }
        XCTAssertEqual(strides?.ints(8), [2, 2])
    }

    func testONNXExport_TensorNamedLikeAFreshValueKeepsBothApart() throws {
        var layers = SmallModel.layers
        var conv = try XCTUnwrap(layers[0] as? Conv2D)
        conv.weight = "x1"
        layers[0] = conv
        var tensors = SmallModel.tensors()
        tensors["x1"] = tensors.removeValue(forKey: "conv.weight")
        let bytes = try ModelFile(layers: layers, tensors: tensors, inputMean: 0.1, inputStd: 0.3).onnx()
        let graph = try XCTUnwrap(try Message(bytes[...]).message(7))
        let outputs = try graph.messages(1).flatMap { $0.strings(2) }
        XCTAssertEqual(Set(outputs).count, outputs.count)
        XCTAssertFalse(outputs.contains("x1"), "x1 is the initializer's name: \(outputs)")
        XCTAssertEqual(try graph.messages(1)[2].strings(1), ["x0", "x1", "conv.bias"])
    }

    func testONNXExport_ATensorNamedLikeTheGraphsInputThrows() throws {
        var tensors = SmallModel.tensors()
        var layers = SmallModel.layers
        var fc = try XCTUnwrap(layers[5] as? Linear)
        fc.bias = "logits"
        layers[5] = fc
        tensors["logits"] = tensors.removeValue(forKey: "fc.bias")
        let model = ModelFile(layers: layers, tensors: tensors, inputMean: 0.1, inputStd: 0.3)
        XCTAssertThrowsError(try model.onnx(file: "w.safetensors")) { error in
            XCTAssertEqual("\(error)", "w.safetensors: tensor 'logits': the ONNX export uses this name for its own value")
        }
    }

    func testONNXExport_InvalidNetworkThrowsLikeMakeNetwork() throws {
        var tensors = SmallModel.tensors()
        tensors["fc.weight"] = TensorData(shape: [10, 195], values: [Float](repeating: 0, count: 1950))
        let model = ModelFile(layers: SmallModel.layers, tensors: tensors, inputMean: 0.1, inputStd: 0.3)
        XCTAssertThrowsError(try model.onnx(file: "w")) { error in
            XCTAssertTrue("\(error)".hasPrefix("w: layers[5]"), "\(error)")
        }
    }

    // MARK: - The writer, byte by byte

    /// The bytes protobuf's own serializer (Python `onnx.ModelProto.SerializeToString`, protobuf
    /// 5) writes for the same model, field by field.
    func testONNXGraph_SmallGraphHasTheBytesProtobufWrites() throws {
        var graph = ONNXGraph(name: "g")
        graph.producerName = "p"
        graph.addInput("a", dims: [.named("N"), .fixed(300)])
        try graph.addInitializer("w", dims: [1], values: [1.0])
        let out = graph.node("Op", ["a", "w"], [.int("i", -1), .ints("k", [1, 2]), .float("f", 0.5)])
        XCTAssertEqual(out, "x0")
        graph.addOutput(out, dims: [.fixed(1)])
        let expected: [[UInt8]] = [
            [0x08, 0x08],                                   // ir_version 8
            [0x12, 0x01, 0x70],                             // producer_name "p"
            [0x3A, 0x77],                                   // graph, 119 bytes
            [0x0A, 0x3A],                                   //   node, 58 bytes
            [0x0A, 0x01, 0x61, 0x0A, 0x01, 0x77],           //     input "a", "w"
            [0x12, 0x02, 0x78, 0x30],                       //     output "x0"
            [0x22, 0x02, 0x4F, 0x70],                       //     op_type "Op"
            [0x2A, 0x11, 0x0A, 0x01, 0x69],                 //     attribute "i"
            [0x18, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],  // i = -1, ten bytes
            [0xA0, 0x01, 0x02],                             //       type INT (field 20, a two-byte key)
            [0x2A, 0x0A, 0x0A, 0x01, 0x6B, 0x40, 0x01, 0x40, 0x02, 0xA0, 0x01, 0x07],  // "k": ints 1, 2 unpacked; INTS
            [0x2A, 0x0B, 0x0A, 0x01, 0x66, 0x15, 0x00, 0x00, 0x00, 0x3F, 0xA0, 0x01, 0x01],  // "f": 0.5 fixed32; FLOAT
            [0x12, 0x01, 0x67],                             //   name "g"
            [0x2A, 0x0D, 0x08, 0x01, 0x10, 0x01, 0x42, 0x01, 0x77, 0x4A, 0x04, 0x00, 0x00, 0x80, 0x3F],  // w: [1], FLOAT, 1.0
            [0x5A, 0x15, 0x0A, 0x01, 0x61, 0x12, 0x10, 0x0A, 0x0E, 0x08, 0x01, 0x12, 0x0A],  // input "a": tensor FLOAT, shape
            [0x0A, 0x03, 0x12, 0x01, 0x4E],                 //     dim_param "N"
            [0x0A, 0x03, 0x08, 0xAC, 0x02],                 //     dim_value 300 (a two-byte varint)
            [0x62, 0x10, 0x0A, 0x02, 0x78, 0x30, 0x12, 0x0A, 0x0A, 0x08, 0x08, 0x01, 0x12, 0x04, 0x0A, 0x02, 0x08, 0x01],  // output "x0" [1]
            [0x42, 0x04, 0x0A, 0x00, 0x10, 0x11],           // opset_import: domain "", version 17
        ]
        let bytes = graph.serialized()
        XCTAssertEqual(bytes, expected.flatMap { $0 })
        XCTAssertEqual(try Self.validate(bytes[...], as: "ModelProto"), 19)
    }

    func testONNXGraph_InitializerThatDoesNotFillItsShapeThrows() {
        var graph = ONNXGraph(name: "g")
        XCTAssertThrowsError(try graph.addInitializer("w", dims: [2, 3], values: [1, 2, 3])) { error in
            XCTAssertEqual("\(error)", "tensor 'w': 3 values do not fill the shape [2, 3]")
        }
        XCTAssertThrowsError(try graph.addInitializer("w", dims: [-1], values: []))
        XCTAssertThrowsError(try graph.addInitializer("w", dims: [Int.max, 4], values: []))
        graph.addInput("a", dims: [.fixed(1)])
        XCTAssertThrowsError(try graph.addInitializer("a", dims: [], values: [0]), "a is the graph's input")
        XCTAssertNoThrow(try graph.addInitializer("s", dims: [], values: [0]))
        XCTAssertNoThrow(try graph.addInitializer("s", dims: [], values: [0]), "a shared weight is added once")
        XCTAssertEqual(graph.initializers.count, 1)
    }
}
