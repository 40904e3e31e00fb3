@testable import DigitKit
import DigitTestSupport
import XCTest

/// Candidates cut from synthetic photos, labelled by the true digit boxes.
final class PaperPartSamplesTests: XCTestCase {
    private let truth = [InkBox(x0: 0, y0: 0, x1: 10, y1: 20), InkBox(x0: 12, y0: 0, x1: 22, y1: 20)]

    func testJudge_AWholeDigitIsThatDigitAndTwoAreMerged() {
        XCTAssertEqual(PaperPartSamples.judge(InkBox(x0: 0, y0: 0, x1: 10, y1: 20), truth: truth), .digit(0))
        XCTAssertEqual(PaperPartSamples.judge(InkBox(x0: 0, y0: 0, x1: 13, y1: 20), truth: truth), .digit(0),
                       "a sliver of the neighbour's box does not matter")
        XCTAssertEqual(PaperPartSamples.judge(InkBox(x0: 11, y0: 0, x1: 22, y1: 20), truth: truth), .digit(1))
        XCTAssertEqual(PaperPartSamples.judge(InkBox(x0: 0, y0: 0, x1: 22, y1: 20), truth: truth), .merged)
    }

    func testJudge_ASmallPartIsAFragmentAndATallPartIsLeftOut() {
        XCTAssertEqual(PaperPartSamples.judge(InkBox(x0: 0, y0: 0, x1: 10, y1: 8), truth: truth), .fragment, "a 5's hat")
        XCTAssertEqual(PaperPartSamples.judge(InkBox(x0: 0, y0: 0, x1: 4, y1: 20), truth: truth), nil,
                       "as tall as the digit: it may read as a 1, the reader's comparison settles it")
        XCTAssertEqual(PaperPartSamples.judge(InkBox(x0: 0, y0: 0, x1: 10, y1: 16), truth: truth), nil, "most of a digit")
    }

    func testSamples_AreDeterministicAndHoldEveryKind() throws {
        guard let pen = TestPaths.requirePendigits() else { return }
        let records = try DrawingLoader.load(pen.path)
        let byWriter = NumberComposer.byWriter(records) { $0 == 1 || $0 == 2 }
        let a = PaperPartSamples(photos: 12, seed: 3, byWriter: byWriter, refusalLabel: 10)
        let b = PaperPartSamples(photos: 12, seed: 3, byWriter: byWriter, refusalLabel: 10)
        XCTAssertGreaterThan(a.count, 12)
        XCTAssertEqual(a.count, b.count)
        XCTAssertGreaterThan(a.kinds.digits, 0)
        XCTAssertGreaterThan(a.kinds.merged, 0)
        XCTAssertGreaterThan(a.kinds.fragments, 0)
        XCTAssertEqual(a.kinds.digits + a.kinds.merged + a.kinds.fragments, a.count)
        var rng = SplitMix64(seed: 0)
        var x = [Float](repeating: 0, count: 784), y = x
        for i in [0, a.count / 2, a.count - 1] {
            XCTAssertEqual(a.label(i), b.label(i))
            XCTAssertTrue((0...10).contains(a.label(i)))
            x.withUnsafeMutableBufferPointer { a.render(i, augment: true, rng: &rng, into: $0.baseAddress!) }
            y.withUnsafeMutableBufferPointer { b.render(i, augment: false, rng: &rng, into: $0.baseAddress!) }
            XCTAssertEqual(x, y)
            XCTAssertGreaterThan(x.max() ?? 0, 0.5, "sample \(i) has ink")
        }
        XCTAssertEqual((0..<a.count).filter { a.label($0) == 10 }.count, a.kinds.merged + a.kinds.fragments)
    }
}
