import DigitFormats
import Foundation
import XCTest

/// The exact bytes of the published JSON that the formats write: safetensors headers (read by
/// Python's safetensors, so escapes as serde_json writes them), stroke files and JSON values.
/// Any change here changes files other programs read.
final class JSONGoldenTests: XCTestCase {
    /// Quotes, a backslash, every kind of control character and non-ASCII text.
    static let awkward = "q\"b\\s/\u{0}\u{1}\u{8}\t\n\u{B}\u{C}\r\u{1B}\u{1F}\u{7F} é 漢 🙂"

    func testSafetensorsHeader_IsTheSameBytes() throws {
        let file = SafetensorsFile(
            tensors: ["conv.w": .init(shape: [2, 1], values: [1, -2]), "a": .init(shape: [1], values: [0.5]),
                      "é\"\\": .init(shape: [0], values: []), Self.awkward: .init(shape: [1, 1, 1], values: [3])],
            metadata: ["format": "pt", "layers": #"[{"type":"relu"}]"#, Self.awkward: Self.awkward, "": ""])
        let bytes = try file.serialized()
        let length = bytes[0..<8].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        XCTAssertEqual(length, 496)
        XCTAssertEqual(String(decoding: bytes[8..<(8 + length)], as: UTF8.self), "{\"__metadata__\":{\"\":\"\",\"format\":\"pt\",\"layers\":\"[{\\\"type\\\":\\\"relu\\\"}]\",\"q\\\"b\\\\s/\\u0000\\u0001\\b\\t\\n\\u000b\\f\\r\\u001b\\u001f\u{7F} é 漢 🙂\":\"q\\\"b\\\\s/\\u0000\\u0001\\b\\t\\n\\u000b\\f\\r\\u001b\\u001f\u{7F} é 漢 🙂\"},\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},\"conv.w\":{\"dtype\":\"F32\",\"shape\":[2,1],\"data_offsets\":[4,12]},\"q\\\"b\\\\s/\\u0000\\u0001\\b\\t\\n\\u000b\\f\\r\\u001b\\u001f\u{7F} é 漢 🙂\":{\"dtype\":\"F32\",\"shape\":[1,1,1],\"data_offsets\":[12,16]},\"é\\\"\\\\\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[16,16]}}    ")
        XCTAssertEqual(bytes.count, 8 + length + 4 * 4)
    }

    func testSafetensorsHeader_WithoutMetadataOrTensors() throws {
        XCTAssertEqual(String(decoding: try SafetensorsFile().serialized(), as: UTF8.self), "\u{8}\0\0\0\0\0\0\0{}      ")
        let bytes = try SafetensorsFile(metadata: ["k": "v"]).serialized()
        XCTAssertEqual(String(decoding: bytes.dropFirst(8), as: UTF8.self), "{\"__metadata__\":{\"k\":\"v\"}}      ")
    }

    func testStrokeJSON_IsTheSameBytes() {
        let drawing = Drawing(
            strokes: [[StrokePoint(x: 12, y: 30.5), StrokePoint(x: -0.0, y: 1e7), StrokePoint(x: 0.1, y: 16_777_216)],
                      [StrokePoint(x: 1, y: 2, t: 0), StrokePoint(x: 3.25, y: -4, t: 16.5, p: 0.75), StrokePoint(x: .nan, y: 1, p: 1)],
                      []],
            label: Self.awkward, canvasWidth: 280, canvasHeight: 280.5)
        let line = StrokeJSON.encode(drawing, extra: [("writer", "w\"1"), ("label", "dropped"), (Self.awkward, "é")])
        XCTAssertEqual(line, "{\"label\":\"q\\\"b\\\\s/\\u0000\\u0001\\u0008\\t\\n\\u000b\\u000c\\r\\u001b\\u001f\u{7F} é 漢 🙂\",\"writer\":\"w\\\"1\",\"q\\\"b\\\\s/\\u0000\\u0001\\u0008\\t\\n\\u000b\\u000c\\r\\u001b\\u001f\u{7F} é 漢 🙂\":\"é\",\"canvas\":{\"width\":280,\"height\":280.5},\"strokes\":[[[12,30.5],[-0,10000000],[0.1,16777216]],[{\"x\":1,\"y\":2,\"t\":0},{\"x\":3.25,\"y\":-4,\"t\":16.5,\"p\":0.75},{\"x\":null,\"y\":1,\"p\":1}],[]]}")
        let fields = StrokeJSON.encode(Drawing(strokes: [[StrokePoint(x: 1, y: 1)]], canvasHeight: 10),
                                       fields: [JSONMember("writer", .number(12)), JSONMember("ok", .bool(true)),
                                                JSONMember("tags", .array([.null, .string("a"), .object([])]))])
        XCTAssertEqual(fields, "{\"writer\":12,\"ok\":true,\"tags\":[null,\"a\",{}],\"canvas\":{\"height\":10},\"strokes\":[[[1,1]]]}")
        XCTAssertEqual(StrokeJSON.encode(Drawing(strokes: [], canvasWidth: 5)), "{\"canvas\":{\"width\":5},\"strokes\":[]}")
    }

    func testJSONValue_SerializedIsTheSameBytes() {
        let value = JSONValue.object([
            JSONMember(Self.awkward, .string(Self.awkward)),
            JSONMember("numbers", .array([.number(0), .number(-0.0), .number(1), .number(-12), .number(0.1), .number(1e300),
                                          .number(9_007_199_254_740_992), .number(123_456_789_012), .number(.infinity), .number(2.5e-8)])),
            JSONMember("nested", .object([JSONMember("a", .array([])), JSONMember("b", .null), JSONMember("c", .bool(false))])),
        ])
        XCTAssertEqual(value.serialized(), "{\"q\\\"b\\\\s/\\u0000\\u0001\\u0008\\t\\n\\u000b\\u000c\\r\\u001b\\u001f\u{7F} é 漢 🙂\":\"q\\\"b\\\\s/\\u0000\\u0001\\u0008\\t\\n\\u000b\\u000c\\r\\u001b\\u001f\u{7F} é 漢 🙂\",\"numbers\":[0,-0,1,-12,0.1,1e+300,9007199254740992.0,123456789012,null,2.5e-08],\"nested\":{\"a\":[],\"b\":null,\"c\":false}}")
        XCTAssertEqual(JSONText.quote(Self.awkward), "\"q\\\"b\\\\s/\\u0000\\u0001\\u0008\\t\\n\\u000b\\u000c\\r\\u001b\\u001f\u{7F} é 漢 🙂\"")
        XCTAssertEqual([Float(3), -0.0, 0.1, 1e7, 12_345_678, 1.5e-7].map(JSONText.number), ["3", "0", "0.1", "10000000.0", "12345678.0", "1.5e-07"])
        XCTAssertEqual([3, -0.0, 0.1, 1e7, .nan].map { JSONText.number(Double($0)) }, ["3", "-0", "0.1", "10000000", "null"])
    }
}
