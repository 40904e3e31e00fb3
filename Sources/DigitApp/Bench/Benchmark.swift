import DigitKit
import Foundation

/// What `digits bench` measures and where it finds its inputs.
public struct BenchConfiguration: Sendable {
    public enum Part: String, CaseIterable, Sendable {
        case peak, cnn, layers, noise, e2e, raster, cold, numbers, images, train
    }

    /// The weight file (the same one `recognize` uses).
    public var weightsPath: String
    /// Folder with the MNIST IDX files (`t10k-*` for inference, `train-*` for training).
    public var mnistDirectory: String
    /// Typical drawings for the end-to-end and rasterizer timings: the `digit-*.json` stroke files
    /// of this folder (`Fixtures/strokes`).
    public var drawingsDirectory: String
    /// The `digits` executable, for the cold-start timing (a whole `digits recognize FILE` process).
    public var executable: String?
    /// Timed repetitions of each measurement (after one warm-up); medians are reported.
    public var runs = 7
    /// Fewer images per run (a smoke test, not for reporting).
    public var quick = false
    /// Threads for the "all cores" figures (training).
    public var threads = Parallel.processorCount
    public var parts = Set(Part.allCases)
    /// The second opinion the recognizers consult when unsure (`SecondOpinion`), or nil for the
    /// compact network alone; the whole-process timings pass it on (`--second-opinion`).
    public var secondOpinionPath: String?
    /// A photo for the image timing instead of the 12-megapixel one made with `digits make-paper`.
    public var photoPath: String?

    public init(weightsPath: String, mnistDirectory: String, drawingsDirectory: String) {
        self.weightsPath = weightsPath
        self.mnistDirectory = mnistDirectory
        self.drawingsDirectory = drawingsDirectory
    }
}

/// The figures of one `digits bench` run. Times are medians over `runs` repetitions after a warm-up.
public struct BenchReport: Sendable {
    public struct Throughput: Sendable {
        public var batch: Int, threads: Int
        /// Images per second of wall time (median over runs).
        public var imagesPerSecond: Double
        /// CPU time of the whole process per image, all threads together (median over runs): the
        /// work done, whatever else runs on the machine.
        public var cpuMicrosecondsPerImage: Double
        public var key: String { "cnn_img_per_s_b\(batch)_t\(threads)" }
        public var cpuKey: String { "cnn_cpu_us_per_img_b\(batch)_t\(threads)" }
    }

    public struct LayerTiming: Sendable {
        public var name: String
        public var multiplyAdds: Int
        /// Mean time per image, one image at a time on one thread.
        public var microseconds: Double
        /// 2 × multiply-adds / time.
        public var gflops: Double { microseconds > 0 ? 2 * Double(multiplyAdds) / microseconds / 1e3 : 0 }
    }

    public var cpu = BenchReport.cpuDescription()
    public var buildMode = BuildInfo.kernelMode
    public var fastPath = BuildInfo.fastPath
    /// The compiled copy of the kernels that ran (`KernelVariant`).
    public var kernels = KernelVariant.active.description
    public var threads = Parallel.processorCount
    public var runs = 0
    public var weights = ""
    public var multiplyAdds = 0
    /// GFLOP/s one core reaches with this build's multiply-add on registers alone.
    public var peakGflops: Double?
    public var throughput: [Throughput] = []
    public var layers: [LayerTiming] = []
    /// One drawing from stroke JSON text to answer: parse, rasterize, network, softmax and threshold (µs).
    public var endToEndP50: Double?
    public var endToEndP99: Double?
    public var endToEndSamples = 0
    /// The drawing whose median end-to-end time is the longest, and that median (µs): what the
    /// tail would be on a machine that never interrupted the thread.
    public var endToEndSlowestDrawing: (name: String, p50: Double)?
    /// The second opinion's file, and how many of the e2e drawings it was consulted on.
    public var secondOpinion: String?
    public var secondOpinionConsulted: (drawings: Int, of: Int)?
    /// The same, in CPU time of the measuring thread (µs; insensitive to other processes).
    public var endToEndCPUP50: Double?
    public var endToEndCPUP99: Double?
    /// Where the end-to-end time goes: CPU µs (p50, p99) of each stage, from as many samples
    /// again (timed apart, so the stage clocks do not add to the figures above).
    public var endToEndStages: [(stage: String, p50: Double, p99: Double)] = []
    /// How often, and for how long, something other than this program stops the measuring
    /// thread (see `Benchmark.interruptions`): the noise under every timing.
    public var noise: Interruptions?
    /// The rasterizer alone in CPU time of the thread (µs per drawing).
    public var rasterCPUMicroseconds: Double?
    /// User + system CPU time of the cold-start process (ms, median).
    public var coldStartCPUMilliseconds: Double?
    /// True when the peak-memory figure may be this process's own peak (inherited by the child).
    public var recognizePeakIsUpperBound = false
    /// The rasterizer alone, per drawing (µs).
    public var rasterMicroseconds: Double?
    /// A whole `digits recognize FILE` process for one drawing (ms), and its peak resident memory (MB).
    public var coldStartMilliseconds: Double?
    public var recognizePeakMegabytes: Double?
    /// Training images per second with `trainThreads` threads, and process CPU µs per image.
    public var trainImagesPerSecond: Double?
    public var trainCPUMicrosecondsPerImage: Double?
    public var trainThreads = 0
    /// Numbers and images (`ReadingBench.swift`).
    public var reading = ReadingFigures()
    /// The 1-minute load average before and after the run (other processes compete for the cores).
    public var loadBefore: Double?
    public var loadAfter: Double?

    /// One JSON object; figures that were not measured are left out.
    public var json: String {
        var writer = JSONWriter()
        writer.object { o in
            func add(_ key: String, _ value: Double?, _ decimals: Int) {
                guard let value, value.isFinite else { return }
                o.member(key, number: String(format: "%.\(decimals)f", value))
            }
            for t in throughput { add(t.key, t.imagesPerSecond, 0) }
            for t in throughput { add(t.cpuKey, t.cpuMicrosecondsPerImage, 2) }
            add("e2e_us_p50", endToEndP50, 2)
            add("e2e_us_p99", endToEndP99, 2)
            add("raster_us_per_digit", rasterMicroseconds, 3)
            add("cold_start_ms", coldStartMilliseconds, 2)
            add("e2e_us_slowest_drawing_p50", endToEndSlowestDrawing?.p50, 2)
            add("e2e_second_opinion_consulted", secondOpinionConsulted.map { Double($0.drawings) }, 0)
            add("e2e_cpu_us_p50", endToEndCPUP50, 2)
            add("e2e_cpu_us_p99", endToEndCPUP99, 2)
            for stage in endToEndStages {
                add("e2e_\(stage.stage)_cpu_us_p50", stage.p50, 2)
                add("e2e_\(stage.stage)_cpu_us_p99", stage.p99, 2)
            }
            if let noise {
                add("noise_interruptions_per_s", noise.perSecond, 1)
                add("noise_time_lost_pct", 100 * noise.fractionLost, 3)
                add("noise_gap_us_p50", noise.gapP50, 2)
                add("noise_gap_us_p90", noise.gapP90, 2)
                add("noise_gap_us_max", noise.gapMax, 2)
                add("noise_cpu_clock_pct", noise.cpuClockShare.map { 100 * $0 }, 3)
                if let p50 = endToEndP50 { add("noise_e2e_hit_pct", 100 * noise.hitProbability(microseconds: p50), 2) }
            }
            add("raster_cpu_us_per_digit", rasterCPUMicroseconds, 3)
            add("cold_start_cpu_ms", coldStartCPUMilliseconds, 2)
            add("recognize_peak_rss_mb", recognizePeakMegabytes, 1)
            if recognizePeakMegabytes != nil, recognizePeakIsUpperBound { o.member("recognize_peak_rss_is_upper_bound", true) }
            for (key, value) in reading.fields { add(key, value, 2) }
            add("train_img_per_s", trainImagesPerSecond, 0)
            add("train_cpu_us_per_img", trainCPUMicrosecondsPerImage, 1)
            if trainImagesPerSecond != nil { o.member("train_threads", trainThreads) }
            add("peak_gflops_per_core", peakGflops, 1)
            o.member("multiply_adds_per_image", multiplyAdds)
            if !layers.isEmpty {
                o.member("layers", array: { list in
                    for layer in layers {
                        list.object {
                            $0.member("op", layer.name)
                            $0.member("multiply_adds", layer.multiplyAdds)
                            $0.member("us", number: String(format: "%.3f", layer.microseconds))
                            $0.member("gflops", number: String(format: "%.2f", layer.gflops))
                        }
                    }
                })
            }
            add("load_average_before", loadBefore, 2)
            add("load_average_after", loadAfter, 2)
            o.member("threads", threads)
            o.member("runs", runs)
            o.member("cpu", cpu)
            o.member("build", buildMode)
            o.member("fast_path", fastPath)
            o.member("kernels", kernels)
            o.member("weights", weights)
        }
        return writer.text
    }

    /// The human-readable table.
    public var table: String {
        var s = "digits bench — \(cpu), \(threads) cores\n"
        s += "build: \(buildMode)\n"
        s += "weights: \(weights) (\(multiplyAdds) multiply-adds per image); medians of \(runs) runs\n"
        if let loadBefore, let loadAfter {
            s += String(format: "load average (1 min) before %.2f, after %.2f\n", loadBefore, loadAfter)
        }
        s += "\n"
        func row(_ name: String, _ value: String, _ note: String = "") {
            s += name.padding(toLength: 30, withPad: " ", startingAt: 0) + value.padding(toLength: 14, withPad: " ", startingAt: 0)
                + note + "\n"
        }
        if let peakGflops { row("peak_gflops_per_core", String(format: "%.1f", peakGflops), "multiply-add on registers, one core (CPU time)") }
        for t in throughput {
            let gflops = 2 * Double(multiplyAdds) * t.imagesPerSecond / 1e9
            row(t.key, String(format: "%.0f", t.imagesPerSecond),
                String(format: "batch %d, %d thread%@, %.1f GFLOP/s; %.1f CPU µs/image", t.batch, t.threads,
                       t.threads == 1 ? "" : "s", gflops, t.cpuMicrosecondsPerImage))
        }
        if let p50 = endToEndP50, let p99 = endToEndP99 {
            row("e2e_us_p50", String(format: "%.1f", p50), "stroke JSON text → answer, \(endToEndSamples) samples"
                + (endToEndCPUP50.map { String(format: "; CPU %.1f", $0) } ?? ""))
            row("e2e_us_p99", String(format: "%.1f", p99), endToEndCPUP99.map { String(format: "CPU %.1f", $0) } ?? "")
            if let slowest = endToEndSlowestDrawing {
                row("  slowest drawing", String(format: "%.1f", slowest.p50), "µs p50 of \(slowest.name), its own runs")
            }
            if let (n, of) = secondOpinionConsulted {
                row("  second opinion", "\(n) of \(of)", "drawings it was consulted on (\(secondOpinion ?? ""))")
            }
            for stage in endToEndStages {
                row("  \(stage.stage)", String(format: "%.1f", stage.p50), String(format: "CPU µs p50 (p99 %.1f)", stage.p99))
            }
        }
        if let noise {
            var note = String(format: "gaps p50 %.0f, p90 %.0f, max %.0f µs; %.2f%% of the time", noise.gapP50, noise.gapP90,
                              noise.gapMax, 100 * noise.fractionLost)
            if let p50 = endToEndP50 {
                note += String(format: "; hits %.1f%% of %.0f µs tasks", 100 * noise.hitProbability(microseconds: p50), p50)
            }
            row("noise_interruptions_per_s", String(format: "%.0f", noise.perSecond), note)
            if let share = noise.cpuClockShare {
                row("  thread CPU clock", String(format: "%.2f%%", 100 * share), "of the spin's wall time (100% = the stops count as CPU time)")
            }
        }
        if let r = rasterMicroseconds {
            row("raster_us_per_digit", String(format: "%.2f", r), "rasterizer alone"
                + (rasterCPUMicroseconds.map { String(format: "; CPU %.2f", $0) } ?? ""))
        }
        if let c = coldStartMilliseconds {
            row("cold_start_ms", String(format: "%.1f", c), "digits recognize FILE, whole process"
                + (coldStartCPUMilliseconds.map { String(format: "; CPU %.1f ms", $0) } ?? ""))
        }
        if let m = recognizePeakMegabytes {
            row("recognize_peak_rss_mb", String(format: "%.1f", m),
                "peak resident memory of that process" + (recognizePeakIsUpperBound ? " (upper bound: the bench's own peak)" : ""))
        }
        for (name, value, note) in reading.rows { row(name, value, note) }
        if let t = trainImagesPerSecond {
            row("train_img_per_s", String(format: "%.0f", t), "\(trainThreads) threads, batch 128"
                + (trainCPUMicrosecondsPerImage.map { String(format: "; %.0f CPU µs/image", $0) } ?? ""))
        }
        if !layers.isEmpty {
            s += "\nper op, batch 1, one thread (CPU µs per image):\n"
            let total = layers.reduce(0) { $0 + $1.microseconds }
            for l in layers {
                s += "  " + l.name.padding(toLength: 40, withPad: " ", startingAt: 0)
                    + String(format: "%8.2f µs %5.1f%%", l.microseconds, total > 0 ? 100 * l.microseconds / total : 0)
                    + (l.multiplyAdds > 0 ? String(format: "  %7.1f GFLOP/s", l.gflops) : "") + "\n"
            }
            s += "  " + "total".padding(toLength: 40, withPad: " ", startingAt: 0) + String(format: "%8.2f µs", total) + "\n"
        }
        return s
    }

    /// The processor's model name and vector extensions, from /proc/cpuinfo (Linux).
    public static func cpuDescription() -> String {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return machine() }
        var model = "", flags: Set<Substring> = []
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let key = parts[0].trimmingCharacters(in: .whitespaces), value = parts[1].trimmingCharacters(in: .whitespaces)
            if model.isEmpty, key == "model name" || key == "Model" { model = value }
            if flags.isEmpty, key == "flags" || key == "Features" { flags = Set(parts[1].split(separator: " ")) }
        }
        var features: [String] = []
        if flags.contains("avx512f") { features.append("AVX-512") } else if flags.contains("avx2") { features.append("AVX2") }
        if flags.contains("fma") { features.append("FMA") }
        if flags.contains("asimd") { features.append("NEON") }
        return (model.isEmpty ? machine() : model) + " (" + ([machine()] + features).joined(separator: ", ") + ")"
    }

    static func machine() -> String {
        #if arch(x86_64)
        return "x86_64"
        #elseif arch(arm64)
        return "arm64"
        #else
        return "unknown"
        #endif
    }
}

/// The measurements behind `digits bench`.
public enum Benchmark {
    /// Runs the parts of `config` in order, calling `progress` with a short line before each.
    public static func run(_ config: BenchConfiguration, progress: (String) -> Void = { _ in }) throws -> BenchReport {
        var report = BenchReport()
        report.loadBefore = loadAverage()
        report.runs = config.runs
        report.weights = config.weightsPath
        // First, while this process is small: on Linux a child's peak-memory figure starts from
        // the parent's own peak (it is inherited across fork and exec).
        if config.parts.contains(.cold), let exe = config.executable {
            progress("cold: digits recognize FILE")
            let file = try drawingFiles(config.drawingsDirectory)[0]
            let own = ownPeakKilobytes()
            let (ms, cpuMs, mb): (Double, Double, Double)
            do {
                (ms, cpuMs, mb) = try coldStart(executable: exe, weights: config.weightsPath, opinion: config.secondOpinionPath,
                                                drawing: file.path, runs: config.runs)
            } catch {
                _ = try ModelFile.load(path: config.weightsPath)   // names the problem when it is the weight file
                throw error
            }
            report.coldStartMilliseconds = ms
            report.coldStartCPUMilliseconds = cpuMs
            report.recognizePeakMegabytes = mb
            report.recognizePeakIsUpperBound = own.map { Double($0) / 1024 >= mb } ?? true
        }
        var photo: String?
        var madePhoto: String?
        if config.parts.contains(.images), let exe = config.executable {
            if let given = config.photoPath {
                photo = given
            } else {
                progress("images: a 12-megapixel photo of a number (digits make-paper)")
                let folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("digits-bench-\(getpid())")
                madePhoto = try makePhoto(executable: exe, drawings: config.drawingsDirectory, folder: folder)
                photo = madePhoto
            }
            progress("images: digits recognize PHOTO")
            (report.reading.photoProcessMilliseconds, report.reading.photoPeakMegabytes) =
                try photoProcess(executable: exe, weights: config.weightsPath, opinion: config.secondOpinionPath, photo: photo!, runs: config.quick ? 1 : min(config.runs, 5))
        }
        defer { if let madePhoto { try? FileManager.default.removeItem(atPath: (madePhoto as NSString).deletingLastPathComponent) } }
        let model = try ModelFile.load(path: config.weightsPath)
        let network = try model.makeNetwork(file: config.weightsPath)
        report.multiplyAdds = network.multiplyAdds
        let parts = config.parts

        if parts.contains(.peak) {
            progress("peak: multiply-add on registers")
            report.peakGflops = peakGflops(runs: config.runs)
        }
        if parts.contains(.cnn) || parts.contains(.layers) {
            let test = try MNISTSet.load(directory: config.mnistDirectory, split: .test)
            let pixels = BatchInference.pixels(test, range: 0..<min(test.count, config.quick ? 1000 : 10000))
            if parts.contains(.cnn) {
                for (batch, threads) in [(1, 1), (64, 1), (1000, 1), (1000, 2)] {
                    progress("cnn: batch \(batch), \(threads) thread(s)")
                    let perRun = config.quick ? max(batch, 500) : max(2 * batch, 2048)
                    report.throughput.append(
                        throughput(network, pixels: pixels, batch: batch, threads: threads, imagesPerRun: perRun, runs: config.runs))
                }
            }
            if parts.contains(.layers) {
                progress("layers: per-op profile")
                report.layers = layerTimings(network, pixels: pixels, images: config.quick ? 300 : 1000, runs: config.runs)
            }
        }
        if parts.contains(.noise) {
            progress("noise: interruptions of this thread")
            report.noise = interruptions(seconds: config.quick ? 0.2 : 2)
        }
        if parts.contains(.e2e) || parts.contains(.raster) {
            let files = try drawingFiles(config.drawingsDirectory)
            if parts.contains(.e2e) {
                progress("e2e: stroke JSON → answer")
                let recognizer = try makeRecognizer(model, config)
                let rounds = config.quick ? 4 : max(20, config.runs)
                let asked = recognizer.secondOpinion?.consultations ?? 0
                let (samples, cpu, stages) = try endToEnd(recognizer, files: files, rounds: rounds)
                report.endToEndStages = stages.map { ($0.name, Statistics.percentile($0.cpu, 50), Statistics.percentile($0.cpu, 99)) }
                report.endToEndP50 = Statistics.percentile(samples, 50)
                report.endToEndP99 = Statistics.percentile(samples, 99)
                report.endToEndCPUP50 = Statistics.percentile(cpu, 50)
                report.endToEndCPUP99 = Statistics.percentile(cpu, 99)
                report.endToEndSamples = samples.count
                report.endToEndSlowestDrawing = slowestDrawing(samples, files: files.map { ($0.path as NSString).lastPathComponent })
                if let opinion = recognizer.secondOpinion {
                    // Every pass (the warm-up and `rounds` timed ones) reads the same drawings.
                    let consulted = (opinion.consultations - asked) / (rounds + 1)
                    report.secondOpinion = try opinion.model.provenance["second_opinion_mix"].map { "mix \($0)" } ?? ""
                    report.secondOpinionConsulted = (consulted, files.count)
                }
            }
            if parts.contains(.raster) {
                progress("raster: rasterizer alone")
                (report.rasterMicroseconds, report.rasterCPUMicroseconds) =
                    try rasterTime(files: files, options: model.rasterOptions, runs: max(config.runs, 9))
            }
        }
        if parts.contains(.numbers) {
            progress("numbers: reading a 4-digit and a 10-digit drawing")
            let drawings = try drawingFiles(config.drawingsDirectory).compactMap { file in
                try? DrawingLoader.decode(file.bytes, source: file.path, format: .json).first?.result.get()
            }
            report.reading.readings = try readingLatencies(try makeRecognizer(model, config), drawings: drawings,
                                                           rounds: config.quick ? 20 : 300)
        }
        if parts.contains(.images) {
            progress("images: 28×28 PNG → answer")
            let test = try MNISTSet.load(directory: config.mnistDirectory, split: .test)
            let recognizer = try makeRecognizer(model, config)
            report.reading.png = try pngLatency(recognizer, set: test, images: 100, rounds: config.quick ? 2 : 20)
            if JPEG.isAvailable, try recognizer.paperReaderLoaded() {
                progress("images: 150×40 JPEG crop of a number → answer (paper model)")
                let drawings = try drawingFiles(config.drawingsDirectory).compactMap { file in
                    try? DrawingLoader.decode(file.bytes, source: file.path, format: .json).first?.result.get()
                }
                report.reading.crop = try cropLatency(recognizer, drawings: drawings, rounds: config.quick ? 2 : 20)
            }
            if let photo {
                progress("images: 12-megapixel JPEG → answer")
                let image = try ImageDecoder.read(path: photo, maxSide: 1 << 16)
                report.reading.photoPixels = image.width * image.height
                (report.reading.photoMilliseconds, report.reading.photoCPUMilliseconds) =
                    try photoLatency(recognizer, photo: photo, runs: config.quick ? 2 : config.runs)
            }
        }
        if parts.contains(.train) {
            progress("train: \(config.threads) threads")
            let trainSet = try MNISTSet.load(directory: config.mnistDirectory, split: .train)
            (report.trainImagesPerSecond, report.trainCPUMicrosecondsPerImage) =
                trainThroughput(trainSet, threads: config.threads, steps: config.quick ? 6 : 16)
            report.trainThreads = config.threads
        }
        report.loadAfter = loadAverage()
        return report
    }

    /// This process's peak resident set (VmHWM in /proc/self/status, Linux) in KB, or nil.
    static func ownPeakKilobytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }

    /// The 1-minute load average from /proc/loadavg (Linux), or nil.
    public static func loadAverage() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
        return text.split(separator: " ").first.flatMap { Double($0) }
    }

    /// GFLOP/s of `maddPeak` on this thread (median of `runs`), in CPU time of the thread so that
    /// other processes sharing the core do not lower it.
    public static func peakGflops(runs: Int) -> Double {
        let iterations = 2_000_000
        var sink: Float = 0
        _ = KernelVariant.active.maddPeak(iterations: iterations / 10)
        var rates: [Double] = []
        for r in 0..<max(runs, 1) {
            let start = threadCPUNanoseconds()
            sink += KernelVariant.active.maddPeak(iterations: iterations, scale: 0.999_999 - Float(r) * 1e-9)
            let t = Double(threadCPUNanoseconds() - start) / 1e9
            rates.append(2 * 256 * Double(iterations) / t / 1e9)
        }
        if sink == .infinity { rates.append(0) }  // keeps `sink` alive
        return Statistics.median(rates)
    }

    /// Images per second of wall time and CPU µs per image (medians of `runs` after one warm-up
    /// run) of the network on `imagesPerRun` images taken in order from `pixels` (784 floats each,
    /// wrapping around), in batches of `batch` split over `threads` threads. Batch 1 uses the
    /// single-image call on this thread. Zero when `pixels` holds fewer than `batch` images.
    public static func throughput(_ network: InferenceNetwork, pixels: [Float], batch: Int, threads: Int,
                                  imagesPerRun: Int, runs: Int) -> BenchReport.Throughput {
        var result = BenchReport.Throughput(batch: batch, threads: threads, imagesPerSecond: 0, cpuMicrosecondsPerImage: 0)
        let available = pixels.count / 784
        guard available >= batch, batch >= 1 else { return result }
        let batches = max(1, imagesPerRun / batch)
        let workspaces = (0..<max(threads, 1)).map { _ in network.makeWorkspace() }
        var logits = [Float](repeating: 0, count: batch * network.classCount)
        var rates: [Double] = [], cpu: [Double] = []
        pixels.withUnsafeBufferPointer { px in
            logits.withUnsafeMutableBufferPointer { out in
                let base = px.baseAddress!, o = out.baseAddress!
                var next = 0
                for run in 0...max(runs, 1) {
                    let cpuStart = processCPUNanoseconds()
                    let t = measureSeconds {
                        for _ in 0..<batches {
                            if next + batch > available { next = 0 }
                            if batch == 1 {
                                network.logits(pixels: base + next * 784, workspace: workspaces[0], into: o)
                            } else {
                                network.logits(pixels: base + next * 784, count: batch, into: o, threads: threads, workspaces: workspaces)
                            }
                            next += batch
                        }
                    }
                    let cpuSeconds = Double(processCPUNanoseconds() - cpuStart) / 1e9
                    if run > 0 {
                        rates.append(Double(batches * batch) / t)
                        cpu.append(cpuSeconds * 1e6 / Double(batches * batch))
                    }
                }
            }
        }
        result.imagesPerSecond = Statistics.median(rates)
        result.cpuMicrosecondsPerImage = Statistics.median(cpu)
        return result
    }

    /// Per-op time of the network on one thread, one image at a time (median of `runs` passes over
    /// `images` images).
    public static func layerTimings(_ network: InferenceNetwork, pixels: [Float], images: Int, runs: Int) -> [BenchReport.LayerTiming] {
        let count = min(images, pixels.count / 784)
        var samples: [[Double]] = []
        pixels.withUnsafeBufferPointer { px in
            _ = network.profile(pixels: px.baseAddress!, count: min(count, 100))
            for _ in 0..<max(runs, 1) { samples.append(network.profile(pixels: px.baseAddress!, count: count)) }
        }
        return network.executedOps.enumerated().map { i, op in
            .init(name: op.name, multiplyAdds: op.multiplyAdds, microseconds: Statistics.median(samples.map { $0[i] }) * 1e6)
        }
    }

    /// The typical drawings: `digit-*.json` in `directory`, sorted, as (path, bytes).
    static func drawingFiles(_ directory: String) throws -> [(path: String, bytes: [UInt8])] {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory) } catch {
            throw DigitError(.io, file: directory, "cannot list the drawings folder (pass --drawings DIR)")
        }
        let files = names.filter { $0.hasPrefix("digit-") && $0.hasSuffix(".json") }.sorted()
        guard !files.isEmpty else { throw DigitError(.io, file: directory, "no digit-*.json drawings in this folder") }
        return try files.map { name in
            let path = (directory as NSString).appendingPathComponent(name)
            return (path, try FileIO.read(path, limit: 1 << 20))
        }
    }

    /// Microseconds per drawing, one sample per call, from the JSON bytes to the filtered answer:
    /// wall time and CPU time of this thread; then, from as many calls again, the CPU time of each
    /// stage. Reading the thread's CPU clock is a system call, not free, so the stage clocks are
    /// read in separate passes, not inside the timed window.
    static func endToEnd(_ recognizer: DigitRecognizer, files: [(path: String, bytes: [UInt8])], rounds: Int) throws
        -> ([Double], [Double], [(name: String, cpu: [Double])]) {
        var samples: [Double] = [], cpu: [Double] = []
        var parse: [Double] = [], raster: [Double] = [], network: [Double] = []
        samples.reserveCapacity(rounds * files.count)
        cpu.reserveCapacity(rounds * files.count)
        parse.reserveCapacity(rounds * files.count)
        raster.reserveCapacity(rounds * files.count)
        network.reserveCapacity(rounds * files.count)
        var pixels = [Float](repeating: 0, count: 784)
        func decode(_ file: (path: String, bytes: [UInt8])) throws -> Drawing {
            let records = try DrawingLoader.decode(file.bytes, source: file.path, format: .json)
            guard let record = records.first, case let .success(drawing) = record.result else {
                throw DigitError(.format, file: file.path, "not a readable drawing")
            }
            return drawing
        }
        for round in 0...rounds {
            for file in files {
                // The same work as `recognize(_ drawing:)`.
                let cpuStart = threadCPUNanoseconds()
                let start = monotonicNanoseconds()
                let drawing = try decode(file)
                pixels.withUnsafeMutableBufferPointer { recognizer.rasterizer.rasterize(drawing, into: $0) }
                _ = recognizer.recognize(pixels: pixels)
                let end = monotonicNanoseconds()
                let cpuEnd = threadCPUNanoseconds()
                if round > 0 {
                    samples.append(Double(end - start) / 1e3)
                    cpu.append(Double(cpuEnd - cpuStart) / 1e3)
                }
            }
            for file in files {
                // The same again, with the stages timed apart.
                let cpuStart = threadCPUNanoseconds()
                let drawing = try decode(file)
                let parsed = threadCPUNanoseconds()
                pixels.withUnsafeMutableBufferPointer { recognizer.rasterizer.rasterize(drawing, into: $0) }
                let rasterized = threadCPUNanoseconds()
                _ = recognizer.recognize(pixels: pixels)
                let cpuEnd = threadCPUNanoseconds()
                if round > 0 {
                    parse.append(Double(parsed - cpuStart) / 1e3)
                    raster.append(Double(rasterized - parsed) / 1e3)
                    network.append(Double(cpuEnd - rasterized) / 1e3)
                }
            }
        }
        return (samples, cpu, [("parse", parse), ("raster", raster), ("network", network)])
    }

    /// The file whose samples have the largest median, and that median; `samples` holds rounds
    /// of one sample per file, in file order.
    static func slowestDrawing(_ samples: [Double], files: [String]) -> (name: String, p50: Double)? {
        guard !files.isEmpty, samples.count >= files.count else { return nil }
        let medians = files.indices.map { f in
            Statistics.median(stride(from: f, to: samples.count, by: files.count).map { samples[$0] })
        }
        guard let worst = medians.indices.max(by: { medians[$0] < medians[$1] }) else { return nil }
        return (files[worst], medians[worst])
    }

    /// Microseconds per drawing of the rasterizer alone (median over `runs` passes over all
    /// drawings), in wall time and in CPU time of this thread.
    static func rasterTime(files: [(path: String, bytes: [UInt8])], options: RasterOptions, runs: Int) throws -> (Double, Double) {
        let drawings: [Drawing] = try files.map { file in
            guard let record = try DrawingLoader.decode(file.bytes, source: file.path, format: .json).first,
                  case let .success(drawing) = record.result else {
                throw DigitError(.format, file: file.path, "not a readable drawing")
            }
            return drawing
        }
        let rasterizer = Rasterizer(options: options)
        var image = [Float](repeating: 0, count: 784)
        var times: [Double] = [], cpu: [Double] = []
        let repeats = 20
        image.withUnsafeMutableBufferPointer { out in
            for run in 0...runs {
                let cpuStart = threadCPUNanoseconds()
                let t = measureSeconds {
                    for _ in 0..<repeats { for d in drawings { rasterizer.rasterize(d, into: out) } }
                }
                let cpuSeconds = Double(threadCPUNanoseconds() - cpuStart) / 1e9
                if run > 0 {
                    times.append(t * 1e6 / Double(repeats * drawings.count))
                    cpu.append(cpuSeconds * 1e6 / Double(repeats * drawings.count))
                }
            }
        }
        return (Statistics.median(times), Statistics.median(cpu))
    }

    /// `executable recognize input --weights weights --second-opinion opinion` (none for nil), as
    /// a user runs it: with the default weights and second opinion, neither is named (a named
    /// second opinion is read at start, the default one only when first asked).
    static func recognizeCommand(_ executable: String, _ input: String, weights: String, opinion: String?) -> [String] {
        let defaults = weights == (try? DigitRecognizer.defaultWeightsPath()) && opinion == SecondOpinion.defaultPath()
        return [executable, "recognize", input] + (defaults ? [] : ["--weights", weights, "--second-opinion", opinion ?? "none"])
    }

    /// A recognizer of `model` consulting the configuration's second opinion.
    static func makeRecognizer(_ model: ModelFile, _ config: BenchConfiguration) throws -> DigitRecognizer {
        let recognizer = try DigitRecognizer(model: model)
        recognizer.secondOpinion = try config.secondOpinionPath.map { try SecondOpinion(path: $0) }
        return recognizer
    }

    /// Median wall time and user + system CPU time (ms) of `executable recognize drawing --weights
    /// weights` with output discarded, after one warm-up run, and the largest peak resident memory
    /// (MB) of those runs.
    static func coldStart(executable: String, weights: String, opinion: String?, drawing: String, runs: Int) throws -> (Double, Double, Double) {
        var times: [Double] = [], cpu: [Double] = []
        var peakKB = 0
        for run in 0...max(runs, 1) {
            let (seconds, status, maxRSS, cpuSeconds) = try spawnAndWait(recognizeCommand(executable, drawing, weights: weights, opinion: opinion))
            guard status == 0 else {
                throw DigitError(.io, file: executable, "digits recognize exited with status \(status) during the cold-start timing")
            }
            if run > 0 {
                times.append(seconds * 1e3)
                cpu.append(cpuSeconds * 1e3)
            }
            peakKB = max(peakKB, maxRSS)
        }
        return (Statistics.median(times), Statistics.median(cpu), Double(peakKB) / 1024)
    }

    /// Runs a process with stdout and stderr discarded; returns wall seconds, exit status, the
    /// child's peak resident set in KB and its user + system CPU seconds.
    static func spawnAndWait(_ argv: [String]) throws -> (Double, Int32, Int, Double) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let cArgs = argv.map { strdup($0) }
        defer { cArgs.forEach { free($0) } }
        var pid: pid_t = 0
        let start = monotonicNanoseconds()
        let rc = (cArgs + [nil]).withUnsafeBufferPointer { args in
            guard let base = args.baseAddress else { return EINVAL }
            return posix_spawn(&pid, argv[0], &actions, nil, base, environ)
        }
        guard rc == 0 else { throw DigitError(.io, file: argv[0], "cannot start: \(String(cString: strerror(rc)))") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw DigitError(.io, file: argv[0], "wait failed: \(String(cString: strerror(errno)))") }
        }
        let seconds = Double(monotonicNanoseconds() - start) / 1e9
        let exited = status & 0x7f == 0
        func secs(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return (seconds, exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), Int(usage.ru_maxrss),
                secs(usage.ru_utime) + secs(usage.ru_stime))
    }

    /// Training images per second with `threads` threads: batch 128 of augmented MNIST through the
    /// standard architecture, forward, backward and SGD step; 128 / the median step time over
    /// `steps` steps (the first step, which allocates, is left out); and the median process CPU time
    /// per image of those steps in µs.
    public static func trainThroughput(_ set: MNISTSet, threads: Int, steps: Int) -> (Double, Double) {
        let options = TrainingOptions(epochs: 1, threads: threads)
        let batch = options.batchSize
        guard let trainer = try? Trainer(options: options, train: MNISTSamples(set, range: 0..<min(set.count, (steps + 1) * batch)),
                                            validation: MNISTSamples(set, range: (set.count - 200)..<set.count)) else { return (0, 0) }
        var stamps: [UInt64] = [], cpuStamps: [UInt64] = []
        _ = try? trainer.run { event in
            if case .batch = event {
                stamps.append(monotonicNanoseconds())
                cpuStamps.append(processCPUNanoseconds())
            }
        }
        let intervals = zip(stamps.dropFirst(), stamps).map { Double($0 - $1) / 1e9 }
        let cpu = zip(cpuStamps.dropFirst(), cpuStamps).map { Double($0 - $1) / 1e3 / Double(batch) }
        guard !intervals.isEmpty else { return (0, 0) }
        return (Double(batch) / Statistics.median(intervals), Statistics.median(cpu))
    }
}

extension Locations {
    /// The stroke fixtures (`Fixtures/strokes`) found from the working directory, the executable
    /// or the source tree, or nil.
    public static func strokeFixtures() -> String? {
        firstExisting(relative: "Fixtures/strokes/digit-0-a.json").map { ($0 as NSString).deletingLastPathComponent }
    }
}
