@testable import DigitKit
import Foundation
import XCTest

/// The parts of page reading that need no network: the grey-level filters, the ink map's
/// background and polarity, components and seams.
final class InkComponentsTests: XCTestCase {
    func testDilate_IsTheMaximumOverTheSquareCutAtTheEdges() {
        var rng = SplitMix64(seed: 1)
        let w = 23, h = 17
        let values = (0..<(w * h)).map { _ in rng.uniform(0, 255) }
        for r in [1, 2, 5, 30] {
            let fast = Morphology.dilate(values, width: w, height: h, radius: r)
            for y in 0..<h {
                for x in 0..<w {
                    var m = -Float.infinity
                    for yy in max(0, y - r)...min(h - 1, y + r) { for xx in max(0, x - r)...min(w - 1, x + r) { m = max(m, values[yy * w + xx]) } }
                    XCTAssertEqual(fast[y * w + x], m, "radius \(r) at \(x),\(y)")
                }
            }
        }
    }

    func testClosing_FillsAThinDarkLineAndKeepsAStepAndASlope() {
        let w = 60, h = 40
        var page = [Float](repeating: 0, count: w * h)
        for y in 0..<h { for x in 0..<w { page[y * w + x] = (x < 30 ? 200 : 120) + Float(y) } }   // a shadow's edge and a gradient
        let paper = page
        for y in 5..<35 { for x in 14...16 { page[y * w + x] = 30 } }   // a stroke 3 pixels wide
        let closed = Morphology.closing(page, width: w, height: h, radius: 3)
        var worst: Float = 0
        for y in 3..<(h - 3) { for x in 0..<w { worst = max(worst, abs(closed[y * w + x] - paper[y * w + x])) } }
        XCTAssertEqual(worst, 0, "inside, the paper exactly")
        // Within a radius of the top and bottom edges the square is cut, and the slope (1 a row) lifts the estimate by at most the radius.
        for x in 0..<w { XCTAssertLessThanOrEqual(abs(closed[x] - paper[x]), 3) }
    }

    func testOtsu_SplitsTwoLevelsBetweenThem() {
        var rng = SplitMix64(seed: 3)
        let values = (0..<3000).map { i -> Float in (i % 3 == 0 ? 40 : 200) + rng.uniform(-15, 15) }
        let t = Morphology.otsu(values)
        XCTAssertGreaterThan(t, 56)
        XCTAssertLessThan(t, 184)
        XCTAssertEqual(Morphology.otsu([]), 128, "nothing to split")
    }

    func testSelect_IsTheKthSmallest() {
        var rng = SplitMix64(seed: 2)
        for n in [1, 2, 7, 100] {
            let v = (0..<n).map { _ in Float(Int(rng.uniform(0, 20))) }
            for k in 0..<n {
                var copy = v
                XCTAssertEqual(Morphology.select(&copy, k), v.sorted()[k])
            }
        }
    }

    /// Gray paper (190) with dark strokes (40), or the inverse.
    static func page(width w: Int, height h: Int, strokes: [(x0: Int, y0: Int, x1: Int, y1: Int)], inverted: Bool = false) -> FloatImage {
        var v = [Float](repeating: inverted ? 50 : 190, count: w * h)
        for s in strokes { for y in s.y0...s.y1 { for x in s.x0...s.x1 { v[y * w + x] = inverted ? 220 : 40 } } }
        return FloatImage(width: w, height: h, values: v)
    }

    func testInkMap_FindsThePolarityThePenWidthAndTheInk() {
        // An "H": two bars 4 pixels wide joined by a bar.
        let strokes = [(40, 20, 43, 79), (70, 20, 73, 79), (44, 48, 69, 51)]
        for inverted in [false, true] {
            let map = InkMap(Self.page(width: 160, height: 100, strokes: strokes, inverted: inverted))
            XCTAssertEqual(map.lightInk, inverted)
            XCTAssertEqual(map.strokeWidth, 4, accuracy: 1)
            XCTAssertEqual(map.ink.values[50 * 160 + 41], inverted ? 170 : 150, accuracy: 1, "full ink is the contrast")
            XCTAssertEqual(map.ink.values[10 * 160 + 10], 0, "paper is no ink")
        }
    }

    func testInkMap_GreyPaperBesideABlackScannerMarginHasDarkInk() {
        // A scan's black margin down the left quarter, grey paper with grain, and one faint
        // stroke: beside the margin the paper stands above the blocks' level like chalk, which
        // must not decide the polarity.
        let w = 120, h = 200
        var rng = SplitMix64(seed: 5)
        var v = (0..<(w * h)).map { _ in Float(Int(rng.uniform(202, 209))) }
        for y in 0..<h { for x in 0..<30 { v[y * w + x] = 20 } }
        for y in 80..<110 { for x in 70..<72 { v[y * w + x] = 175 } }
        let page = FloatImage(width: w, height: h, values: v)
        XCTAssertEqual(page.paperColumns, 30..<120)
        XCTAssertFalse(InkMap(page).lightInk)
        // Without a margin every column is paper.
        XCTAssertEqual(Self.page(width: 160, height: 100, strokes: [(40, 20, 43, 79)]).paperColumns, 0..<160)
        // An upright 1 near the side of a crop cut tight around it, dark in most of its rows, is
        // a stroke, not a margin: a border starts within a twentieth of the side.
        XCTAssertEqual(Self.page(width: 96, height: 110, strokes: [(6, 6, 11, 104)]).paperColumns, 0..<96)
    }

    func testInkMap_ATightCropUnderADarkBorderHasDarkInk() {
        // A crop cut tight around the writing, 52 rows tall, with a near-black border along its
        // top (a scanner's margin, the edge of a cheque) 10 rows deep, grey paper with grain and
        // two faint strokes: the border drags the blocks' level down beside it, so the paper
        // there stands above it like chalk; counted a block away from the border, the strokes
        // decide, and they are dark.
        let w = 130, h = 52
        var rng = SplitMix64(seed: 6)
        var v = (0..<(w * h)).map { _ in Float(Int(rng.uniform(196, 210))) }
        for y in 0..<10 { for x in 0..<w { v[y * w + x] = 22 } }
        for y in 16..<46 { for x in 40..<43 { v[y * w + x] = 150 }; for x in 80..<83 { v[y * w + x] = 150 } }
        let page = FloatImage(width: w, height: h, values: v)
        XCTAssertEqual(page.paperRows, 10..<52)
        XCTAssertEqual(page.paperColumns, 0..<130)
        XCTAssertFalse(InkMap(page).lightInk)
    }

    /// A ring (an elliptic band `pen` pixels wide, a tenth of the height or more from the edges) on
    /// gray paper, or the inverse.
    static func ring(width w: Int, height h: Int, pen: Float, inverted: Bool = false) -> (page: FloatImage, isInk: [Bool]) {
        var v = [Float](repeating: inverted ? 50 : 190, count: w * h), isInk = [Bool](repeating: false, count: w * h)
        let cx = Float(w) / 2, cy = Float(h) / 2, rx = 0.38 * Float(w) - pen / 2, ry = 0.4 * Float(h) - pen / 2
        for y in 0..<h {
            for x in 0..<w {
                let dx = (Float(x) + 0.5 - cx) / rx, dy = (Float(y) + 0.5 - cy) / ry
                let r = (dx * dx + dy * dy).squareRoot()
                // Distance from the ellipse, roughly, in pixels.
                if abs(r - 1) * min(rx, ry) < pen / 2 { v[y * w + x] = inverted ? 220 : 40; isInk[y * w + x] = true }
            }
        }
        return (FloatImage(width: w, height: h, values: v), isInk)
    }

    func testInkMap_ABroadPenOnASmallCropIsInkAllAcross() {
        // Pens from 6% to 25% of the long side: the ink is the whole band, not just its edges, and
        // the inside of the ring is paper.
        for (w, h, pen) in [(200, 160, Float(12)), (160, 120, 30), (200, 160, 45), (300, 300, 60)] {
            for inverted in [false, true] {
                let (page, isInk) = Self.ring(width: w, height: h, pen: pen, inverted: inverted)
                let map = InkMap(page)
                XCTAssertEqual(map.lightInk, inverted, "\(w)×\(h) pen \(pen)")
                var inkFound = 0, inkAll = 0, paperFound = 0
                for i in 0..<(w * h) {
                    if isInk[i] { inkAll += 1; if map.ink.values[i] > 70 { inkFound += 1 } } else if map.ink.values[i] > 70 { paperFound += 1 }
                }
                XCTAssertGreaterThan(Float(inkFound), 0.95 * Float(inkAll), "\(w)×\(h) pen \(pen): the band's inside is ink")
                XCTAssertLessThan(Float(paperFound), 0.02 * Float(inkAll), "\(w)×\(h) pen \(pen): the paper is not")
            }
        }
    }

    func testInkMap_AMarkerInATinyCropIsInkAllAcross() {
        // Crops 40-60 pixels tall cut tight around a marker's number (the pen an eighth to a
        // sixth of the crop): the blocks that find the ink's departures are the smallest (8
        // pixels), so only the strokes' edges depart, and they alone were taken for the ink (a
        // hollow outline that read as nothing).
        for (w, h, pen) in [(64, 48, Float(8)), (80, 56, 9), (72, 40, 6.5)] {
            for inverted in [false, true] {
                let (page, isInk) = Self.ring(width: w, height: h, pen: pen, inverted: inverted)
                let map = InkMap(page)
                XCTAssertEqual(map.lightInk, inverted, "\(w)×\(h) pen \(pen)")
                var inkFound = 0, inkAll = 0
                for i in 0..<(w * h) where isInk[i] {
                    inkAll += 1
                    if map.ink.values[i] > 70 { inkFound += 1 }
                }
                XCTAssertGreaterThan(Float(inkFound), 0.9 * Float(inkAll), "\(w)×\(h) pen \(pen): the band's inside is ink")
            }
        }
        // The same beside a scanner's black border down the left side (a fifth of the crop): the
        // border is no part of the page the pen is measured on.
        for (w, h, pen) in [(80, 56, Float(9)), (72, 48, 8)] {
            let (ring, isInk) = Self.ring(width: w, height: h, pen: pen)
            let b = w / 5, wide = w + b
            var values = [Float](repeating: 12, count: wide * h)
            for y in 0..<h { for x in 0..<w { values[y * wide + b + x] = ring.values[y * w + x] } }
            let map = InkMap(FloatImage(width: wide, height: h, values: values))
            XCTAssertFalse(map.lightInk, "\(w)×\(h) pen \(pen) beside a border")
            var inkFound = 0, inkAll = 0
            for y in 0..<h {
                for x in 0..<w where isInk[y * w + x] {
                    inkAll += 1
                    if map.ink.values[y * wide + b + x] > 70 { inkFound += 1 }
                }
            }
            XCTAssertGreaterThan(Float(inkFound), 0.9 * Float(inkAll), "\(w)×\(h) pen \(pen) beside a border: the band's inside is ink")
        }
    }

    func testInkMap_AMarkerUnderAShadowIsInkAllAcross() {
        // A marker's ring filling the frame with a shadow over its left third: one threshold
        // over the page puts the shadowed border on the ink's side, so the broad-pen split was
        // not made and only the strokes' edges were ink. The darkening relative to the paper (a
        // closing wider than the strokes) splits it.
        for (w, h, pen) in [(360, 240, Float(36)), (300, 300, 50)] {
            var (page, isInk) = Self.ring(width: w, height: h, pen: pen)
            for y in 0..<h { for x in 0..<(w / 3) { page.values[y * w + x] *= 0.55 } }
            let map = InkMap(page)
            XCTAssertFalse(map.lightInk, "\(w)×\(h) pen \(pen)")
            var inkFound = 0, inkAll = 0, paperFound = 0
            for i in 0..<(w * h) {
                if isInk[i] { inkAll += 1; if map.ink.values[i] > 40 { inkFound += 1 } } else if map.ink.values[i] > 40 { paperFound += 1 }
            }
            XCTAssertGreaterThan(Float(inkFound), 0.9 * Float(inkAll), "\(w)×\(h) pen \(pen): the band's inside is ink")
            XCTAssertLessThan(Float(paperFound), 0.05 * Float(inkAll), "\(w)×\(h) pen \(pen): the shadowed paper is not")
        }
    }

    func testComponents_DropSpecksAndInkOnTheBorder() {
        let strokes = [(40, 20, 43, 79), (80, 20, 83, 79), (60, 50, 61, 51), (0, 90, 159, 99)]
        let found = InkComponents(InkMap(Self.page(width: 160, height: 100, strokes: strokes)))
        let kept = found.writing().components.map { found.components[$0].x0 }.sorted()
        XCTAssertEqual(kept, [40, 80], "the 2×2 speck and the band along the bottom edge are not writing")
    }

    func testSeams_CutTwoTouchingBarsBetweenThemAndNotASingleBar() throws {
        // Two bars joined near the bottom by a short stroke: one component, one seam between them.
        let joined = Self.page(width: 120, height: 100, strokes: [(40, 20, 43, 79), (66, 20, 69, 79), (44, 70, 65, 73)])
        let found = InkComponents(InkMap(joined))
        XCTAssertEqual(found.components.count, 1)
        let seams = InkSeams(component: found.components[0], page: found.page, strokeWidth: found.strokeWidth,
                             contrast: found.contrast, lineHeight: 60).seams
        XCTAssertEqual(seams.count, 1)
        XCTAssertTrue(seams.first?.allSatisfy { $0 > 43 && $0 <= 66 } ?? false, "the seam runs between the bars: \(seams)")
        let line = try XCTUnwrap(found.line())
        XCTAssertEqual(line.pieces.count, 2)
        XCTAssertTrue(line.candidates[0].contains(1) && line.candidates[0].contains(2) && line.candidates[1] == [2])
        // A lone bar is not cut.
        let bar = InkComponents(InkMap(Self.page(width: 120, height: 100, strokes: [(40, 20, 45, 79)])))
        XCTAssertEqual(try XCTUnwrap(bar.line()).pieces.count, 1)
    }

    func testAWideRingCutIntoSevenPiecesCanStillBeOneDigit() throws {
        // A 0 written wide and flat (1.6 line heights across, as some writers do): a ring 4 pixels
        // thick. Its seams, at least 0.12 line heights apart, cut it into more than 6 pieces; the
        // run of all of them must still be a candidate digit, or the 0 can only be read as several.
        let w = 200, h = 120
        var v = [Float](repeating: 190, count: w * h)
        let cx: Float = 100, cy: Float = 60, rx: Float = 48, ry: Float = 30
        for y in 0..<h {
            for x in 0..<w {
                let d = ((Float(x) - cx) / rx) * ((Float(x) - cx) / rx) + ((Float(y) - cy) / ry) * ((Float(y) - cy) / ry)
                let r = d.squareRoot()
                if abs(r - 1) * min(rx, ry) < 2 { v[y * w + x] = 40 }
            }
        }
        let found = InkComponents(InkMap(FloatImage(width: w, height: h, values: v)))
        let line = try XCTUnwrap(found.line())
        XCTAssertGreaterThan(line.pieces.count, 6, "the seams cut the ring into 7 or more pieces")
        XCTAssertLessThanOrEqual(line.pieces.count, InkLine.maxPiecesPerDigit)
        XCTAssertTrue(line.candidates[0].contains(line.pieces.count), "all the pieces together are a candidate: \(line.candidates[0])")
    }

    /// A "7" whose bar runs through the left side of an "O" and ends inside it (bars 4 pixels wide).
    static let sevenIntoO = [(20, 20, 71, 23), (20, 24, 23, 79),                        // the 7: bar, stem
                             (50, 10, 53, 89), (90, 10, 93, 89), (54, 10, 89, 13), (54, 86, 89, 89)]   // the O

    func testStrokes_FollowADigitThroughTheDigitItCrosses() throws {
        let found = InkComponents(InkMap(Self.page(width: 240, height: 120, strokes: Self.sevenIntoO)))
        XCTAssertEqual(found.components.count, 1, "the 7 and the O are one piece of ink")
        let strokes = found.strokes(of: 0, lineHeight: 80)
        XCTAssertEqual(strokes.count, 2, "the 7 and the O")
        func owners(_ x: Int, _ y: Int) -> [Int] { strokes.indices.filter { strokes[$0].contains(y * 240 + x) } }
        let seven = try XCTUnwrap(owners(21, 60).first), o = try XCTUnwrap(owners(92, 50).first)
        XCTAssertNotEqual(seven, o)
        XCTAssertEqual(owners(21, 21), [seven], "the 7's corner")
        XCTAssertEqual(owners(66, 21), [seven], "the end of the bar, inside the O, is the 7's")
        XCTAssertEqual(owners(51, 50), [o], "the O's side below the crossing")
        XCTAssertEqual(Set(owners(51, 21)), [seven, o], "where they cross, both")
    }

    func testStrokes_LeaveAComponentOfOneStrokeWhole() {
        // An O and an L: one stroke each, no crossing.
        let shapes: [[(Int, Int, Int, Int)]] = [
            [(50, 10, 53, 89), (90, 10, 93, 89), (54, 10, 89, 13), (54, 86, 89, 89)],
            [(30, 10, 33, 89), (34, 86, 89, 89)],
        ]
        for shape in shapes {
            let found = InkComponents(InkMap(Self.page(width: 240, height: 120, strokes: shape)))
            XCTAssertEqual(found.components.count, 1)
            XCTAssertEqual(found.strokes(of: 0, lineHeight: 80), [], "\(shape)")
        }
    }

    func testStrokes_ThinToOnePixelAndKeepLinesWhole() {
        // A bar 5 pixels thick thins to one line, as long as the bar less its ends.
        let w = 40, h = 12
        var mask = [UInt8](repeating: 0, count: w * h)
        for y in 3...7 { for x in 5...34 { mask[y * w + x] = 1 } }
        InkStrokes.thin(&mask, width: w, height: h)
        XCTAssertEqual(mask.filter { $0 != 0 }.count, 26, accuracy: 4)
        for x in 9...30 { XCTAssertEqual((0..<h).filter { mask[$0 * w + x] != 0 }.count, 1, "column \(x)") }
        let graph = SkeletonGraph(mask, width: w, height: h)
        XCTAssertEqual(graph.edges.count, 1, "one line between two ends")
        XCTAssertEqual(graph.nodes.count, 2)
    }

    func testStrokes_OfAnyInkCoverItsPixelsAndNoOthers() {
        // Random tangles of bars and blots: every pixel of a component is in some stroke, and a
        // stroke holds only pixels of its component.
        var rng = SplitMix64(seed: 11)
        var split = 0
        for _ in 0..<100 {
            var shapes: [(Int, Int, Int, Int)] = []
            for _ in 0..<(3 + Int(rng.next() % 6)) {
                let x = 20 + Int(rng.next() % 150), y = 15 + Int(rng.next() % 60)
                let long = 5 + Int(rng.next() % 50), thick = 2 + Int(rng.next() % 9)
                shapes.append(rng.next() % 2 == 0 ? (x, y, min(220, x + long), y + thick) : (x, y, x + thick, min(105, y + long)))
            }
            let found = InkComponents(InkMap(Self.page(width: 240, height: 120, strokes: shapes)))
            let height = Float(found.components.map(\.height).max() ?? 1)
            for (k, c) in found.components.enumerated() {
                let strokes = found.strokes(of: k, lineHeight: height)
                guard !strokes.isEmpty else { continue }
                XCTAssertGreaterThanOrEqual(strokes.count, 2)
                XCTAssertEqual(Set(strokes.joined()), Set(c.pixels), "\(shapes)")
                split += 1
            }
        }
        XCTAssertGreaterThan(split, 10, "tangles that cross are cut into strokes")
    }
}

