import DigitKit
import DigitTestSupport
import XCTest

/// Synthetic photos of paper: the same seed gives the same bytes, the boxes hold the ink and no
/// more, the strokes land where the drawing puts them, and the files decode.
final class PaperRendererTests: XCTestCase {
    /// Hand-made digits in pendigits-like units (y downward): a "1", a "7" and a "0".
    static let one = Drawing(strokes: [[StrokePoint(x: 40, y: 0), StrokePoint(x: 45, y: 50), StrokePoint(x: 50, y: 100)]], label: "1")
    static let seven = Drawing(strokes: [[StrokePoint(x: 0, y: 0), StrokePoint(x: 60, y: 0), StrokePoint(x: 35, y: 50),
                                          StrokePoint(x: 20, y: 100)]], label: "7")
    static let zero = Drawing(strokes: [(0...24).map { k in
        let a = Float(k) / 24 * 2 * .pi
        return StrokePoint(x: 30 + 30 * sin(a), y: 50 - 50 * cos(a))
    }], label: "0")

    static func number(seed: UInt64 = 3) -> NumberComposer.Number {
        var rng = SplitMix64(seed: seed)
        return NumberComposer().compose([one, seven, zero, seven], rng: &rng)
    }

    static func small() -> PaperRenderer {
        var r = PaperRenderer()
        r.width = 200
        r.height = 150
        r.digitHeight = 30...60
        return r
    }

    /// The clean renderer on a `width` × `height` page, digits 100 pixels high.
    private func cleanRenderer(width: Int, height: Int) -> PaperRenderer {
        var renderer = PaperRenderer.clean
        renderer.width = width
        renderer.height = height
        renderer.digitHeight = 100...100
        return renderer
    }

    func testRender_SameSeedGivesTheSameBytesAndAnotherSeedDoesNot() throws {
        let renderer = Self.small()
        var a = SplitMix64(seed: 7), b = SplitMix64(seed: 7), c = SplitMix64(seed: 8)
        let first = try renderer.render(Self.number(), rng: &a)
        let second = try renderer.render(Self.number(), rng: &b)
        let other = try renderer.render(Self.number(), rng: &c)
        XCTAssertEqual(first, second)
        XCTAssertEqual(try first.encoded(.jpeg), try second.encoded(.jpeg))
        XCTAssertNotEqual(first.gray, other.gray)
        XCTAssertEqual(first.gray.count, 200 * 150)
        XCTAssertEqual(first.rgb?.count, 3 * 200 * 150)
        XCTAssertEqual(first.label, "1707")
        XCTAssertEqual(first.digitBoxes.count, 4)
    }

    func testBoxes_HoldEveryInkedPixelAndTouchTheInkOnEverySide() throws {
        // Rotation, tilt and off-centre placement at their full default ranges: a box taken from
        // the untransformed drawing would miss ink.
        var renderer = Self.small()
        renderer.keepsInkMask = true
        renderer.rotation = -8...8
        for seed in 0..<12 as Range<UInt64> {
            var rng = SplitMix64(seed: seed)
            let image = try renderer.render(Self.number(seed: seed), rng: &rng)
            let mask = try XCTUnwrap(image.inkMask)
            let boxes = image.digitBoxes
            XCTAssertEqual(boxes.count, 4)
            var inked = 0
            var outside: [(Int, Int)] = []
            for y in 0..<image.height {
                for x in 0..<image.width where mask[y * image.width + x] > 0 {
                    inked += 1
                    if !boxes.contains(where: { $0.contains(x: x, y: y) }) { outside.append((x, y)) }
                }
            }
            XCTAssertGreaterThan(inked, 100)
            XCTAssertTrue(outside.isEmpty, "seed \(seed): \(outside.count) inked pixels outside every box \(boxes), first at \(outside.first!)")
            // Tight: ink within 2 pixels of each side of each box.
            for box in boxes {
                func inkIn(_ xs: Range<Int>, _ ys: Range<Int>) -> Bool {
                    ys.contains { y in xs.contains { x in mask[y * image.width + x] > 0 } }
                }
                XCTAssertTrue(inkIn(box.x..<min(box.maxX, box.x + 2), box.y..<box.maxY), "seed \(seed): left side of \(box)")
                XCTAssertTrue(inkIn(max(box.x, box.maxX - 2)..<box.maxX, box.y..<box.maxY), "seed \(seed): right side of \(box)")
                XCTAssertTrue(inkIn(box.x..<box.maxX, box.y..<min(box.maxY, box.y + 2)), "seed \(seed): top of \(box)")
                XCTAssertTrue(inkIn(box.x..<box.maxX, max(box.y, box.maxY - 2)..<box.maxY), "seed \(seed): bottom of \(box)")
            }
        }
    }

    func testFrameCut_RunsThroughTheFirstOrLastDigitOfTheSamePhoto() throws {
        var cut = Self.small()
        cut.keepsInkMask = true
        cut.frameCutShare = 1
        var whole = cut
        whole.frameCutShare = 0
        var sides: Set<String> = []
        for seed in 0..<12 as Range<UInt64> {
            var a = SplitMix64(seed: seed), b = SplitMix64(seed: seed)
            let photo = try whole.render(Self.number(seed: seed), rng: &a)
            let framed = try cut.render(Self.number(seed: seed), rng: &b)
            XCTAssertEqual(framed.label, photo.label)
            let (first, last) = (photo.digitBoxes[0], photo.digitBoxes[3])
            if framed.width == photo.width {
                // Only when neither end digit can be cut without its neighbour.
                XCTAssertEqual(framed, photo)
                XCTAssertGreaterThan(first.maxX, photo.digitBoxes[1].x - 1, "seed \(seed)")
                continue
            }
            let left = framed.digitBoxes[0].x == 0 && framed.digitBoxes[0].width < first.width
            let x0 = left ? photo.width - framed.width : 0
            XCTAssertEqual(framed, photo.cropped(columns: x0..<(x0 + framed.width)), "seed \(seed): the same photo, framed")
            let (digit, kept) = left ? (first, framed.digitBoxes[0]) : (last, framed.digitBoxes[3])
            let share = Float(kept.width) / Float(digit.width)
            XCTAssertTrue((0.25...0.75).contains(share), "seed \(seed): \(share) of the digit kept")
            if !left { XCTAssertEqual(kept.maxX, framed.width) }
            let neighbour = left ? 1 : 2
            XCTAssertEqual(framed.digitBoxes[neighbour].width, photo.digitBoxes[neighbour].width, "seed \(seed): the neighbour is whole")
            sides.insert(left ? "left" : "right")
        }
        XCTAssertEqual(sides, ["left", "right"], "both edges cut over 12 seeds")
    }

    /// The paper recipe's touching lines (`LineRecipe.touching`): composed with its gap, every
    /// digit's ink starts between 0.15 line heights inside its left neighbour's and 0.02 beyond it.
    func testComposer_TheTouchingGapMakesNeighboursTouchOrOverlap() throws {
        var composer = NumberComposer()
        composer.gap = LineRecipe().touchingGap
        for seed in UInt64(1)...8 {
            var rng = SplitMix64(seed: seed)
            let number = composer.compose([Self.one, Self.seven, Self.zero, Self.seven, Self.one], rng: &rng)
            var spans = [(lo: Float, hi: Float)](repeating: (.infinity, -.infinity), count: 5)
            for (k, stroke) in number.drawing.strokes.enumerated() {
                let d = number.strokeDigit[k]
                for p in stroke { spans[d] = (min(spans[d].lo, p.x), max(spans[d].hi, p.x)) }
            }
            for i in 1..<5 {
                let gap = (spans[i].lo - spans[i - 1].hi) / composer.lineHeight
                XCTAssertGreaterThanOrEqual(gap, -0.15 - 1e-4, "seed \(seed), digit \(i)")
                XCTAssertLessThanOrEqual(gap, 0.02 + 1e-4, "seed \(seed), digit \(i)")
            }
        }
    }

    func testBoxes_FollowTheDigitIndexOfEachStroke() throws {
        // Two strokes far apart: a vertical bar on the left (digit 5) and one on the right (digit 2).
        let drawing = Drawing(strokes: [[StrokePoint(x: 0, y: 0), StrokePoint(x: 0, y: 100)],
                                        [StrokePoint(x: 200, y: 0), StrokePoint(x: 200, y: 100)]])
        var renderer = cleanRenderer(width: 300, height: 160)
        renderer.keepsInkMask = true
        var rng = SplitMix64(seed: 1)
        let image = try renderer.render(drawing, strokeDigit: [5, 2], rng: &rng)
        // Box 0 is digit 2 (the right bar), box 1 digit 5 (the left one).
        XCTAssertEqual(image.digitBoxes.count, 2)
        XCTAssertGreaterThan(image.digitBoxes[0].x, image.digitBoxes[1].maxX + 100)
        // The same drawing as one digit, with the same random draws: one box around both.
        rng = SplitMix64(seed: 1)
        let whole = try renderer.render(drawing, rng: &rng)
        XCTAssertEqual(whole.digitBoxes, [PixelRect(x0: image.digitBoxes[1].x, y0: image.digitBoxes[1].y,
                                                   x1: image.digitBoxes[0].maxX, y1: image.digitBoxes[0].maxY)])
        XCTAssertThrowsError(try renderer.render(drawing, strokeDigit: [0], rng: &rng))
    }

    func testRotation_TurnsTheBoxOfAVerticalBar() throws {
        // A bar 100 pixels long, pen 4 pixels wide: upright its box is about 4 × 104 pixels;
        // turned 10° it is about 100 sin 10° + 4 = 21.4 wide and 100 cos 10° + 4 = 102.5 high.
        let bar = Drawing(strokes: [[StrokePoint(x: 0, y: 0), StrokePoint(x: 0, y: 100)]])
        var renderer = cleanRenderer(width: 240, height: 240)
        renderer.penWidth = 0.04...0.04
        renderer.keepsInkMask = true
        var rng = SplitMix64(seed: 2)
        let upright = try XCTUnwrap(try renderer.render(bar, rng: &rng).digitBoxes.first)
        XCTAssertEqual(Double(upright.width), 4, accuracy: 2)
        XCTAssertEqual(Double(upright.height), 104, accuracy: 2)
        renderer.rotation = 10...10
        let turned = try renderer.render(bar, rng: &rng)
        let box = try XCTUnwrap(turned.digitBoxes.first)
        XCTAssertEqual(Double(box.width), 21.4, accuracy: 2)
        XCTAssertEqual(Double(box.height), 102.5, accuracy: 2)
        // Clockwise on the screen: the bottom end swings left, so the top row's ink is right of the bottom row's.
        let mask = try XCTUnwrap(turned.inkMask)
        func meanX(row: Int) -> Double {
            let xs = (0..<turned.width).filter { mask[row * turned.width + $0] == 255 }
            return Double(xs.reduce(0, +)) / Double(max(1, xs.count))
        }
        XCTAssertGreaterThan(meanX(row: box.y + 4), meanX(row: box.maxY - 5) + 10)
    }

    func testCleanRender_InkIsBlackOnTheStrokesAndPaperElsewhere() throws {
        // A plus 100 pixels across in the middle of a 200 × 200 image: strokes along x = 100 and y = 100.
        let plus = Drawing(strokes: [[StrokePoint(x: 0, y: 50), StrokePoint(x: 100, y: 50)],
                                     [StrokePoint(x: 50, y: 0), StrokePoint(x: 50, y: 100)]])
        var renderer = cleanRenderer(width: 200, height: 200)
        renderer.penWidth = 0.06...0.06
        renderer.colour = false
        var rng = SplitMix64(seed: 3)
        let image = try renderer.render(plus, rng: &rng)
        XCTAssertNil(image.rgb)
        func at(_ x: Int, _ y: Int) -> UInt8 { image.gray[y * 200 + x] }
        for k in stride(from: 55, through: 145, by: 10) {
            XCTAssertEqual(at(k, 100), 0, "horizontal stroke at x \(k)")
            XCTAssertEqual(at(100, k), 0, "vertical stroke at y \(k)")
        }
        for (x, y) in [(70, 70), (130, 70), (70, 130), (130, 130), (5, 5), (195, 100), (100, 40)] {
            XCTAssertEqual(at(x, y), 204, "paper at (\(x), \(y))")  // 0.8 × 255
        }
        XCTAssertEqual(image.digitBoxes, [PixelRect(x0: 46, y0: 46, x1: 154, y1: 154)])
    }

    func testPhotoRender_StrokesAreDarkerThanThePaperBesideThem() throws {
        // Every effect at its default range, no rotation or placement jitter, so the plus stays put.
        let plus = Drawing(strokes: [[StrokePoint(x: 0, y: 50), StrokePoint(x: 100, y: 50)],
                                     [StrokePoint(x: 50, y: 0), StrokePoint(x: 50, y: 100)]])
        var renderer = PaperRenderer()
        renderer.width = 200
        renderer.height = 200
        renderer.digitHeight = 100...100
        renderer.rotation = 0...0
        renderer.perspective = 0...0
        renderer.offCentre = 0
        for seed in 0..<8 as Range<UInt64> {
            var rng = SplitMix64(seed: seed)
            let image = try renderer.render(plus, rng: &rng)
            func at(_ x: Int, _ y: Int) -> Double { Double(image.gray[y * 200 + x]) }
            for k in [60, 80, 120, 140] {
                // Ink on the horizontal stroke against paper 20 pixels above and below.
                let paper = min(at(k, 80), at(k, 120))
                XCTAssertLessThan(at(k, 100), 0.8 * paper, "seed \(seed): x \(k) ink \(at(k, 100)) paper \(paper)")
                XCTAssertGreaterThan(paper, 100, "seed \(seed): paper at x \(k) is too dark to read")
            }
            // Not a clean render: the paper varies.
            let row = (10..<190).map { at($0, 30) }
            XCTAssertGreaterThan(Set(row).count, 5, "seed \(seed): flat paper")
        }
    }

    func testInverted_LightInkOnADarkBoard() throws {
        var renderer = Self.small()
        renderer.keepsInkMask = true
        for inverted in [false, true] {
            renderer.invertedShare = inverted ? 1 : 0
            for seed in 0..<4 as Range<UInt64> {
                var rng = SplitMix64(seed: seed)
                let image = try renderer.render(Self.number(seed: seed), rng: &rng)
                let mask = try XCTUnwrap(image.inkMask)
                XCTAssertEqual(image.effects.inverted, inverted)
                let background = median(image.gray.indices.filter { mask[$0] == 0 }.map { image.gray[$0] })
                let ink = median(image.gray.indices.filter { mask[$0] == 255 }.map { image.gray[$0] })
                if inverted {
                    XCTAssertLessThan(background, 90, "seed \(seed)")
                    XCTAssertGreaterThan(ink, background + 50, "seed \(seed)")
                } else {
                    XCTAssertGreaterThan(background, 140, "seed \(seed)")
                    XCTAssertLessThan(ink + 50, background, "seed \(seed)")
                }
            }
        }
    }

    func testEncoded_JPEGDecodesToTheSameSizeAndPNGAndPGMExactly() throws {
        var rng = SplitMix64(seed: 4)
        let image = try Self.small().render(Self.number(), rng: &rng)
        let jpeg = try ImageDecoder.decode(try image.encoded(.jpeg), file: "paper.jpg")
        XCTAssertEqual(jpeg.format, .jpeg)
        XCTAssertEqual([jpeg.width, jpeg.height], [image.width, image.height])
        let meanError = zip(jpeg.gray, image.gray).map { abs(Double($0) - Double($1)) }.reduce(0, +) / Double(image.gray.count)
        XCTAssertLessThan(meanError, 6)
        XCTAssertGreaterThan(meanError, 0)  // lossy: the compression is one of the effects
        XCTAssertEqual(try ImageDecoder.decode(try image.encoded(.png), file: "paper.png").gray, image.gray)
        let pgm = try ImageDecoder.decode(try image.encoded(.pgm), file: "paper.pgm")
        XCTAssertEqual(pgm.gray, image.gray)
        XCTAssertEqual(pgm.format, .pnm)
    }

    func testRender_RefusesSettingsOutOfRange() {
        var rng = SplitMix64(seed: 5)
        var renderer = Self.small()
        renderer.width = 0
        XCTAssertThrowsError(try renderer.render(Self.one, rng: &rng))
        renderer = Self.small()
        renderer.invertedShare = 1.5
        XCTAssertThrowsError(try renderer.render(Self.one, rng: &rng))
        renderer = Self.small()
        renderer.inkColours = []
        XCTAssertThrowsError(try renderer.render(Self.one, rng: &rng))
        renderer = Self.small()
        renderer.jpegQuality = 0...90
        XCTAssertThrowsError(try renderer.render(Self.one, rng: &rng))
    }

    func testRender_EmptyDrawingIsBlankPaperWithAnEmptyBox() throws {
        var rng = SplitMix64(seed: 6)
        var renderer = Self.small()
        renderer.keepsInkMask = true
        let image = try renderer.render(Drawing(strokes: [[]]), rng: &rng)
        XCTAssertEqual(image.digitBoxes.count, 1)
        XCTAssertTrue(image.digitBoxes[0].isEmpty)
        XCTAssertEqual(image.inkMask.map { $0.allSatisfy { $0 == 0 } }, true)
    }

    func testLabels_RoundTripAndNameTheBadLine() throws {
        let entries = [PaperLabels.Entry(file: "paper-0001.jpg", label: "2026",
                                         boxes: [PixelRect(x0: 1, y0: 2, x1: 30, y1: 40), PixelRect(x0: 35, y0: 3, x1: 60, y1: 41)]),
                       PaperLabels.Entry(file: "paper-0002.jpg", label: "7", boxes: [PixelRect(x0: 0, y0: 0, x1: 9, y1: 9)])]
        let text = entries.map(PaperLabels.line).joined(separator: "\n") + "\n"
        XCTAssertEqual(PaperLabels.line(entries[0]), "paper-0001.jpg\t2026\t1,2,30,40;35,3,60,41")
        XCTAssertEqual(try PaperLabels.parse(text, file: "labels.tsv"), entries)
        XCTAssertThrowsError(try PaperLabels.parse("a.jpg\t7\t1,2,3\n", file: "labels.tsv")) { error in
            XCTAssertEqual((error as? DigitError)?.location, "line 1")
        }
        XCTAssertThrowsError(try PaperLabels.parse("ok.jpg\t1\t0,0,1,1\nno-tabs\n", file: "labels.tsv")) { error in
            XCTAssertEqual((error as? DigitError)?.location, "line 2")
        }
    }

    func testFixtures_EachBoxHoldsInkThatStandsOutOfThePaper() throws {
        // Fixtures/paper: the committed photos agree with their labels.tsv.
        let folder = TestPaths.fixtures.appendingPathComponent("paper")
        let entries = try PaperLabels.parse(try String(contentsOf: folder.appendingPathComponent("labels.tsv"), encoding: .utf8),
                                            file: "labels.tsv")
        XCTAssertEqual(entries.count, 6)
        XCTAssertEqual(entries.filter { $0.label.count == 1 }.count, 3)
        var inverted = 0
        for entry in entries {
            let image = try ImageDecoder.read(path: folder.appendingPathComponent(entry.file).path)
            XCTAssertLessThanOrEqual(max(image.width, image.height), 480)
            XCTAssertEqual(entry.boxes.count, entry.label.count, entry.file)
            let background = median(image.gray)
            let dark = background < 128
            if dark { inverted += 1 }
            for box in entry.boxes {
                XCTAssertTrue(box.x >= 0 && box.y >= 0 && box.maxX <= image.width && box.maxY <= image.height && !box.isEmpty)
                var inside: [UInt8] = []
                for y in box.y..<box.maxY { for x in box.x..<box.maxX { inside.append(image.gray[y * image.width + x]) } }
                inside.sort()
                // The strongest ink in the box: its darkest (or, on a board, lightest) 5%.
                let ink = Int(dark ? inside[inside.count * 95 / 100] : inside[inside.count / 20])
                XCTAssertGreaterThan(abs(ink - background), 40, "\(entry.file) box \(box): ink \(ink), background \(background)")
            }
        }
        XCTAssertEqual(inverted, 1)
    }

    private func median(_ values: [UInt8]) -> Int {
        let sorted = values.sorted()
        return sorted.isEmpty ? -1 : Int(sorted[sorted.count / 2])
    }
}
