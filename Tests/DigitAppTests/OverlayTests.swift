@testable import DigitApp
@testable import DigitKit
import DigitTestSupport
import Foundation
import XCTest

/// `Overlay`: the picture `digits recognize --overlay` writes.
final class OverlayTests: XCTestCase {
    /// A `width × height` gray image: a horizontal ramp with a dark dot every 7 pixels, so that a
    /// pixel out of place shows.
    private func image(_ width: Int, _ height: Int) -> DecodedImage {
        let gray = (0..<(width * height)).map { i -> UInt8 in
            i % 7 == 0 ? 20 : UInt8(60 + (i % width) * 190 / max(width - 1, 1))
        }
        return DecodedImage(width: width, height: height, gray: gray, format: .png, color: .gray, bitDepth: 8)
    }

    /// A reading of one line: a digit (nil: "not sure") in each box.
    private func reading(_ digits: [(Int?, InkBox)]) -> NumberReading {
        NumberReading(digits: digits.map { d, box in
            ReadDigit(digit: d, confidence: d == nil ? 0.5 : 0.99, notADigit: 0, top: [(d ?? 1, d == nil ? 0.5 : 0.99)], box: box, strokes: [])
        }, threshold: 0.9)
    }

    private func argb(_ v: UInt8) -> UInt32 { 0xFF00_0000 | UInt32(v) << 16 | UInt32(v) << 8 | UInt32(v) }

    func testOverlay_ASmallImageIsScaledByTheWholeFactorThatMakesItsLongSideAtLeast300() {
        let one = reading([(7, InkBox(x0: 0, y0: 0, x1: 5, y1: 5))])
        for (width, height, scale) in [(141, 40, 3), (141, 201, 2), (40, 141, 3), (299, 40, 2), (300, 10, 1), (480, 360, 1),
                                       (10, 10, 16), (2000, 1500, 1)] {
            let layout = Overlay.layout(width: width, height: height, reading: one)
            XCTAssertEqual(layout.scale, scale, "\(width)×\(height)")
            XCTAssertEqual([layout.image.width, layout.image.height], [width * scale, height * scale], "\(width)×\(height)")
            XCTAssertEqual([layout.band.y, layout.band.maxY], [0, layout.image.y], "the band is above the image, touching it")
            XCTAssertEqual(layout.height, layout.image.maxY)
            XCTAssertGreaterThanOrEqual(layout.band.height, BitmapFont.capHeight(scale: layout.textScale) + BitmapFont.capHeight(scale: 2))
        }
    }

    func testOverlay_TheTextIsInTheBandAndTheImageKeepsEveryPixelButTheBoxOutlines() {
        let picture = image(141, 40)
        // One box touches the image's top edge, where the outline must not spill into the band.
        let boxes = [InkBox(x0: 20, y0: 0, x1: 50, y1: 38), InkBox(x0: 70, y0: 6, x1: 100, y1: 34)]
        let read = reading([(3, boxes[0]), (nil, boxes[1])])
        let layout = Overlay.layout(width: 141, height: 40, reading: read)
        let surface = Overlay.draw(read, on: picture)
        XCTAssertEqual([surface.width, surface.height], [layout.width, layout.height])
        XCTAssertEqual([surface.width, surface.height], [423, layout.band.height + 120])

        var outline = 0
        for y in layout.image.y..<layout.image.maxY {
            for x in layout.image.x..<layout.image.maxX {
                let (u, v) = ((x - layout.image.x) / 3, (y - layout.image.y) / 3)
                let p = surface.pixel(x, y)
                guard p != argb(picture.gray[v * 141 + u]) else { continue }
                XCTAssertTrue([Overlay.sure.argb, Overlay.unsure.argb].contains(p), "(\(x), \(y)) is \(String(p, radix: 16))")
                // Outlines only: never inside a box.
                XCTAssertFalse(boxes.contains { Float(u) > $0.x0 && Float(u) < $0.x1 - 1 && Float(v) > $0.y0 && Float(v) < $0.y1 - 1 },
                               "(\(x), \(y)) inside a box is covered")
                outline += 1
            }
        }
        XCTAssertGreaterThan(outline, 4 * 2 * 60, "two boxes, each outlined")

        var colours: [UInt32: Int] = [:]
        for y in layout.band.y..<layout.band.maxY {
            for x in 0..<surface.width { colours[surface.pixel(x, y), default: 0] += 1 }
        }
        XCTAssertEqual(Set(colours.keys), [Overlay.band.argb, Overlay.sure.argb, Overlay.unsure.argb],
                       "the band holds the reading (3? in amber), the answers 3 (green) and ? (amber) and nothing else")
        // Below the answers (digits have no descenders) the band is empty down to the image: no
        // outline spills over the image's edge.
        for y in (layout.band.maxY - layout.padding)..<layout.band.maxY {
            XCTAssertEqual(Set((0..<surface.width).map { surface.pixel($0, y) }), [Overlay.band.argb], "row \(y)")
        }
    }

    func testOverlay_ANarrowImageWidensThePictureForTheTextAndIsCentred() {
        let read = reading([(1, InkBox(x0: 2, y0: 20, x1: 18, y1: 380)), (nil, InkBox(x0: 2, y0: 20, x1: 18, y1: 380))])
        let layout = Overlay.layout(width: 20, height: 400, reading: read)
        XCTAssertEqual(layout.scale, 1)
        XCTAssertEqual(layout.width, BitmapFont.width(of: "1?  49.5%", scale: layout.textScale) + 2 * layout.padding)
        XCTAssertEqual(layout.image.x, (layout.width - 20) / 2)
        let surface = Overlay.draw(read, on: image(20, 400))
        XCTAssertEqual([surface.width, surface.height], [layout.width, layout.height])
    }

    func testOverlay_EachLineOfWritingHasItsRowOfAnswers() {
        let line = reading([(1, InkBox(x0: 10, y0: 10, x1: 40, y1: 60))])
        let two = NumberReading(lines: [line, reading([(2, InkBox(x0: 10, y0: 80, x1: 40, y1: 130))])])
        let one = Overlay.layout(width: 200, height: 150, reading: line), both = Overlay.layout(width: 200, height: 150, reading: two)
        XCTAssertEqual(both.band.height - one.band.height, BitmapFont.capHeight(scale: both.answerScale) + both.padding)
        XCTAssertEqual(Overlay.layout(width: 200, height: 150, reading: .empty(threshold: 0.9)).band.height,
                       2 * one.padding + BitmapFont.capHeight(scale: one.textScale), "no ink: the band holds only \"no ink found\"")
    }
}
