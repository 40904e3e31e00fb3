import DigitApp
import DigitKit
import Foundation

/// `digits mnist`: loads an MNIST split and prints its size, label counts and load time,
/// a quick check that the data folder is complete and readable.
struct MNISTCommand: CLICommand {
    static let name = "mnist"
    static let summary = "check an MNIST folder: image count, size, label histogram, load time"
    static let help = """
    Usage: digits mnist [--dir DIR] [--split train|test]

    Loads the MNIST split from DIR (files train-images-idx3-ubyte, train-labels-idx1-ubyte,
    t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte, each raw or .gz) and prints what it found.

    Options:
      --dir DIR      the MNIST folder (default Fixtures/mnist, filled by scripts/fetch-mnist)
      --split NAME   train (60,000 images) or test (10,000 images); default test
      --png DIR      also write the images as 28×28 gray PNG files (white digit on black, as
                     stored) into DIR, with DIR/labels.tsv, for checking the image path
      --count N      with --png, only the first N images

    \(CLI.exitCodesHelp)
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        let dir = try args.option("--dir") ?? "Fixtures/mnist"
        let splitName = try args.option("--split") ?? "test"
        let pngFolder = try args.option("--png")
        let count = try args.int("--count", default: Int.max, range: 1...Int.max)
        _ = try args.positionals().first.map { throw DigitError(.usage, "unexpected argument '\($0)'") }
        guard let split = MNISTSet.Split(rawValue: splitName) else {
            throw DigitError(.usage, "--split must be train or test, got '\(splitName)'")
        }
        let start = Date()
        let set = try MNISTSet.load(directory: dir, split: split)
        let seconds = Date().timeIntervalSince(start)
        var histogram = [Int](repeating: 0, count: 10)
        for label in set.labels { histogram[Int(label)] += 1 }
        print("\(split.rawValue): \(set.count) images of \(set.images.rows)×\(set.images.columns) pixels from \(dir)")
        print("labels: " + histogram.enumerated().map { "\($0.offset):\($0.element)" }.joined(separator: " "))
        print(String(format: "loaded in %.3f s", seconds))
        if let pngFolder {
            try FileManager.default.createDirectory(atPath: pngFolder, withIntermediateDirectories: true)
            let n = min(count, set.count)
            var labels = ""
            for i in 0..<n {
                let name = String(format: "%@-%05d.png", split.rawValue, i)
                try PNG.write(gray: Array(set.images.image(i)), width: set.images.columns, height: set.images.rows,
                              to: (pngFolder as NSString).appendingPathComponent(name))
                labels += "\(name)\t\(set.labels[i])\n"
            }
            try FileIO.writeAtomically(labels, to: (pngFolder as NSString).appendingPathComponent("labels.tsv"))
            print("wrote \(n) PNG files and labels.tsv to \(pngFolder)")
        }
        return ExitCode.ok
    }
}
