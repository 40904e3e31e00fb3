@testable import DigitKit
import DigitKernels
import Foundation

// Array-based calls into the C kernels (DigitKernels), so the kernel tests read as plain math.

typealias ConvGeometry = dk_conv_geometry

extension dk_conv_geometry {
    init(paddedWidth: Int, inChannels: Int, kernel: Int, outChannels: Int, outHeight: Int, outWidth: Int) {
        self.init(padded_width: paddedWidth, in_channels: inChannels, kernel: kernel, out_channels: outChannels,
                  out_height: outHeight, out_width: outWidth)
    }
    var paddedWidth: Int { padded_width }
    var outWidth: Int { out_width }
    var outHeight: Int { out_height }
    var outChannels: Int { out_channels }
    var inChannels: Int { in_channels }
}

extension KernelVariant {
    var table: dk_kernels { kernels!.pointee }
}

enum Kernel {
    static func convForward(_ g: ConvGeometry, input: [Float], weights: [Float], bias: [Float], output: UnsafeMutablePointer<Float>,
                            outputRowStride: Int? = nil, relu: Bool, variant: KernelVariant = .active) {
        variant.table.conv_forward(g, input, weights, bias, output, outputRowStride ?? g.out_width * g.out_channels, relu ? 1 : 0)
    }

    static func convWeightGrad(_ g: ConvGeometry, input: [Float], dOutput: [Float], dWeights: UnsafeMutablePointer<Float>,
                               dBias: UnsafeMutablePointer<Float>, variant: KernelVariant = .active) {
        variant.table.conv_weight_grad(g, input, dOutput, dWeights, dBias)
    }

    /// Winograd F(2×2, 3×3) (`tile` 2) or F(4×4, 3×3) (`tile` 4).
    static func winogradForward(_ g: ConvGeometry, tile: Int = 2, input: [Float], weights u: [Float], bias: [Float],
                                output: UnsafeMutablePointer<Float>, outputRowStride: Int? = nil, relu: Bool,
                                variant: KernelVariant = .active) {
        var scratch = [Float](repeating: .nan, count: Winograd.scratchFloats(g, tile: tile))
        let stride = outputRowStride ?? g.out_width * g.out_channels
        if tile == 4 {
            variant.table.winograd4_forward(g, input, u, bias, output, stride, relu ? 1 : 0, &scratch)
        } else {
            variant.table.winograd_forward(g, input, u, bias, output, stride, relu ? 1 : 0, &scratch)
        }
    }

    static func maxPool2x2(_ input: [Float], height: Int, width: Int, channels: Int, output: UnsafeMutablePointer<Float>,
                           outputRowStride: Int, variant: KernelVariant = .active) {
        variant.table.max_pool_2x2(input, height, width, channels, output, outputRowStride)
    }

    static func linearForward(_ x: [Float], inCount: Int, weightsT: [Float], bias: [Float], outCount: Int, outPadded: Int,
                              output: UnsafeMutablePointer<Float>, relu: Bool, variant: KernelVariant = .active) {
        variant.table.linear_forward(x, inCount, weightsT, bias, outCount, outPadded, output, relu ? 1 : 0)
    }

    static func linearForwardRows(_ x: [Float], inCount: Int, weights: [Float], bias: [Float], outCount: Int,
                                  output: UnsafeMutablePointer<Float>, relu: Bool, variant: KernelVariant = .active) {
        variant.table.linear_forward_rows(x, inCount, weights, bias, outCount, output, relu ? 1 : 0)
    }

    static func linearBackward(_ x: [Float], weightsT: [Float], dy: [Float], outPadded: Int, dWeightsT: UnsafeMutablePointer<Float>,
                               dInput: UnsafeMutablePointer<Float>?, variant: KernelVariant = .active) {
        variant.table.linear_backward(x, x.count, weightsT, dy, dy.count, outPadded, dWeightsT, dInput)
    }
}

/// The two Winograd kernels' helpers: `tile` 2 for F(2×2, 3×3), 4 for F(4×4, 3×3).
enum Winograd {
    static func supports(_ g: ConvGeometry, tile: Int = 2) -> Bool {
        (tile == 4 ? dk_winograd4_supports(g) : dk_winograd_supports(g)) != 0
    }
    static func fourPreferred(_ g: ConvGeometry) -> Bool { dk_winograd4_preferred(g) != 0 }
    static func scratchFloats(_ g: ConvGeometry, tile: Int = 2) -> Int {
        tile == 4 ? dk_winograd4_scratch_floats(g) : dk_winograd_scratch_floats(g)
    }
    static func transformWeights(_ packed: [Float], inChannels: Int, outChannels: Int, tile: Int = 2) -> [Float] {
        var u = [Float](repeating: 0, count: (tile == 4 ? 36 : 16) * inChannels * outChannels)
        if tile == 4 {
            dk_winograd4_transform_weights(packed, inChannels, outChannels, &u)
        } else {
            dk_winograd_transform_weights(packed, inChannels, outChannels, &u)
        }
        return u
    }
}

/// The fast convolution of the active copy.
func convForward(_ g: ConvGeometry, input: [Float], weights: [Float], bias: [Float], output: UnsafeMutablePointer<Float>, relu: Bool) {
    Kernel.convForward(g, input: input, weights: weights, bias: bias, output: output, relu: relu)
}

func convForwardReference(_ g: ConvGeometry, input: [Float], weights: [Float], bias: [Float], output: UnsafeMutablePointer<Float>,
                          outputRowStride: Int? = nil, relu: Bool) {
    dk_ref_conv_forward(g, input, weights, bias, output, outputRowStride ?? g.out_width * g.out_channels, relu ? 1 : 0)
}

func convWeightGrad(_ g: ConvGeometry, input: [Float], dOutput: [Float], dWeights: UnsafeMutablePointer<Float>,
                    dBias: UnsafeMutablePointer<Float>) {
    Kernel.convWeightGrad(g, input: input, dOutput: dOutput, dWeights: dWeights, dBias: dBias)
}

func convWeightGradReference(_ g: ConvGeometry, input: [Float], dOutput: [Float], dWeights: UnsafeMutablePointer<Float>,
                             dBias: UnsafeMutablePointer<Float>) {
    dk_ref_conv_weight_grad(g, input, dOutput, dWeights, dBias)
}

func linearForwardReference(_ x: [Float], inCount: Int, weights: [Float], bias: [Float], outCount: Int,
                            output: UnsafeMutablePointer<Float>) {
    dk_ref_linear_forward(x, inCount, weights, bias, outCount, output, 0)
}

func maxPoolForward(_ input: [Float], height: Int, width: Int, channels: Int, kernel: Int, stride: Int,
                    output: UnsafeMutablePointer<Float>) {
    dk_ref_max_pool(input, height, width, channels, kernel, stride, output)
}

func maxPoolBackward(_ input: [Float], output: [Float], dOutput: [Float], height: Int, width: Int, channels: Int, kernel: Int,
                     stride: Int, dInput: UnsafeMutablePointer<Float>) {
    dk_max_pool_backward(input, output, dOutput, height, width, channels, kernel, stride, dInput)
}

func avgPoolForward(_ input: [Float], height: Int, width: Int, channels: Int, kernel: Int, stride: Int,
                    output: UnsafeMutablePointer<Float>) {
    dk_avg_pool(input, height, width, channels, kernel, stride, output)
}
