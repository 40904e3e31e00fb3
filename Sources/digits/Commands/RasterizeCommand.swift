import DigitApp
import DigitKit
import Foundation

/// `digits rasterize FILE`: one drawing → the 28×28 network input, as PNG/PGM or ASCII.
struct RasterizeCommand: CLICommand {
    static let name = "rasterize"
    static let summary = "show the 28×28 network input of a drawing or image (PNG, PGM or ASCII)"
    static let help = """
    Usage: digits rasterize FILE|IMAGE|DIR|- [--index N] (--out OUT.png|OUT.pgm [--scale K] | --ascii)

    Shows what the network sees. An image read by the paper model shows each line of writing as
    the line model sees it: 32 pixels tall, margins and rules taken away, ink white on black (with
    --cuts or --single, the digits as below). Otherwise, for each digit read, the ink fitted into a 20×20 box keeping its
    aspect ratio, its centre of mass at (14, 14) of a 28×28 frame, white ink on black. The digits
    of a number stand side by side, left to right. With --single, the whole drawing is one digit.

    FILE is stroke JSON (.json), JSON Lines (.jsonl), a UNIPEN file (.tra/.tes/.unipen, its
    .INCLUDE files followed), an image (PNG, JPEG, PGM/PPM), a directory, or - for standard input.

    Options:
      --index N          which drawing of the input, 0-based (default 0)
      --single           one digit: the whole drawing, as `recognize --single` sees it
      --out PATH         write an 8-bit grayscale image; .png or .pgm by extension
      --scale K          enlarge the image K times, nearest neighbour, 1…64 (default 1)
      --ascii            print the 28×28 buffer as text (two characters per pixel)
      --weights FILE     take the pen width and softness from this weight file (default: the
                         shipped one when found, else the rasterizer's defaults)
    \(rasterOptionsHelp)
    \(paperOptionsHelp)

    \(CLI.exitCodesHelp)
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        let index = try args.int("--index", default: 0, range: 0...Int.max)
        let out = try args.option("--out")
        let scale = try args.int("--scale", default: 1, range: 1...64)
        let ascii = args.flag("--ascii")
        let single = args.flag("--single")
        // The pen the shipped model was trained for, so the picture is what the network sees.
        let weights = try args.option("--weights")
        let overrides = try RasterOverrides(&args)
        let paper = try PaperOverrides(&args)
        var page = ImageOptions()
        let inputs = try args.positionals()
        guard inputs.count == 1, let input = inputs.first else {
            throw DigitError(.usage, "expected exactly one input (a file, a directory or -), got \(inputs.count)")
        }
        guard out != nil || ascii else { throw DigitError(.usage, "nothing to do: give --out IMAGE.png|IMAGE.pgm or --ascii") }
        // Without --weights, the shipped file's pen if it is there, else the default pen.
        let base = try weights.map { try ModelFile.load(path: $0).rasterOptions }
            ?? (try? DigitRecognizer.defaultWeightsPath()).flatMap { try? ModelFile.load(path: $0).rasterOptions } ?? RasterOptions()
        let options = overrides.applied(to: base)
        let format = out.map { URL(fileURLWithPath: $0).pathExtension.lowercased() }
        if let format, format != "png", format != "pgm" {
            throw DigitError(.usage, "--out must end in .png or .pgm, got '\(out ?? "")'")
        }

        let items = try Inputs.load(input)
        guard index < items.count else {
            throw DigitError(.usage, "--index \(index) is out of range: \(input) holds \(items.count) item\(items.count == 1 ? "" : "s")")
        }
        var rasters: [[Float]]
        switch items[index] {
        case let .image(path, _):
            let recognizer = try DigitRecognizer(model: try loadModel(weights), raster: options)
            try paper.apply(to: recognizer, page: &page)
            let format = format ?? "png"
            if !single, page.readsLinesWhole, try recognizer.paperReaderLoaded() {
                // What the paper model sees: each line of writing, 32 pixels tall, one under another.
                let strips = LineImage.lines(image: try ImageDecoder.read(path: path, maxSide: page.workingSide))
                return try write(lines: strips.isEmpty ? [LineImage(pixels: [Float](repeating: 0, count: LineImage.height * 8), width: 8)] : strips,
                                 out: out, format: format, scale: scale, ascii: ascii)
            }
            if single { page.reader.maxDigits = 1 }
            rasters = try recognizer.read(imageAt: path, options: page).digits.map(\.raster)
            if rasters.contains(where: { $0.count != Rasterizer.size * Rasterizer.size }) { rasters = [] }
        case let .drawing(record):
            let drawing = try record.result.get()
            if drawing.isEmpty { printError("digits rasterize: \(input): drawing \(index) is empty; the image is blank") }
            if single || drawing.isEmpty {
                rasters = [Rasterizer(options: options).rasterize(drawing)]
            } else {
                let recognizer = try DigitRecognizer(model: try loadModel(weights), raster: options)
                rasters = try recognizer.read(drawing).digits.map(\.raster)
            }
        }
        if rasters.isEmpty { rasters = [[Float](repeating: 0, count: 784)] }
        // Side by side: 28 × (28 · digits), one column of background between digits.
        let size = Rasterizer.size
        let stripWidth = rasters.count * (size + 1) - 1
        var image = [Float](repeating: 0, count: size * stripWidth)
        for (k, raster) in rasters.enumerated() {
            for y in 0..<size { for x in 0..<size { image[y * stripWidth + k * (size + 1) + x] = raster[y * size + x] } }
        }

        if let out {
            let gray = try RasterImages.upscale(RasterImages.grayBytes(image), width: stripWidth, height: size, factor: scale)
            let bytes = format == "png"
                ? try PNG.encode(gray: gray, width: stripWidth * scale, height: size * scale)
                : try PNM.encodeP5(gray: gray, width: stripWidth * scale, height: size * scale)
            try FileIO.writeAtomically(bytes, to: out)
        }
        if ascii { print(RasterImages.ascii(image, width: stripWidth), terminator: "") }
        return ExitCode.ok
    }

    /// Writes the lines the paper model reads, one under another with a blank row between.
    static func write(lines: [LineImage], out: String?, format: String, scale: Int, ascii: Bool) throws -> Int32 {
        let width = lines.map(\.width).max() ?? 8, rowHeight = LineImage.height + 1
        let height = lines.count * rowHeight - 1
        var image = [Float](repeating: 0, count: width * height)
        for (k, line) in lines.enumerated() {
            for y in 0..<LineImage.height { for x in 0..<line.width { image[(k * rowHeight + y) * width + x] = line.pixels[y * line.width + x] } }
        }
        if let out {
            let gray = try RasterImages.upscale(RasterImages.grayBytes(image), width: width, height: height, factor: scale)
            let bytes = format == "png" ? try PNG.encode(gray: gray, width: width * scale, height: height * scale)
                : try PNM.encodeP5(gray: gray, width: width * scale, height: height * scale)
            try FileIO.writeAtomically(bytes, to: out)
        }
        if ascii { print(RasterImages.ascii(image, width: width), terminator: "") }
        return ExitCode.ok
    }
}

/// The rasterizer options every stroke command accepts.
let rasterOptionsHelp = [
    "  --pen-width W      stroke width in output pixels (default: from the weight file, else \(RasterOptions().penWidth))",
    "  --softness S       anti-aliased edge width in output pixels (default: weight file, else \(RasterOptions().softness))",
    "  --smoothing MODE   none, catmullRom (a spline through the points) or sparse (the spline",
    "                     for a stroke whose points lie 3.5 pixels apart or more; default sparse)",
    "  --minimum-extent F a drawing smaller than F × its canvas is enlarged no further",
    "                     (default \(RasterOptions().minimumExtent); 0 = always fill the 20×20 box)",
].joined(separator: "\n")

/// Reads `--pen-width`, `--softness`, `--smoothing` and `--minimum-extent` over `base`.
/// The rasterizer options given on the command line, read before the weight file (whose pen they
/// override) is loaded, so a bad command line is reported as such whatever the weights.
struct RasterOverrides {
    var penWidth: Float?, softness: Float?, minimumExtent: Float?
    var smoothing: RasterOptions.Smoothing?

    init(_ args: inout Arguments) throws {
        penWidth = try args.float("--pen-width", range: 0...20)
        softness = try args.float("--softness", range: 0...20)
        minimumExtent = try args.float("--minimum-extent", range: 0...1)
        if let mode = try args.option("--smoothing") {
            guard let smoothing = RasterOptions.Smoothing(rawValue: mode) else {
                throw DigitError(.usage, "--smoothing must be one of \(RasterOptions.Smoothing.allCases.map(\.rawValue).joined(separator: ", ")), got '\(mode)'")
            }
            self.smoothing = smoothing
        }
    }

    func applied(to base: RasterOptions) -> RasterOptions {
        var options = base
        options.penWidth = penWidth ?? options.penWidth
        options.softness = softness ?? options.softness
        options.minimumExtent = minimumExtent ?? options.minimumExtent
        options.smoothing = smoothing ?? options.smoothing
        return options
    }
}

/// The help lines of the paper reader's options (recognize, eval, rasterize).
let paperOptionsHelp = [
    "  --paper-weights F  the paper reader's line model (default: $DIGITS_PAPER_WEIGHTS, else the",
    "                     shipped Weights/paper-lines.safetensors)",
    "  --cuts             images: cut the digits apart and read each with the digit network (the",
    "                     reader before 0.3) instead of reading each line whole with the paper model",
].joined(separator: "\n")

/// `--paper-weights` and `--cuts`: which reader reads photos and scans.
struct PaperOverrides {
    var weights: String?
    var cuts: Bool

    init(_ args: inout Arguments) throws {
        weights = try args.option("--paper-weights")
        cuts = args.flag("--cuts")
    }

    /// Sets the recognizer's line model and the page options.
    func apply(to recognizer: DigitRecognizer, page: inout ImageOptions) throws {
        if let weights { recognizer.lineReader = try LineReader(weightsPath: weights, threshold: recognizer.threshold) }
        if cuts { page.readsLinesWhole = false }
    }
}
