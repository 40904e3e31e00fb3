import DigitApp
import DigitKit
import DigitPadKit
import Foundation

// digitpad: the drawing window. A thin layer: DigitKit recognizes, rasterizes and reads and
// writes stroke files; DigitPadKit holds the window's logic; this target talks to SDL.

extension ExitCode {
    /// No window could be opened (no display, or SDL failed): the window's own addition to
    /// the exit codes of `digits`.
    static let noWindow: Int32 = 4
}

func fail(_ error: DigitError) -> Int32 {
    printError("digitpad: \(error)")
    return ExitCode.of(error)
}

/// The drawing `--replay` animates: the first of its file. A bad file stops the program before
/// a window opens.
func loadReplay(_ path: String) throws -> Drawing {
    let records = try DrawingLoader.load(path)
    guard let first = records.first else {
        throw DigitError(.format, file: path, "has 0 drawing(s), there is no drawing 0")
    }
    let drawing = try first.result.get()
    if drawing.isEmpty { throw DigitError(.format, file: path, "drawing 0 is empty: nothing to replay") }
    return drawing
}

/// How much thinner the ink is when numbers are read than for one digit filling the canvas.
let numberInkDivisor: Float = 5

func main() -> Int32 {
    let options: PadOptions
    do {
        options = try PadOptions.parse(Array(CommandLine.arguments.dropFirst()))
    } catch let error as DigitError {
        return fail(error)
    } catch {
        return fail(DigitError(.usage, "\(error)"))
    }
    if options.help {
        print(PadOptions.help)
        return ExitCode.ok
    }
    let recognizer: DigitRecognizer
    let base: ModelFile
    var replay: Drawing?
    var openRecords: [DrawingRecord]?
    var openImage: PadImage?
    do {
        if let path = options.replay { replay = try loadReplay(path) }
        // A file named on the command line that cannot be read stops the program, as in `digits`;
        // one bad drawing inside it only shows as an error when it is opened.
        if let path = options.open {
            if Inputs.isImage(path) { openImage = try PadFiles.loadImage(path) } else { openRecords = try DrawingLoader.load(path) }
        }
        // As `digits recognize --profile` loads it: a profile for other weights is refused here.
        // The weights without the profile are kept for Adapt, which adapts those.
        base = try loadModel(options.weights)
        recognizer = try DigitRecognizer(model: try applyProfile(options.profile, to: base), threshold: options.threshold)
        recognizer.secondOpinion = try SecondOpinion.load(choice: options.secondOpinion, weights: options.weights, now: true)
    } catch let error as DigitError {
        return fail(error)
    } catch {
        return fail(DigitError(.io, "\(error)"))
    }
    // One digit filling the canvas is drawn as wide, relative to the canvas, as the network's pen
    // relative to its box; the digits of a number are about a fifth of the canvas tall, and so is their ink.
    let raster = recognizer.rasterizer.options
    let inkWidth = raster.penWidth / raster.box / (options.single ? 1 : numberInkDivisor)
    let app: PadApp
    do {
        app = try PadApp(options: options, recognizer: recognizer, base: base, inkWidth: inkWidth,
                         replay: replay, openRecords: openRecords, openImage: openImage)
    } catch {
        printError("digitpad: \(error)")
        return ExitCode.noWindow
    }
    return app.run()
}

exit(main())
