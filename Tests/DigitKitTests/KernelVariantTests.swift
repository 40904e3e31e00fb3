@testable import DigitKit
import DigitKernels
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
            let classes = model.classes.count
            for i in 0..<200 {
                let a = logits[(i * classes)..<(i * classes + 10)], b = first[(i * classes)..<(i * classes + 10)]
                XCTAssertEqual(a.firstIndex(of: a.max()!), b.firstIndex(of: b.max()!), "\(variant): image \(i)")
            }
        }
        let fused = results.filter { $0.0.fusedMultiplyAdd }
        for (variant, logits) in fused.dropFirst() {
            XCTAssertEqual(logits.map(\.bitPattern), fused[0].1.map(\.bitPattern), "\(variant) against \(fused[0].0)")
        }
    }

    /// The rasterizer's pen kernel gives the same bits in every copy (it never fuses a multiply
    /// and an add), on segments of every kind: dots, short and long, steep and flat, partly or
    /// wholly outside the image. With RasterizerTests' fast-against-reference test on the active
    /// copy, every copy draws exactly what the reference draws.
    func testRasterSegment_EveryCopyGivesTheSameBits() {
        var rng = SplitMix64(seed: 11)
        var segments: [(Float, Float, Float, Float)] = [(14, 14, 14, 14), (3, 5, 3, 5.1), (-10, 14, 40, 14), (14, -5, 14, 33),
                                                         (0, 0, 27, 27), (30, 30, 40, 40), (27.9, 0.2, 0.1, 27.6)]
        for _ in 0..<300 {
            let ax = rng.nextFloat() * 36 - 4, ay = rng.nextFloat() * 36 - 4
            let long = rng.nextFloat() < 0.3
            let bx = ax + (rng.nextFloat() - 0.5) * (long ? 30 : 3), by = ay + (rng.nextFloat() - 0.5) * (long ? 30 : 3)
            segments.append((ax, ay, bx, by))
        }
        var frames: [(KernelVariant, [Float])] = []
        for variant in KernelVariant.available {
            var frame = [Float](repeating: .infinity, count: 28 * 32)
            let kernel = variant.kernels!.pointee.raster_segment!
            for (n, (ax, ay, bx, by)) in segments.enumerated() {
                frame.withUnsafeMutableBufferPointer { kernel($0.baseAddress!, ax, ay, bx, by, 1.75 + Float(n % 3) * 0.5) }
            }
            XCTAssertTrue(frame.contains { $0 < 1 }, "\(variant) drew nothing")
            frames.append((variant, frame))
        }
        for (variant, frame) in frames.dropFirst() {
            XCTAssertEqual(frame.map(\.bitPattern), frames[0].1.map(\.bitPattern), "\(variant) against \(frames[0].0)")
        }
    }
}
