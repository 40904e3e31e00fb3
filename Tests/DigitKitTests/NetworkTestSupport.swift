@testable import DigitKit
import Foundation
import DigitTestSupport
import XCTest

// Helpers shared by the network, training, weight-file and CLI tests.


extension FloatBuffer {
    /// A buffer holding a copy of `values`.
    static func of(_ values: [Float]) -> FloatBuffer { FloatBuffer(values) }

    /// The first `count` values.
    func prefix(_ count: Int) -> [Float] { Array(UnsafeBufferPointer(start: pointer, count: count)) }
}

/// Labelled images held in memory (pixels 0…1), for training runs on hand-made data.
struct ArraySamples: SampleSource {
    var pixels: [Float]   // count × 784
    var labels: [Int]

    var count: Int { labels.count }
    func label(_ i: Int) -> Int { labels[i] }
    func render(_ i: Int, augment: Bool, rng: inout SplitMix64, into out: UnsafeMutablePointer<Float>) {
        for j in 0..<784 { out[j] = pixels[i * 784 + j] }
    }
}

/// Layers written the short way for hand-made test networks.
func conv(_ name: String, _ outChannels: Int, kernel: Int, padding: Int = 0, stride: Int = 1, bias: Bool = true) -> Conv2D {
    var c = Conv2D(name, outChannels: outChannels, kernel: kernel, padding: padding, stride: stride)
    if !bias { c.bias = nil }
    return c
}

func linear(_ name: String, _ outCount: Int, bias: Bool = true) -> Linear {
    var l = Linear(name, outCount: outCount)
    if !bias { l.bias = nil }
    return l
}

extension ConvTraining {
    /// Sets the weight from PyTorch layout `(Cout, Cin, kH, kW)`.
    func importWeight(_ w: [Float]) {
        importTensors([weight.name: TensorData(shape: [outShape.channels, inShape.channels, layer.kernel, layer.kernel], values: w)])
    }
    func exportedWeight() -> [Float] { exportTensors()[weight.name]!.values }
}

extension LinearTraining {
    /// Sets the weight from PyTorch layout `(out, in)`.
    func importWeight(_ w: [Float]) { importTensors([weight.name: TensorData(shape: [layer.outCount, inCount], values: w)]) }
    func exportedWeight() -> [Float] { exportTensors()[weight.name]!.values }
}
