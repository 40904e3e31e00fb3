import Foundation

/// What `digits recognize` and `digits eval` read: stroke files and images, named one by one or
/// as folders.
public enum Inputs {
    /// One thing to read: a drawing of a stroke file, or an image file (decoded when it is read).
    public enum Item: Sendable {
        case drawing(DrawingRecord)
        case image(path: String, label: String?)
    }

    /// File name extensions of images, in lower case (a name's extension is compared in lower case).
    public static let imageExtensions: Set<String> = ["png", "jpg", "jpeg", "pgm", "ppm", "pnm"]
    /// File name extensions of stroke files taken from a folder.
    public static let strokeExtensions: Set<String> = ["json", "jsonl", "ndjson"]

    /// The items of `path`: a stroke file (JSON, JSON Lines, UNIPEN), an image (PNG, JPEG,
    /// PGM/PPM, by content), a folder (its stroke files and images, sorted by name, not recursive;
    /// images by their extension in any case, `.Jpg` as `.jpg`; labels of its images from
    /// `labels.csv` or `labels.tsv` when present, see `readLabels`), or `-` for standard input
    /// (strokes). Throws when the path cannot be read, or holds nothing to read.
    public static func load(_ path: String, limits: StrokeLimits = .init()) throws -> [Item] {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if path != "-", exists, isDirectory.boolValue { return try loadFolder(path, limits: limits) }
        if path != "-", exists, isImage(path) { return [.image(path: path, label: nil)] }
        let records = try DrawingLoader.load(path, limits: limits)
        guard !records.isEmpty else { throw DigitError(.format, file: path, "holds no drawing") }
        return records.map { .drawing($0) }
    }

    /// True when the file's name ends like an image (.png, .jpg, …) or its bytes start like a PNG,
    /// JPEG or PGM/PPM image. A broken `x.png` is thus reported by the image decoder ("not a PNG,
    /// JPEG or PGM/PPM image"), not as a stroke file that fails to parse.
    public static func isImage(_ path: String) -> Bool {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        if let dot = name.lastIndex(of: "."), dot != name.startIndex,
           imageExtensions.contains(name[name.index(after: dot)...].lowercased()) { return true }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 16)).map(Array.init) ?? []
        return ImageDecoder.detect(head) != nil
    }

    static func loadFolder(_ path: String, limits: StrokeLimits) throws -> [Item] {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: path).sorted() } catch {
            throw DigitError(.io, file: path, "cannot list the folder")
        }
        let labels = try readLabels(path)
        var items: [Item] = []
        for name in names where !name.hasPrefix(".") {
            let file = (path as NSString).appendingPathComponent(name)
            let ext = URL(fileURLWithPath: name).pathExtension.lowercased()
            if imageExtensions.contains(ext) {
                items.append(.image(path: file, label: labels[name]))
            } else if strokeExtensions.contains(ext) {
                do {
                    items += try DrawingLoader.load(file, limits: limits).map { .drawing($0) }
                } catch let e as DigitError {
                    items.append(.drawing(DrawingRecord(source: file, index: 0, line: nil, writer: nil, result: .failure(e.inFile(file)))))
                }
            }
        }
        guard !items.isEmpty else {
            throw DigitError(.format, file: path, "no stroke files (.json, .jsonl) or images (.png, .jpg, .pgm, .ppm) in this folder")
        }
        return items
    }

    /// The label files a folder may hold, in the formats their names say (`LabelFile`).
    public static let labelFileNames = ["labels.csv", "labels.tsv"]

    /// The labels of a folder's images: image file name → label, from its `labels.csv` or
    /// `labels.tsv` (`LabelFile`); empty when it has neither. Throws for a bad label file naming
    /// its line, and when the folder holds both (which one would be meant is not known).
    public static func readLabels(_ folder: String) throws -> [String: String] {
        Dictionary(try labelEntries(folder).map { ($0.file, $0.label) }, uniquingKeysWith: { first, _ in first })
    }

    /// The entries of a folder's `labels.csv` or `labels.tsv`, in file order (none without either;
    /// both is an error).
    public static func labelEntries(_ folder: String) throws -> [LabelFile.Entry] {
        let present = labelFileNames.map { (folder as NSString).appendingPathComponent($0) }
            .filter { FileManager.default.fileExists(atPath: $0) }
        guard present.count <= 1 else {
            throw DigitError(.format, file: folder, "holds both \(labelFileNames.joined(separator: " and ")): keep one")
        }
        guard let path = present.first else { return [] }
        return try LabelFile.read(path)
    }
}
