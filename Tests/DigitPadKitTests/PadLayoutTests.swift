import DigitApp
import DigitKit
import DigitTestSupport
import XCTest
@testable import DigitPadKit

final class PadLayoutTests: XCTestCase {
    private func allRects(_ l: PadLayout) -> [(String, PixelRect)] {
        var rects: [(String, PixelRect)] = [("canvas", l.canvas), ("answer", l.answer), ("preview", l.preview),
                                            ("chart", l.chart), ("status", l.status)]
        for b in PadButton.allCases { if let r = l.buttons[b] { rects.append((b.rawValue, r)) } }
        return rects.filter { !$0.1.isEmpty }
    }

    func testLayout_WideWindowPutsTheSquareCanvasLeftAndThePanelRight() {
        let l = PadLayout(width: 1040, height: 620)
        XCTAssertFalse(l.isPortrait)
        XCTAssertEqual(l.canvas.width, l.canvas.height)
        XCTAssertGreaterThan(l.canvas.width, 500)
        XCTAssertGreaterThanOrEqual(l.panel.x, l.canvas.maxX + l.margin)
        XCTAssertEqual(l.panel.y, l.canvas.y, "panel and canvas share their top edge")
        XCTAssertEqual(l.panel.maxY, l.canvas.maxY, "and their bottom edge")
        XCTAssertEqual(l.textScale, 2)
    }

    func testLayout_TallWindowPutsThePanelBelowTheCanvas() {
        let l = PadLayout(width: 600, height: 900)
        XCTAssertTrue(l.isPortrait)
        XCTAssertGreaterThanOrEqual(l.panel.y, l.canvas.maxY + l.margin)
        XCTAssertEqual(l.panel.x, l.canvas.x)
        XCTAssertEqual(l.panel.width, l.canvas.width)
    }

    func testLayout_NothingOverlapsOrLeavesTheWindowAtAnySize() {
        let widths = [1, 50, 160, 320, 333, 480, 640, 800, 1040, 1366, 1920, 2560, 4000]
        let heights = [1, 40, 120, 240, 317, 480, 620, 768, 1080, 1600, 2200]
        for w in widths {
            for h in heights {
                let l = PadLayout(width: w, height: h)
                let window = PixelRect(x: 0, y: 0, width: w, height: h)
                let rects = allRects(l)
                for (name, r) in rects {
                    XCTAssertEqual(r.intersection(window), r, "\(name) \(r) leaves the \(w)×\(h) window")
                }
                for i in rects.indices {
                    for j in rects.indices where j > i {
                        XCTAssertTrue(rects[i].1.intersection(rects[j].1).isEmpty,
                                      "\(rects[i].0) overlaps \(rects[j].0) at \(w)×\(h)")
                    }
                }
                if !l.previewImage.isEmpty {
                    XCTAssertEqual(l.previewImage.width % 28, 0, "whole screen pixels per network pixel")
                    XCTAssertEqual(l.previewImage.intersection(l.preview), l.previewImage)
                }
            }
        }
    }

    func testLayout_EveryButtonsTitleFitsInsideIt() {
        // Five buttons share the panel's width since Adapt joined them: their titles must still fit.
        var checked = 0
        for w in stride(from: 160, through: 2600, by: 40) {
            for h in stride(from: 120, through: 1700, by: 40) {
                let l = PadLayout(width: w, height: h)
                let s = l.buttonTextScale
                XCTAssertLessThanOrEqual(s, l.textScale)
                for b in PadButton.allCases {
                    guard let r = l.buttons[b], s > 0 else { continue }
                    XCTAssertLessThanOrEqual(BitmapFont.width(of: b.title, scale: s), r.width, "\(b) at \(w)×\(h)")
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 1000)
        // The sizes the window tests and the documentation use keep the panel's text size.
        for (w, h) in [(640, 400), (1040, 620), (600, 900)] {
            let l = PadLayout(width: w, height: h)
            XCTAssertEqual(l.buttonTextScale, l.textScale, "\(w)×\(h)")
        }
    }

    func testLayout_CommonSizesShowEveryPart() {
        for (w, h) in [(1040, 620), (800, 600), (1920, 1080), (600, 900), (320, 240)] {
            let l = PadLayout(width: w, height: h)
            XCTAssertFalse(l.chart.isEmpty, "\(w)×\(h)")
            XCTAssertFalse(l.previewImage.isEmpty, "\(w)×\(h)")
            XCTAssertEqual(l.buttons.count, PadButton.allCases.count, "\(w)×\(h)")
        }
    }

    func testLayout_TooSmallWindowKeepsTheCanvasAndDropsThePanel() {
        let l = PadLayout(width: 100, height: 60)
        XCTAssertTrue(l.panel.isEmpty)
        XCTAssertTrue(l.buttons.isEmpty)
        XCTAssertNil(l.button(at: 80, 30))
        XCTAssertEqual(PadLayout(width: 0, height: 0).canvas, .zero)
    }

    func testLayout_ButtonsAreHitInsideAndNotBetween() throws {
        let l = PadLayout(width: 1040, height: 620)
        for b in PadButton.allCases {
            let r = try XCTUnwrap(l.buttons[b])
            XCTAssertEqual(l.button(at: r.midX, r.midY), b)
            XCTAssertEqual(l.button(at: Float(r.x), Float(r.y)), b)
            XCTAssertNil(l.button(at: Float(r.maxX), r.midY), "the right edge belongs to the gap")
        }
        XCTAssertNil(l.button(at: l.canvas.midX, l.canvas.midY))
    }

    func testLayout_CanvasUnitsAndWindowPixelsConvertBothWays() {
        let l = PadLayout(width: 600, height: 900)
        let corner = l.windowPoint(0, 0), far = l.windowPoint(1, 1)
        XCTAssertEqual(corner.x, Float(l.canvas.x))
        XCTAssertEqual(corner.y, Float(l.canvas.y))
        XCTAssertEqual(far.x, Float(l.canvas.maxX))
        XCTAssertEqual(far.y, Float(l.canvas.maxY))
        let back = l.canvasPoint(l.windowPoint(0.25, 0.75).x, l.windowPoint(0.25, 0.75).y)
        XCTAssertEqual(back.x, 0.25, accuracy: 1e-6)
        XCTAssertEqual(back.y, 0.75, accuracy: 1e-6)
    }
}
