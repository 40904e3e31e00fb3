import Foundation

/// The kinds of layer a weight file may name in its `layers` list. Adding a kind is its file in
/// `Layers/` and one line here.
public enum LayerKinds {
    public static let all: [any Layer.Type] = [
        Conv2D.self, BatchNorm2D.self, ReLU.self, MaxPool2D.self, AvgPool2D.self, GlobalAvgPool.self,
        Flatten.self, Linear.self, Dropout.self, HeightPool.self, HeightFlatten.self,
    ]

    /// Reads a weight file's `layers` metadata (a JSON array). Errors name the file and the element
    /// (`layers[3].kernel`).
    public static func parse(_ text: String, file: String, tensors: [String: TensorData]) throws -> [any Layer] {
        let value: JSONValue
        do { value = try JSONValue.parse(Array(text.utf8)) } catch let e as DigitError {
            throw DigitError(.format, file: file, at: "metadata 'layers'", "not valid JSON: \(e.message)")
        }
        guard case let .array(items) = value else {
            throw DigitError(.format, file: file, at: "metadata 'layers'", "expected a JSON array")
        }
        guard items.count <= 256 else {
            throw DigitError(.limit, file: file, at: "metadata 'layers'", "\(items.count) layers, at most 256 are allowed")
        }
        return try items.enumerated().map { i, item in
            let path = "layers[\(i)]"
            guard case let .object(fields) = item else { throw DigitError(.format, file: file, at: path, "expected an object") }
            let entry = LayerEntry(fields: fields, path: path, file: file, tensors: tensors)
            let type = try entry.string("type")
            guard let kind = all.first(where: { $0.typeName == type }) else {
                throw entry.error("type", "unknown layer type '\(type)'")
            }
            return try kind.init(entry: entry)
        }
    }

    /// The `layers` metadata of a network: every layer that has a weight-file entry.
    public static func json(_ layers: [any Layer]) -> String {
        var writer = JSONWriter()
        writer.array { for entry in layers.compactMap(\.entryJSON) { $0.json(entry) } }
        return writer.text
    }
}
