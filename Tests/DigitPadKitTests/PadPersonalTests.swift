import DigitApp
import DigitKit
import DigitTestSupport
import XCTest
@testable import DigitPadKit

/// The answer card says "personal" while a personal profile reads (`--profile`, or after Adapt).
final class PadPersonalTests: XCTestCase {
    /// A one-digit answer, read with `profile` (nil: the weights as they are).
    private func seven(profile: String?, revision: Int = 1) -> AnswerView {
        var p = [Float](repeating: 0.001, count: 10)
        p[7] = 0.99
        var view = AnswerView(digit: 7, confidence: 0.99, probabilities: p, raster: [Float](repeating: 0, count: 784),
                              isEmpty: false, threshold: 0.9, revision: revision)
        view.profile = profile
        return view
    }

    /// Pixels of the answer card's caption row that differ from the row with `text` alone in it.
    private func captionDifferences(_ c: PadController, _ text: String) -> Int {
        let row = captionRow(c, expected: text)
        return zip(row.drawn, row.expected).filter { $0 != $1 }.count
    }

    /// The caption row of the answer card as drawn, and as it looks with `text` alone in it.
    private func captionRow(_ c: PadController, expected text: String) -> (drawn: [UInt32], expected: [UInt32]) {
        var surface = Surface(width: 1, height: 1)
        c.render(into: &surface)
        let r = c.layout.answer, g = c.layout.gap, s = c.layout.textScale
        let row = PixelRect(x: r.x + g, y: r.y + g, width: r.width - 2 * g, height: 7 * s)
        var expected = surface
        expected.fill(row, PadTheme.card)
        BitmapFont.draw(text, x: row.x, y: row.y, scale: s, color: PadTheme.muted, on: &expected)
        func pixels(_ x: Surface) -> [UInt32] {
            (row.y..<row.maxY).flatMap { y in (row.x..<row.maxX).map { x.pixel($0, y) } }
        }
        return (pixels(surface), pixels(expected))
    }

    func testPersonal_TheAnswerCardSaysPersonalOnlyForAReadingWithAProfile() {
        // Wide enough for the title and the word.
        let c = PadController(width: 1600, height: 900)
        c.show(seven(profile: nil))
        XCTAssertEqual(c.answerCaptions, ["Answer"])
        XCTAssertEqual(captionDifferences(c, "Answer"), 0, "the caption is 'Answer' and nothing else")
        let plain = captionRow(c, expected: "Answer")

        c.show(seven(profile: "profile.safetensors", revision: 2))
        XCTAssertEqual(c.answerCaptions, ["Answer · personal", "personal"])
        XCTAssertEqual(captionDifferences(c, "Answer · personal"), 0, "the caption says personal")
        XCTAssertGreaterThan(captionDifferences(c, "Answer"), 20)

        // A reading of the weights as they are again (a profile was never named): the word goes.
        c.show(seven(profile: nil, revision: 3))
        XCTAssertEqual(captionDifferences(c, "Answer"), 0)
        XCTAssertEqual(captionRow(c, expected: "Answer").drawn, plain.drawn)
    }

    func testPersonal_ANumberReadWithAProfileIsANumberAndPersonal() {
        let c = PadController(width: 1600, height: 900)
        var view = AnswerView(text: "12", confidence: 0.98, digits: [seven(profile: nil).digits[0], seven(profile: nil).digits[0]],
                              threshold: 0.9, revision: 1)
        view.profile = "me.safetensors"
        c.show(view)
        XCTAssertEqual(c.answerCaptions.first, "Number · personal")
        XCTAssertEqual(captionDifferences(c, "Number · personal"), 0)
    }

    func testPersonal_ANarrowCardKeepsTheWordPersonal() {
        // The default size, and a small window: the card has no room for both words.
        for (w, h) in [(1040, 620), (330, 200)] {
            let c = PadController(width: w, height: h)
            XCTAssertFalse(c.layout.answer.isEmpty)
            c.show(seven(profile: "profile.safetensors"))
            let room = c.layout.answer.width - 2 * c.layout.gap
            XCTAssertGreaterThan(BitmapFont.width(of: "Answer · personal", scale: c.layout.textScale), room, "the test needs a narrow card")
            XCTAssertEqual(captionDifferences(c, "personal"), 0, "\(w)×\(h)")
        }
    }

    func testPersonal_AReadingFromDigitKitNamesTheProfileItWasMadeWith() throws {
        let base = FuzzChecks.profileBase
        let w = try XCTUnwrap(base.tensors["fc.weight"]), b = try XCTUnwrap(base.tensors["fc.bias"])
        let profile = WriterProfile(baseWeights: base.weightsID, layerWeight: "fc.weight", layerBias: "fc.bias",
                                    weight: .init(shape: w.shape, values: w.values), bias: .init(shape: b.shape, values: b.values),
                                    blend: 0)
        let recognizer = try DigitRecognizer(model: try profile.apply(to: base, file: "/tmp/x/profile.safetensors"))
        let drawing = Drawing(strokes: [[StrokePoint(x: 0, y: 0), StrokePoint(x: 0, y: 30)]])
        let view = AnswerView(try recognizer.read(drawing), revision: 1, mapping: CanvasMapping(scale: 0.01, offsetX: 0, offsetY: 0),
                              profile: recognizer.profileName)
        XCTAssertEqual(view.profile, "profile.safetensors")
        XCTAssertNil(AnswerView(try DigitRecognizer(model: base).read(drawing), revision: 1,
                                mapping: CanvasMapping(scale: 0.01, offsetX: 0, offsetY: 0)).profile)
    }
}
