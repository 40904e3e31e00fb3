import DigitApp
import DigitKit
import Foundation

struct BenchCommand: CLICommand {
    static let name = "bench"
    static let summary = "measure network throughput, latency, cold start and training speed"
    static let help = """
    Usage: digits bench [options]

    Measures on this machine, with a warm-up and repeated runs (medians reported):
      cnn_img_per_s_bB_tT   network images/s at batch B with T threads (1/1, 64/1, 1000/1, 1000/2),
                            on the MNIST test images, with the shipped weights and normalization
      e2e_us_p50/p99        one drawing from stroke JSON text to answer (parse, rasterize, network,
                            confidence filter), over the Fixtures/strokes digit drawings
      raster_us_per_digit   the rasterizer alone on those drawings
      cold_start_ms         a whole `digits recognize FILE` process for one drawing (and its peak
                            resident memory, recognize_peak_rss_mb)
      read_4_digits_us, read_10_digits_us  reading a number drawn with the fixture digits
                            (segmentation, every candidate scored, the best path), p50 and p99
      png28_read_us_p50/p99  a 28×28 PNG (MNIST test images) from its bytes to the answer
      crop40x150_read_us_p50/p99  a 150×40 JPEG crop of a number (the stroke fixtures on paper)
                            from its bytes to the answer through the paper model
      photo_12mp_ms         a 4000×3000 JPEG photo of a 4-digit number (made by make-paper) from
                            the file to the answer on one thread, and the whole `digits recognize
                            PHOTO` process: photo_12mp_process_ms, photo_12mp_peak_rss_mb
      train_img_per_s       training images/s (batch 128, augmentation on) with all cores, of the
                            standard ten-output network on MNIST images (not the whole shipped recipe)
      peak_gflops_per_core  this build's multiply-add on registers alone, for scale
      noise_interruptions_per_s  how often something else stops the measuring thread (timer
                            ticks, a VM host), the gap lengths, and the share of e2e-long tasks
                            they hit: the noise under the p99 (2 s of spinning on the clock)
    plus a per-op profile at batch 1 (µs and GFLOP/s per layer), the CPU and the build mode.

    Options:
      --json              print one JSON object instead of the table
      --weights FILE      weight file (default: $DIGITS_WEIGHTS, else the shipped weights)
      --profile PROFILE   measure the network a personal profile (digits adapt) gives
      --second-opinion F  the second opinion consulted when unsure (default: the shipped one
                          with the default weights, none with --weights); none: without it
      --data DIR          MNIST folder (default: $MNIST_DIR, Fixtures/mnist, ../shared/data/mnist)
      --drawings DIR      folder of digit-*.json drawings (default Fixtures/strokes)
      --runs N            timed repetitions per figure (default 7)
      --threads N         threads for training (default: all cores)
      --only LIST         measure only some of: peak,cnn,layers,noise,e2e,raster,
                          cold,numbers,images,train
      --photo FILE        time this image instead of the made 12-megapixel photo
      --quick             fewer images per run (a smoke test; do not report its figures)
      --logits FILE       instead of measuring, write the logits of the MNIST test images as
                          little-endian float32, one per output (10, or 11 with "not a digit")
                          per image in file order (for comparisons with other runtimes, e.g.
                          bench/compare-onnxruntime)

    Progress goes to stderr. The kernels are chosen at run time for this CPU (DIGITS_KERNELS=
    portable|avx2|avx512 forces a copy); the report says which one ran (see docs/speed.md).

    \(CLI.exitCodesHelp)
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        let json = args.flag("--json")
        let quick = args.flag("--quick")
        let weightsOption = try args.option("--weights")
        let profilePath = try args.option("--profile")
        let opinionOption = try args.option("--second-opinion")
        let data = try args.option("--data") ?? Locations.mnistDirectory()
        let drawings = try args.option("--drawings") ?? Locations.strokeFixtures()
        let runs = try args.int("--runs", default: 7, range: 1...1000)
        let threads = try args.int("--threads", default: Parallel.processorCount, range: 1...256)
        let only = try args.option("--only")
        let logitsPath = try args.option("--logits")
        let photo = try args.option("--photo")
        _ = try args.positionals().first.map { throw DigitError(.usage, "unexpected argument '\($0)'") }

        var weights = try weightsOption ?? DigitRecognizer.defaultWeightsPath()
        if let profilePath {
            // The network a profile gives, written out once and measured as any weight file.
            let adapted = try loadModel(weightsOption, profile: profilePath)
            weights = FileManager.default.temporaryDirectory.appendingPathComponent("digits-bench-profile-\(getpid()).safetensors").path
            try adapted.write(to: weights)
        }
        defer { if profilePath != nil { try? FileManager.default.removeItem(atPath: weights) } }
        guard let data else { throw DigitError(.io, "MNIST not found: pass --data DIR, set MNIST_DIR, or run scripts/fetch-mnist") }
        if let logitsPath {
            let model = try ModelFile.load(path: weights)
            let network = try model.makeNetwork(file: weights)
            let test = try MNISTSet.load(directory: data, split: .test)
            let logits = BatchInference.logits(network, pixels: BatchInference.pixels(test), threads: threads)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(logits.count * 4)
            for v in logits { withUnsafeBytes(of: v.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
            try FileIO.writeAtomically(bytes, to: logitsPath)
            printError("bench: wrote \(test.count) × \(network.classCount) logits to \(logitsPath)")
            return ExitCode.ok
        }
        var config = BenchConfiguration(weightsPath: weights, mnistDirectory: data,
                                        drawingsDirectory: drawings ?? "Fixtures/strokes")
        config.runs = runs
        config.quick = quick
        config.threads = threads
        config.executable = currentExecutable()
        config.photoPath = photo
        config.secondOpinionPath = SecondOpinion.path(choice: opinionOption, weights: weightsOption)
        if let only {
            var parts = Set<BenchConfiguration.Part>()
            for name in only.split(separator: ",") {
                guard let part = BenchConfiguration.Part(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                    throw DigitError(.usage, "--only takes \(BenchConfiguration.Part.allCases.map(\.rawValue).joined(separator: ",")), got '\(name)'")
                }
                parts.insert(part)
            }
            config.parts = parts
        }
        let report = try Benchmark.run(config) { printError("bench: \($0)") }
        print(json ? report.json : report.table, terminator: json ? "\n" : "")
        return ExitCode.ok
    }

    /// This process's executable (for the cold-start timing), or nil when it cannot be found.
    static func currentExecutable() -> String? {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments.first.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        return path.flatMap { FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil }
    }
}
