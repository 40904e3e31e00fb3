import DigitKit
import DigitFormats
import DigitTestSupport
import Foundation
import XCTest

/// MNIST images drawn again as pen strokes (`MNISTStrokeSamples`): the skeleton's paths keep the
/// digit, loops stay closed, and a seed picks the same images every time.
final class MNISTStrokeSamplesTests: XCTestCase {
    private func image(_ draw: (Int, Int) -> Bool) -> [UInt8] {
        (0..<784).map { draw($0 % 28, $0 / 28) ? 255 : 0 }
    }

    func testDrawing_ARingIsOneClosedPathAndABarOneOpenPath() throws {
        let ring = image { x, y in
            let d = ((Float(x) - 13.5) * (Float(x) - 13.5) + (Float(y) - 13.5) * (Float(y) - 13.5)).squareRoot()
            return d >= 6 && d <= 8.5
        }
        let o = try XCTUnwrap(ring.withUnsafeBufferPointer { MNISTStrokeSamples.drawing($0) })
        XCTAssertEqual(o.strokes.count, 1)
        let path = try XCTUnwrap(o.strokes.first)
        XCTAssertEqual(path.first?.x, path.last?.x)
        XCTAssertEqual(path.first?.y, path.last?.y)
        XCTAssertGreaterThan(path.count, 20)

        let bar = image { x, y in x >= 12 && x <= 14 && y >= 4 && y <= 23 }
        let one = try XCTUnwrap(bar.withUnsafeBufferPointer { MNISTStrokeSamples.drawing($0) })
        XCTAssertEqual(one.strokes.count, 1)
        let ys = one.strokes[0].map(\.y)
        // The enlarged bar spans rows 8…47 of the 56 (plus a border of 2); its skeleton most of that.
        XCTAssertGreaterThan(ys.max()! - ys.min()!, 30)

        let blank = [UInt8](repeating: 0, count: 784)
        XCTAssertNil(blank.withUnsafeBufferPointer { MNISTStrokeSamples.drawing($0) })
    }

    /// Drawn with the pen and read by the shipped network, the skeletons of MNIST test images are
    /// still their digits: the paths keep each digit's shape.
    func testSamples_TheShippedNetworkReadsTheDrawnSkeletonsAsTheirDigits() throws {
        guard let dir = TestPaths.requireMNIST() else { return }
        let test = try MNISTSet.load(directory: dir.path, split: .test)
        let recognizer = try DigitRecognizer(weightsPath: TestPaths.weights.path)
        let samples = MNISTStrokeSamples(test, range: 0..<1000, count: 300, seed: 7, raster: recognizer.rasterizer.options)
        XCTAssertEqual(samples.count, 300)
        var right = 0
        var rng = SplitMix64(seed: 1)
        var pixels = [Float](repeating: 0, count: 784)
        for i in 0..<samples.count {
            pixels.withUnsafeMutableBufferPointer { samples.render(i, augment: false, rng: &rng, into: $0.baseAddress!) }
            if recognizer.recognize(pixels: pixels).bestGuess == samples.label(i) { right += 1 }
        }
        XCTAssertGreaterThanOrEqual(right, 285, "\(right) of 300 skeletons read as their digit")

        let again = MNISTStrokeSamples(test, range: 0..<1000, count: 300, seed: 7, raster: recognizer.rasterizer.options)
        XCTAssertEqual(again.labels, samples.labels)
        XCTAssertEqual(again.drawings, samples.drawings)
        let other = MNISTStrokeSamples(test, range: 0..<1000, count: 300, seed: 8, raster: recognizer.rasterizer.options)
        XCTAssertNotEqual(other.drawings, samples.drawings)
    }
}
