@testable import DigitKit
import Foundation
import XCTest

/// The choice of compiled kernel copy at run time (`KernelVariant`), and the shipped network run
/// through every copy this machine has.
final class KernelVariantTests: XCTestCase {
    func testCPUFlags_ReadFromTheFirstProcessor() {
        let x86 = "processor\t: 0\nmodel name\t: Some CPU\nflags\t\t: fpu sse2 avx avx2 fma\n\nprocessor\t: 1\nflags\t\t: other\n"
        XCTAssertEqual(KernelVariant.cpuFlags(x86), ["fpu", "sse2", "avx", "avx2", "fma"])
        XCTAssertEqual(KernelVariant.cpuFlags("processor\t: 0\nFeatures\t: fp asimd evtstrm\n"), ["fp", "asimd", "evtstrm"])
        XCTAssertEqual(KernelVariant.cpuFlags("garbage"), [])
        XCTAssertEqual(KernelVariant.cpuFlags(nil), [])
    }

    func testRuns_EachCopyNeedsEveryFeatureItsTargetMayUse() {
        let haswell: Set<String> = ["avx", "avx2", "fma", "bmi1", "bmi2", "f16c", "movbe", "popcnt", "abm"]
        let avx512 = haswell.union(["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"])
        XCTAssertTrue(KernelVariant.builtIn.runs(onCPUWith: []))
        XCTAssertTrue(KernelVariant.avx2.runs(onCPUWith: haswell))
        XCTAssertFalse(KernelVariant.avx512.runs(onCPUWith: haswell))
        XCTAssertTrue(KernelVariant.avx512.runs(onCPUWith: avx512))
        // Any one missing feature rules a copy out (an AVX2 CPU without FMA, AVX-512 without VL).
        for flag in haswell { XCTAssertFalse(KernelVariant.avx2.runs(onCPUWith: haswell.subtracting([flag])), flag) }
        XCTAssertFalse(KernelVariant.avx512.runs(onCPUWith: avx512.subtracting(["avx512vl"])))
        XCTAssertFalse(KernelVariant.avx512.runs(onCPUWith: avx512.subtracting(["fma"])))
    }

    func testActive_IsTheBestAvailableCopy() {
        XCTAssertEqual(KernelVariant.available.first, .builtIn)
        XCTAssertTrue(KernelVariant.available.allSatisfy { KernelVariant.compiled.contains($0) })
        if ProcessInfo.processInfo.environment["DIGITS_KERNELS"] == nil {
            XCTAssertEqual(KernelVariant.active, KernelVariant.available.last)
        }
        #if DIGITS_KERNEL_VARIANTS
        XCTAssertEqual(KernelVariant.compiled, [.builtIn, .avx2, .avx512])
        #else
        XCTAssertEqual(KernelVariant.compiled, [.builtIn])
        #endif
        XCTAssertEqual(BuildInfo.fastPath, KernelVariant.active.fusedMultiplyAdd)
    }

    /// The shipped network on real test images through every copy this machine runs: the fused
    /// multiply-add copies give the same bits as one another (same operations, same order), and
    /// any copy agrees with the others up to rounding.
    func testShippedNetwork_EveryCopyGivesTheSameAnswers() throws {
        guard let dir = TestPaths.requireMNIST() else { return }
        let model = try ModelFile.load(path: TestPaths.weights.path)
        let test = try MNISTSet.load(directory: dir.path, split: .test)
        let pixels = BatchInference.pixels(test, range: 0..<200)
        var results: [(KernelVariant, [Float])] = []
        for variant in KernelVariant.available {
            let network = try model.makeNetwork(kernels: variant)
            XCTAssertEqual(network.kernels, variant)
            results.append((variant, BatchInference.logits(network, pixels: pixels, threads: 1)))
        }
        let (firstVariant, first) = results[0]
        for (variant, logits) in results.dropFirst() {
            let worst = zip(logits, first).map { abs($0 - $1) }.max() ?? 0
            XCTAssertLessThan(worst, 1e-4, "\(variant) against \(firstVariant)")
            for i in 0..<200 {
                let a = logits[(i * 10)..<(i * 10 + 10)], b = first[(i * 10)..<(i * 10 + 10)]
                XCTAssertEqual(a.firstIndex(of: a.max()!), b.firstIndex(of: b.max()!), "\(variant): image \(i)")
            }
        }
        let fused = results.filter { $0.0.fusedMultiplyAdd }
        for (variant, logits) in fused.dropFirst() {
            XCTAssertEqual(logits.map(\.bitPattern), fused[0].1.map(\.bitPattern), "\(variant) against \(fused[0].0)")
        }
    }
}
