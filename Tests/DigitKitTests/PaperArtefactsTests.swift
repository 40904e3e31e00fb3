import DigitKit
import DigitTestSupport
import XCTest

/// Artefacts of real paper on synthetic photos: each shows where it should and nowhere else, the
/// label never changes, and with none the renderer's bytes come out unchanged.
final class PaperArtefactsTests: XCTestCase {
    typealias Kind = PaperArtefacts.Kind

    static let glyphs: [GlyphSamples.Glyph] = {
        (try? GlyphSamples.load(TestPaths.fixtures.appendingPathComponent("hershey/glyphs.jsonl").path)) ?? []
    }()

    /// 200×150 photos of "1707" 30–60 pixels tall, without a board (rules and print skip one).
    static func renderer() -> PaperRenderer {
        var r = PaperRendererTests.small()
        r.invertedShare = 0
        return r
    }

    /// `renderer()` upright (no rotation or perspective), with at most `blur` pixels of blur.
    static func upright(blur: ClosedRange<Float>? = nil) -> PaperRenderer {
        var r = renderer()
        r.rotation = 0...0
        r.perspective = 0...0
        if let blur { r.blur = blur }
        return r
    }

    /// The rows and columns of `image` darker than in `plain` by 6 or more along 85% of the image:
    /// printed lines across it and down it.
    static func linesAcross(_ image: PaperImage, _ plain: PaperImage) -> (rows: [Int], columns: [Int]) {
        let w = image.width, h = image.height
        func darker(_ i: Int) -> Bool { Int(image.gray[i]) <= Int(plain.gray[i]) - 6 }
        return ((0..<h).filter { y in (0..<w).filter { darker(y * w + $0) }.count >= w * 85 / 100 },
                (0..<w).filter { x in (0..<h).filter { darker($0 * w + x) }.count >= h * 85 / 100 })
    }

    static func artefacts(_ kinds: Set<Kind>, rate: Float = 1) -> PaperArtefacts {
        PaperArtefacts(kinds: kinds, rate: rate, glyphs: glyphs)
    }

    /// The photo without artefacts and with them, from the same generator state.
    static func pair(_ artefacts: PaperArtefacts, _ renderer: PaperRenderer, seed: UInt64,
                     number: NumberComposer.Number? = nil) throws -> (plain: PaperImage, with: PaperImage) {
        let number = number ?? PaperRendererTests.number(seed: seed)
        var a = SplitMix64(seed: seed), b = SplitMix64(seed: seed)
        return (try renderer.render(number, rng: &a), try artefacts.render(number, with: renderer, rng: &b))
    }

    static func inside(_ boxes: [PixelRect], x: Int, y: Int, pad: Int = 0) -> Bool {
        boxes.contains { $0.insetBy(-pad, -pad).contains(x: x, y: y) }
    }

    /// The columns of the ink pixels (`inkMask`) outside every digit's box: a mark's or a separator's.
    static func inkOutsideDigits(_ image: PaperImage) throws -> [Int] {
        let mask = try XCTUnwrap(image.inkMask)
        var outside: [Int] = []
        for y in 0..<image.height {
            for x in 0..<image.width where mask[y * image.width + x] > 0 && !inside(image.digitBoxes, x: x, y: y) { outside.append(x) }
        }
        return outside
    }

    // MARK: - None

    func testNoArtefacts_GiveTheRenderersBytesAndLeaveTheGeneratorAlike() throws {
        let renderer = Self.renderer()
        for seed in 0..<4 as Range<UInt64> {
            let number = PaperRendererTests.number(seed: seed)
            for artefacts in [PaperArtefacts(), Self.artefacts(Set(Kind.allCases), rate: 0)] {
                var a = SplitMix64(seed: seed), b = SplitMix64(seed: seed)
                let plain = try renderer.render(number, rng: &a)
                let image = try artefacts.render(number, with: renderer, rng: &b)
                XCTAssertEqual(image, plain, "seed \(seed), kinds \(artefacts.kinds.count)")
                XCTAssertEqual(try image.encoded(.jpeg), try plain.encoded(.jpeg))
                XCTAssertEqual(a.state, b.state)
                XCTAssertNil(image.marks)
                XCTAssertEqual(image.effects.artefacts, [])
            }
        }
        // A note of two lines goes through render(note:…).
        let composer = NumberComposer()
        let note = composer.stacked([PaperRendererTests.number(seed: 1), PaperRendererTests.number(seed: 2)])
        var a = SplitMix64(seed: 9), b = SplitMix64(seed: 9)
        let plain = try renderer.render(note: note, lines: 2, lineGap: composer.lineGap, rng: &a)
        XCTAssertEqual(try PaperArtefacts().render(note, lines: 2, lineGap: composer.lineGap, with: renderer, rng: &b), plain)
    }

    func testArtefacts_SameSeedSameBytesAndEachKindAtItsRate() throws {
        let artefacts = Self.artefacts(Set(Kind.allCases), rate: 0.5)
        var counts: [String: Int] = [:]
        for seed in 0..<40 as Range<UInt64> {
            let first = try Self.pair(artefacts, Self.renderer(), seed: seed).with
            let again = try Self.pair(artefacts, Self.renderer(), seed: seed).with
            XCTAssertEqual(first, again, "seed \(seed)")
            XCTAssertEqual(first.label, "1707")
            for name in first.effects.artefacts { counts[name, default: 0] += 1 }
        }
        // Each about half the time; closeup never (four digits); margin, print and signs only with room.
        for kind in ["rules", "pattern", "marks", "light", "small", "grid"] {
            XCTAssertTrue((8...32).contains(counts[kind] ?? 0), "\(kind): \(counts[kind] ?? 0) of 40")
        }
        XCTAssertNil(counts["closeup"])
    }

    // MARK: - Printed on the paper

    func testMargin_ADarkBandAlongOneSideClearOfTheWriting() throws {
        var renderer = Self.renderer()
        renderer.shadowShare = 0
        for seed in 0..<8 as Range<UInt64> {
            let (plain, image) = try Self.pair(Self.artefacts([.margin]), renderer, seed: seed)
            XCTAssertEqual(image.effects.artefacts, ["margin"], "seed \(seed)")
            // The outermost 5% strip of one side is near black; the paper is not.
            let w = image.width, h = image.height, sx = w / 20, sy = h / 20
            func mean(_ xs: Range<Int>, _ ys: Range<Int>, _ gray: [UInt8]) -> Double {
                var sum = 0
                for y in ys { for x in xs { sum += Int(gray[y * w + x]) } }
                return Double(sum) / Double(xs.count * ys.count)
            }
            let strips = [(0..<sx, 0..<h), ((w - sx)..<w, 0..<h), (0..<w, 0..<sy), (0..<w, (h - sy)..<h)]
            let darkest = strips.map { mean($0.0, $0.1, image.gray) }.min()!
            XCTAssertLessThan(darkest, 50, "seed \(seed)")
            XCTAssertGreaterThan(strips.map { mean($0.0, $0.1, plain.gray) }.min()!, 100, "seed \(seed)")
            // Not a pixel of the writing changed.
            for y in 0..<h {
                for x in 0..<w where Self.inside(image.digitBoxes, x: x, y: y) {
                    XCTAssertEqual(image.gray[y * w + x], plain.gray[y * w + x], "seed \(seed) at \(x),\(y)")
                }
            }
        }
    }

    func testRules_ARowDarkerAcrossTheImageThroughOrUnderTheWriting() throws {
        let renderer = Self.upright(blur: 0...0.5)
        var artefacts = Self.artefacts([.rules])
        artefacts.ruleDottedShare = 0
        artefacts.columnShare = 1
        var crossing = 0, under = 0, columns = 0
        for seed in 0..<16 as Range<UInt64> {
            let (plain, image) = try Self.pair(artefacts, renderer, seed: seed)
            XCTAssertEqual(image.effects.artefacts, ["rules"])
            let (rows, columnsHere) = Self.linesAcross(image, plain)
            XCTAssertFalse(rows.isEmpty, "seed \(seed): no rule across the image")
            let writing = image.digitBoxes.reduce(PixelRect.zero) { $0.union($1) }
            if rows.contains(where: { $0 >= writing.y && $0 < writing.maxY - 2 }) { crossing += 1 }
            if rows.contains(where: { $0 >= writing.maxY - 2 && $0 <= writing.maxY + writing.height / 6 }) { under += 1 }
            if !columnsHere.isEmpty { columns += 1 }
            // Column lines keep clear of the writing.
            for x in columnsHere { XCTAssertTrue(x < writing.x || x >= writing.maxX, "seed \(seed): a column through the writing") }
        }
        XCTAssertGreaterThan(crossing, 0, "a rule through the writing in 16 seeds")
        XCTAssertGreaterThan(under, 0, "an underline in 16 seeds")
        XCTAssertGreaterThan(columns, 0, "a column line in 16 seeds")
    }

    func testGrid_SquaredPaperRunsThroughTheWritingBothWaysEvenlySpaced() throws {
        let renderer = Self.upright(blur: 0...0.5)
        var artefacts = Self.artefacts([.grid])
        artefacts.gridDottedShare = 0
        for seed in 0..<8 as Range<UInt64> {
            let (plain, image) = try Self.pair(artefacts, renderer, seed: seed)
            XCTAssertEqual(image.effects.artefacts, ["grid"])
            XCTAssertEqual(image.label, plain.label)
            // Lines across the image and down it (each its first row or column), the same space apart both ways.
            func lines(_ indices: [Int]) -> [Int] { indices.filter { !indices.contains($0 - 1) } }
            let across = Self.linesAcross(image, plain)
            let rows = lines(across.rows), columns = lines(across.columns)
            XCTAssertGreaterThanOrEqual(rows.count, 2, "seed \(seed)")
            XCTAssertGreaterThanOrEqual(columns.count, 2, "seed \(seed)")
            guard rows.count >= 2, columns.count >= 2 else { continue }
            XCTAssertEqual(Double(rows[1] - rows[0]), Double(columns[1] - columns[0]), accuracy: 2, "seed \(seed): squares")
            // Some line runs through the writing (a grid does not keep clear of it).
            let writing = image.digitBoxes.reduce(PixelRect.zero) { $0.union($1) }
            XCTAssertTrue(rows.contains { $0 > writing.y && $0 < writing.maxY } || columns.contains { $0 > writing.x && $0 < writing.maxX },
                          "seed \(seed): no line through the writing")
        }
    }

    /// Photos of `seeds` upright (no rotation or perspective) with `kind` printed: for each that got
    /// it, the pixels it darkened by 25 or more, none of them on the writing, and the label
    /// unchanged. Returns how many got it. Without glyphs the kind is a usage error.
    static func printed(_ kind: Kind, seeds: Range<UInt64>, check: (PaperImage, [(x: Int, y: Int)], UInt64) -> Void) throws -> Int {
        XCTAssertFalse(glyphs.isEmpty, "Fixtures/hershey/glyphs.jsonl")
        let renderer = Self.upright()
        var count = 0
        for seed in seeds {
            let (plain, image) = try pair(artefacts([kind]), renderer, seed: seed)
            guard image.effects.artefacts == [kind.rawValue] else { continue }
            count += 1
            let w = image.width
            var changed: [(x: Int, y: Int)] = []
            for y in 0..<image.height {
                for x in 0..<w where Int(image.gray[y * w + x]) <= Int(plain.gray[y * w + x]) - 25 { changed.append((x, y)) }
            }
            XCTAssertGreaterThan(changed.count, 10, "seed \(seed)")
            XCTAssertFalse(changed.contains { inside(image.digitBoxes, x: $0.x, y: $0.y) }, "seed \(seed): \(kind) on the writing")
            XCTAssertEqual(image.label, "1707")
            if !changed.isEmpty { check(image, changed, seed) }
        }
        var rng = SplitMix64(seed: 1)
        XCTAssertThrowsError(try PaperArtefacts(kinds: [kind]).render(PaperRendererTests.number(), with: renderer, rng: &rng)) {
            XCTAssertEqual(($0 as? DigitError)?.kind, .usage)
        }
        return count
    }

    func testPrint_SmallPrintedWordsBesideTheWritingNotOnIt() throws {
        let printed = try Self.printed(.print, seeds: 0..<8) { image, changed, seed in
            XCTAssertGreaterThan(changed.count, 15, "seed \(seed)")
            let height = changed.map(\.y).max()! - changed.map(\.y).min()! + 1
            let digit = image.digitBoxes.map(\.height).sorted()[2]
            XCTAssertLessThan(height, digit, "seed \(seed): print smaller than the writing")
        }
        XCTAssertGreaterThanOrEqual(printed, 5, "room for print in most of 8 photos")
    }

    func testSigns_APrintedSignJustLeftOfTheWritingOnItsLineNotInTheLabel() throws {
        let printed = try Self.printed(.signs, seeds: 0..<16) { image, changed, seed in
            let writing = image.digitBoxes.reduce(image.digitBoxes[0]) { $0.union($1) }
            // Left of the first digit, within a writing height of it, and on the writing's line.
            let x1 = changed.map(\.x).max()!, y0 = changed.map(\.y).min()!, y1 = changed.map(\.y).max()!
            XCTAssertLessThan(x1, writing.x, "seed \(seed): the sign is left of the writing")
            XCTAssertGreaterThan(x1, writing.x - writing.height, "seed \(seed): the sign is next to the writing")
            XCTAssertTrue(y1 > writing.y && y0 < writing.maxY, "seed \(seed): the sign is on the writing's line")
        }
        XCTAssertGreaterThanOrEqual(printed, 5, "room for a sign in 16 small photos (200×150, digits 30–60 px)")
    }

    func testPattern_RaisesTheVarianceOfTheBackgroundEverywhere() throws {
        var renderer = PaperRenderer.clean
        renderer.width = 200
        renderer.height = 150
        renderer.digitHeight = 30...60
        for seed in 0..<6 as Range<UInt64> {
            let (plain, image) = try Self.pair(Self.artefacts([.pattern]), renderer, seed: seed)
            XCTAssertEqual(image.effects.artefacts, ["pattern"])
            let w = image.width, h = image.height
            func variance(_ gray: [UInt8], _ xs: Range<Int>, _ ys: Range<Int>) -> Double {
                var values: [Double] = []
                for y in ys { for x in xs where !Self.inside(image.digitBoxes, x: x, y: y, pad: 2) { values.append(Double(gray[y * w + x])) } }
                let mean = values.reduce(0, +) / Double(values.count)
                return values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)
            }
            XCTAssertLessThan(variance(plain.gray, 0..<w, 0..<h), 0.5, "seed \(seed): clean paper is flat")
            for (xs, ys) in [(0..<(w / 2), 0..<(h / 2)), ((w / 2)..<w, 0..<(h / 2)), (0..<(w / 2), (h / 2)..<h), ((w / 2)..<w, (h / 2)..<h)] {
                XCTAssertGreaterThan(variance(image.gray, xs, ys), 2, "seed \(seed): quarter \(xs), \(ys)")
            }
        }
    }

    // MARK: - Written and lit

    func testMarks_AfterTheNumberInItsPenWhileTheLabelStaysTheDigits() throws {
        var renderer = Self.renderer()
        renderer.keepsInkMask = true
        renderer.frameCutShare = 1
        for mark in [".", ",", "=", "-", "/-"] {
            var artefacts = Self.artefacts([.marks])
            artefacts.marks = [mark]
            for seed in 0..<3 as Range<UInt64> {
                let image = try Self.pair(artefacts, renderer, seed: seed).with
                XCTAssertEqual(image.label, "1707")
                XCTAssertEqual(image.marks, mark)
                XCTAssertEqual(image.effects.artefacts, ["marks"])
                XCTAssertEqual(image.digitBoxes.count, 4)
                XCTAssertEqual(image.width, renderer.width, "'\(mark)' seed \(seed): not frame-cut")
                let outside = try Self.inkOutsideDigits(image)
                XCTAssertGreaterThan(outside.count, 3, "'\(mark)' seed \(seed): the mark's ink")
                let last = image.digitBoxes[3]
                let meanX = Float(outside.reduce(0, +)) / Float(max(1, outside.count))
                XCTAssertGreaterThan(meanX, Float(last.x + last.maxX) / 2, "'\(mark)' seed \(seed): after the last digit")
            }
        }
        // The label file keeps the marks in a fourth field, only when there are some.
        let entry = PaperLabels.Entry(file: "paper-0001.jpg", label: "500", boxes: [PixelRect(x0: 1, y0: 2, x1: 3, y1: 4)], marks: "/-")
        let plain = PaperLabels.Entry(file: "paper-0002.jpg", label: "7", boxes: [PixelRect(x0: 0, y0: 0, x1: 9, y1: 9)])
        XCTAssertEqual(PaperLabels.line(entry), "paper-0001.jpg\t500\t1,2,3,4\t/-")
        XCTAssertEqual(PaperLabels.line(plain), "paper-0002.jpg\t7\t0,0,9,9")
        XCTAssertEqual(try PaperLabels.parse(PaperLabels.line(entry) + "\n" + PaperLabels.line(plain) + "\n", file: "labels.tsv"),
                       [entry, plain])
    }

    func testSeparators_BetweenDigitGroupsInRoomMadeForThemWhileTheLabelStaysTheDigits() throws {
        var renderer = Self.upright()
        renderer.keepsInkMask = true
        renderer.frameCutShare = 1
        // "1707": a thousands separator after the 1 ("1.707"), a decimal one before the 07 ("17,07").
        for (decimal, slot) in [(Float(0), 0), (Float(1), 1)] {
            var artefacts = Self.artefacts([.separators])
            artefacts.decimalShare = decimal
            for seed in 0..<4 as Range<UInt64> {
                let (plain, image) = try Self.pair(artefacts, renderer, seed: seed)
                let context = "decimal \(decimal) seed \(seed)"
                XCTAssertEqual(image.label, "1707", context)
                let marks = try XCTUnwrap(image.marks, context)
                XCTAssertTrue([".", ",", "'"].contains(marks), "\(context): \(marks)")
                if decimal == 1 { XCTAssertNotEqual(marks, "'", context) }
                XCTAssertEqual(image.effects.artefacts, ["separators"], context)
                XCTAssertEqual(image.digitBoxes.count, 4, context)
                XCTAssertEqual(image.width, renderer.width, "\(context): not frame-cut")
                // The separator's ink lies between the two digits it parts.
                let outside = try Self.inkOutsideDigits(image)
                XCTAssertGreaterThan(outside.count, 2, "\(context): the separator's ink")
                let left = image.digitBoxes[slot], right = image.digitBoxes[slot + 1]
                let meanX = Float(outside.reduce(0, +)) / Float(max(1, outside.count))
                XCTAssertGreaterThan(meanX, Float(left.x + left.maxX) / 2, context)
                XCTAssertLessThan(meanX, Float(right.x + right.maxX) / 2, context)
                // Room was made for it: the two digits stand further apart, for their height, than without it.
                func gap(_ p: PaperImage) -> Float {
                    Float(p.digitBoxes[slot + 1].x - p.digitBoxes[slot].maxX) / Float(p.digitBoxes.map(\.height).max()!)
                }
                XCTAssertGreaterThan(gap(image), gap(plain) + 0.1, context)
            }
        }
        // Fewer than four digits: none.
        var rng = SplitMix64(seed: 1)
        let short = NumberComposer().compose([PaperRendererTests.one, PaperRendererTests.seven, PaperRendererTests.zero], rng: &rng)
        let image = try Self.artefacts([.separators]).render(short, with: renderer, rng: &rng)
        XCTAssertNil(image.marks)
        XCTAssertEqual(image.effects.artefacts, [])
    }

    func testSeparators_SyntheticLinesLabelThemAsMarksWhereTheyStand() throws {
        let digits = [PaperRendererTests.one, PaperRendererTests.seven, PaperRendererTests.zero]
        let records = (0..<30).map { DrawingRecord(source: "t", index: $0, line: nil, writer: 1, result: .success(digits[$0 % 3])) }
        let lines = try SyntheticLines.make(records: records, count: 24, lengths: 4...7, seed: 5, separatorShare: 1, threads: 2)
        XCTAssertEqual(lines.labels.count, 24)
        for label in lines.labels {
            // The digits with a separator (".") before each group of three from the right, or before
            // the last two; perhaps a mark after the number.
            var groups = label.split(separator: ".", omittingEmptySubsequences: false).map(\.count)
            if groups.last == 0 { groups.removeLast() }
            let decimal = groups.count == 2 && groups[1] == 2 && (2...5).contains(groups[0])
            let thousands = groups.count >= 2 && (1...3).contains(groups[0]) && groups.dropFirst().allSatisfy { $0 == 3 }
            XCTAssertTrue(decimal || thousands, label)
        }
        // None without the share: the same call as before separators came.
        let plain = try SyntheticLines.make(records: records, count: 24, lengths: 4...7, seed: 5, threads: 2)
        XCTAssertTrue(plain.labels.allSatisfy { $0.dropLast().allSatisfy(\.isNumber) }, "\(plain.labels)")
    }

    func testLight_StrongGradientOrSpotHeavyBlurAndLowQuality() throws {
        for seed in 0..<8 as Range<UInt64> {
            let (_, image) = try Self.pair(Self.artefacts([.light]), Self.renderer(), seed: seed)
            let e = image.effects
            XCTAssertEqual(e.artefacts, ["light"])
            XCTAssertTrue((15...40).contains(e.jpegQuality), "seed \(seed): quality \(e.jpegQuality)")
            // The smallest digit is 30 pixels: blur from 1.2 up to 5% of that.
            XCTAssertTrue((1.2...1.5).contains(e.blur), "seed \(seed): blur \(e.blur)")
            XCTAssertTrue(e.gradient >= 0.45 || e.vignette >= 0.45, "seed \(seed): gradient \(e.gradient), vignette \(e.vignette)")
            // The paper's bright and dark ends far apart.
            let paper = (0..<image.gray.count).filter { !Self.inside(image.digitBoxes, x: $0 % image.width, y: $0 / image.width, pad: 3) }
                .map { image.gray[$0] }.sorted()
            let dark = Double(paper[paper.count / 20]), bright = Double(paper[paper.count * 19 / 20])
            XCTAssertGreaterThan(bright / dark, 1.25, "seed \(seed): \(dark)…\(bright)")
        }
    }

    // MARK: - Framing

    func testSmall_WritingThirtyToSixtyPixelsTallAndTheCropTight() throws {
        var renderer = Self.renderer()
        renderer.width = 320
        renderer.height = 200
        renderer.digitHeight = 70...110
        renderer.keepsInkMask = true
        for seed in 0..<8 as Range<UInt64> {
            let (_, image) = try Self.pair(Self.artefacts([.small]), renderer, seed: seed)
            XCTAssertEqual(image.effects.artefacts, ["small"])
            XCTAssertEqual(image.label, "1707")
            let boxes = image.digitBoxes
            let u = PixelRect(x0: boxes.map(\.x).min()!, y0: boxes.map(\.y).min()!, x1: boxes.map(\.maxX).max()!, y1: boxes.map(\.maxY).max()!)
            XCTAssertTrue((29...62).contains(u.height), "seed \(seed): writing \(u.height) px")
            XCTAssertLessThanOrEqual(image.height, u.height + u.height * 6 / 10 + 3, "seed \(seed): tight above and below")
            XCTAssertLessThanOrEqual(image.width, u.width + u.height * 6 / 10 + 3, "seed \(seed): tight left and right")
            XCTAssertTrue(u.x >= 0 && u.y >= 0 && u.maxX <= image.width && u.maxY <= image.height)
            // Scaled down, the boxes still hold the ink.
            let mask = try XCTUnwrap(image.inkMask)
            for y in 0..<image.height {
                for x in 0..<image.width where mask[y * image.width + x] > 0 {
                    XCTAssertTrue(Self.inside(boxes, x: x, y: y), "seed \(seed): ink at \(x),\(y) outside the boxes")
                }
            }
            XCTAssertEqual(image.gray.count, image.width * image.height)
            XCTAssertEqual(image.rgb?.count, 3 * image.width * image.height)
        }
    }

    func testCloseup_OneDigitFillsTheFrameAndLongerNumbersAreLeftAlone() throws {
        var rng = SplitMix64(seed: 4)
        let seven = NumberComposer().compose([PaperRendererTests.seven], rng: &rng)
        let renderer = Self.renderer()
        for seed in 0..<8 as Range<UInt64> {
            let (_, image) = try Self.pair(Self.artefacts([.closeup, .small, .marks]), renderer, seed: seed, number: seven)
            XCTAssertEqual(image.effects.artefacts, ["closeup"], "seed \(seed): small and marks give way")
            XCTAssertEqual(image.label, "7")
            XCTAssertEqual(image.digitBoxes.count, 1)
            let box = image.digitBoxes[0]
            let fill = Float(box.height) / Float(image.height)
            XCTAssertTrue((0.88...1).contains(fill), "seed \(seed): the digit fills \(fill) of the frame")
            XCTAssertLessThanOrEqual(image.width, renderer.width)
        }
        let (plain, image) = try Self.pair(Self.artefacts([.closeup]), renderer, seed: 1)
        XCTAssertEqual(image, plain, "four digits: no close-up")
    }
}
