import DigitFormats
import DigitKit
import Foundation
import XCTest

/// The shipped model, loaded once for all the tests of a process that read with it unchanged.
public enum TestRecognizers {
    private static var cached: DigitRecognizer?
    private static let lock = NSLock()

    /// The recognizer with the shipped weights (`Weights/mnist-cnn.safetensors`). Shared: a test
    /// that changes its settings makes its own.
    public static func shipped() throws -> DigitRecognizer {
        lock.lock()
        defer { lock.unlock() }
        if let r = cached { return r }
        let r = try DigitRecognizer(weightsPath: TestPaths.weights.path)
        cached = r
        return r
    }

    /// A recognizer of its own with the shipped digit weights and the repository's paper model
    /// (`Weights/paper-lines.safetensors`), as images are read.
    public static func withPaperModel() throws -> DigitRecognizer {
        let r = try DigitRecognizer(weightsPath: TestPaths.weights.path)
        r.lineReader = try LineReader(weightsPath: TestPaths.paperWeights.path)
        return r
    }
}

extension TestPaths {
    /// `count` crops of a labelled folder whose labels are numbers, evenly spaced through it.
    public static func numbers(in folder: URL, evenly count: Int) throws -> [LabelFile.Entry] {
        let entries = try Inputs.labelEntries(folder.path).filter { $0.label.allSatisfy(\.isNumber) }
        return stride(from: 0, to: entries.count, by: max(1, entries.count / count)).prefix(count).map { entries[$0] }
    }
}

extension TestPaths {
    /// The fixture drawing of `digit` (`Fixtures/strokes/digit-D-VARIANT.json`).
    public static func digitDrawing(_ digit: Int, _ variant: String = "a") throws -> Drawing {
        let path = fixtures.appendingPathComponent("strokes/digit-\(digit)-\(variant).json").path
        return try XCTUnwrap(try DrawingLoader.load(path).first).result.get()
    }
}
