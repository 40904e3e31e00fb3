@testable import DigitKit
import Foundation
import DigitTestSupport
import XCTest

/// The weight file: export from training, the inference network it describes, the round trip
/// through safetensors, and the loader's errors (each naming the file and the key or layer).
final class ModelFileTests: XCTestCase {
    // MARK: - Training network → weight file → inference network

    /// Logits of the training network in eval mode and of the inference network built from its
    /// export (batch norm folded into the convolutions, weights repacked, NCHW flatten).
    private func compareExport(_ net: TrainingNetwork, images: [Float], options: TrainingOptions,
                               through path: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
        let count = images.count / 784
        let inference: InferenceNetwork
        if let path {
            try ModelFile(layers: net.architecture, tensors: net.exportTensors(), inputMean: options.inputMean,
                          inputStd: options.inputStd).write(to: path)
            inference = try ModelFile.load(path: path).makeNetwork()
        } else {
            inference = try InferenceNetwork(layers: net.architecture, tensors: net.exportTensors(),
                                             inputMean: options.inputMean, inputStd: options.inputStd)
        }
        let fast = BatchInference.logits(inference, pixels: images, threads: 2)
        let normalized = images.map { ($0 - options.inputMean) / options.inputStd }
        let reference = net.forward(.of(normalized), BatchContext(count: count, threads: 1, training: false, stepSeed: 0))
            .prefix(count * 10)
        // Folding batch norm changes only the rounding: within 10⁻⁴ of the logit scale.
        let scale = max(1, reference.map(abs).max() ?? 0)
        for i in 0..<(count * 10) where abs(fast[i] - reference[i]) > 1e-4 * scale {
            XCTFail("image \(i / 10) logit \(i % 10): inference \(fast[i]), training network \(reference[i])", file: file, line: line)
            return
        }
        // Not a trivially constant network.
        XCTAssertGreaterThan(Set(reference.map { Int($0 * 100) }).count, 10, file: file, line: line)
    }

    func testExport_TrainedStandardNetworkGivesTheSameLogitsAsItsInferenceNetwork() throws {
        guard let dir = TestPaths.requireMNIST() else { return }
        let set = try MNISTSet.load(directory: dir.path, split: .train)
        let options = TrainingOptions(architecture: Architecture.standard(), epochs: 1, batchSize: 32, warmupEpochs: 0, threads: 2)
        // 128 images, 4 steps: enough to move every weight and the batch-norm running statistics.
        let trainer = try Trainer(options: options, train: MNISTSamples(set, range: 0..<128),
                              validation: MNISTSamples(set, range: 128..<160))
        let model = try trainer.run { _ in }
        XCTAssertEqual(LayerKinds.json(model.layers), LayerKinds.json(trainer.network.architecture))
        XCTAssertFalse(model.layers.contains { $0 is Dropout }, "the file describes inference only")
        let folder = try temporaryFolder(self)
        try compareExport(trainer.network, images: BatchInference.pixels(set, range: 200..<232), options: options,
                          through: folder.appendingPathComponent("standard.safetensors").path)
    }

    func testExport_RandomBatchNormStatisticsFoldExactly() throws {
        // Far-from-default running statistics, gammas and betas make folding do real work.
        var rng = SplitMix64(seed: 41)
        for architecture in [Architecture.tiny(), Architecture.standard()] {
            let net = try TrainingNetwork(architecture: architecture, capacity: 8, seed: 3)
            for case let bn as BatchNormTraining in net.layers {
                for k in 0..<bn.inShape.channels {
                    bn.runningMean[k] = rng.uniform(-1, 1)
                    bn.runningVar[k] = rng.uniform(0.2, 3)
                    bn.gamma.value[k] = rng.uniform(0.5, 1.5)
                    bn.beta.value[k] = rng.uniform(-0.5, 0.5)
                }
            }
            try compareExport(net, images: rng.floats(8 * 784, 0, 1), options: TrainingOptions())
        }
    }

    // MARK: - Round trip

    func testModelFile_WriteThenLoadKeepsLayersTensorsAndMetadata() throws {
        let path = try temporaryFolder(self).appendingPathComponent("m.safetensors").path
        var model = SmallModel.model
        model.provenance = ["training_command": "digits train --seed 5 --note \"quoted\"", "seed": "5", "threads": "2",
                            "wall_time_seconds": "12.5", "test_accuracy": "0.9951", "unicode": "ünïcödé ✓"]
        try model.write(to: path)
        let loaded = try ModelFile.load(path: path)
        XCTAssertEqual(LayerKinds.json(loaded.layers), LayerKinds.json(model.layers))
        XCTAssertEqual(Set(loaded.tensors.keys), Set(model.tensors.keys))
        for (name, t) in model.tensors {
            XCTAssertEqual(loaded.tensors[name]?.shape, t.shape, name)
            XCTAssertEqual(loaded.tensors[name].map { bits($0.values) }, bits(t.values), "\(name) values bit for bit")
        }
        XCTAssertEqual(loaded.inputMean, model.inputMean)
        XCTAssertEqual(loaded.inputStd, model.inputStd)
        XCTAssertEqual(loaded.temperature, model.temperature)
        XCTAssertEqual(loaded.provenance, model.provenance)
        // The raw metadata has the required keys as strings.
        let raw = try SafetensorsFile.read(path: path).metadata
        XCTAssertEqual(raw["format"], "digits-cnn")
        XCTAssertEqual(raw["format_version"], "1")
        XCTAssertEqual(raw["classes"], "0123456789")
        XCTAssertEqual(raw["temperature"].flatMap(Float.init), 1.5)
        XCTAssertEqual(raw["layers"], LayerKinds.json(model.layers))
    }

    func testModelFile_LoadedNetworkComputesTheSameLogitsAsTheOriginal() throws {
        let path = try temporaryFolder(self).appendingPathComponent("m.safetensors").path
        try SmallModel.model.write(to: path)
        var rng = SplitMix64(seed: 42)
        let images = rng.floats(5 * 784, 0, 1)
        let before = BatchInference.logits(try SmallModel.model.makeNetwork(), pixels: images, threads: 1)
        let after = BatchInference.logits(try ModelFile.load(path: path).makeNetwork(), pixels: images, threads: 1)
        XCTAssertEqual(bits(after), bits(before))
    }

    func testEveryLayerType_SurvivesTheJSONRoundTrip() throws {
        var conv = Conv2D("x", outChannels: 4, kernel: 3, padding: 3, stride: 2)
        conv.weight = "a\"b"
        conv.bias = nil
        var fc = Linear("fc", outCount: 10)
        fc.weight = "fc"
        fc.bias = nil
        let layers: [any Layer] = [
            conv, Conv2D("w", outChannels: 4, kernel: 1, padding: 0), BatchNorm2D("g", eps: 0.001), ReLU(), MaxPool2D(kernel: 3, stride: 2),
            AvgPool2D(kernel: 2), GlobalAvgPool(), Flatten(), fc, Linear("fc2", outCount: 10),
        ]
        let tensors = ["a\"b": TensorData(shape: [4, 1, 3, 3], values: []), "w.weight": TensorData(shape: [4, 4, 1, 1], values: []),
                       "fc": TensorData(shape: [10, 4], values: []), "fc2.weight": TensorData(shape: [10, 10], values: [])]
        let json = LayerKinds.json(layers)
        XCTAssertEqual(LayerKinds.json(try LayerKinds.parse(json, file: "x", tensors: tensors)), json)
    }

    // MARK: - Loader errors

    /// Writes `SmallModel` with `change` applied and asserts that loading fails with a format
    /// error naming the file and containing every fragment.
    private func assertLoadFails(_ fragments: [String], kind: DigitError.Kind = .format,
                                 tensors: (inout [String: TensorData]) -> Void = { _ in },
                                 metadata: (inout [String: String]) -> Void = { _ in },
                                 file: StaticString = #filePath, line: UInt = #line) throws {
        let path = try temporaryFolder(self).appendingPathComponent("bad.safetensors").path
        var t = SmallModel.tensors(), m = SmallModel.metadata
        tensors(&t)
        metadata(&m)
        try SmallModel.write(to: path, tensors: t, metadata: m)
        do {
            _ = try ModelFile.load(path: path)
            XCTFail("loaded a broken file; expected an error with \(fragments)", file: file, line: line)
        } catch let e as DigitError {
            XCTAssertEqual(e.kind, kind, "\(e)", file: file, line: line)
            XCTAssertEqual(e.file, path, "\(e)", file: file, line: line)
            for f in fragments {
                XCTAssertTrue(e.description.contains(f), "'\(e)' does not mention '\(f)'", file: file, line: line)
            }
        }
    }

    private func layersJSON(_ layers: [any Layer]) -> (inout [String: String]) -> Void {
        { $0["layers"] = LayerKinds.json(layers) }
    }

    func testLoader_TheValidSmallModelLoads() throws {
        let path = try temporaryFolder(self).appendingPathComponent("ok.safetensors").path
        try SmallModel.write(to: path)
        let model = try ModelFile.load(path: path)
        XCTAssertEqual(model.temperature, 1.5)
        XCTAssertEqual(model.provenance, ["training_command": "made by the tests", "seed": "5"])
    }

    func testLoader_MissingRequiredMetadataKeysAreNamed() throws {
        for key in ["format", "format_version", "classes", "input_mean", "input_std", "temperature", "layers"] {
            try assertLoadFails(["metadata", "missing key '\(key)'"], metadata: { $0[key] = nil })
        }
    }

    func testLoader_WrongFormatVersionOrClassesAreRefused() throws {
        try assertLoadFails(["metadata 'format'", "digits-cnn", "pytorch"], metadata: { $0["format"] = "pytorch" })
        try assertLoadFails(["metadata 'format_version'", "'2'", "not supported"], metadata: { $0["format_version"] = "2" })
        try assertLoadFails(["metadata 'classes'"], metadata: { $0["classes"] = "0123456789x" })
    }

    func testLoader_NonNumericOrNonPositiveNumbersAreRefused() throws {
        for bad in ["abc", "", "nan", "inf", "1e999", "0x"] {
            try assertLoadFails(["metadata 'input_std'", "finite number"], metadata: { $0["input_std"] = bad })
            try assertLoadFails(["metadata 'temperature'", "finite number"], metadata: { $0["temperature"] = bad })
            try assertLoadFails(["metadata 'input_mean'", "finite number"], metadata: { $0["input_mean"] = bad })
        }
        for bad in ["0", "-1", "-0"] {
            try assertLoadFails(["metadata 'input_std'", "positive"], metadata: { $0["input_std"] = bad })
            try assertLoadFails(["metadata 'temperature'", "positive"], metadata: { $0["temperature"] = bad })
        }
    }

    func testLoader_InvalidLayersJSONIsRefused() throws {
        try assertLoadFails(["metadata 'layers'", "not valid JSON"], metadata: { $0["layers"] = "[{\"type\":\"relu\"" })
        try assertLoadFails(["metadata 'layers'", "expected a JSON array"], metadata: { $0["layers"] = "{\"type\":\"relu\"}" })
        try assertLoadFails(["layers[1]", "expected an object"], metadata: { $0["layers"] = "[{\"type\":\"relu\"},3]" })
        try assertLoadFails(["layers[0].kernel", "integer"],
                            metadata: { $0["layers"] = "[{\"type\":\"maxpool2d\",\"kernel\":2.5}]" })
        try assertLoadFails(["layers[0].weight", "missing"], metadata: { $0["layers"] = "[{\"type\":\"conv2d\"}]" })
    }

    func testLoader_UnknownLayerTypeIsNamed() throws {
        let json = LayerKinds.json(SmallModel.layers).replacingOccurrences(of: "\"relu\"", with: "\"gelu\"")
        try assertLoadFails(["layers[2].type", "unknown layer type 'gelu'"], metadata: { $0["layers"] = json })
    }

    func testLoader_MissingTensorNamesTheLayer() throws {
        try assertLoadFails(["layers[5]", "fc.weight"], tensors: { $0["fc.weight"] = nil })
        try assertLoadFails(["layers[1]", "bn.running_var", "not in the file"], tensors: { $0["bn.running_var"] = nil })
        try assertLoadFails(["layers[0]", "conv.bias", "not in the file"], tensors: { $0["conv.bias"] = nil })
    }

    func testLoader_WrongTensorShapeNamesTheLayerAndBothShapes() throws {
        try assertLoadFails(["layers[1]", "bn.weight", "[5]", "expected [4]"],
                            tensors: { $0["bn.weight"] = TensorData(shape: [5], values: [1, 1, 1, 1, 1]) })
        try assertLoadFails(["layers[5]", "fc.bias", "expected [10]"],
                            tensors: { $0["fc.bias"] = TensorData(shape: [2, 5], values: [Float](repeating: 0, count: 10)) })
        try assertLoadFails(["layers[0]", "conv.weight", "not 4-D"],
                            tensors: { $0["conv.weight"] = TensorData(shape: [36], values: [Float](repeating: 0, count: 36)) })
    }

    func testLoader_UnusedTensorIsNamed() throws {
        try assertLoadFails(["tensor 'extra'", "not used by any layer"],
                            tensors: { $0["extra"] = TensorData(shape: [1], values: [0]) })
    }

    func testLoader_ChannelMismatchNamesTheLayer() throws {
        // A second conv expecting 8 input channels after the first one's 4.
        var layers = SmallModel.layers
        var conv2 = Conv2D("conv2", outChannels: 4, kernel: 3, padding: 1)
        conv2.bias = nil
        layers.insert(conv2, at: 3)
        try assertLoadFails(["layers[3]", "conv2.weight", "expects 8 input channels", "has 4"],
                            tensors: { $0["conv2.weight"] = TensorData(shape: [4, 8, 3, 3], values: [Float](repeating: 0, count: 288)) },
                            metadata: layersJSON(layers))
        // The first conv expecting 3 channels (RGB) on the 1-channel input.
        try assertLoadFails(["layers[0]", "expects 3 input channels", "has 1"],
                            tensors: { $0["conv.weight"] = TensorData(shape: [4, 3, 3, 3], values: [Float](repeating: 0, count: 108)) })
        // Linear with the wrong input count.
        try assertLoadFails(["layers[5]", "fc.weight", "expects 195 inputs", "has 196"],
                            tensors: { $0["fc.weight"] = TensorData(shape: [10, 195], values: [Float](repeating: 0, count: 1950)) })
    }

    func testLoader_NetworkNotEndingInTenOutputsIsRefused() throws {
        try assertLoadFails(["layers", "10 outputs", "9×1×1"],
                            tensors: {
                                $0["fc.weight"] = TensorData(shape: [9, 196], values: [Float](repeating: 0, count: 1764))
                                $0["fc.bias"] = TensorData(shape: [9], values: [Float](repeating: 0, count: 9))
                            })
        // Without the linear layer the network ends in a 4×7×7 activation.
        try assertLoadFails(["layers", "10 outputs"],
                            tensors: { $0["fc.weight"] = nil; $0["fc.bias"] = nil },
                            metadata: layersJSON(Array(SmallModel.layers.prefix(5))))
    }

    func testLoader_LinearWithoutFlattenIsRefused() throws {
        var layers = SmallModel.layers
        layers.remove(at: 4)
        try assertLoadFails(["layers[4]", "flatten"], metadata: layersJSON(layers))
    }

    func testLoader_NegativeRunningVarianceNamesTheLayerAndChannel() throws {
        try assertLoadFails(["layers[1]", "running_var[2]", "negative"],
                            tensors: { $0["bn.running_var"] = TensorData(shape: [4], values: [1, 1, -0.5, 1]) })
    }

    func testLoader_NotASafetensorsFileAndMissingFileAreErrors() throws {
        let folder = try temporaryFolder(self)
        let path = folder.appendingPathComponent("text.safetensors").path
        try FileIO.writeAtomically("hello, this is not a weight file", to: path)
        XCTAssertThrowsError(try ModelFile.load(path: path)) { e in
            XCTAssertEqual((e as? DigitError)?.file, path, "\(e)")
        }
        let missing = folder.appendingPathComponent("missing.safetensors").path
        XCTAssertThrowsError(try ModelFile.load(path: missing)) { e in
            XCTAssertEqual((e as? DigitError)?.kind, .io, "\(e)")
            XCTAssertEqual((e as? DigitError)?.file, missing, "\(e)")
        }
    }
}
