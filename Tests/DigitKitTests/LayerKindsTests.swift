@testable import DigitKit
import DigitTestSupport
import XCTest

/// The `layers` metadata of a weight file: every layer kind writes its entry and reads it back.
final class LayerKindsTests: XCTestCase {
    private let tensors: [String: TensorData] = [
        "c1.weight": TensorData(shape: [8, 1, 3, 3], values: Array(repeating: 0.1, count: 72)),
        "fc.weight": TensorData(shape: [10, 8], values: Array(repeating: 0.1, count: 80)),
    ]

    func testLayers_MetadataRoundTripsThroughTheJSONReader() throws {
        let layers: [any Layer] = [
            Conv2D("c1", outChannels: 8, kernel: 3, padding: 1), BatchNorm2D("bn", eps: 1e-3), ReLU(), MaxPool2D(kernel: 3, stride: 2),
            AvgPool2D(kernel: 2), GlobalAvgPool(), Flatten(), Dropout(0.5), Linear("fc", outCount: 10),
        ]
        let json = LayerKinds.json(layers)
        XCTAssertFalse(json.contains("dropout"), "training-only layers have no entry")
        let read = try LayerKinds.parse(json, file: "m.safetensors", tensors: tensors)
        XCTAssertEqual(read.map(\.description), layers.filter { type(of: $0).typeName != nil }.map(\.description))
        XCTAssertEqual(LayerKinds.json(read), json)
        XCTAssertEqual((read[1] as? BatchNorm2D)?.eps, 1e-3)
    }

    func testLayers_EveryKindIsListedOnceWithADistinctTypeName() {
        let names = LayerKinds.all.compactMap { $0.typeName }
        XCTAssertEqual(Set(names).count, names.count)
        XCTAssertEqual(Set(names), ["conv2d", "batchnorm2d", "relu", "maxpool2d", "avgpool2d", "global_avgpool", "flatten", "linear", "height_avgpool", "height_flatten"])
    }

    func testLayers_BadEntriesNameTheElementAndTheKey() {
        func message(_ json: String) -> String {
            do { _ = try LayerKinds.parse(json, file: "m.safetensors", tensors: tensors); return "no error" } catch { return "\(error)" }
        }
        XCTAssertEqual(message("[{\"type\": \"relu\"},]"), "m.safetensors: metadata 'layers': not valid JSON: expected a JSON value, found ']'")
        XCTAssertEqual(message("[{\"type\": \"softmax\"}]"), "m.safetensors: layers[0].type: unknown layer type 'softmax'")
        XCTAssertEqual(message("[{\"type\": \"maxpool2d\", \"kernel\": 0}]"), "m.safetensors: layers[0].kernel: expected an integer in 1...16")
        XCTAssertEqual(message("[{\"type\": \"conv2d\", \"weight\": \"nope\"}]"), "m.safetensors: layers[0].weight: tensor 'nope' is not in the file")
        XCTAssertEqual(message("[{\"type\": \"linear\"}]"), "m.safetensors: layers[0].weight: missing")
    }
}
