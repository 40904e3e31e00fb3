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
    public static var paperPath: String? { firstExisting(paperFileName) }

    /// Where a resource file `name` of this target is looked for, in the order `candidates` gives.
    public static func candidates(_ name: String) -> [String] {
        var seen = Set<String>()
        return (folders(.executable) + folders(.bundles)).map { file(name, in: $0) }.filter { seen.insert($0).inserted }
    }

    /// The first of `candidates(name)` that exists, or nil. The executable's folder is looked in
    /// first and alone when the file is there: asking Foundation for its bundles shows in the
    /// start-up time of a short command (`digits bench`'s cold_start_ms).
    public static func firstExisting(_ name: String) -> String? {
        let exists = { FileManager.default.fileExists(atPath: $0) }
        if let found = folders(.executable).map({ file(name, in: $0) }).first(where: exists) { return found }
        return candidates(name).first(where: exists)
    }

    private enum Place { case executable, bundles }

    /// The folders looked in (absolute paths): the executable's, or the loaded bundles'.
    private static func folders(_ place: Place) -> [String] {
        switch place {
        case .executable:
            guard let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
                  let slash = exe.lastIndex(of: "/") else { return [] }
            return [String(exe[..<slash])]
        case .bundles:
            return ([Bundle.main.bundleURL] + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }).map(\.standardizedFileURL.path)
        }
    }

    private static func file(_ name: String, in folder: String) -> String {
        (folder.hasSuffix("/") ? folder : folder + "/") + bundleName + "/" + name
    }

    /// The first candidate that exists, or nil.
    public static var path: String? { firstExisting(fileName) }
}
