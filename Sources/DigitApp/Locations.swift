import DigitKit
import Foundation

/// Finds the data the programs need when the user does not name it: an environment variable, else
/// the project's `Fixtures/` (filled by scripts/fetch-mnist and scripts/fetch-pendigits), else the
/// shared data folder `../shared/data` beside the project.
public enum Locations {
    /// MNIST: `$MNIST_DIR`, else `Fixtures/mnist`, else `../shared/data/mnist`.
    public static func mnistDirectory() -> String? {
        if let env = ProcessEnvironment.value("MNIST_DIR") { return env }
        if let file = firstExisting(relative: "Fixtures/mnist/t10k-labels-idx1-ubyte")
            ?? firstExisting(relative: "../shared/data/mnist/t10k-labels-idx1-ubyte.gz") {
            return (file as NSString).deletingLastPathComponent
        }
        return nil
    }

    /// The pendigits UNIPEN file: `$PENDIGITS_FILE`, `Fixtures/pendigits/`, `../shared/data/pendigits/`.
    public static func pendigitsFile() -> String? {
        if let env = ProcessEnvironment.value("PENDIGITS_FILE") { return env }
        return firstExisting(relative: "Fixtures/pendigits/pendigits-orig.tra")
            ?? firstExisting(relative: "../shared/data/pendigits/pendigits-orig.tra")
    }

    /// The real scans of parish registers, unpacked (its `train/` and `validation/` folders):
    /// `$PARISH_DIR`, else `Fixtures/parish` (filled by scripts/fetch-parish from
    /// `../shared/data/parish`).
    public static func parishDirectory() -> String? {
        if let env = ProcessEnvironment.value("PARISH_DIR") { return env }
        return firstExisting(relative: "Fixtures/parish/validation/labels.csv").map {
            (($0 as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
        }
    }

    /// A file of the project (`Fixtures/hershey/…`) found from the working directory or the
    /// executable's build folder, or nil.
    public static func projectFile(_ relative: String) -> String? { firstExisting(relative: relative) }

    /// `relative` under the working directory or one of the four folders above the executable
    /// (`.build/release/digits` sits three levels below the project).
    static func firstExisting(relative: String) -> String? {
        let fm = FileManager.default
        var bases = [fm.currentDirectoryPath]
        var up = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 { bases.append(up.path); up.deleteLastPathComponent() }
        for base in bases {
            let path = (base as NSString).appendingPathComponent(relative)
            if fm.fileExists(atPath: path) { return (path as NSString).standardizingPath }
        }
        return nil
    }
}

/// Loads the weight file named on the command line (`--weights`), else the default one
/// (`$DIGITS_WEIGHTS`, else the shipped weights).
public func loadModel(_ path: String?, checksNetwork: Bool = true) throws -> ModelFile {
    try ModelFile.load(path: path ?? DigitRecognizer.defaultWeightsPath(), checksNetwork: checksNetwork)
}

/// The weights as `loadModel(_:)` loads them, with a personal profile (`--profile`,
/// `WriterProfile`) in place when one is named.
/// `checksNetwork` false: the caller builds the network at once, which checks it (`ModelFile.load`).
public func loadModel(_ path: String?, profile: String?, checksNetwork: Bool = true) throws -> ModelFile {
    try applyProfile(profile, to: try loadModel(path, checksNetwork: checksNetwork))
}

/// `model` with the personal profile at `profile` in place (refused, naming the file, when it was
/// made for other weights), or `model` itself when no profile is named. The window keeps `model`
/// too: a new profile adapts the weights as they are, not another profile.
public func applyProfile(_ profile: String?, to model: ModelFile) throws -> ModelFile {
    guard let profile else { return model }
    return try WriterProfile.load(path: profile).apply(to: model, file: profile)
}

/// The `--second-opinion` lines of the help of the commands that recognize drawings.
public let secondOpinionHelp = """
  --second-opinion F  the larger network consulted when the compact one is unsure (default:
                      $DIGITS_SECOND_OPINION, else the shipped one, with the default weights;
                      none with --weights); none: the compact network alone
"""
