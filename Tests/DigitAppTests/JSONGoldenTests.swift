@testable import DigitApp
import DigitKit
import DigitTestSupport
import Foundation
import XCTest

/// The exact text of `digits bench --json` for fixed figures, and of `digits recognize --json`
/// and `digits eval --json` on fixtures through the real executable (portable kernels, so the
/// probabilities are the same on every CPU).
final class JSONGoldenTests: DigitsCommandTestCase {
    func testBenchReportJSON_IsTheSameText() {
        var report = BenchReport()
        report.cpu = "Test \"CPU\" é"
        report.buildMode = "release"
        report.fastPath = true
        report.kernels = "avx2"
        report.threads = 2
        report.runs = 7
        report.weights = "Weights/mnist-cnn.safetensors"
        report.multiplyAdds = 2_345_678
        XCTAssertEqual(report.json, "{\"multiply_adds_per_image\":2345678,\"threads\":2,\"runs\":7,\"cpu\":\"Test \\\"CPU\\\" é\",\"build\":\"release\",\"fast_path\":true,\"kernels\":\"avx2\",\"weights\":\"Weights/mnist-cnn.safetensors\"}")
        report.peakGflops = 31.25
        report.throughput = [.init(batch: 1, threads: 1, imagesPerSecond: 1234.5678, cpuMicrosecondsPerImage: 810.123),
                             .init(batch: 64, threads: 2, imagesPerSecond: .infinity, cpuMicrosecondsPerImage: 0.004)]
        report.layers = [.init(name: "conv1", multiplyAdds: 100_000, microseconds: 12.3456), .init(name: "fc\"", multiplyAdds: 10, microseconds: 0)]
        report.endToEndP50 = 123.456
        report.endToEndP99 = 999.999
        report.endToEndSlowestDrawing = ("slow.json", 300.125)
        report.endToEndCPUP50 = 100
        report.endToEndCPUP99 = .nan
        report.endToEndStages = [("raster", 1.5, 2.25), ("cnn", 50, 60)]
        report.noise = Interruptions(gaps: [5, 10, 20, 400], seconds: 2, cpuSeconds: 1.9)
        report.rasterMicroseconds = 4.5678
        report.rasterCPUMicroseconds = 4.4444
        report.coldStartMilliseconds = 45.678
        report.coldStartCPUMilliseconds = 30.1
        report.recognizePeakMegabytes = 21.55
        report.recognizePeakIsUpperBound = true
        report.reading.readings = [.init(name: "number4_read", samples: 50, p50: 800.5, p99: 1200.25, cpuP50: 790, cpuP99: 1100)]
        report.reading.photoMilliseconds = 250.5
        report.reading.photoPeakMegabytes = 80
        report.trainImagesPerSecond = 5000.4
        report.trainCPUMicrosecondsPerImage = 390.05
        report.trainThreads = 2
        report.loadBefore = 1.005
        report.loadAfter = 2
        XCTAssertEqual(report.json, "{\"cnn_img_per_s_b1_t1\":1235,\"cnn_cpu_us_per_img_b1_t1\":810.12,\"cnn_cpu_us_per_img_b64_t2\":0.00,\"e2e_us_p50\":123.46,\"e2e_us_p99\":1000.00,\"raster_us_per_digit\":4.568,\"cold_start_ms\":45.68,\"e2e_us_slowest_drawing_p50\":300.12,\"e2e_cpu_us_p50\":100.00,\"e2e_raster_cpu_us_p50\":1.50,\"e2e_raster_cpu_us_p99\":2.25,\"e2e_cnn_cpu_us_p50\":50.00,\"e2e_cnn_cpu_us_p99\":60.00,\"noise_interruptions_per_s\":2.0,\"noise_time_lost_pct\":0.022,\"noise_gap_us_p50\":10.00,\"noise_gap_us_p90\":400.00,\"noise_gap_us_max\":400.00,\"noise_cpu_clock_pct\":95.000,\"noise_e2e_hit_pct\":0.02,\"raster_cpu_us_per_digit\":4.444,\"cold_start_cpu_ms\":30.10,\"recognize_peak_rss_mb\":21.6,\"recognize_peak_rss_is_upper_bound\":true,\"number4_read_us_p50\":800.50,\"number4_read_us_p99\":1200.25,\"number4_read_cpu_us_p50\":790.00,\"number4_read_cpu_us_p99\":1100.00,\"photo_12mp_ms\":250.50,\"photo_12mp_peak_rss_mb\":80.00,\"train_img_per_s\":5000,\"train_cpu_us_per_img\":390.1,\"train_threads\":2,\"peak_gflops_per_core\":31.2,\"multiply_adds_per_image\":2345678,\"layers\":[{\"op\":\"conv1\",\"multiply_adds\":100000,\"us\":12.346,\"gflops\":16.20},{\"op\":\"fc\\\"\",\"multiply_adds\":10,\"us\":0.000,\"gflops\":0.00}],\"load_average_before\":1.00,\"load_average_after\":2.00,\"threads\":2,\"runs\":7,\"cpu\":\"Test \\\"CPU\\\" é\",\"build\":\"release\",\"fast_path\":true,\"kernels\":\"avx2\",\"weights\":\"Weights/mnist-cnn.safetensors\"}")
    }

    private func portable(_ args: [String]) throws -> Executable.Result {
        try digits(args, in: TestPaths.repoRoot, environment: ["DIGITS_KERNELS": "portable"])
    }

    func testRecognizeJSON_IsTheSameText() throws {
        let run = try portable(["recognize", "--json", "Fixtures/strokes/digit-7-a.json", "Fixtures/numbers/001-2026.json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, "{\"source\":\"Fixtures/strokes/digit-7-a.json\",\"index\":0,\"text\":\"7\",\"digit\":7,\"confidence\":0.995526,\"top\":[[7,0.995526],[1,0.00151213],[9,0.000323556]],\"digits\":[{\"digit\":7,\"confidence\":0.995526,\"top\":[[7,0.995526],[1,0.00151213],[9,0.000323556]],\"box\":[86.4,40.2,190.4,232.6],\"strokes\":[0],\"not_a_digit\":0.00251609}],\"label\":\"7\"}\n{\"source\":\"Fixtures/numbers/001-2026.json\",\"index\":0,\"text\":\"2026\",\"digit\":null,\"confidence\":0.979589,\"top\":[],\"digits\":[{\"digit\":2,\"confidence\":0.994993,\"top\":[[2,0.994993],[3,0.00305723],[0,9.17328e-05]],\"box\":[100,228,160,331],\"strokes\":[0],\"not_a_digit\":0.00170456},{\"digit\":0,\"confidence\":0.99122,\"top\":[[0,0.99122],[9,0.000177542],[8,3.84309e-05]],\"box\":[176,229,231,331],\"strokes\":[1],\"not_a_digit\":0.00848354},{\"digit\":2,\"confidence\":0.993324,\"top\":[[2,0.993324],[3,0.00359749],[7,0.000233496]],\"box\":[250,229,307,330],\"strokes\":[2],\"not_a_digit\":0.00266689},{\"digit\":6,\"confidence\":0.999914,\"top\":[[6,0.999914],[5,3.56803e-05],[0,1.2837e-06]],\"box\":[329,228,377,331],\"strokes\":[3],\"not_a_digit\":4.83769e-05}],\"label\":\"2026\"}\n")
    }

    func testEvalJSON_IsTheSameText() throws {
        let drawings = try portable(["eval", "--json", "Fixtures/strokes"])
        XCTAssertEqual(drawings.status, 0, drawings.stderr)
        XCTAssertEqual(drawings.stdout, "{\"count\":54,\"threshold\":0.8999999761581421,\"temperature\":1.146592617034912,\"accuracy\":1.000000,\"coverage\":1.000000,\"selective_accuracy\":1.000000,\"answered_wrong\":0,\"held_back_by_not_a_digit\":0,\"ece\":0.003446,\"nll\":0.003469,\"precision\":[1.000000,1.000000,1.000000,1.000000,1.000000,1.000000,1.000000,1.000000,1.000000,1.000000],\"recall\":[1.000000,1.000000,1.000000,1.000000,1.000000,1.000000,1.000000,1.000000,1.000000,1.000000],\"confusion\":[[5,0,0,0,0,0,0,0,0,0],[0,6,0,0,0,0,0,0,0,0],[0,0,5,0,0,0,0,0,0,0],[0,0,0,6,0,0,0,0,0,0],[0,0,0,0,6,0,0,0,0,0],[0,0,0,0,0,5,0,0,0,0],[0,0,0,0,0,0,5,0,0,0],[0,0,0,0,0,0,0,6,0,0],[0,0,0,0,0,0,0,0,5,0],[0,0,0,0,0,0,0,0,0,5]]}\n")
        let numbers = try portable(["eval", "--json", "Fixtures/numbers"])
        XCTAssertEqual(numbers.status, 0, numbers.stderr)
        XCTAssertEqual(numbers.stdout, "{\"numbers\":27,\"exact_match\":1,\"digit_accuracy\":1,\"coverage\":1,\"selective_accuracy\":1,\"answered_wrong\":0,\"splits\":0,\"merges\":0,\"called_not_a_digit\":0,\"held_back_by_not_a_digit\":0,\"wrong_scored_lower\":0,\"wrong_not_reached\":0,\"wrong_not_among_candidates\":0,\"non_numbers\":0,\"refusal_rate\":0,\"refused_as_not_a_digit\":0,\"non_numbers_held_back_by_not_a_digit\":0,\"threshold\":0.8999999761581421,\"errors\":0,\"exact\":27,\"answered\":27,\"answered_right\":27,\"not_answered_wrong\":0,\"by_length\":[{\"digits\":2,\"count\":5,\"exact\":5,\"answered\":5,\"answered_right\":5,\"exact_match\":1,\"coverage\":1,\"selective_accuracy\":1},{\"digits\":3,\"count\":5,\"exact\":5,\"answered\":5,\"answered_right\":5,\"exact_match\":1,\"coverage\":1,\"selective_accuracy\":1},{\"digits\":4,\"count\":9,\"exact\":9,\"answered\":9,\"answered_right\":9,\"exact_match\":1,\"coverage\":1,\"selective_accuracy\":1},{\"digits\":5,\"count\":3,\"exact\":3,\"answered\":3,\"answered_right\":3,\"exact_match\":1,\"coverage\":1,\"selective_accuracy\":1},{\"digits\":7,\"count\":1,\"exact\":1,\"answered\":1,\"answered_right\":1,\"exact_match\":1,\"coverage\":1,\"selective_accuracy\":1},{\"digits\":8,\"count\":2,\"exact\":2,\"answered\":2,\"answered_right\":2,\"exact_match\":1,\"coverage\":1,\"selective_accuracy\":1},{\"digits\":9,\"count\":1,\"exact\":1,\"answered\":1,\"answered_right\":1,\"exact_match\":1,\"coverage\":1,\"selective_accuracy\":1},{\"digits\":10,\"count\":1,\"exact\":1,\"answered\":1,\"answered_right\":1,\"exact_match\":1,\"coverage\":1,\"selective_accuracy\":1}],\"worst\":[]}\n")
    }
}
