import DigitKit

/// What O (Open) shows next. SDL has no file dialog, so Open steps through a list: the
/// drawings of the `--open` file first, then every `.json` and `.jsonl` file and every image
/// (`.png`, `.jpg`, `.jpeg`, `.pgm`, `.ppm`, `.pnm`) in the save folder in name order (the saved
/// `drawing-YYYYmmdd-HHMMSS.json` files sort by time), one drawing after another, and round
/// again. A file dropped on the window joins the list's place.
public struct OpenCycle: Equatable, Sendable {
    public var openFile: String?
    public private(set) var currentFile: String?
    public private(set) var currentIndex = 0
    /// Drawings in the current file (0 when it could not be read).
    public private(set) var currentCount = 0

    public init(openFile: String?) { self.openFile = openFile }

    /// The files to step through: `openFile`, then the stroke files and images among `entries`
    /// (names in `directory`), sorted by name, hidden files left out.
    public static func candidates(openFile: String?, directory: String, entries: [String]) -> [String] {
        let prefix = directory.isEmpty || directory == "." ? "" : (directory.hasSuffix("/") ? directory : directory + "/")
        var list = openFile.map { [$0] } ?? []
        func isOpenable(_ name: String) -> Bool {
            guard let dot = name.lastIndex(of: "."), !name.hasPrefix(".") else { return false }
            let ext = name[name.index(after: dot)...].lowercased()
            return ext == "json" || ext == "jsonl" || Inputs.imageExtensions.contains(ext)
        }
        let files = entries.filter(isOpenable).sorted()
        for name in files where !list.contains(prefix + name) && !list.contains(name) {
            list.append(prefix + name)
        }
        return list
    }

    /// The file and drawing index to show next, or nil when there is nothing to open.
    public func next(candidates: [String]) -> (file: String, index: Int)? {
        if let file = currentFile, currentIndex + 1 < currentCount { return (file, currentIndex + 1) }
        guard !candidates.isEmpty else { return nil }
        guard let file = currentFile, let position = candidates.firstIndex(of: file) else { return (candidates[0], 0) }
        return (candidates[(position + 1) % candidates.count], 0)
    }

    /// Records what is shown now.
    public mutating func showing(file: String, index: Int, count: Int) {
        currentFile = file
        currentIndex = index
        currentCount = max(count, 0)
    }
}
