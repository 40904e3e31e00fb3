@testable import DigitApp
@testable import DigitKit
import DigitTestSupport
import XCTest

final class BenchTests: XCTestCase {
    func testStatistics_MedianOfOddAndEvenCounts() {
        XCTAssertEqual(Statistics.median([5, 1, 3]), 3)
        XCTAssertEqual(Statistics.median([4, 1, 3, 2]), 2.5)
        XCTAssertEqual(Statistics.median([]), 0)
    }

    func testStatistics_PercentileIsTheNearestRank() {
        let values = (1...100).map(Double.init).shuffled()
        XCTAssertEqual(Statistics.percentile(values, 50), 50)
        XCTAssertEqual(Statistics.percentile(values, 99), 99)
        XCTAssertEqual(Statistics.percentile(values, 100), 100)
        XCTAssertEqual(Statistics.percentile([7, 1000], 99), 1000)
        XCTAssertEqual(Statistics.percentile([3], 1), 3)
    }

    func testBenchReport_JSONHasEveryKeyTheIssueAsksFor() throws {
        var report = BenchReport()
        report.throughput = [(1, 1), (64, 1), (1000, 1), (1000, 2)].map {
            .init(batch: $0.0, threads: $0.1, imagesPerSecond: 1000, cpuMicrosecondsPerImage: 50)
        }
        report.endToEndP50 = 50
        report.endToEndP99 = 90
        report.rasterMicroseconds = 8
        report.coldStartMilliseconds = 20
        report.recognizePeakMegabytes = 12
        report.trainImagesPerSecond = 2500
        report.trainThreads = 2
        report.layers = [.init(name: "conv \"1\"", multiplyAdds: 1000, microseconds: 2)]
        report.noise = Interruptions(gaps: [20, 40], seconds: 0.01, cpuSeconds: 0.01)
        report.endToEndSlowestDrawing = ("digit-8-b.json", 80)
        guard case let .object(members) = try JSONValue.parse(Array(report.json.utf8)) else {
            return XCTFail("not a JSON object: \(report.json)")
        }
        let keys = Set(members.map(\.key))
        for key in ["cnn_img_per_s_b1_t1", "cnn_img_per_s_b64_t1", "cnn_img_per_s_b1000_t1", "cnn_img_per_s_b1000_t2",
                    "e2e_us_p50", "e2e_us_p99", "raster_us_per_digit", "cold_start_ms", "train_img_per_s",
                    "threads", "cpu", "build", "fast_path", "recognize_peak_rss_mb", "cnn_cpu_us_per_img_b1000_t2",
                    "noise_interruptions_per_s", "noise_gap_us_p50", "noise_e2e_hit_pct", "noise_cpu_clock_pct",
                    "e2e_us_slowest_drawing_p50"] {
            XCTAssertTrue(keys.contains(key), "missing \(key) in \(report.json)")
        }
        for key in ["cnn_img_per_s_b1_t1", "train_img_per_s", "e2e_us_p99", "threads"] {
            guard case .number? = members.first(where: { $0.key == key })?.value else { return XCTFail("\(key) is not a number") }
        }
        XCTAssertTrue(report.table.contains("cnn_img_per_s_b1000_t2"))
        XCTAssertTrue(report.table.contains("noise_interruptions_per_s     200 "), report.table)
        XCTAssertTrue(report.table.contains("digit-8-b.json"), report.table)
    }

    func testInterruptions_SummaryOfGaps() {
        let noise = Interruptions(gaps: [10, 30, 20, 40, 100], seconds: 0.5)
        XCTAssertEqual(noise.count, 5)
        XCTAssertEqual(noise.perSecond, 10)
        XCTAssertEqual(noise.fractionLost, 200e-6 / 0.5, accuracy: 1e-12)
        XCTAssertEqual(noise.gapP50, 30)
        XCTAssertEqual(noise.gapP90, 100)
        XCTAssertEqual(noise.gapMax, 100)
        // 10 gaps per second: a 0.1 s task meets one with probability 1 - e^-1.
        XCTAssertEqual(noise.hitProbability(microseconds: 100_000), 1 - exp(-1), accuracy: 1e-12)
        XCTAssertEqual(noise.hitProbability(microseconds: 0), 0)
        XCTAssertNil(noise.cpuClockShare)
        XCTAssertEqual(Interruptions(gaps: [10], seconds: 2, cpuSeconds: 1.5).cpuClockShare, 0.75)
        let none = Interruptions(gaps: [], seconds: 0)
        XCTAssertEqual(none.perSecond, 0)
        XCTAssertEqual(none.hitProbability(microseconds: 50), 0)
    }

    func testInterruptionGaps_SpinsForTheTimeAndKeepsOnlyLongSteps() {
        let (gaps, spun, cpu) = Benchmark.interruptionGaps(seconds: 0.05, threshold: 5)
        XCTAssertGreaterThan(cpu, 0)
        XCTAssertLessThanOrEqual(cpu, spun + 0.01)
        XCTAssertGreaterThanOrEqual(spun, 0.05)
        XCTAssertLessThan(spun, 5)
        XCTAssertTrue(gaps.allSatisfy { $0 > 5 }, "\(gaps)")
        XCTAssertLessThanOrEqual(gaps.reduce(0, +) / 1e6, spun)
        // No time to spin, nothing seen.
        XCTAssertEqual(Benchmark.interruptionGaps(seconds: 0).gaps, [])
    }

    func testSlowestDrawing_IsTheLargestMedianOverRounds() throws {
        // Three rounds over files a, b, c: b has one slow outlier, c is slow every time.
        let samples: [Double] = [10, 500, 30,
                                 11, 20, 31,
                                 12, 21, 32]
        let slowest = try XCTUnwrap(Benchmark.slowestDrawing(samples, files: ["a", "b", "c"]))
        XCTAssertEqual(slowest.name, "c")
        XCTAssertEqual(slowest.p50, 31)
        XCTAssertNil(Benchmark.slowestDrawing([], files: ["a"]))
    }

    func testBenchmark_ThroughputCountsImagesOverTime() throws {
        // Pooled to 7×7 first so that the debug build runs it quickly.
        var conv = Conv2D("c", outChannels: 16, kernel: 3, padding: 0)
        var fc = Linear("fc", outCount: 10)
        conv.bias = nil
        fc.bias = nil
        let layers: [any Layer] = [AvgPool2D(kernel: 4), conv, ReLU(), GlobalAvgPool(), fc]
        let tensors: [String: TensorData] = [
            "c.weight": TensorData(shape: [16, 1, 3, 3], values: (0..<144).map { Float($0 % 7) / 7 - 0.4 }),
            "fc.weight": TensorData(shape: [10, 16], values: (0..<160).map { Float($0 % 5) / 5 }),
        ]
        let network = try InferenceNetwork(layers: layers, tensors: tensors, inputMean: 0, inputStd: 1)
        let pixels = [Float](repeating: 0.25, count: 70 * 784)
        for (batch, threads) in [(1, 1), (64, 1), (64, 2)] {
            let result = Benchmark.throughput(network, pixels: pixels, batch: batch, threads: threads, imagesPerRun: 128, runs: 2)
            XCTAssertGreaterThan(result.imagesPerSecond, 10, "batch \(batch)")
            XCTAssertLessThan(result.imagesPerSecond, 1e9)
            XCTAssertGreaterThan(result.cpuMicrosecondsPerImage, 0)
        }
        // A batch larger than the images available measures nothing rather than reading past them.
        XCTAssertEqual(Benchmark.throughput(network, pixels: pixels, batch: 100, threads: 1, imagesPerRun: 100, runs: 1).imagesPerSecond, 0)
    }

    func testBenchmark_SpawnReportsExitStatus() throws {
        XCTAssertEqual(try Benchmark.spawnAndWait(["/bin/true"]).1, 0)
        XCTAssertNotNil(Benchmark.ownPeakKilobytes())
        XCTAssertEqual(try Benchmark.spawnAndWait(["/bin/false"]).1, 1)
        XCTAssertThrowsError(try Benchmark.spawnAndWait(["/nonexistent/digits"]))
    }

    func testBenchmark_MissingDrawingsFolderNamesIt() {
        XCTAssertThrowsError(try Benchmark.drawingFiles("/nonexistent/strokes")) { error in
            XCTAssertEqual((error as? DigitError)?.file, "/nonexistent/strokes")
        }
    }
}
