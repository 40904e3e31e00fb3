import DigitKit
import Foundation

/// The figures of `digits bench` for numbers and images: reading a whole number from a drawing,
/// a 28×28 PNG to its answer, and a 12-megapixel photo of a number to its answer.
public struct ReadingFigures: Sendable {
    /// Reading latency (wall µs, p50 and p99, one thread) of a drawing of `digits` digits, and the
    /// thread's CPU µs at the same percentiles.
    public struct Latency: Sendable {
        public var name: String
        public var samples: Int
        public var p50: Double, p99: Double, cpuP50: Double, cpuP99: Double
    }

    public var readings: [Latency] = []
    /// PNG bytes in memory → decoded → read as one digit (MNIST test images written as PNG).
    public var png: Latency?
    /// JPEG bytes of a 150×40 crop of a number in memory → decoded → read by the paper model.
    public var crop: Latency?
    /// The 12-megapixel JPEG photo: median wall and thread CPU ms of file → answer in this process
    /// (one thread), and the whole `digits recognize PHOTO` process: wall ms and peak resident MB.
    public var photoMilliseconds: Double?
    public var photoCPUMilliseconds: Double?
    public var photoProcessMilliseconds: Double?
    public var photoPeakMegabytes: Double?
    public var photoPixels = 0

    var isEmpty: Bool { readings.isEmpty && png == nil && crop == nil && photoMilliseconds == nil }

    /// `key: value` pairs for the JSON report.
    var fields: [(String, Double)] {
        var out: [(String, Double)] = []
        for r in readings + (png.map { [$0] } ?? []) + (crop.map { [$0] } ?? []) {
            out += [("\(r.name)_us_p50", r.p50), ("\(r.name)_us_p99", r.p99), ("\(r.name)_cpu_us_p50", r.cpuP50),
                    ("\(r.name)_cpu_us_p99", r.cpuP99)]
        }
        if let v = photoMilliseconds { out.append(("photo_12mp_ms", v)) }
        if let v = photoCPUMilliseconds { out.append(("photo_12mp_cpu_ms", v)) }
        if let v = photoProcessMilliseconds { out.append(("photo_12mp_process_ms", v)) }
        if let v = photoPeakMegabytes { out.append(("photo_12mp_peak_rss_mb", v)) }
        return out
    }

    /// Rows for the table: name, value, note.
    var rows: [(String, String, String)] {
        var out: [(String, String, String)] = []
        for r in readings + (png.map { [$0] } ?? []) + (crop.map { [$0] } ?? []) {
            let what = r.name == "png28_read" ? "28×28 PNG bytes → answer"
                : r.name == "crop40x150_read" ? "150×40 JPEG crop of a number → answer (paper model)" : "drawing → reading"
            out.append(("\(r.name)_us_p50", String(format: "%.1f", r.p50), "\(what), one thread, \(r.samples) samples; CPU "
                + String(format: "%.1f", r.cpuP50)))
            out.append(("\(r.name)_us_p99", String(format: "%.1f", r.p99), String(format: "CPU %.1f", r.cpuP99)))
        }
        if let ms = photoMilliseconds {
            out.append(("photo_12mp_ms", String(format: "%.1f", ms), String(format: "%.1f MP photo file → answer, one thread", Double(photoPixels) / 1e6)
                + (photoCPUMilliseconds.map { String(format: "; CPU %.1f ms", $0) } ?? "")))
        }
        if let ms = photoProcessMilliseconds {
            out.append(("photo_12mp_process_ms", String(format: "%.1f", ms), "digits recognize PHOTO, whole process"))
        }
        if let mb = photoPeakMegabytes {
            out.append(("photo_12mp_peak_rss_mb", String(format: "%.1f", mb), "peak resident memory of that process"))
        }
        return out
    }
}

extension Benchmark {
    /// Reading latency of a 4-digit and a 10-digit number composed from `drawings` (the stroke
    /// fixtures: one drawing per digit, the first of each), `rounds` timed reads each after a warm-up.
    static func readingLatencies(_ recognizer: DigitRecognizer, drawings: [Drawing], rounds: Int) throws -> [ReadingFigures.Latency] {
        var byDigit: [Int: Drawing] = [:]
        for d in drawings { if let digit = d.labelDigit, byDigit[digit] == nil { byDigit[digit] = d } }
        guard byDigit.count == 10 else { throw DigitError(.format, "the bench drawings need one drawing of each digit 0…9") }
        var rng = SplitMix64(seed: 2026)
        var out: [ReadingFigures.Latency] = []
        for text in ["2026", "3141592653"] {
            let number = NumberComposer().compose(text.map { byDigit[Int(String($0))!]! }, rng: &rng)
            var wall: [Double] = [], cpu: [Double] = []
            for round in 0...rounds {
                let c0 = threadCPUNanoseconds(), t0 = monotonicNanoseconds()
                _ = try recognizer.read(number.drawing)
                let t1 = monotonicNanoseconds(), c1 = threadCPUNanoseconds()
                if round > 0 {
                    wall.append(Double(t1 - t0) / 1e3)
                    cpu.append(Double(c1 - c0) / 1e3)
                }
            }
            out.append(latency("read_\(text.count)_digits", wall, cpu))
        }
        return out
    }

    /// PNG bytes (MNIST test images) → decoded → answer, one image at a time.
    static func pngLatency(_ recognizer: DigitRecognizer, set: MNISTSet, images: Int, rounds: Int) throws -> ReadingFigures.Latency {
        let files = try (0..<min(images, set.count)).map { i in
            try PNG.encode(gray: Array(set.images.pixels[(i * 784)..<((i + 1) * 784)]), width: 28, height: 28)
        }
        return try imageLatency("png28_read", recognizer, files: files, name: "bench.png", rounds: rounds)
    }

    /// JPEG bytes of 150×40 photos of the drawings (numbers) on paper → decoded → read by the
    /// paper model, one at a time.
    static func cropLatency(_ recognizer: DigitRecognizer, drawings: [Drawing], rounds: Int) throws -> ReadingFigures.Latency {
        var renderer = PaperRenderer()
        renderer.width = 150
        renderer.height = 40
        renderer.digitHeight = 22...28
        var rng = SplitMix64(seed: 40)
        let files = try drawings.prefix(20).map { try renderer.render($0, rng: &rng).encoded(.jpeg) }
        return try imageLatency("crop40x150_read", recognizer, files: files, name: "crop.jpg", rounds: rounds)
    }

    /// Image bytes → decoded → answer, one at a time, over `rounds` rounds after a warm-up round.
    static func imageLatency(_ label: String, _ recognizer: DigitRecognizer, files: [[UInt8]], name: String,
                             rounds: Int) throws -> ReadingFigures.Latency {
        var wall: [Double] = [], cpu: [Double] = []
        for round in 0...rounds {
            for bytes in files {
                let c0 = threadCPUNanoseconds(), t0 = monotonicNanoseconds()
                let image = try ImageDecoder.decode(bytes, file: name)
                _ = try recognizer.read(image: image)
                let t1 = monotonicNanoseconds(), c1 = threadCPUNanoseconds()
                if round > 0 {
                    wall.append(Double(t1 - t0) / 1e3)
                    cpu.append(Double(c1 - c0) / 1e3)
                }
            }
        }
        return latency(label, wall, cpu)
    }

    /// Writes a 4000×3000 JPEG photo of a 4-digit number made from the stroke fixtures with
    /// `digits make-paper` (in a child process, so this process stays small) and returns its path.
    static func makePhoto(executable: String, drawings: String, folder: String) throws -> String {
        let (_, status, _, _) = try spawnAndWait([executable, "make-paper", "--strokes", drawings, "--out", folder,
                                                  "--size", "4000x3000", "--count", "1", "--lengths", "4-4",
                                                  "--digit-height", "500-900", "--inverted-share", "0", "--seed", "7"])
        guard status == 0 else { throw DigitError(.io, file: executable, "digits make-paper exited with status \(status)") }
        return (folder as NSString).appendingPathComponent("paper-0001.jpg")
    }

    /// The whole `digits recognize PHOTO` process: median wall ms and the largest peak resident MB.
    static func photoProcess(executable: String, weights: String, opinion: String?, photo: String, runs: Int) throws -> (Double, Double) {
        var times: [Double] = [], peakKB = 0
        for run in 0...max(runs, 1) {
            let (seconds, status, maxRSS, _) = try spawnAndWait(recognizeCommand(executable, photo, weights: weights, opinion: opinion))
            guard status == 0 else { throw DigitError(.io, file: executable, "digits recognize exited with status \(status) on the photo") }
            if run > 0 { times.append(seconds * 1e3) }
            peakKB = max(peakKB, maxRSS)
        }
        return (Statistics.median(times), Double(peakKB) / 1024)
    }

    /// File → answer for the photo in this process: median wall and thread CPU ms.
    static func photoLatency(_ recognizer: DigitRecognizer, photo: String, runs: Int) throws -> (Double, Double) {
        var wall: [Double] = [], cpu: [Double] = []
        for run in 0...max(runs, 1) {
            let c0 = threadCPUNanoseconds(), t0 = monotonicNanoseconds()
            _ = try recognizer.read(imageAt: photo)
            let t1 = monotonicNanoseconds(), c1 = threadCPUNanoseconds()
            if run > 0 {
                wall.append(Double(t1 - t0) / 1e6)
                cpu.append(Double(c1 - c0) / 1e6)
            }
        }
        return (Statistics.median(wall), Statistics.median(cpu))
    }

    static func latency(_ name: String, _ wall: [Double], _ cpu: [Double]) -> ReadingFigures.Latency {
        ReadingFigures.Latency(name: name, samples: wall.count, p50: Statistics.percentile(wall, 50), p99: Statistics.percentile(wall, 99),
                               cpuP50: Statistics.percentile(cpu, 50), cpuP99: Statistics.percentile(cpu, 99))
    }
}
