import Foundation

/// The shipped weight file, a resource of this target, so that it travels with any product built
/// from the package: a consumer's binary finds it in the resource bundle SwiftPM places beside it
/// (`digits_DigitWeights.resources`). DigitKit reads it through `DigitRecognizer()`.
public enum ShippedWeights {
    /// The file name inside the bundle.
    public static let fileName = "mnist-cnn.safetensors"
    /// The bundle's folder name, as SwiftPM names it: `<package>_<target>.resources`.
    public static let bundleName = "digits_DigitWeights.resources"

    /// Where the shipped weights are looked for, in order: the resource bundle beside the running
    /// executable (SwiftPM's layout for `swift build` and for a binary copied with its bundle), then
    /// beside each loaded bundle (test runners), then the bundle in this package's build folder.
    /// The generated `Bundle.module` stops the process when the bundle is missing; this list lets
    /// the caller report what was looked for instead.
    public static var candidates: [String] { candidates(fileName) }

    /// The paper reader's line model (`LineReader`), a second resource of this target.
    public static let paperFileName = "paper-lines.safetensors"
    /// The first candidate place of the paper model that exists, or nil.
    public static var paperPath: String? { candidates(paperFileName).first { FileManager.default.fileExists(atPath: $0) } }

    /// Where a resource file `name` of this target is looked for, in the order `candidates` gives.
    public static func candidates(_ name: String) -> [String] {
        var folders: [URL] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            folders.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        folders.append(Bundle.main.bundleURL)
        folders += Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        var seen = Set<String>()
        return folders.map { $0.appendingPathComponent(bundleName).appendingPathComponent(name).standardizedFileURL.path }
            .filter { seen.insert($0).inserted }
    }

    /// The first candidate that exists, or nil.
    public static var path: String? { candidates.first { FileManager.default.fileExists(atPath: $0) } }
}
