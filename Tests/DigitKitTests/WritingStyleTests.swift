@testable import DigitKit
import DigitTestSupport
import Foundation
import XCTest

/// Other hands put on the pen writers' digits for the paper model's synthetic lines.
final class WritingStyleTests: XCTestCase {
    private func stem() -> Drawing {
        Drawing(strokes: [(0...10).map { StrokePoint(x: 50, y: Float($0) * 10, t: Float($0) * 0.01) }], label: "1")
    }

    func testRestyle_TheSlantLeansTheTopRightAndTheWidthScalesAboutTheMiddle() {
        var style = WritingStyle()
        style.turnDegrees = 0
        style.bend = 0
        style.variants = 0
        var rng = SplitMix64(seed: 1)
        let leaned = style.restyle(stem(), hand: .init(slant: 0.3, width: 1), rng: &rng)
        let points = leaned.strokes[0]
        // y grows downward: the top (y = 0) is 50 above the middle and leans 15 to the right.
        XCTAssertEqual(points.first!.x, 65, accuracy: 1e-3)
        XCTAssertEqual(points.last!.x, 35, accuracy: 1e-3)
        XCTAssertEqual(points.map(\.y), stem().strokes[0].map(\.y))
        XCTAssertEqual(points.map(\.t), stem().strokes[0].map(\.t), "time stamps are kept")
        XCTAssertEqual(leaned.label, "1")

        let bar = Drawing(strokes: [[StrokePoint(x: 0, y: 50), StrokePoint(x: 100, y: 50)]], label: "7")
        let wide = style.restyle(bar, hand: .init(slant: 0, width: 1.2), rng: &rng)
        XCTAssertEqual(wide.strokes[0][0].x, -10, accuracy: 1e-3, "a dash is widened too")
        XCTAssertEqual(wide.strokes[0][1].x, 110, accuracy: 1e-3)
    }

    func testRestyle_TurnsAndBendsMoveADigitALittleAndTheSameStateGivesTheSameDrawing() throws {
        let style = WritingStyle()
        let digit = try TestPaths.digitDrawing(4)
        guard let before = Segmentation.box(digit.strokes.joined()) else { return XCTFail("the fixture has ink") }
        for seed in UInt64(1)...20 {
            var a = SplitMix64(seed: seed), b = SplitMix64(seed: seed)
            let hand = WritingStyle.Hand(slant: 0.1, width: 1)
            let one = style.restyle(digit, hand: hand, rng: &a), two = style.restyle(digit, hand: hand, rng: &b)
            XCTAssertEqual(one, two)
            XCTAssertNotEqual(one.strokes, digit.strokes)
            let box = try XCTUnwrap(Segmentation.box(one.strokes.joined()))
            XCTAssertEqual(box.height / before.height, 1, accuracy: 0.25, "seed \(seed): a turn and a bend, not a new digit")
        }
    }

    func testCompose_AStyledNumberKeepsItsLabelAndStrokeOwnersWhileUnstyledOnesAreAsBefore() throws {
        let digits = try [2, 0, 7, 1].map { try TestPaths.digitDrawing($0) }
        var plain = NumberComposer()
        var rng = SplitMix64(seed: 5), again = SplitMix64(seed: 5)
        XCTAssertEqual(plain.compose(digits, rng: &rng).drawing, plain.compose(digits, rng: &again).drawing)
        plain.style = WritingStyle()
        var r1 = SplitMix64(seed: 5), r2 = SplitMix64(seed: 5), r3 = SplitMix64(seed: 5)
        let styled = plain.compose(digits, rng: &r1)
        XCTAssertEqual(styled.drawing, plain.compose(digits, rng: &r2).drawing, "the same seed, the same hand")
        XCTAssertEqual(styled.drawing.label, "2071")
        XCTAssertEqual(styled.strokeDigit.count, styled.drawing.strokes.count)
        XCTAssertEqual(Set(styled.strokeDigit), [0, 1, 2, 3])
        XCTAssertNotEqual(styled.drawing.strokes, NumberComposer().compose(digits, rng: &r3).drawing.strokes)
    }
}
