@testable import DigitKit
import Foundation
import DigitTestSupport
import XCTest

/// The choice of compiled kernel copy at run time (`KernelVariant`), and the shipped network run
/// through every copy this machine has.
final class KernelVariantTests: XCTestCase {
    /// The flags of the first processor in /proc/cpuinfo.
    private func cpuFlags() -> Set<String> {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return [] }
        for line in text.split(separator: "\n") where line.hasPrefix("flags") {
            return Set(line.split(separator: ":", maxSplits: 1).last?.split(separator: " ").map(String.init) ?? [])
        }
        return []
    }

    /// The run-time check (CPUID and XGETBV, in C) agrees with what the kernel reports in /proc/cpuinfo.
    func testAvailable_MatchesTheCPUFlagsTheOperatingSystemReports() {
        #if arch(x86_64)
        let flags = cpuFlags()
        XCTAssertFalse(flags.isEmpty, "/proc/cpuinfo has no flags line")
        let avx2 = ["avx", "avx2", "fma", "f16c", "bmi1", "bmi2", "popcnt"].allSatisfy(flags.contains)
        let avx512 = avx2 && ["avx512f", "avx512bw", "avx512dq", "avx512vl"].allSatisfy(flags.contains)
        XCTAssertEqual(KernelVariant.avx2.kernels != nil, avx2)
        XCTAssertEqual(KernelVariant.avx512.kernels != nil, avx512)
        print("kernel copies on this CPU: \(KernelVariant.available.map(\.description))")
        #endif
        XCTAssertNotNil(KernelVariant.portable.kernels, "the portable copy runs everywhere")
    }

    func testActive_IsTheBestAvailableCopy() {
        XCTAssertEqual(KernelVariant.available.first, .portable)
        if ProcessInfo.processInfo.environment["DIGITS_KERNELS"] == nil {
            XCTAssertEqual(KernelVariant.active, KernelVariant.available.last)
        }
        XCTAssertEqual(KernelVariant.portable.fusedMultiplyAdd, KernelVariant.portable.description == "neon")
        XCTAssertTrue(KernelVariant.available.filter { $0 != .portable }.allSatisfy(\.fusedMultiplyAdd))
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
