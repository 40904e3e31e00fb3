@testable import DigitKit
import DigitTestSupport
import Foundation
import XCTest

/// Reading photos and scans end to end with the shipped model: a 5 whose hat is a separate
/// piece of ink, touching digits, digits that cross, a shadowed page, light ink on a board, small pre-cropped
/// digits of either polarity, and `maxDigits` 1 on an image.
final class ImageReaderTests: XCTestCase {
    /// The cutting reader (`--cuts`): digits cut apart along seams and strokes, each read by the
    /// digit network. The tests of its cuts, its frame marks and its lines use it: the line
    /// reader's are in LineReaderTests.
    private func cuttingRecognizer() throws -> DigitRecognizer {
        if let r = Self.cutting { return r }
        let r = try DigitRecognizer(weightsPath: TestPaths.weights.path)
        r.lineReader = nil
        Self.cutting = r
        return r
    }
    private static var cutting: DigitRecognizer?

    /// A 5 whose hat is lifted clear of its body (the fixture's hat touches it).
    static func fiveWithLoneHat() throws -> Drawing {
        var five = try TestPaths.digitDrawing(5)
        five.strokes[1] = five.strokes[1].map { StrokePoint(x: $0.x + 10, y: $0.y - 22, t: $0.t, p: $0.p) }
        return five
    }

    /// A clean render (no shadow, tilt or noise), 360×240, the writing 90 pixels high.
    static func clean() -> PaperRenderer {
        var r = PaperRenderer.clean
        r.width = 360
        r.height = 240
        r.digitHeight = 90...90
        r.penWidth = 0.07...0.07
        return r
    }

    static func decoded(_ gray: [UInt8], width: Int, height: Int) throws -> DecodedImage {
        try PNG.decode(try PNG.encode(gray: gray, width: width, height: height), file: "test.png")
    }

    static func decoded(_ paper: PaperImage) throws -> DecodedImage {
        try decoded(paper.gray, width: paper.width, height: paper.height)
    }

    /// `digits` written left to right with `gap` line heights between their boxes.
    static func number(_ digits: [Drawing], gap: Float) -> NumberComposer.Number {
        var composer = NumberComposer()
        composer.gap = gap...gap
        composer.size = 1...1
        composer.baseline = 0
        var rng = SplitMix64(seed: 5)
        return composer.compose(digits, rng: &rng)
    }

    /// A phone photo taken upright but stored on its side with EXIF orientation 6 (the rows run
    /// down the picture's right-hand side) is read as the number it shows; the same pixels
    /// without the orientation lie on their side and are not.
    func testAPhotoStoredOnItsSideWithAnExifOrientationIsReadUpright() throws {
        let folder = TestPaths.fixtures.appendingPathComponent("paper")
        let upright = try ImageDecoder.read(path: folder.appendingPathComponent("paper-0005.jpg").path)
        let recognizer = try TestRecognizers.withPaperModel()
        XCTAssertEqual(try recognizer.read(image: upright).text, "4025")
        // Stored turned a quarter anticlockwise, as a camera held upright stores it.
        let w = upright.width, h = upright.height
        var side = [UInt8](repeating: 0, count: w * h)
        for y in 0..<w { for x in 0..<h { side[y * h + x] = upright.gray[x * w + (w - 1 - y)] } }
        let stored = try JPEG.encode(gray: side, width: h, height: w, quality: 95)
        let photo = try JPEG.decode(ExifFixtures.withOrientation(stored, 6), file: "side.jpg")
        XCTAssertEqual([photo.width, photo.height], [w, h])
        XCTAssertEqual(try recognizer.read(image: photo).text, "4025")
        XCTAssertNotEqual(try recognizer.read(image: try JPEG.decode(stored, file: "side.jpg")).text, "4025")
    }

    /// A sheet of paper photographed on a darker desk that fills most of the frame: the desk's
    /// tone was taken for the paper's and the sheet for one broad stroke. The sheet is found and
    /// read alone, and the digits' boxes are in the whole photo's pixels.
    func testASheetOnADarkDeskIsFoundAndRead() throws {
        let sheetImage = try ImageDecoder.read(path: TestPaths.fixtures.appendingPathComponent("paper/paper-0005.jpg").path)
        let recognizer = try TestRecognizers.withPaperModel()
        let alone = try recognizer.read(image: sheetImage)
        XCTAssertEqual(alone.text, "4025")
        XCTAssertNil(PaperSheet.find(in: FloatImage(sheetImage)), "a photo of the sheet alone is no sheet on a desk")
        // The sheet at (150, 90) on a desk of grey 70 with a grain, twice its size and more.
        let sw = sheetImage.width, sh = sheetImage.height, w = sw * 2 + 300, h = sh * 2 + 180, ox = 150, oy = 90
        var rng = SplitMix64(seed: 9)
        var gray = (0..<(w * h)).map { _ in UInt8(70 + Int(rng.uniform(-12, 12))) }
        for y in 0..<sh { for x in 0..<sw { gray[(oy + y) * w + ox + x] = sheetImage.gray[y * sw + x] } }
        let desk = DecodedImage(width: w, height: h, gray: gray, format: .pnm, color: .gray, bitDepth: 8)
        let sheet = try XCTUnwrap(PaperSheet.find(in: FloatImage(desk)))
        XCTAssertTrue(sheet.x0 >= ox && sheet.y0 >= oy && sheet.x1 <= ox + sw && sheet.y1 <= oy + sh, "\(sheet) lies on the sheet")
        XCTAssertGreaterThan(Float((sheet.x1 - sheet.x0) * (sheet.y1 - sheet.y0)), 0.8 * Float(sw * sh), "\(sheet) is most of it")
        let reading = try recognizer.read(image: desk)
        XCTAssertEqual(reading.text, "4025")
        for (a, b) in zip(reading.digits, alone.digits) {
            XCTAssertEqual(a.box.x0, b.box.x0 + Float(ox), accuracy: 3)
            XCTAssertEqual(a.box.y0, b.box.y0 + Float(oy), accuracy: 3)
        }
        var options = ImageOptions()
        options.findsSheets = false
        XCTAssertNotEqual(try recognizer.read(image: desk, options: options).text, "4025", "without looking for the sheet")
    }

    /// `paper/paper-0005.jpg` (4025) with the pixels `beyond` says are not the sheet set to `value`.
    private static func sheet0005(_ value: (Int, Int, UInt8) -> UInt8?) throws -> DecodedImage {
        var image = try ImageDecoder.read(path: TestPaths.fixtures.appendingPathComponent("paper/paper-0005.jpg").path)
        image.rgb = nil
        for y in 0..<image.height {
            for x in 0..<image.width { if let v = value(x, y, image.gray[y * image.width + x]) { image.gray[y * image.width + x] = v } }
        }
        return image
    }

    func testASheetSeenAtAnAngleHasTheDeskBeyondItsEdgesPaintedOver() throws {
        let recognizer = try TestRecognizers.withPaperModel()
        let plain = try Self.sheet0005 { _, _, _ in nil }
        XCTAssertNil(SheetEdges.find(in: FloatImage(plain)), "a photo of the sheet alone has no desk")
        // The sheet drawn narrower at the top, as seen from below: a desk of grey 70 with a grain in
        // a wedge along each side, 80 pixels broad at the top and none at the bottom.
        var rng = SplitMix64(seed: 4)
        let w = Float(plain.width), h = Float(plain.height)
        let onDesk = { (x: Int, y: Int) in Float(x) < 80 * (1 - Float(y) / h) || Float(x) > w - 80 * (1 - Float(y) / h) }
        let angled = try Self.sheet0005 { x, y, _ in onDesk(x, y) ? UInt8(70 + Int(rng.uniform(-12, 12))) : nil }
        let found = try XCTUnwrap(SheetEdges.find(in: FloatImage(angled)))
        XCTAssertEqual(found.edges.count, 2, "\(found.edges)")
        // Each edge lies along a side of the sheet: the desk beyond it, the writing well inside.
        for (x, y) in [(5, 10), (470, 10), (30, 100), (450, 100)] {
            XCTAssertTrue(found.edges.contains { $0.beyond(Float(x), Float(y)) > 0 }, "(\(x), \(y)) is on the desk")
        }
        for (x, y) in [(240, 10), (100, 180), (380, 180), (10, 355)] {
            XCTAssertFalse(found.edges.contains { $0.beyond(Float(x), Float(y)) > 0 }, "(\(x), \(y)) is on the sheet")
        }
        let painted = found.painted(angled)
        XCTAssertGreaterThan(painted.gray[10 * angled.width + 5], 110, "the desk is painted the paper's light")
        XCTAssertEqual(painted.gray[120 * angled.width + 100], angled.gray[120 * angled.width + 100], "the sheet is as it was")
        XCTAssertEqual(try recognizer.read(image: angled).text, "4025")

        // A photo made by scripts/make-desk-probes --angled (Fixtures/desk/README.md): the desk's
        // narrow ends were read as a line of their own.
        let photo = TestPaths.fixtures.appendingPathComponent("desk/angled-103.jpg").path
        XCTAssertEqual(try recognizer.read(imageAt: photo).text, "103")
        var options = ImageOptions()
        options.findsSheets = false
        XCTAssertNotEqual(try recognizer.read(imageAt: photo, options: options).text, "103", "with the desk's narrow ends as ink")

        // A hard shadow across the writing is no desk: the writing is in it.
        for shade: Float in [0.55, 0.75] {
            let shaded = try Self.sheet0005 { x, y, v in Float(x) > 140 + 0.2 * Float(y) ? UInt8(Float(v) * shade) : nil }
            XCTAssertNil(SheetEdges.find(in: FloatImage(shaded)), "shade \(shade)")
        }
    }

    func testAHardShadowOverMoreThanHalfThePageLeavesItPaperWithDarkInk() throws {
        // The 4025 photo darkened to 55% beyond a line through the number: the page's median falls
        // below 100 and the shadow's edge departs upwards as much as chalk would. It was read as
        // light ink on a dark page, the lit part one broad stroke: `?`.
        let shaded = try Self.sheet0005 { x, y, v in Float(x) > 140 + 0.2 * Float(y) ? UInt8(Float(v) * 0.55) : nil }
        XCTAssertLessThan(Morphology.quantile(FloatImage(shaded).values, 0.5), InkMap.greyPage)
        XCTAssertFalse(InkMap(FloatImage(shaded)).lightInk, "dark ink on paper")
        XCTAssertEqual(try TestRecognizers.withPaperModel().read(image: shaded).text, "4025")
        // A board stays a board: the chalk photo of Fixtures/paper.
        let chalk = try ImageDecoder.read(path: TestPaths.fixtures.appendingPathComponent("paper/paper-0006.jpg").path)
        XCTAssertTrue(InkMap(FloatImage(chalk)).lightInk)
    }

    func testALitStripBetweenTwoShadowsIsNoCloseupOfAOne() throws {
        // Fixtures/desk/lit-strip-8.jpg: an 8 on paper under two shadows, a strip of light between
        // them running down the whole frame. The page's median is dark, and the close-up reader
        // took such a page for a board: the lit strip was one broad stroke of chalk, read `1` at
        // 99.4%. The close-up reader now takes the ink's polarity from the ink map (dark ink on
        // paper, as the line reader does) and keeps light ink only for a page that is dark.
        let photo = try ImageDecoder.read(path: TestPaths.fixtures.appendingPathComponent("desk/lit-strip-8.jpg").path)
        let page = FloatImage(photo)
        XCTAssertLessThan(Morphology.quantile(page.values, 0.5), 128)
        XCTAssertFalse(LineImage(image: photo).lightInk, "dark ink on paper")
        let strip = try XCTUnwrap(CloseupGlyph(page), "by the page's median, light ink: the lit strip")
        XCTAssertTrue(strip.isCloseup)
        XCTAssertEqual(try TestRecognizers.shipped().recognize(pixels: strip.pixels).digit, 1, "the strip alone looks like a 1")
        XCTAssertFalse(CloseupGlyph(page, lightInk: false)?.isCloseup ?? false, "the 8 does not fill the frame")
        let reading = try TestRecognizers.withPaperModel().read(image: photo)
        XCTAssertEqual(reading.text, "8", reading.summary)
        // A board stays a board: the chalk photo of Fixtures/paper.
        let chalk = try ImageDecoder.read(path: TestPaths.fixtures.appendingPathComponent("paper/paper-0006.jpg").path)
        XCTAssertTrue(LineImage(image: chalk).lightInk)
    }

    func testAFiveWithASeparateHatIsOneDigit() throws {
        let five = try Self.fiveWithLoneHat()
        var rng = SplitMix64(seed: 1)
        let image = try Self.decoded(try Self.clean().render(five, rng: &rng))
        // The hat and the body are two pieces of ink…
        let found = InkComponents(InkMap(FloatImage(image)))
        XCTAssertEqual(found.writing().components.count, 2)
        // …read as one 5, with one box around both.
        let reading = try TestRecognizers.shipped().read(image: image)
        XCTAssertEqual(reading.bestText, "5")
        XCTAssertEqual(reading.digits.count, 1)
        // And as one digit when a number of two or more is allowed beside another digit.
        let pair = try Self.decoded(try Self.clean().render(Self.number([five, try TestPaths.digitDrawing(2)], gap: 0.3), rng: &rng))
        XCTAssertEqual(try TestRecognizers.shipped().read(image: pair).bestText, "52")
    }

    func testTwoTouchingDigitsAreSplit() throws {
        let number = Self.number([try TestPaths.digitDrawing(4), try TestPaths.digitDrawing(7)], gap: -0.16)
        var rng = SplitMix64(seed: 2)
        let paper = try Self.clean().render(number, rng: &rng)
        let image = try Self.decoded(paper)
        let found = InkComponents(InkMap(FloatImage(image)))
        XCTAssertEqual(found.writing().components.count, 1, "the 4 and the 7 touch: one piece of ink")
        let line = try XCTUnwrap(found.line())
        XCTAssertGreaterThan(line.pieces.count, 1, "the component is cut along a seam")
        let reading = try cuttingRecognizer().read(image: image)
        XCTAssertEqual(reading.bestText, "47")
        // Each digit's box lies mostly over its own true box.
        for (d, truth) in zip(reading.digits, paper.digitBoxes) {
            XCTAssertEqual(d.box.midX, Float(truth.x + truth.maxX) / 2, accuracy: 0.25 * Float(truth.height))
        }
    }

    /// Digits written into each other (a 7's bar running into a 0, a 3's tail across a 6, a 7's
    /// stem across a 4's arm): one piece of ink that no seam parts, read by following the strokes
    /// through the crossing.
    func testDigitsThatCrossAreReadByFollowingTheirStrokes() throws {
        var seamsOnly = ImageOptions()
        seamsOnly.followsStrokes = false
        for (a, b, variant, gap) in [(7, 0, "a", Float(-0.25)), (3, 6, "c", -0.25), (7, 4, "b", -0.35)] {
            let number = Self.number([try TestPaths.digitDrawing(a, variant), try TestPaths.digitDrawing(b, variant)], gap: gap)
            var rng = SplitMix64(seed: 2)
            let image = try Self.decoded(try Self.clean().render(number, rng: &rng))
            XCTAssertEqual(InkComponents(InkMap(FloatImage(image))).writing().components.count, 1, "\(a)\(b): one piece of ink")
            XCTAssertEqual(try cuttingRecognizer().read(image: image).bestText, "\(a)\(b)")
            XCTAssertNotEqual(try cuttingRecognizer().read(image: image, options: seamsOnly).bestText, "\(a)\(b)", "seams alone do not part \(a)\(b)")
        }
    }

    /// Where the seams and the strokes read the same ink differently, the digits of the cut kept
    /// are only as sure as that cut against the other: a 1 touching a 6 that seams alone answer
    /// `16` is read `16` still, but not sure.
    func testDigitsTwoCutsReadDifferentlyAreNotSure() throws {
        let number = Self.number([try TestPaths.digitDrawing(1), try TestPaths.digitDrawing(6)], gap: -0.05)
        var rng = SplitMix64(seed: 2)
        let image = try Self.decoded(try Self.clean().render(number, rng: &rng))
        var seamsOnly = ImageOptions()
        seamsOnly.followsStrokes = false
        XCTAssertEqual(try cuttingRecognizer().read(image: image, options: seamsOnly).text, "16")
        let reading = try cuttingRecognizer().read(image: image)
        XCTAssertEqual(reading.bestText, "16")
        XCTAssertFalse(reading.isAnswered, reading.summary)
    }

    func testAShadowedPageIsReadAndTheShadowsEdgeIsNotInk() throws {
        var renderer = Self.clean()
        renderer.shadowShare = 1
        renderer.shadowDarkness = 0.45...0.45
        renderer.shadowSoftness = 0.01...0.01
        renderer.shadowCover = 0.4...0.4
        renderer.gradient = 0.3...0.3
        renderer.vignette = 0.2...0.2
        renderer.offCentre = 0
        var rng = SplitMix64(seed: 3)
        let number = Self.number([try TestPaths.digitDrawing(3), try TestPaths.digitDrawing(8), try TestPaths.digitDrawing(1)], gap: 0.35)
        let paper = try renderer.render(number, rng: &rng)
        let image = try Self.decoded(paper)
        let map = InkMap(FloatImage(image))
        XCTAssertFalse(map.lightInk)
        // Away from the writing the page holds no ink however dark the shadow makes the paper.
        let found = InkComponents(map)
        let writing = paper.digitBoxes.reduce(PixelRect.zero) { $0.union($1) }
        for k in found.writing().components {
            let c = found.components[k]
            XCTAssertTrue(c.x0 >= writing.x - 3 && c.x1 < writing.maxX + 3 && c.y0 >= writing.y - 3 && c.y1 < writing.maxY + 3,
                          "ink at \(c.x0)...\(c.x1) × \(c.y0)...\(c.y1) outside the writing \(writing)")
        }
        XCTAssertEqual(try TestRecognizers.shipped().read(image: image).bestText, "381")
    }

    func testThePolarityIsTakenFromTheImage() throws {
        let number = Self.number([try TestPaths.digitDrawing(6), try TestPaths.digitDrawing(0)], gap: 0.3)
        for inverted in [false, true] {
            var renderer = Self.clean()
            renderer.invertedShare = inverted ? 1 : 0
            var rng = SplitMix64(seed: 4)
            let image = try Self.decoded(try renderer.render(number, rng: &rng))
            XCTAssertEqual(InkMap(FloatImage(image)).lightInk, inverted)
            XCTAssertEqual(try TestRecognizers.shipped().read(image: image).bestText, "60", inverted ? "chalk on a board" : "ink on paper")
        }
    }

    /// A drawing as a `side`×`side` gray image: light ink on black (as MNIST) or dark ink on white.
    static func crop(_ drawing: Drawing, side: Int, lightInk: Bool) -> [UInt8] {
        let raster = Rasterizer().rasterize(drawing)
        var out = [UInt8](repeating: 0, count: side * side)
        for y in 0..<side {
            for x in 0..<side {
                // Bilinear sampling of the 28×28 raster.
                let fx = (Float(x) + 0.5) * 28 / Float(side) - 0.5, fy = (Float(y) + 0.5) * 28 / Float(side) - 0.5
                func at(_ u: Int, _ v: Int) -> Float { u >= 0 && v >= 0 && u < 28 && v < 28 ? raster[v * 28 + u] : 0 }
                let x0 = Int(fx.rounded(.down)), y0 = Int(fy.rounded(.down)), tx = fx - Float(x0), ty = fy - Float(y0)
                let v = (at(x0, y0) * (1 - tx) + at(x0 + 1, y0) * tx) * (1 - ty) + (at(x0, y0 + 1) * (1 - tx) + at(x0 + 1, y0 + 1) * tx) * ty
                let level = UInt8(max(0, min(255, (v * 255).rounded())))
                out[y * side + x] = lightInk ? level : 255 - level
            }
        }
        return out
    }

    func testSmallCropsOfEitherPolarityAreOneDigit() throws {
        for digit in [2, 4, 7] {
            let drawing = try TestPaths.digitDrawing(digit)
            for side in [16, 28, 32] {
                for lightInk in [true, false] {
                    let image = try Self.decoded(Self.crop(drawing, side: side, lightInk: lightInk), width: side, height: side)
                    let reading = try TestRecognizers.shipped().read(image: image)
                    XCTAssertEqual(reading.digits.count, 1)
                    XCTAssertEqual(reading.bestText, String(digit), "\(side)×\(side), light ink \(lightInk)")
                }
            }
        }
    }

    func testA28By28ImageOnBlackGoesToTheNetworkUnchanged() throws {
        let gray = Self.crop(try TestPaths.digitDrawing(3), side: 28, lightInk: true)
        let reading = try TestRecognizers.shipped().read(image: try Self.decoded(gray, width: 28, height: 28))
        let direct = try TestRecognizers.shipped().recognize(pixels: gray.map { Float($0) / 255 })
        XCTAssertEqual(reading.digits[0].probabilities, direct.probabilities)
        XCTAssertEqual(reading.digits[0].raster, gray.map { Float($0) / 255 })
    }

    func testAZeroWrittenWithAMarkerThatFillsTheCropIsRead() throws {
        // A pen a fifth of the image's height: its strokes fill whole blocks of the paper's level.
        for inverted in [false, true] {
            let page = InkComponentsTests.ring(width: 160, height: 150, pen: 30, inverted: inverted).page
            let reading = try TestRecognizers.shipped().read(image: try Self.decoded(page.values.map { UInt8($0) }, width: 160, height: 150))
            XCTAssertEqual(reading.text, "0", inverted ? "chalk on a board" : "marker on paper")
        }
    }

    /// A 320×320 phone close-up of the fixture `digit` that fills `fill` of the frame's height,
    /// in a pen `pen` of the writing's height, with a shadow with probability `shadow` (and, with
    /// `light`, a lamp's uneven light, blur and JPEG artefacts).
    static func closeup(_ digit: Int, pen: ClosedRange<Float>, shadow: Float, fill: ClosedRange<Float>, seed: UInt64,
                        light: Bool = false) throws -> PaperImage {
        var renderer = PaperRenderer()
        renderer.width = 320
        renderer.height = 320
        renderer.penWidth = pen
        renderer.invertedShare = 0
        renderer.shadowShare = shadow
        var artefacts = PaperArtefacts(kinds: light ? [.closeup, .light] : [.closeup], rate: 1)
        artefacts.closeupFill = fill
        var rng = SplitMix64(seed: seed)
        let number = NumberComposer().compose([try TestPaths.digitDrawing(digit)], rng: &rng)
        return try artefacts.render(number, with: renderer, rng: &rng)
    }

    func testMarkerCloseupsThatRunOffTheFrameAreRead() throws {
        // Phone close-ups of one digit in a broad marker (a fifth of its height) that fills the
        // frame and runs off it: the strokes fill whole blocks of the paper's level, so only their
        // edges depart from it, and they cross the image's border. Found whole, each is read as
        // its digit (the best reading); answered, or not sure, never wrong. (The paper model of
        // run S2 reads the 0 at 66%: not answered; the one before read all four sure.)
        var best: [String] = [], answered = 0
        for (k, digit) in [0, 2, 5, 8].enumerated() {
            let paper = try Self.closeup(digit, pen: 0.2...0.2, shadow: 0, fill: 1.0...1.08, seed: 40 + UInt64(k))
            XCTAssertEqual(paper.effects.artefacts, ["closeup"])
            let reading = try TestRecognizers.shipped().read(image: try Self.decoded(paper))
            best.append(reading.bestText)
            XCTAssertTrue(reading.text == "\(digit)" || reading.text == "?", "\(digit) read '\(reading.text)'")
            if reading.isAnswered { answered += 1 }
        }
        XCTAssertEqual(best, ["0", "2", "5", "8"])
        XCTAssertGreaterThanOrEqual(answered, 3)
    }

    func testShadowedMarkerCloseupsAreReadAsOneGlyph() throws {
        // Close-ups of the ten digits in a marker, each with a shadow across part of the frame:
        // the line reader finds the strokes' edges or nothing and leaves most unanswered; taken
        // whole at the frame's scale (`CloseupGlyph`), each is one glyph the digit network reads.
        // Answered or not sure, never wrong, and more of them answered (with the paper model
        // before soft scans, the line reader answered 6 of the 10 and the glyph 8 or more; with
        // it, 7 and 8).
        let recognizer = try TestRecognizers.shipped()
        var lineOnly = ImageOptions()
        lineOnly.readsCloseups = false
        var answered = 0, answeredByLines = 0
        for digit in 0...9 {
            let image = try Self.decoded(try Self.closeup(digit, pen: 0.18...0.2, shadow: 1, fill: 0.95...1.05, seed: 70 + UInt64(digit)))
            let reading = try recognizer.read(image: image)
            let byLines = try recognizer.read(image: image, options: lineOnly)
            XCTAssertTrue(reading.text == "\(digit)" || !reading.isAnswered, "\(digit) read '\(reading.text)'")
            XCTAssertTrue(byLines.text == "\(digit)" || !byLines.isAnswered, "\(digit) read '\(byLines.text)' by the line reader")
            if reading.isAnswered { answered += 1 }
            if byLines.isAnswered { answeredByLines += 1 }
        }
        XCTAssertGreaterThanOrEqual(answered, 8)
        XCTAssertGreaterThan(answered, answeredByLines)
    }

    func testACloseupWhoseHeaviestBandIsAMarkIsStillReadWhole() throws {
        // Marker close-ups (a fifth or a quarter of the frame) in which the line cut's heaviest
        // band holds only what the model reads as a mark (a stroke's edge): the reader then takes
        // the next band that reads as a line, and that reading too gets the close-up's chance.
        // Before, that band's reading was returned as it was: the 5 here was "?" (and 3 of 300
        // synthetic close-ups, seed 230, were lost that way).
        let recognizer = try TestRecognizers.shipped()
        let lines = try LineReader()
        // (Seeds where the shipped paper model reads that band as a mark: the model of
        // 2026-11-28, trained on soft scans, reads the 4 of seed 114 and the 0 of seed 120 there.)
        for (digit, pen, seed) in [(4, Float(0.25), UInt64(105)), (0, 0.25, 123), (5, 0.25, 135), (6, 0.2, 166)] {
            let image = try Self.decoded(try Self.closeup(digit, pen: pen...pen, shadow: 0.5, fill: 0.95...1.08, seed: seed))
            let strips = LineImage.linesAndOthers(image: image, workingSide: ImageOptions().workingSide).lines
            XCTAssertEqual(strips.count, 1)
            XCTAssertTrue(try lines.read(strips[0]).isNothingRead, "\(digit): the heaviest band reads as a mark")
            XCTAssertEqual(try recognizer.read(image: image).text, "\(digit)")
        }
    }

    func testAnAnswerFromPartOfACloseupStandsOnlyWhenTheWholeGlyphAgrees() throws {
        // Lit close-ups in which the line reader's band holds only part of the digit and
        // answers what that part looks like (a 7 and a 2 read 1). The whole glyph read by the
        // digit network replaces the answer when sure (the 7) and leaves it unanswered when not
        // (the 2).
        let recognizer = try TestRecognizers.shipped()
        var lineOnly = ImageOptions()
        lineOnly.readsCloseups = false
        for (digit, pen, seed, lines, read) in [(7, Float(0.2), UInt64(527), "1", "7"), (2, 0.1, 402, "1", "?")] {
            let image = try Self.decoded(try Self.closeup(digit, pen: pen...pen, shadow: 0.6, fill: 0.95...1.08, seed: seed, light: true))
            XCTAssertEqual(try recognizer.read(image: image, options: lineOnly).text, lines, "\(digit) by the line reader")
            XCTAssertEqual(try recognizer.read(image: image).text, read, "\(digit)")
        }
    }

    func testAFinePensCloseupIsAGlyphAndARuleIsNot() throws {
        // At the glyph's working scale (64 pixels) a ballpoint's stroke is two or three pixels
        // wide, as thin for its length as a rule; but a digit's box is not thin, and a rule's is.
        // Before, a fine pen's 9 or 1 filling the frame was dropped as a rule and never read.
        var found = 0
        for digit in 0...9 {
            let image = try Self.decoded(try Self.closeup(digit, pen: 0.04...0.05, shadow: 0, fill: 0.95...1.0, seed: 90 + UInt64(digit)))
            if let glyph = CloseupGlyph(FloatImage(image)), glyph.isCloseup { found += 1 }
        }
        XCTAssertGreaterThanOrEqual(found, 9)
        // A page holding only a rule, two pixels thick across 320: no glyph.
        var gray = [UInt8](repeating: 210, count: 320 * 320)
        for y in 150..<153 { for x in 10..<310 { gray[y * 320 + x] = 40 } }
        XCTAssertNil(CloseupGlyph(FloatImage(try Self.decoded(gray, width: 320, height: 320))))
    }

    func testAVignettesDarkCornersAreNoCloseup() throws {
        // A small number in the middle of a photo whose light (a lamp's spot off the centre)
        // leaves two opposite corners dark: the corners span the frame like a close-up's glyph,
        // but they hold none of the writing the line reader found, so the digit network is not
        // asked about them.
        var renderer = Self.clean()
        renderer.width = 640
        renderer.height = 480
        renderer.digitHeight = 60...60
        renderer.penWidth = 0.05...0.05
        var rng = SplitMix64(seed: 9)
        var paper = try renderer.render(Self.number([try TestPaths.digitDrawing(2), try TestPaths.digitDrawing(0)], gap: 0.4), rng: &rng)
        for y in 0..<paper.height {
            for x in 0..<paper.width {
                // 0 on the diagonal through the centre, 1 at the top left and bottom right corners.
                let d = abs(Float(x) / Float(paper.width) + Float(y) / Float(paper.height) - 1)
                let k = y * paper.width + x
                paper.gray[k] = UInt8(Float(paper.gray[k]) * (1 - 0.8 * max(0, d - 0.55) / 0.45))
            }
        }
        let image = try Self.decoded(paper)
        let glyph = try XCTUnwrap(CloseupGlyph(FloatImage(image)))
        let reading = try TestRecognizers.shipped().read(image: image)
        XCTAssertTrue(glyph.isCloseup, "the corners make a glyph that fills the frame")
        let boxes = reading.digits.map(\.box)
        XCTAssertFalse(boxes.isEmpty)
        XCTAssertLessThan(glyph.inkShare(in: boxes.dropFirst().reduce(boxes[0]) { $0.union($1) }), CloseupGlyph.heldShare)
        XCTAssertTrue(reading.text == "20" || !reading.isAnswered, "read '\(reading.text)'")
    }

    func testAnUprightOneAtTheSideOfATightCropIsNoColumnLine() throws {
        // 14 and 71 cut tight (6 pixels around the writing): the 1, an upright stroke down an
        // outer fifth of the crop, is as long as a column line there, but no taller than the
        // writing beside it and clear of the crop's top and bottom; before, it was taken away
        // and "4" answered.
        for digits in [[1, 4], [7, 1]] {
            let (gray, w, h) = try Self.tightCrop(digits, seed: 13)
            let reading = try TestRecognizers.shipped().read(image: try Self.decoded(gray, width: w, height: h))
            XCTAssertEqual(reading.text, digits.map(String.init).joined())
        }
    }

    func testANumberOnSquaredPaperIsReadWithoutTheGrid() throws {
        // Squared paper, as a school notebook has it: light lines every 40 pixels both ways,
        // through digits 90 pixels tall, the 9's stem along a column line. The grid is taken out
        // (its lines evenly spaced both ways), and the digits' ink that lies along a line stays,
        // as it is darker than the print. The print's darkness is measured on the line's own
        // column: measured across the stroke's width as well, the stem's ink set the bar and the
        // 9 was taken out with the line ("??", a draft of the change).
        for digits in [[4, 7], [3, 8], [2, 9, 5]] {
            var rng = SplitMix64(seed: 21)
            let paper = try Self.clean().render(Self.number(try digits.map { try TestPaths.digitDrawing($0) }, gap: 0.3), rng: &rng)
            var gray = paper.gray
            for y in 0..<paper.height {
                for x in 0..<paper.width where (x + 7) % 40 < 2 || (y + 11) % 40 < 2 {
                    gray[y * paper.width + x] = UInt8(Float(gray[y * paper.width + x]) * 0.7)
                }
            }
            let reading = try TestRecognizers.shipped().read(image: try Self.decoded(gray, width: paper.width, height: paper.height))
            XCTAssertEqual(reading.text, digits.map(String.init).joined(), reading.summary)
            XCTAssertTrue(reading.isAnswered, reading.summary)
        }
    }

    func testANumberInAPrintedBoxIsReadWithoutTheBoxsSides() throws {
        // A number written in a printed box (an amount's box on a cheque or a form), cut a little
        // outside the box: the box's upright sides, no taller than the writing allows a 1 to be,
        // were kept as 1s ("1271" for 27), and a 1 beside a side went with the side ("6" for 61).
        // A side meets the box's rules at both ends; a 1 does not.
        for digits in [[2, 7], [6, 1], [1, 4]] {
            let crop = try Self.tightCrop(digits, seed: 13)
            let pad = 10, w = crop.width + 2 * pad, h = crop.height + 2 * pad
            var gray = [UInt8](repeating: crop.gray[0], count: w * h)
            for y in 0..<crop.height { for x in 0..<crop.width { gray[(y + pad) * w + x + pad] = crop.gray[y * crop.width + x] } }
            for y in 4..<(h - 4) {
                for x in 4..<(w - 4) where x < 6 || x >= w - 6 || y < 6 || y >= h - 6 { gray[y * w + x] = 60 }
            }
            let reading = try TestRecognizers.shipped().read(image: try Self.decoded(gray, width: w, height: h))
            XCTAssertEqual(reading.text, digits.map(String.init).joined(), reading.summary)
        }
    }

    /// The fixture `digits` rendered clean and cut 6 pixels around their ink: gray, width, height.
    static func tightCrop(_ digits: [Int], seed: UInt64) throws -> (gray: [UInt8], width: Int, height: Int) {
        var rng = SplitMix64(seed: seed)
        let paper = try clean().render(number(try digits.map { try TestPaths.digitDrawing($0) }, gap: 0.3), rng: &rng)
        let box = paper.digitBoxes.dropFirst().reduce(paper.digitBoxes[0]) { $0.union($1) }
        let (y0, y1) = (max(0, box.y - 6), min(paper.height, box.maxY + 6))
        let (x0, x1) = (max(0, box.x - 6), min(paper.width, box.maxX + 6))
        var gray = [UInt8](repeating: 0, count: (x1 - x0) * (y1 - y0))
        for y in y0..<y1 { for x in x0..<x1 { gray[(y - y0) * (x1 - x0) + x - x0] = paper.gray[y * paper.width + x] } }
        return (gray, x1 - x0, y1 - y0)
    }

    func testATightCropUnderADarkBorderIsRead() throws {
        // A number cut tight from a scan with the scanner's dark border along the top or the
        // bottom, a few pens deep: the border is no ink, its edge no line, and the number is read.
        let crop = try Self.tightCrop([7, 4], seed: 12)
        for top in [true, false] {
            let band = 14, w = crop.width, h = crop.height + band
            var gray = [UInt8](repeating: 24, count: w * h)
            for k in crop.gray.indices { gray[k + (top ? band * w : 0)] = crop.gray[k] }
            let reading = try TestRecognizers.shipped().read(image: try Self.decoded(gray, width: w, height: h))
            XCTAssertEqual(reading.text, "74", "border \(top ? "above" : "below")")
        }
    }

    func testATightCropWhoseWritingReachesTheEdgesIsRead() throws {
        // A 7 and a 0 cropped so tight that both touch the image's top and bottom edges: every
        // component touches the border, and they are the writing (both polarities).
        let (w, h) = (260, 200)
        for inverted in [false, true] {
            var gray = [UInt8](repeating: inverted ? 40 : 215, count: w * h)
            let ink: UInt8 = inverted ? 215 : 40
            for y in 0..<h {
                for x in 0..<w {
                    let bar = y < 9 && (10..<110).contains(x)
                    // The 7's stem from (106, 4) to (50, 199), 9 pixels wide.
                    let t = Float(y - 4) / 195, stemX = 106 - 56 * t
                    let stem = y >= 4 && abs(Float(x) - stemX) < 5
                    let dx = (Float(x) - 195) / 50, dy = (Float(y) - 99.5) / 95
                    let ring = abs((dx * dx + dy * dy).squareRoot() - 1) * 50 < 4.5
                    if bar || stem || ring { gray[y * w + x] = ink }
                }
            }
            let reading = try cuttingRecognizer().read(image: try Self.decoded(gray, width: w, height: h))
            XCTAssertEqual(reading.text, "70", inverted ? "chalk on a board" : "pen on paper")
        }
    }

    func testADigitCutByThePhotosFrameIsNotSureNotLeftOut() throws {
        // "381" photographed with the frame through the middle of the 3, then of the 1: the rest
        // of the number alone would be a confident wrong answer.
        var rng = SplitMix64(seed: 2)
        let number = Self.number([try TestPaths.digitDrawing(3), try TestPaths.digitDrawing(8), try TestPaths.digitDrawing(1)], gap: 0.35)
        let paper = try Self.clean().render(number, rng: &rng)
        let (first, last) = (paper.digitBoxes[0], paper.digitBoxes[2])
        for (x0, x1, cut, rest) in [((first.x + first.maxX) / 2, paper.width, 0, "81"), (0, (last.x + last.maxX) / 2, 2, "38")] {
            var gray: [UInt8] = []
            for y in 0..<paper.height { gray += paper.gray[(y * paper.width + x0)..<(y * paper.width + x1)] }
            let image = try Self.decoded(gray, width: x1 - x0, height: paper.height)
            let reading = try cuttingRecognizer().read(image: image)
            guard reading.digits.count == 3 else { XCTFail("the cut digit is a digit of the reading: \(reading.text)"); continue }
            XCTAssertNil(reading.digits[cut].digit, "the cut digit is never answered: \(reading.text)")
            XCTAssertEqual(reading.digits.map(\.isCutByFrame), reading.digits.indices.map { $0 == cut })
            XCTAssertTrue(reading.summary.contains("digit \(cut + 1): cut by the image's edge"), reading.summary)
            XCTAssertTrue(reading.jsonLine(source: "a.png", index: 0, label: nil).contains("\"cut_by_frame\":true"))
            XCTAssertLessThan(reading.confidence, reading.threshold)
            XCTAssertEqual(reading.digits.indices.filter { $0 != cut }.map { reading.digits[$0].digit.map(String.init) ?? "?" }.joined(), rest)
            var options = ImageOptions()
            options.marksCutDigits = false
            XCTAssertEqual(try cuttingRecognizer().read(image: image, options: options).text, rest, "without it, the rest alone")
        }
    }

    func testADigitCutByThePhotosSideIsNotLeftOutByTheLineReader() throws {
        // "381" framed to leave 8 pixels of its 3 (the digits are 90 high), and "384" 11 pixels
        // of its 4, read by the line reader (the default): the model skips the slice, and the rest
        // alone was answered ("81" at 95.4%, "38" at 100%). The slice is now a digit of its
        // own, cut by the frame, with no guess, so the number is not answered. (From 4 to 16
        // pixels of the 3, and 6 to 16 of the 4, all but one width read so.)
        let recognizer = try TestRecognizers.withPaperModel()
        for (digits, keep, text) in [([3, 8, 1], 8, "?81"), ([3, 8, 4], 11, "38?")] {
            var rng = SplitMix64(seed: 2)
            let number = Self.number(try digits.map { try TestPaths.digitDrawing($0) }, gap: 0.35)
            let paper = try Self.clean().render(number, rng: &rng)
            let atLeft = text.hasPrefix("?")
            let (x0, x1) = atLeft ? (paper.digitBoxes[0].maxX - keep, paper.width) : (0, paper.digitBoxes[2].x + keep)
            var gray: [UInt8] = []
            for y in 0..<paper.height { gray += paper.gray[(y * paper.width + x0)..<(y * paper.width + x1)] }
            let image = try Self.decoded(gray, width: x1 - x0, height: paper.height)
            let reading = try recognizer.read(image: image)
            XCTAssertEqual(reading.text, text, reading.summary)
            let cut = atLeft ? 0 : 2
            guard reading.digits.count == 3 else { continue }
            XCTAssertEqual(reading.digits.map(\.isCutByFrame), [0, 1, 2].map { $0 == cut }, reading.summary)
            XCTAssertTrue(reading.summary.contains("digit \(cut + 1): cut by the image's edge"), reading.summary)
            XCTAssertFalse(reading.summary.hasSuffix(": "), "a skipped slice has no candidates to list: \(reading.summary)")
            XCTAssertTrue(reading.jsonLine(source: "a.png", index: 0, label: nil).contains("\"cut_by_frame\":true"))
            // Its box is the slice's: at the cut side, inside the image.
            let box = reading.digits[cut].box
            XCTAssertTrue(box.x0 >= 0 && box.x1 <= Float(image.width) && box.x1 > box.x0, "\(box)")
            XCTAssertTrue(atLeft ? box.x0 < 5 && box.x1 <= Float(keep) + 5 : box.x1 > Float(image.width) - 5 && box.x0 >= Float(image.width - keep - 5), "\(box)")
            var options = ImageOptions()
            options.marksCutDigits = false
            XCTAssertEqual(try recognizer.read(image: image, options: options).text, text.replacingOccurrences(of: "?", with: ""),
                           "without it, the rest alone")
            // The whole number has no slice at its sides.
            let whole = try recognizer.read(image: try Self.decoded(paper.gray, width: paper.width, height: paper.height))
            XCTAssertEqual(whole.text, digits.map(String.init).joined(), whole.summary)
        }
    }

    func testASliceAtThePhotosSideReadAsADigitIsNotSureUnlessTheCropFillsTheFrame() throws {
        // "831" framed to leave 29 pixels of its 8 (the digits are 90 high): the model reads the
        // 8's right half as a 3 ("331" at 99.9%). Where the writing is small in the frame (under
        // half its height: a photo, not a crop cut around the number), such a digit is marked
        // cut by the frame: its guess kept, halved, never answered.
        let recognizer = try TestRecognizers.withPaperModel()
        var rng = SplitMix64(seed: 2)
        let paper = try Self.clean().render(Self.number(try [8, 3, 1].map { try TestPaths.digitDrawing($0) }, gap: 0.35), rng: &rng)
        func crop(x0: Int, y0: Int = 0, y1: Int? = nil) throws -> DecodedImage {
            let y1 = y1 ?? paper.height
            var gray: [UInt8] = []
            for y in y0..<y1 { gray += paper.gray[(y * paper.width + x0)..<(y * paper.width + paper.width)] }
            return try Self.decoded(gray, width: paper.width - x0, height: y1 - y0)
        }
        let first = paper.digitBoxes[0]
        let framed = try recognizer.read(image: try crop(x0: first.maxX - 29))
        XCTAssertEqual(framed.digits.map(\.isCutByFrame), [true, false, false], framed.summary)
        XCTAssertFalse(framed.isAnswered, framed.summary)
        XCTAssertEqual(framed.digits.first?.top.first?.digit, 3, "the model's guess is kept: \(framed.summary)")
        XCTAssertEqual(framed.digits.dropFirst().map { $0.digit.map(String.init) ?? "?" }.joined(), "31", framed.summary)
        // A crop cut around the writing (the 8 whole and touching the left side, the image 1.4
        // times the writing's height) reads its digit at the side as it is.
        let top = paper.digitBoxes.map(\.y).min()!, bottom = paper.digitBoxes.map(\.maxY).max()!
        let margin = (bottom - top) / 5
        let tight = try recognizer.read(image: try crop(x0: first.x, y0: max(0, top - margin), y1: min(paper.height, bottom + margin)))
        XCTAssertEqual(tight.text, "831", tight.summary)
    }

    func testAPieceAtThePhotosSideReadAsAMarkIsACutDigitWhereTheWritingIsSmallInTheFrame() throws {
        // `digits make-paper --strokes pendigits-orig.tra --writers 3,6,…,30 --count 300 --lengths
        // 2-6 --seed 201 --frame-cut 1`'s photos 27, 66 and 181: "99", "92933" and "41713" framed
        // through their last digit. What is left of it runs off the frame's side and the model
        // reads it as a mark, as an amount's `/-` can be: the rest was answered ("9", "9293",
        // "4171", at 97–100%). Where the writing is small in the frame, that piece is now looked
        // at as a slice the frame cuts: the number ends in a digit cut by the frame, "?", and is
        // not answered.
        guard let pendigits = TestPaths.requirePendigits() else { return }
        let records = try DrawingLoader.load(pendigits.path)
        let byWriter = NumberComposer.byWriter(records, keep: { $0.map { $0 % 3 == 0 } ?? false })
        let numbers = NumberComposer().composeSet(byWriter, count: 300, lengths: 2...6, seed: 201)
        var renderer = PaperRenderer()
        renderer.invertedShare = 0.1
        renderer.frameCutShare = 1
        let artefacts = PaperArtefacts(kinds: [])
        let base = SplitMix64(seed: 201 ^ 0x7061_7065_72)
        let recognizer = try TestRecognizers.withPaperModel()
        for (k, label, rest) in [(27, "99", "9"), (66, "92933", "9293"), (181, "41713", "4171")] {
            var rng = base.derived(UInt64(k - 1))
            let paper = try artefacts.render(numbers[k - 1], lines: 1, lineGap: NumberComposer().lineGap, with: renderer, rng: &rng)
            XCTAssertEqual(paper.label, label)
            let image = try ImageDecoder.decode(try paper.encoded(PaperFormat.jpeg), file: "paper-\(k).jpg")
            let reading = try recognizer.read(image: image)
            XCTAssertTrue(reading.text.hasSuffix("?"), "photo \(k): \(reading.summary)")
            XCTAssertTrue(label.hasPrefix(reading.text.replacingOccurrences(of: "?", with: "")), "photo \(k): \(reading.summary)")
            XCTAssertFalse(reading.isAnswered)
            XCTAssertEqual(reading.digits.last?.isCutByFrame, true, reading.summary)
            var options = ImageOptions()
            options.marksCutDigits = false
            let without = try recognizer.read(image: image, options: options)
            XCTAssertEqual(without.text, rest, "without it, the rest alone: \(without.summary)")
            XCTAssertFalse(without.marks.isEmpty, "the piece is read as a mark: \(without.summary)")
        }
    }

    func testAShortLineUnderALongOneIsALine() throws {
        // Notes of three lines (`digits make-paper … --lengths 1-6 --lines 2-3 --seed 401`, writers
        // 3, 6, …, 30) whose last line is one digit: a `2` under `35136` in a shadow, a `3` under
        // `207702`. Such a band scored less than a tenth of the main line's (0.07) and was left
        // out, the note answered without it (`4699 35136` at 99.9%, `3 207702` at 98.9%).
        guard let pendigits = TestPaths.requirePendigits() else { return }
        let records = try DrawingLoader.load(pendigits.path)
        let byWriter = NumberComposer.byWriter(records, keep: { $0.map { $0 % 3 == 0 } ?? false })
        let composer = NumberComposer()
        let notes = composer.composeNotes(byWriter, count: 200, lengths: 1...6, lines: 2...3, seed: 401)
        var renderer = PaperRenderer()
        renderer.invertedShare = 0.1
        let base = SplitMix64(seed: 401 ^ 0x7061_7065_72)
        let recognizer = try TestRecognizers.withPaperModel()
        for (k, label) in [(127, "4699 35136 2"), (139, "3 207702 3")] {
            var rng = base.derived(UInt64(k - 1))
            let paper = try PaperArtefacts(kinds: []).render(notes[k - 1], lines: 3, lineGap: composer.lineGap, with: renderer, rng: &rng)
            XCTAssertEqual(paper.label, label)
            let image = try ImageDecoder.decode(try paper.encoded(PaperFormat.jpeg), file: "paper-\(k).jpg")
            XCTAssertEqual(LineImage.lines(image: image).count, 3, "note \(k)")
            let reading = try recognizer.read(image: image)
            XCTAssertEqual(reading.lines.count, 3, "note \(k): \(reading.summary)")
            XCTAssertTrue(reading.text == label || !reading.isAnswered, "note \(k): \(reading.summary)")
        }
    }

    func testEveryLineOfAPhotoIsReadTopToBottom() throws {
        // Fixtures/paper's "9" (small, on a shadowed page) above its "5351", then below it.
        func photo(_ name: String) throws -> DecodedImage {
            try ImageDecoder.read(path: TestPaths.fixtures.appendingPathComponent("paper/\(name)").path)
        }
        let nine = try photo("paper-0001.jpg"), number = try photo("paper-0004.jpg")
        XCTAssertEqual([nine.width, nine.height], [number.width, number.height])
        for (top, bottom, text) in [(nine, number, "9 5351"), (number, nine, "5351 9")] {
            let page = try Self.decoded(top.gray + bottom.gray, width: top.width, height: top.height * 2)
            let reading = try cuttingRecognizer().read(image: page)
            XCTAssertEqual(reading.text, text, reading.summary)
            XCTAssertEqual(reading.bestText, text)
            XCTAssertTrue(reading.isAnswered)
            XCTAssertEqual(reading.lines.map(\.count), text.split(separator: " ").map(\.count))
            let firstLine = reading.digits[reading.lines[0]], secondLine = reading.digits[reading.lines[1]]
            XCTAssertLessThan(firstLine.map(\.box.y1).max()!, secondLine.map(\.box.y0).min()!, "the top line first")
            let json = reading.jsonLine(source: "two.png", index: 0, label: nil)
            XCTAssertEqual(json.components(separatedBy: "\"line\":1").count - 1, secondLine.count, json)
            var one = ImageOptions()
            one.reader.maxDigits = 1
            XCTAssertEqual(try cuttingRecognizer().read(image: page, options: one).text, "?", "one digit: the main line alone, all its ink")
        }
        // A line of the photo alone reads as before, without a space.
        XCTAssertEqual(try cuttingRecognizer().read(image: number).lineStarts, [])
    }

    func testADigitCutByTheTopOfTheFrameIsNotSure() throws {
        // Fixtures/paper's "5351" framed from row 200: its 1 (rows 189…275) runs off the top, the
        // other digits (from row 204) do not.
        let photo = try ImageDecoder.read(path: TestPaths.fixtures.appendingPathComponent("paper/paper-0004.jpg").path)
        XCTAssertEqual(try TestRecognizers.shipped().read(image: photo).text, "5351")
        let framed = Array(photo.gray[(200 * photo.width)...])
        let reading = try TestRecognizers.shipped().read(image: try Self.decoded(framed, width: photo.width, height: photo.height - 200))
        XCTAssertEqual(reading.text, "535?", reading.summary)
        XCTAssertEqual(reading.digits.map(\.isCutByFrame), [false, false, false, true])
        XCTAssertEqual(reading.bestText, "5351")
    }

    func testFaintInkAtTheBorderIsNotACutDigit() throws {
        // "381" framed through the 1, the 1's slice at full strength and at 42% of it: the faint
        // one is what the edge of a shadow leaves at the border, not pen ink.
        var rng = SplitMix64(seed: 2)
        let number = Self.number([try TestPaths.digitDrawing(3), try TestPaths.digitDrawing(8), try TestPaths.digitDrawing(1)], gap: 0.35)
        let paper = try Self.clean().render(number, rng: &rng)
        let one = paper.digitBoxes[2]
        let framed = paper.cropped(columns: 0..<((one.x + one.maxX) / 2))
        let ground = framed.gray.max() ?? 255
        for (strength, cut) in [(Float(1), true), (0.42, false)] {
            var gray = framed.gray
            for y in 0..<framed.height {
                for x in max(0, one.x - 2)..<framed.width {
                    let v = Float(gray[y * framed.width + x])
                    gray[y * framed.width + x] = UInt8(Float(ground) - strength * (Float(ground) - v))
                }
            }
            let found = InkComponents(InkMap(FloatImage(try Self.decoded(gray, width: framed.width, height: framed.height))))
            XCTAssertTrue(found.components.contains { found.touchesBorder($0) }, "the slice is ink at the border")
            let line = try XCTUnwrap(found.line(cutByFrame: true))
            XCTAssertEqual(line.cutByFrame.isEmpty, !cut, "strength \(strength)")
        }
    }

    func testEvaluatingImagesCountsEachAndKeepsTheUnreadableAsErrors() throws {
        let paper = TestPaths.fixtures.appendingPathComponent("paper").path
        let labelled = try String(contentsOfFile: paper + "/labels.tsv", encoding: .utf8).split(separator: "\n").map { line in
            let fields = line.split(separator: "\t")
            return (path: paper + "/" + fields[0], label: String(fields[1]))
        }
        var seen: [String] = []
        let report = NumberEvaluationReport.evaluate(images: labelled + [(path: paper + "/missing.png", label: "12")],
                                                     recognizer: try TestRecognizers.shipped(), each: { image, _ in seen.append(image.path) })
        XCTAssertEqual(report.numbers, labelled.count)
        XCTAssertEqual(seen, labelled.map(\.path))
        XCTAssertEqual(report.errors.count, 1)
        XCTAssertTrue("\(report.errors[0])".contains("missing.png"), "\(report.errors[0])")
    }

    func testPagesAreReadWithThePaperOptionsAndOnlyTheseDifferFromADrawings() {
        XCTAssertEqual(ImageOptions().reader, NumberReaderOptions.paper)
        var drawing = NumberReaderOptions.paper
        XCTAssertEqual(drawing.overlapPenalty, 0)
        XCTAssertNil(drawing.notADigitCost)
        drawing.overlapPenalty = NumberReaderOptions().overlapPenalty
        drawing.notADigitCost = NumberReaderOptions().notADigitCost
        XCTAssertEqual(drawing, NumberReaderOptions())
    }

    func testMaxDigitsOneReadsAllTheInkAsOneDigit() throws {
        var options = ImageOptions()
        options.reader.maxDigits = 1
        var rng = SplitMix64(seed: 6)
        // A 5 whose hat stands apart: both pieces of ink are the one digit.
        let image = try Self.decoded(try Self.clean().render(try Self.fiveWithLoneHat(), rng: &rng))
        let reading = try TestRecognizers.shipped().read(image: image, options: options)
        XCTAssertEqual(reading.digits.count, 1)
        XCTAssertEqual(reading.bestText, "5")
        // Two digits side by side are still one answer (a poor one), never an error.
        let pair = try Self.decoded(try Self.clean().render(Self.number([try TestPaths.digitDrawing(1), try TestPaths.digitDrawing(2)], gap: 0.4), rng: &rng))
        XCTAssertEqual(try TestRecognizers.shipped().read(image: pair, options: options).digits.count, 1)
    }

    func testABlankPageIsEmptyAndAnImageEdgeIsNotWriting() throws {
        var gray = [UInt8](repeating: 200, count: 300 * 200)
        XCTAssertTrue(try TestRecognizers.shipped().read(image: try Self.decoded(gray, width: 300, height: 200)).isEmpty)
        // A dark band along the bottom edge (a desk beyond the sheet) is not read.
        for y in 170..<200 { for x in 0..<300 { gray[y * 300 + x] = 40 } }
        XCTAssertTrue(try TestRecognizers.shipped().read(image: try Self.decoded(gray, width: 300, height: 200)).isEmpty)
    }
}
