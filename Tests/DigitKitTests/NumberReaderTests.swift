@testable import DigitKit
import DigitTestSupport
import Foundation
import XCTest

/// Reading numbers: segmentation, the search, the composer and the report.
final class NumberReaderTests: XCTestCase {
    private func number(_ digits: [Int], gap: ClosedRange<Float> = 0.45...0.6, seed: UInt64 = 3) throws -> NumberComposer.Number {
        var composer = NumberComposer()
        composer.gap = gap
        var rng = SplitMix64(seed: seed)
        return composer.compose(try digits.map { try TestPaths.digitDrawing($0) }, rng: &rng)
    }

    func testRead_AWellSpacedNumberIsReadDigitByDigitLeftToRight() throws {
        let n = try number([2, 0, 2, 6])
        let reading = try TestRecognizers.shipped().read(n.drawing)
        XCTAssertEqual(reading.bestText, "2026")
        XCTAssertEqual(reading.digits.count, 4)
        // Boxes run left to right and hold exactly their digit's strokes.
        for (k, d) in reading.digits.enumerated() {
            XCTAssertEqual(Set(d.strokes.map { n.strokeDigit[$0] }), [k], "digit \(k) takes strokes of one written digit")
            if k > 0 { XCTAssertGreaterThan(d.box.x0, reading.digits[k - 1].box.x0) }
            XCTAssertEqual(d.top.count, 3)
            XCTAssertEqual(d.raster.count, 784)
        }
        XCTAssertEqual(reading.confidence, reading.digits.reduce(1) { $0 * $1.confidence }, accuracy: 1e-6)
    }

    func testRead_TheExpectedDigitsAreScoredAmongTheCandidates() throws {
        let n = try number([2, 0, 2, 6])
        XCTAssertNil(try TestRecognizers.shipped().read(n.drawing).expectedScore, "not asked for")
        var options = NumberReaderOptions()
        options.expected = "2026"
        let right = try TestRecognizers.shipped().read(n.drawing, options: options)
        XCTAssertEqual(right.bestText, "2026")
        XCTAssertEqual(try XCTUnwrap(right.expectedScore), right.score, accuracy: 1e-5, "the reading is the best reading as 2026")
        options.expected = "2086"
        let other = try XCTUnwrap(try TestRecognizers.shipped().read(n.drawing, options: options).expectedScore)
        XCTAssertLessThan(other, right.score - 1, "an 8 for the 0 scores far lower")
        XCTAssertGreaterThan(other, -.infinity)
        options.expected = String(repeating: "1", count: 40)
        XCTAssertEqual(try TestRecognizers.shipped().read(n.drawing, options: options).expectedScore, -.infinity, "no cut of four digits makes forty")
        options.expected = "A"
        XCTAssertNil(try TestRecognizers.shipped().read(n.drawing, options: options).expectedScore, "a label that is no number is not scored")
    }

    func testRead_DigitsBelowTheThresholdBecomeQuestionMarks() throws {
        let r = try DigitRecognizer(weightsPath: TestPaths.weights.path, threshold: 1.0)
        let reading = try r.read(try number([2, 0, 2, 6]).drawing)
        XCTAssertEqual(reading.text, "????")
        XCTAssertFalse(reading.isAnswered)
        XCTAssertEqual(reading.bestText, "2026")
    }

    func testRead_ASingleDigitIsOneDigitWithTheSingleDigitAnswer() throws {
        for digit in [1, 4, 5, 7] {
            let drawing = try TestPaths.digitDrawing(digit)
            let reading = try TestRecognizers.shipped().read(drawing)
            XCTAssertEqual(reading.digits.count, 1, "digit \(digit) read as \(reading.bestText)")
            XCTAssertEqual(reading.digits.first?.bestGuess, try TestRecognizers.shipped().recognize(drawing).bestGuess)
        }
    }

    /// The numbers written through the window (Fixtures/numbers): every best reading is the number.
    func testRead_TheNumbersWrittenInTheWindowAreReadExactly() throws {
        let records = try DrawingLoader.load(TestPaths.fixtures.appendingPathComponent("numbers").path)
        XCTAssertGreaterThanOrEqual(records.count, 20)
        for record in records {
            let drawing = try record.result.get()
            XCTAssertEqual(try TestRecognizers.shipped().read(drawing).bestText, drawing.label, record.source)
        }
    }

    /// The two strokes of an X overlap almost entirely: not two digits side by side, and no answer.
    func testRead_StrokesThatOverlapAlmostEntirelyAreNotTwoDigits() throws {
        let x = try XCTUnwrap(try DrawingLoader.load(TestPaths.fixtures.appendingPathComponent("nondigits/010-X.json").path).first)
        let reading = try TestRecognizers.shipped().read(try x.result.get())
        XCTAssertEqual(reading.digits.count, 1, reading.text)
        XCTAssertFalse(reading.isAnswered, reading.summary)
        XCTAssertTrue(reading.hasNotADigit, reading.summary)
    }

    /// Without the cost of a "not a digit" reading, the X's strokes are two 1s (each is a fine 1
    /// alone): the reader must be able to say the ink is no digit rather than cut it into digits.
    func testRead_NotADigitIsAReadingOfItsOwn() throws {
        let x = try XCTUnwrap(try DrawingLoader.load(TestPaths.fixtures.appendingPathComponent("nondigits/010-X.json").path).first)
        var options = NumberReaderOptions()
        options.notADigitCost = nil
        let forced = try TestRecognizers.shipped().read(try x.result.get(), options: options)
        XCTAssertEqual(forced.text, "11", forced.summary)
        XCTAssertEqual(try TestRecognizers.shipped().read(try x.result.get()).summary, "?  not a digit (100.0%)")
    }

    /// In a reading of several digits, a part that is not a digit says so, apart from one not sure.
    func testSummary_NamesAPartThatIsNotADigit() {
        func digit(_ d: Int?, _ p: Float, notADigit: Float) -> ReadDigit {
            ReadDigit(digit: d, confidence: p, notADigit: notADigit, top: [(d ?? 7, p), (1, 0.01)],
                      box: InkBox(x0: 0, y0: 0, x1: 1, y1: 1), strokes: [])
        }
        let reading = NumberReading(text: "2??", confidence: 0.1,
                                    digits: [digit(2, 0.99, notADigit: 0), digit(nil, 0.02, notADigit: 0.97), digit(nil, 0.6, notADigit: 0.1)],
                                    threshold: 0.9)
        XCTAssertEqual(reading.summary, "2??  digit 2: not a digit (97.0%); digit 3: 7 60.0%, 1 1.0%")
        // Cut by the image's frame, the slice of a digit is "not sure" whatever it looks like.
        var cut = reading
        cut.digits[1].isCutByFrame = true
        XCTAssertFalse(cut.digits[1].isNotADigit)
        XCTAssertFalse(cut.hasNotADigit)
        XCTAssertEqual(cut.summary, "2??  digit 2: cut by the image's edge: 7 2.0%, 1 1.0%; digit 3: 7 60.0%, 1 1.0%")
    }

    /// A digit whose reading depends on how the ink was cut keeps the share of its probability
    /// that the cut has: below the threshold it becomes `?`, and the text and confidence follow.
    func testDoubt_ScalesTheChosenDigitsAndRedoesTheText() {
        let digits = [(3, Float(0.99)), (6, 0.95)].map { d, p in
            ReadDigit(digit: d, confidence: p, notADigit: 0, top: [(d, p), (8, 0.01)], probabilities: [p],
                      box: InkBox(x0: 0, y0: 0, x1: 1, y1: 1), strokes: [])
        }
        var reading = NumberReading(text: "36", confidence: 0.99 * 0.95, digits: digits, threshold: 0.9)
        reading.doubt(by: 0.8) { $0.bestGuess == 6 }
        XCTAssertEqual(reading.text, "3?")
        XCTAssertEqual(reading.bestText, "36")
        XCTAssertEqual(reading.digits[1].confidence, 0.76, accuracy: 1e-6)
        XCTAssertEqual(reading.digits[1].top[1].probability, 0.008, accuracy: 1e-6)
        XCTAssertEqual(reading.digits[1].probabilities, [0.76])
        XCTAssertEqual(reading.digits[0].confidence, 0.99)
        XCTAssertEqual(reading.confidence, 0.99 * 0.76, accuracy: 1e-6)
    }

    /// Neighbouring digits whose strokes meet end to end, or share a stroke, were drawn as one
    /// figure: both keep `joinedShare` of their probability. Digits drawn apart are left alone.
    func testDoubtJoined_DigitsDrawnAsOneFigureAreNotSure() {
        func p(_ x: Float, _ y: Float) -> StrokePoint { StrokePoint(x: x, y: y) }
        // A V in two strokes that meet at the bottom, then a 1 apart from it; and one stroke cut in two.
        let drawing = Drawing(strokes: [[p(0, 0), p(5, 100)], [p(5.5, 100), p(10, 0)], [p(40, 0), p(40, 100)], [p(60, 0), p(70, 100), p(80, 0)]])
        func reading(_ strokes: [[Int]]) -> NumberReading {
            let digits = strokes.map { s in
                ReadDigit(digit: 1, confidence: 0.99, notADigit: 0, top: [(1, 0.99)], probabilities: [0.99],
                          box: InkBox(x0: 0, y0: 0, x1: 1, y1: 1), strokes: s)
            }
            return NumberReading(text: String(repeating: "1", count: strokes.count), confidence: 0.9, digits: digits, threshold: 0.9)
        }
        var v = reading([[0], [1], [2]])
        v.doubtJoined(drawing, reach: 2, share: 0.5)
        XCTAssertEqual(v.text, "??1")
        XCTAssertEqual(v.bestText, "111")
        XCTAssertEqual(v.digits.map(\.confidence), [0.495, 0.495, 0.99])
        var apart = reading([[0], [2]])
        apart.doubtJoined(drawing, reach: 2, share: 0.5)
        XCTAssertEqual(apart.text, "11")
        var shared = reading([[2], [3], [3]])
        shared.doubtJoined(drawing, reach: 2, share: 0.5)
        XCTAssertEqual(shared.text, "1??")
        var near = reading([[0], [1]])
        near.doubtJoined(drawing, reach: 0.4, share: 0.5)
        XCTAssertEqual(near.text, "11", "half a unit apart is beyond a reach of 0.4")
    }

    /// A stroke of the right digit that begins on the stroke of a 1 to its left (an n's arch begun
    /// on its stem, read `17`) joins them; the same arch begun apart from the stem does not, and
    /// neither does one begun on a left digit that is no 1.
    func testDoubtJoined_AnArchBegunOnTheStemOfA1IsOneFigure() {
        func p(_ x: Float, _ y: Float) -> StrokePoint { StrokePoint(x: x, y: y) }
        func reading(_ drawing: Drawing, left: Int) -> NumberReading {
            let digits = [(left, [0]), (7, [1])].map { d, s in
                ReadDigit(digit: d, confidence: 0.99, notADigit: 0, top: [(d, 0.99)], probabilities: [0.99],
                          box: InkBox(x0: 0, y0: 0, x1: 1, y1: 1), strokes: s)
            }
            var r = NumberReading(text: "\(left)7", confidence: 0.98, digits: digits, threshold: 0.9)
            r.doubtJoined(drawing, reach: 2, share: 0.5)
            return r
        }
        let stem = [p(0, 0), p(0, 100)]
        let n = Drawing(strokes: [stem, [p(1, 30), p(20, 0), p(40, 30), p(40, 100)]])
        XCTAssertEqual(reading(n, left: 1).text, "??")
        XCTAssertEqual(reading(n, left: 1).bestText, "17")
        XCTAssertEqual(reading(n, left: 4).text, "47", "begun on a 4's stroke: no rule")
        let apart = Drawing(strokes: [stem, [p(10, 30), p(30, 0), p(50, 30), p(50, 100)]])
        XCTAssertEqual(reading(apart, left: 1).text, "17")
        // The distance to the path through a stroke's points.
        XCTAssertEqual(NumberReading.distance(from: p(1, 30), to: stem), 1)
        XCTAssertEqual(NumberReading.distance(from: p(3, 120), to: stem), (9 + 400 as Float).squareRoot())
        XCTAssertEqual(NumberReading.distance(from: p(3, 120), to: []), .infinity)
    }

    func testRead_AWDrawnInTheWindowIsNotReadAs1111() throws {
        let path = TestPaths.fixtures.appendingPathComponent("nondigits/027-w.json").path
        let w = try XCTUnwrap(try DrawingLoader.load(path).first).result.get()
        var options = NumberReaderOptions()
        options.joinedShare = 1
        XCTAssertEqual(try TestRecognizers.shipped().read(w, options: options).text, "1111", "read as its strokes, without the rule")
        let reading = try TestRecognizers.shipped().read(w)
        XCTAssertFalse(reading.isAnswered, reading.summary)
        XCTAssertEqual(reading.bestText, "1111")
    }

    /// A tap on a canvas is a dot against the canvas, not a blob filling the box (read as a 4 once).
    func testRead_ALoneTapIsNotADigit() throws {
        let tap = Drawing(strokes: [[StrokePoint(x: 140, y: 140), StrokePoint(x: 141, y: 140.5)]], canvasWidth: 280, canvasHeight: 280)
        XCTAssertFalse(try TestRecognizers.shipped().read(tap).isAnswered)
        XCTAssertNil(try TestRecognizers.shipped().recognize(tap).digit)
    }

    func testRead_MaxDigitsBoundsTheReading() throws {
        var options = NumberReaderOptions()
        options.maxDigits = 2
        let reading = try TestRecognizers.shipped().read(try number([3, 8, 5]).drawing, options: options)
        XCTAssertLessThanOrEqual(reading.digits.count, 2)
    }

    func testRead_EmptyDrawingIsAnEmptyReading() throws {
        let reading = try TestRecognizers.shipped().read(Drawing(strokes: [[], []]))
        XCTAssertTrue(reading.isEmpty)
        XCTAssertEqual(reading.text, "")
        XCTAssertEqual(reading.jsonLine(source: "s", index: 0, label: nil),
                       #"{"source":"s","index":0,"text":"","digit":null,"confidence":0,"top":[],"digits":[],"empty":true}"#)
    }

    func testRead_ThousandsOfTinyStrokesAreRefusedQuickly() throws {
        let strokes = (0..<5000).map { k in [StrokePoint(x: Float(k % 100), y: Float(k / 100))] }
        let started = Date()
        XCTAssertThrowsError(try TestRecognizers.shipped().read(Drawing(strokes: strokes))) { error in
            XCTAssertEqual((error as? DigitError)?.kind, .limit)
            XCTAssertTrue("\(error)".contains("too many parts"), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    func testSegmentation_AStrokeRunningThroughTwoDigitsIsCut() throws {
        // "00" in one stroke: two loops joined at the bottom.
        var points: [StrokePoint] = []
        for loop in 0..<2 {
            let cx = Float(50 + 110 * loop)
            for k in 0...40 {
                let a = Float(k) / 40 * 2 * .pi + .pi / 2
                points.append(StrokePoint(x: cx + 40 * cos(a), y: 50 + 50 * sin(a)))
            }
        }
        let segmentation = try Segmentation(Drawing(strokes: [points]))
        XCTAssertGreaterThan(segmentation.pieces.count, 1, "the joined stroke is cut")
        XCTAssertTrue(segmentation.pieces.allSatisfy { $0.stroke == 0 })
    }

    func testComposer_IsDeterministicAndKeepsWritingOrderAndLabels() throws {
        let a = try number([7, 1, 9], gap: -0.1...0.6, seed: 11), b = try number([7, 1, 9], gap: -0.1...0.6, seed: 11)
        XCTAssertEqual(a.drawing, b.drawing)
        XCTAssertEqual(a.drawing.label, "719")
        XCTAssertEqual(a.strokeDigit, a.strokeDigit.sorted(), "strokes in writing order, digit by digit")
        XCTAssertEqual(Set(a.strokeDigit), [0, 1, 2])
        let c = try number([7, 1, 9], gap: -0.1...0.6, seed: 12)
        XCTAssertNotEqual(a.drawing, c.drawing)
    }

    func testReport_AlignmentCountsSplitsAndMerges() {
        XCTAssertEqual(NumberEvaluationReport.align(Array("2026".utf8), Array("2026".utf8)).distance, 0)
        let split = NumberEvaluationReport.align(Array("41".utf8), Array("411".utf8))
        XCTAssertEqual(split.distance, 1)
        XCTAssertEqual(split.insertions, 1)
        let merged = NumberEvaluationReport.align(Array("2026".utf8), Array("206".utf8))
        XCTAssertEqual(merged.deletions, 1)
        var report = NumberEvaluationReport()
        let reading = NumberReading(text: "20?6", confidence: 0.5, digits: [], threshold: 0.9)
        report.add(reading, label: "2026")
        report.add(reading, label: "A")
        XCTAssertEqual(report.numbers, 1)
        XCTAssertEqual(report.answered, 0)
        XCTAssertEqual(report.refused, 1)
        XCTAssertEqual(report.nonNumbers, 1)
        XCTAssertFalse(report.table.contains("wrong readings"), "nothing to say without expected scores")
    }

    func testReport_CountsNumbersHeldBackOnlyByTheNotADigitShare() {
        let box = InkBox(x0: 0, y0: 0, x1: 1, y1: 1)
        func digit(_ d: Int, _ p: Float, notADigit: Float) -> ReadDigit {
            ReadDigit(digit: p >= 0.9 ? d : nil, confidence: p, notADigit: notADigit, top: [(d, p)], box: box, strokes: [])
        }
        var report = NumberEvaluationReport()
        // 0.86 ≥ 0.9 × (1 − 0.1): held back by the "not a digit" share alone.
        report.add(NumberReading(digits: [digit(1, 0.99, notADigit: 0), digit(2, 0.86, notADigit: 0.1)], threshold: 0.9), label: "12")
        // 0.80 < 0.9 × (1 − 0.1): not sure which digit, whatever that share.
        report.add(NumberReading(digits: [digit(1, 0.99, notADigit: 0), digit(2, 0.80, notADigit: 0.1)], threshold: 0.9), label: "12")
        // One digit held back, the other not sure: the number is not held back by the share alone.
        report.add(NumberReading(digits: [digit(1, 0.5, notADigit: 0), digit(2, 0.86, notADigit: 0.1)], threshold: 0.9), label: "12")
        // A digit cut by the frame is not answered whatever its share.
        var cut = digit(2, 0.86, notADigit: 0.1)
        cut.isCutByFrame = true
        report.add(NumberReading(digits: [digit(1, 0.99, notADigit: 0), cut], threshold: 0.9), label: "12")
        // A letter refused only by that share.
        report.add(NumberReading(digits: [digit(4, 0.86, notADigit: 0.1)], threshold: 0.9), label: "H")
        report.add(NumberReading(digits: [digit(4, 0.40, notADigit: 0.55)], threshold: 0.9), label: "H")
        XCTAssertEqual(report.answered, 0)
        XCTAssertEqual(report.numbersHeldBack, 1)
        XCTAssertEqual(report.refused, 2)
        XCTAssertEqual(report.nonNumbersHeldBack, 1)
        XCTAssertTrue(report.table.contains("(2 of 2: 1 \"not a digit\", 1 \"not sure\"; 1 held back by the \"not a digit\" share)"), report.table)
        XCTAssertTrue(report.table.contains("1 held back by the \"not a digit\" share"), report.table)
        XCTAssertTrue(report.json.contains("\"held_back_by_not_a_digit\":1"), report.json)
    }

    func testLines_ADrawingInTwoLinesIsReadLineByLineTopToBottom() throws {
        var composer = NumberComposer()
        composer.gap = 0.3...0.3
        composer.size = 1...1
        composer.baseline = 0
        var rng = SplitMix64(seed: 3)
        let top = composer.compose([try TestPaths.digitDrawing(1), try TestPaths.digitDrawing(2)], rng: &rng)
        let bottom = composer.compose([try TestPaths.digitDrawing(3), try TestPaths.digitDrawing(4)], rng: &rng)
        let note = composer.stacked([top, bottom])
        XCTAssertEqual(Segmentation.lines(note.drawing).count, 2)
        let reading = try TestRecognizers.shipped().read(note.drawing)
        XCTAssertEqual(reading.text, "12 34", reading.summary)
        XCTAssertEqual(reading.lines, [0..<2, 2..<4])
        // Each digit names its own strokes of the whole drawing.
        for (position, digit) in reading.digits.enumerated() {
            XCTAssertEqual(digit.strokes, note.strokeDigit.indices.filter { note.strokeDigit[$0] == position })
        }
        // One line, and a 5 whose hat is lifted clear of its body, stay one line.
        XCTAssertEqual(Segmentation.lines(top.drawing).count, 1)
        XCTAssertEqual(Segmentation.lines(try ImageReaderTests.fiveWithLoneHat()).count, 1)
        XCTAssertEqual(try TestRecognizers.shipped().read(try ImageReaderTests.fiveWithLoneHat()).text, "5")
        // Lines closer than 0.3 of a line's height are one.
        composer.lineGap = 0.1
        XCTAssertEqual(Segmentation.lines(composer.stacked([top, bottom]).drawing).count, 1)
    }

    func testLines_AReadingOfSeveralLinesSpacesThemAndIsCountedAgainstALabelWithSpaces() {
        let box = InkBox(x0: 0, y0: 0, x1: 1, y1: 1)
        func line(_ digits: [(Int, Float)]) -> NumberReading {
            NumberReading(digits: digits.map { ReadDigit(digit: $0.1 >= 0.9 ? $0.0 : nil, confidence: $0.1, notADigit: 0, top: [($0.0, $0.1)],
                                                         box: box, strokes: []) }, threshold: 0.9)
        }
        let reading = NumberReading(lines: [line([(9, 0.99)]), line([(5, 0.99), (3, 0.5), (5, 0.95), (1, 0.98)])])
        XCTAssertEqual(reading.text, "9 5?51")
        XCTAssertEqual(reading.bestText, "9 5351")
        XCTAssertEqual(reading.lineStarts, [1])
        XCTAssertEqual(reading.lines, [0..<1, 1..<5])
        XCTAssertEqual(reading.confidence, 0.99 * 0.99 * 0.5 * 0.95 * 0.98, accuracy: 1e-6)
        XCTAssertEqual(NumberReading(lines: [line([(7, 0.99)])]).lines, [0..<1], "one line: as it is")
        XCTAssertEqual(NumberReading.empty(threshold: 0.9).lines, [], "no digits, no lines")
        var report = NumberEvaluationReport()
        report.add(reading, label: "9 5351")
        report.add(reading, label: "9 5357")
        XCTAssertEqual([report.numbers, report.exact, report.answered, report.nonNumbers], [2, 1, 0, 0])
        XCTAssertEqual(report.labelDigits, 10, "the spaces are not digits")
        XCTAssertFalse(NumberEvaluationReport.isNumbers("9  5351"))
        XCTAssertFalse(NumberEvaluationReport.isNumbers(" 95"))
        XCTAssertFalse(NumberEvaluationReport.isNumbers(""))
        XCTAssertTrue(NumberEvaluationReport.isNumbers("2026"))
    }

    /// A reading of `best`, digit by digit with `probabilities` (below 0.9: `?`).
    private func reading(_ best: String, _ probabilities: [Float]) -> NumberReading {
        let box = InkBox(x0: 0, y0: 0, x1: 1, y1: 1)
        return NumberReading(digits: zip(best, probabilities).map { c, p in
            let d = Int(String(c))!
            return ReadDigit(digit: p >= 0.9 ? d : nil, confidence: p, notADigit: 0, top: [(d, p)], box: box, strokes: [])
        }, threshold: 0.9)
    }

    /// Eight items:
    ///
    ///     source  label  reading (best)   confidence  answered  right
    ///     a       7      7                0.99        yes       yes
    ///     b       3      8                0.95        yes       no      answered wrong
    ///     c       12     12               0.98        yes       yes
    ///     d       45     4? (46)          0.6         no        –       best reading wrong
    ///     e       45     4? (45)          0.7         no        –       best reading right
    ///     f       19a    19               0.97        yes       no      not a number, answered
    ///     g       Sn     ?                0.5         no        –       refused
    ///     h       100    10? (100)        0.5         no        –       best reading right
    private func lengthsAndMisses() -> NumberEvaluationReport {
        var report = NumberEvaluationReport()
        report.add(reading("7", [0.99]), label: "7", source: "a")
        report.add(reading("8", [0.95]), label: "3", source: "b")
        report.add(reading("12", [0.99, 0.99]), label: "12", source: "c")
        report.add(reading("46", [1, 0.6]), label: "45", source: "d")
        report.add(reading("45", [1, 0.7]), label: "45", source: "e")
        report.add(reading("19", [0.99, 0.98]), label: "19a", source: "f")
        report.add(reading("5", [0.5]), label: "Sn", source: "g")
        report.add(reading("100", [1, 1, 0.5]), label: "100", source: "h")
        return report
    }

    func testReport_FiguresByTheNumbersLength() {
        let report = lengthsAndMisses()
        XCTAssertEqual([report.numbers, report.exact, report.answered, report.answeredRight, report.nonNumbers, report.refused], [6, 4, 3, 2, 2, 1])
        XCTAssertEqual(report.byLength.map { [$0.digits, $0.count, $0.exact, $0.answered, $0.answeredRight] },
                       [[1, 2, 1, 2, 1], [2, 3, 2, 1, 1], [3, 1, 1, 0, 0]])
        XCTAssertEqual(report.byLength[0].selectiveAccuracy, 0.5)
        XCTAssertEqual(report.byLength[2].selectiveAccuracy, 1, "nothing answered: nothing answered wrong")
        XCTAssertEqual(report.byLength[1].exactMatch, 2.0 / 3, accuracy: 1e-12)
        XCTAssertTrue(report.table.contains("\nanswered right       33.33%   (2 of 6: answered and read exactly)\n"), report.table)
        XCTAssertTrue(report.table.contains("""

            by length       count     exact  answered  right among answered
                1 digit         2    50.00%   100.00%    50.00%   (1 wrong)
                2 digits        3    66.67%    33.33%   100.00%   (0 wrong)
                3 digits        1   100.00%     0.00%   100.00%   (0 wrong)

            """), report.table)
    }

    func testReport_WorstReadingsAreTheConfidentlyWrongAnswersThenTheWrongUnanswered() {
        let report = lengthsAndMisses()
        XCTAssertEqual(report.confidentlyWrong.map(\.source), ["f", "b"], "most confident first; a non-number answered is wrong")
        XCTAssertEqual(report.confidentlyWrong.map(\.isNumber), [false, true])
        XCTAssertEqual(report.wrongNotAnswered, [NumberEvaluationReport.Miss(source: "d", label: "45", text: "4?", best: "46", confidence: 0.6,
                                                                             isAnswered: false, isNumber: true)])
        XCTAssertEqual(report.worst.map(\.source), ["f", "b", "d"])
        XCTAssertEqual([report.answeredWrong, report.notAnsweredWrong], [2, 1])
        XCTAssertTrue(report.table.hasSuffix("""

            answered but wrong, most confident first (2 of 2)
              confidence  reading       label  source
                  97.02%  19            19a    f  (not a number)
                  95.00%  8             3      b

            not answered, best reading wrong, most confident first (1 of 1)
              confidence  reading       label  source
                  60.00%  4? (best 46)  45     d

            """), report.table)

        // Each list keeps the `worstCount` most confident, the earlier first on a tie.
        var bounded = NumberEvaluationReport()
        bounded.worstCount = 2
        for (source, p) in [("x", Float(0.91)), ("y", 0.99), ("z", 0.95), ("w", 0.99)] {
            bounded.add(reading("8", [p]), label: "3", source: source)
        }
        XCTAssertEqual(bounded.confidentlyWrong.map(\.source), ["y", "w"])
        XCTAssertEqual(bounded.answeredWrong, 4)
    }

    func testReport_JSONGivesTheLengthsAndTheWorstReadings() throws {
        let report = lengthsAndMisses()
        let value = try JSONParser.parse(report.json)
        XCTAssertEqual(value, report.jsonValue)
        XCTAssertEqual(value["numbers"], .number(6))
        XCTAssertEqual(value["answered_right"], .number(2))
        guard case let .array(lengths)? = value["by_length"], case let .array(worst)? = value["worst"] else {
            return XCTFail(report.json)
        }
        XCTAssertEqual(lengths.map { $0["digits"] }, [.number(1), .number(2), .number(3)])
        XCTAssertEqual(lengths[1], .object([JSONMember("digits", .number(2)), JSONMember("count", .number(3)), JSONMember("exact", .number(2)),
                                            JSONMember("answered", .number(1)), JSONMember("answered_right", .number(1)),
                                            JSONMember("exact_match", .number(2.0 / 3)), JSONMember("coverage", .number(1.0 / 3)),
                                            JSONMember("selective_accuracy", .number(1))]))
        XCTAssertEqual(worst.map { $0["source"] }, [.string("f"), .string("b"), .string("d")])
        XCTAssertEqual(worst[0], .object([JSONMember("source", .string("f")), JSONMember("label", .string("19a")), JSONMember("text", .string("19")),
                                          JSONMember("best", .string("19")), JSONMember("confidence", .number(0.9702)),
                                          JSONMember("answered", .bool(true)), JSONMember("number", .bool(false))]))
        XCTAssertTrue(report.json.hasPrefix("{\"numbers\":6,\"exact_match\":0.6666666666666666,"), report.json)
    }

    func testReport_SaysWhyReadingsAreWrong() {
        var report = NumberEvaluationReport()
        func reading(_ digits: [Int], score: Float, expected: Float?) -> NumberReading {
            let box = InkBox(x0: 0, y0: 0, x1: 1, y1: 1)
            var r = NumberReading(digits: digits.map { ReadDigit(digit: $0, confidence: 1, notADigit: 0, top: [($0, 1)], box: box, strokes: []) }, threshold: 0.9)
            r.score = score
            r.expectedScore = expected
            return r
        }
        report.add(reading([1, 2], score: -1, expected: -1), label: "12")          // right
        report.add(reading([1, 7], score: -1, expected: -3), label: "12")          // the right digits scored lower
        report.add(reading([1, 7], score: -1, expected: -0.5), label: "12")        // scored higher, not reached
        report.add(reading([1, 7], score: -1, expected: -.infinity), label: "12")  // never cut that way
        report.add(reading([1, 7], score: -1, expected: nil), label: "12")         // not analysed
        XCTAssertEqual(report.exact, 1)
        XCTAssertEqual([report.wrongScoredLower, report.wrongNotReached, report.wrongNotAmongCandidates], [1, 1, 1])
        XCTAssertTrue(report.table.contains("wrong readings       3: right digits among the candidates, scored lower 1; scored higher, not reached 1; not among them 1"), report.table)
    }
}
