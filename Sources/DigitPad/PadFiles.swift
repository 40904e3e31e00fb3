import DigitApp
import DigitKit
import DigitPadKit
import Foundation

/// Save and Open: the names saved drawings get, the folder they go to, the list Open steps
/// through (`OpenCycle`) and the last file read. Errors come back as status lines; those about
/// files that could not be read or written also go to stderr.
final class PadFiles {
    enum Opened {
        case drawing(Drawing, StatusLine)
        case image(PadImage, StatusLine)
        case failed(StatusLine)
    }

    /// An image file (PNG, JPEG, PGM, PPM; by its first bytes) decoded for the canvas, at most
    /// the size the reader works at. Throws the decoder's one-line error.
    static func loadImage(_ path: String) throws -> PadImage {
        PadImage(path: path, image: try ImageDecoder.read(path: path, maxSide: ImageOptions().workingSide))
    }

    private let openFile: String?
    /// Where S saves and O looks; nil = the working directory.
    private let saveDirectory: String?
    private var cycle: OpenCycle
    private var cache: (path: String, records: [DrawingRecord])?
    private var imageCache: PadImage?
    /// The drawings saved since the window opened, for Adapt.
    private(set) var saved: [PadAdaptation.Saved] = []

    /// `openRecords` or `openImage`: what `--open` holds, read before the window opened.
    init(openFile: String?, saveDirectory: String?, openRecords: [DrawingRecord]?, openImage: PadImage? = nil) {
        self.openFile = openFile
        self.saveDirectory = saveDirectory
        cycle = OpenCycle(openFile: openFile)
        if let openFile, let openRecords { cache = (openFile, openRecords) }
        imageCache = openImage
    }

    /// Writes `drawing` as `drawing-YYYYmmdd-HHMMSS.json` (then `-2`, `-3`, … within a second),
    /// atomically, and says what happened.
    func save(_ drawing: Drawing) -> StatusLine {
        guard !drawing.isEmpty else { return StatusLine("nothing to save yet: write something first", kind: .error) }
        let directory = saveDirectory ?? "."
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let stem = "drawing-" + formatter.string(from: Date())
        var name = stem + ".json"
        var n = 2
        while FileManager.default.fileExists(atPath: join(directory, name)) {
            name = "\(stem)-\(n).json"
            n += 1
        }
        let path = join(directory, name)
        do {
            try FileIO.writeAtomically(StrokeJSON.encode(drawing) + "\n", to: path)
            saved.append(PadAdaptation.Saved(path: path, drawing: drawing))
            let label = drawing.label.map { " (label \($0))" } ?? ""
            return StatusLine("saved \(path)\(label)", kind: .info)
        } catch {
            return report(error, prefix: "cannot save")
        }
    }

    /// The next drawing in Open's list.
    func openNext() -> Opened {
        let directory = saveDirectory ?? "."
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let list = OpenCycle.candidates(openFile: openFile, directory: saveDirectory ?? "", entries: entries)
        guard let next = cycle.next(candidates: list) else {
            return .failed(StatusLine("nothing to open: no .json, .jsonl or image file in \(directory) (see --open)", kind: .error))
        }
        return open(next.file, index: next.index)
    }

    /// Drawing `index` of the file at `path`, or the image at `path`; Open continues from there.
    func open(_ path: String, index: Int) -> Opened {
        if Inputs.isImage(path) {
            cycle.showing(file: path, index: 0, count: 1)
            do {
                let image = try imageCache.flatMap { $0.path == path ? $0 : nil } ?? PadFiles.loadImage(path)
                imageCache = image
                return .image(image, StatusLine("opened \(path) (\(image.originalWidth)×\(image.originalHeight) image)", kind: .info))
            } catch {
                return .failed(report(error, prefix: "cannot open"))
            }
        }
        let records: [DrawingRecord]
        if let cache, cache.path == path {
            records = cache.records
        } else {
            do {
                records = try DrawingLoader.load(path)
            } catch {
                cycle.showing(file: path, index: 0, count: 0)
                return .failed(report(error, prefix: "cannot open"))
            }
            cache = (path, records)
        }
        cycle.showing(file: path, index: index, count: records.count)
        guard index < records.count else { return .failed(StatusLine("\(path) holds no drawing", kind: .error)) }
        switch records[index].result {
        case let .success(drawing):
            let place = records.count > 1 ? " (\(index + 1) of \(records.count))" : ""
            return .drawing(drawing, StatusLine("opened \(path)\(place)", kind: .info))
        case let .failure(error):
            return .failed(report(error, prefix: "cannot open"))
        }
    }

    private func report(_ error: Error, prefix: String) -> StatusLine {
        let text = (error as? DigitError)?.description ?? "\(error)"
        printError("digitpad: \(prefix): \(text)")
        return StatusLine("\(prefix): \(text)", kind: .error)
    }

    private func join(_ directory: String, _ name: String) -> String {
        directory == "." ? name : (directory.hasSuffix("/") ? directory + name : directory + "/" + name)
    }
}
