import Foundation
#if DIGITS_KERNEL_VARIANTS
import DigitKernelsAVX2
import DigitKernelsAVX512
#endif

/// Which compiled copy of the compute kernels (`Kernels.swift`, `Winograd.swift`) runs.
///
/// A portable x86-64 build (no `DIGITS_CPU`, see Package.swift) holds three copies of the same
/// kernel sources: the library's own, for any x86-64, and two more compiled for AVX2 + FMA
/// (`-target-cpu haswell`) and AVX-512 + FMA (`-target-cpu skylake-avx512`). `active` is the best
/// one this CPU can run, from the flags in /proc/cpuinfo, unless `DIGITS_KERNELS` names another.
/// Other builds (`DIGITS_CPU` set, or arm64) hold only their own copy, `.builtIn`.
public enum KernelVariant: String, CaseIterable, Sendable {
    /// The library's own compile: baseline x86-64 (separate multiply and add) in a portable build,
    /// the `DIGITS_CPU` target otherwise, NEON with fused multiply-add on arm64.
    case builtIn = "built-in"
    /// AVX2 + FMA (Haswell, 2013, and later; AMD Zen and later).
    case avx2
    /// AVX-512 F/CD/BW/DQ/VL + FMA (Skylake-SP, 2017, and later; AMD Zen 4 and later).
    case avx512

    /// The copies in this build.
    public static var compiled: [KernelVariant] {
        #if DIGITS_KERNEL_VARIANTS
        return [.builtIn, .avx2, .avx512]
        #else
        return [.builtIn]
        #endif
    }

    /// The copies in this build that this CPU can run.
    public static let available: [KernelVariant] = compiled.filter { $0.runs(onCPUWith: cpuFlags()) }

    /// What the kernels run: `DIGITS_KERNELS` (`built-in`, `avx2` or `avx512`) when it names an
    /// available copy, else the fastest available one. A name that is not available is reported
    /// once on stderr and ignored, so a script that sets it still runs on any machine.
    public static let active: KernelVariant = {
        let best = available.last ?? .builtIn
        guard let requested = ProcessInfo.processInfo.environment["DIGITS_KERNELS"], !requested.isEmpty else { return best }
        if let variant = KernelVariant(rawValue: requested), available.contains(variant) { return variant }
        FileHandle.standardError.write(Data(("digits: DIGITS_KERNELS=\(requested) is not one of the kernels this build and CPU "
            + "can run (\(available.map(\.rawValue).joined(separator: ", "))); using \(best.rawValue)\n").utf8))
        return best
    }()

    /// Whether a CPU with these /proc/cpuinfo `flags` runs this copy. The AVX2 copy needs what
    /// `-target-cpu haswell` may use, the AVX-512 copy that and `skylake-avx512`'s AVX-512 subsets.
    public func runs(onCPUWith flags: Set<String>) -> Bool {
        let haswell: Set<String> = ["avx", "avx2", "fma", "bmi1", "bmi2", "f16c", "movbe", "popcnt", "abm"]
        switch self {
        case .builtIn: return true
        case .avx2: return haswell.isSubset(of: flags)
        case .avx512: return haswell.union(["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"]).isSubset(of: flags)
        }
    }

    /// Whether this copy multiplies and adds in one fused instruction.
    public var fusedMultiplyAdd: Bool {
        switch self {
        case .avx2, .avx512: return true
        case .builtIn:
            #if DIGITS_FMA || arch(arm64)
            return true
            #else
            return false
            #endif
        }
    }

    /// The `flags` (x86) or `Features` (arm) of the first processor in /proc/cpuinfo; empty when
    /// unreadable, which leaves only the built-in copy.
    static func cpuFlags(_ text: String? = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) -> Set<String> {
        guard let text else { return [] }
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let key = parts[0].trimmingCharacters(in: .whitespaces)
            if key == "flags" || key == "Features" { return Set(parts[1].split(separator: " ").map(String.init)) }
        }
        return []
    }
}

/// The kernels that have a copy per `KernelVariant`, each running `variant` (default: `active`).
/// Everything else calls the library's own kernels directly.
enum Kernel {
    static func convForward(_ g: ConvGeometry, input: UnsafePointer<Float>, weights: UnsafePointer<Float>,
                            bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, outputRowStride: Int,
                            relu: Bool, variant: KernelVariant = .active) {
        switch variant {
        #if DIGITS_KERNEL_VARIANTS
        case .avx2:
            DigitKernelsAVX2.convForward(g.avx2, input: input, weights: weights, bias: bias, output: output,
                                         outputRowStride: outputRowStride, relu: relu)
        case .avx512:
            DigitKernelsAVX512.convForward(g.avx512, input: input, weights: weights, bias: bias, output: output,
                                           outputRowStride: outputRowStride, relu: relu)
        #endif
        default:
            DigitKit.convForward(g, input: input, weights: weights, bias: bias, output: output,
                                 outputRowStride: outputRowStride, relu: relu)
        }
    }

    static func convForward(_ g: ConvGeometry, input: UnsafePointer<Float>, weights: UnsafePointer<Float>,
                            bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, relu: Bool,
                            variant: KernelVariant = .active) {
        convForward(g, input: input, weights: weights, bias: bias, output: output,
                    outputRowStride: g.outWidth * g.outChannels, relu: relu, variant: variant)
    }

    static func convWeightGrad(_ g: ConvGeometry, input: UnsafePointer<Float>, dOutput: UnsafePointer<Float>,
                               dWeights: UnsafeMutablePointer<Float>, dBias: UnsafeMutablePointer<Float>,
                               variant: KernelVariant = .active) {
        switch variant {
        #if DIGITS_KERNEL_VARIANTS
        case .avx2:
            DigitKernelsAVX2.convWeightGrad(g.avx2, input: input, dOutput: dOutput, dWeights: dWeights, dBias: dBias)
        case .avx512:
            DigitKernelsAVX512.convWeightGrad(g.avx512, input: input, dOutput: dOutput, dWeights: dWeights, dBias: dBias)
        #endif
        default:
            DigitKit.convWeightGrad(g, input: input, dOutput: dOutput, dWeights: dWeights, dBias: dBias)
        }
    }

    static func winogradForward(_ g: ConvGeometry, input: UnsafePointer<Float>, weights u: UnsafePointer<Float>,
                                bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, outputRowStride: Int,
                                relu: Bool, scratch: UnsafeMutablePointer<Float>, variant: KernelVariant = .active) {
        switch variant {
        #if DIGITS_KERNEL_VARIANTS
        case .avx2:
            DigitKernelsAVX2.Winograd.forward(g.avx2, input: input, weights: u, bias: bias, output: output,
                                              outputRowStride: outputRowStride, relu: relu, scratch: scratch)
        case .avx512:
            DigitKernelsAVX512.Winograd.forward(g.avx512, input: input, weights: u, bias: bias, output: output,
                                                outputRowStride: outputRowStride, relu: relu, scratch: scratch)
        #endif
        default:
            Winograd.forward(g, input: input, weights: u, bias: bias, output: output,
                             outputRowStride: outputRowStride, relu: relu, scratch: scratch)
        }
    }

    static func maxPool2x2(_ input: UnsafePointer<Float>, height: Int, width: Int, channels: Int,
                           output: UnsafeMutablePointer<Float>, outputRowStride: Int, variant: KernelVariant = .active) {
        switch variant {
        #if DIGITS_KERNEL_VARIANTS
        case .avx2:
            DigitKernelsAVX2.maxPool2x2(input, height: height, width: width, channels: channels,
                                        output: output, outputRowStride: outputRowStride)
        case .avx512:
            DigitKernelsAVX512.maxPool2x2(input, height: height, width: width, channels: channels,
                                          output: output, outputRowStride: outputRowStride)
        #endif
        default:
            DigitKit.maxPool2x2(input, height: height, width: width, channels: channels,
                                output: output, outputRowStride: outputRowStride)
        }
    }

    static func linearForward(_ x: UnsafePointer<Float>, inCount: Int, weightsT: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                              outCount: Int, outPadded: Int, output: UnsafeMutablePointer<Float>, relu: Bool,
                              variant: KernelVariant = .active) {
        switch variant {
        #if DIGITS_KERNEL_VARIANTS
        case .avx2:
            DigitKernelsAVX2.linearForward(x, inCount: inCount, weightsT: weightsT, bias: bias, outCount: outCount,
                                           outPadded: outPadded, output: output, relu: relu)
        case .avx512:
            DigitKernelsAVX512.linearForward(x, inCount: inCount, weightsT: weightsT, bias: bias, outCount: outCount,
                                             outPadded: outPadded, output: output, relu: relu)
        #endif
        default:
            DigitKit.linearForward(x, inCount: inCount, weightsT: weightsT, bias: bias, outCount: outCount,
                                   outPadded: outPadded, output: output, relu: relu)
        }
    }

    static func linearForwardRows(_ x: UnsafePointer<Float>, inCount: Int, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                                  outCount: Int, output: UnsafeMutablePointer<Float>, relu: Bool,
                                  variant: KernelVariant = .active) {
        switch variant {
        #if DIGITS_KERNEL_VARIANTS
        case .avx2:
            DigitKernelsAVX2.linearForwardRows(x, inCount: inCount, weights: weights, bias: bias, outCount: outCount,
                                               output: output, relu: relu)
        case .avx512:
            DigitKernelsAVX512.linearForwardRows(x, inCount: inCount, weights: weights, bias: bias, outCount: outCount,
                                                 output: output, relu: relu)
        #endif
        default:
            DigitKit.linearForwardRows(x, inCount: inCount, weights: weights, bias: bias, outCount: outCount,
                                       output: output, relu: relu)
        }
    }

    static func linearWeightGradGroup(_ dW: UnsafeMutablePointer<Float>, stride: Int, x: UnsafePointer<Float>, inCount: Int,
                                      dy: SIMD16<Float>, variant: KernelVariant = .active) {
        switch variant {
        #if DIGITS_KERNEL_VARIANTS
        case .avx2: DigitKernelsAVX2.linearWeightGradGroup(dW, stride: stride, x: x, inCount: inCount, dy: dy)
        case .avx512: DigitKernelsAVX512.linearWeightGradGroup(dW, stride: stride, x: x, inCount: inCount, dy: dy)
        #endif
        default: DigitKit.linearWeightGradGroup(dW, stride: stride, x: x, inCount: inCount, dy: dy)
        }
    }

    static func maddPeak(iterations: Int, scale: Float = 0.999_999, variant: KernelVariant = .active) -> Float {
        switch variant {
        #if DIGITS_KERNEL_VARIANTS
        case .avx2: return DigitKernelsAVX2.maddPeak(iterations: iterations, scale: scale)
        case .avx512: return DigitKernelsAVX512.maddPeak(iterations: iterations, scale: scale)
        #endif
        default: return DigitKit.maddPeak(iterations: iterations, scale: scale)
        }
    }
}

#if DIGITS_KERNEL_VARIANTS
extension ConvGeometry {
    var avx2: DigitKernelsAVX2.ConvGeometry {
        .init(paddedWidth: paddedWidth, inChannels: inChannels, kernel: kernel, outChannels: outChannels,
              outHeight: outHeight, outWidth: outWidth)
    }
    var avx512: DigitKernelsAVX512.ConvGeometry {
        .init(paddedWidth: paddedWidth, inChannels: inChannels, kernel: kernel, outChannels: outChannels,
              outHeight: outHeight, outWidth: outWidth)
    }
}
#endif
