import DigitApp
import DigitKit
import DigitPadKit
import Foundation

// digitpad: the drawing window. A thin layer: DigitKit recognizes, rasterizes and reads and
// writes stroke files; DigitPadKit holds the window's logic; this target talks to SDL.

/// Exit codes, as in `digits`, plus 4 for "no window".
enum PadExit {
    static let ok: Int32 = 0
    static let badInput: Int32 = 1
    static let usage: Int32 = 2
    static let io: Int32 = 3
    static let noWindow: Int32 = 4

    static func of(_ error: DigitError) -> Int32 {
        switch error.kind {
        case .format, .limit: return badInput
        case .usage: return usage
        case .io: return io
        }
    }
}

func fail(_ error: DigitError) -> Int32 {
    FileHandle.standardError.write(Data("digitpad: \(error)\n".utf8))
    return PadExit.of(error)
}

/// Loads every drawing a `--replay` or `draw`/`touch` step names, so a bad file stops the
/// program before a window opens.
func loadScriptDrawings(_ options: PadOptions) throws -> [String: Drawing] {
    var wanted: [(String, Int)] = options.replay.map { [($0, 0)] } ?? []
    for case let .draw(path, index, _) in options.script { wanted.append((path, index)) }
    var files: [String: [DrawingRecord]] = [:]
    var drawings: [String: Drawing] = [:]
    for (path, index) in wanted {
        let records: [DrawingRecord]
        if let cached = files[path] {
            records = cached
        } else {
            records = try DrawingLoader.load(path)
            files[path] = records
        }
        guard index < records.count else {
            throw DigitError(.format, file: path, "has \(records.count) drawing(s), there is no drawing \(index)")
        }
        let drawing = try records[index].result.get()
        if drawing.isEmpty { throw DigitError(.format, file: path, "drawing \(index) is empty: nothing to replay") }
        drawings[PadApp.key(path, index)] = drawing
    }
    return drawings
}

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
        return PadExit.ok
    }
    let recognizer: DigitRecognizer
    let drawings: [String: Drawing]
    var openRecords: [DrawingRecord]?
    do {
        drawings = try loadScriptDrawings(options)
        // A file named on the command line that cannot be read stops the program, as in `digits`;
        // one bad drawing inside it only shows as an error when it is opened.
        if let path = options.open { openRecords = try DrawingLoader.load(path) }
        recognizer = try DigitRecognizer(weightsPath: options.weights, threshold: options.threshold)
    } catch let error as DigitError {
        return fail(error)
    } catch {
        return fail(DigitError(.io, "\(error)"))
    }
    // The ink is drawn as wide, relative to the canvas, as the network's pen relative to its box.
    let raster = recognizer.rasterizer.options
    let app: PadApp
    do {
        app = try PadApp(options: options, recognizer: recognizer, inkWidth: raster.penWidth / raster.box,
                         scriptDrawings: drawings, openRecords: openRecords)
    } catch {
        FileHandle.standardError.write(Data("digitpad: \(error)\n".utf8))
        return PadExit.noWindow
    }
    return app.run()
}

exit(main())
