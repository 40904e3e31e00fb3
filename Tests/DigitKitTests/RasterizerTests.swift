@testable import DigitKit
import Foundation
import DigitTestSupport
import XCTest

/// Conventions checked here: the image is 28×28, row-major, y downward; pixel (column i, row j)
/// has its centre at (i, j) ("index coordinates"); the centre of mass Σ v·(i, j) / Σ v must be
/// at (14, 14).
final class RasterizerTests: XCTestCase {
    static let strokes = TestPaths.fixtures.appendingPathComponent("strokes")
    static let golden = TestPaths.fixtures.appendingPathComponent("raster-golden")
    /// Options fixed for golden images, independent of the tunable defaults.
    static let goldenOptions = RasterOptions(penWidth: 2, softness: 1, box: 20, smoothing: .none, minimumExtent: 0.04)

    private func fixture(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> Drawing {
        let records = try DrawingLoader.load(Self.strokes.appendingPathComponent(name + ".json").path)
        XCTAssertEqual(records.count, 1, file: file, line: line)
        return try XCTUnwrap(records.first, file: file, line: line).result.get()
    }

    private func allFixtureDrawings() throws -> [(String, Drawing)] {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.strokes.path)
            .filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 63)
        return try names.map { ($0, try fixture(String($0.dropLast(5)))) }
    }

    private func points(_ xy: [(Float, Float)]) -> [StrokePoint] { xy.map { StrokePoint(x: $0.0, y: $0.1) } }

    /// Fails with the largest difference and where it is, instead of printing two 784-value arrays.
    private func assertImagesEqual(_ a: [Float], _ b: [Float], tolerance: Float = 0, _ message: String = "",
                                   file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.count, b.count, message, file: file, line: line)
        var worst: (Float, Int) = (0, -1)
        for i in a.indices where i < b.count {
            let difference = a[i] == b[i] ? 0 : abs(a[i] - b[i])
            if !(difference <= worst.0) { worst = (difference, i) }
        }
        XCTAssertTrue(worst.0 <= tolerance,
                      "\(message): largest difference \(worst.0) at column \(worst.1 % 28), row \(worst.1 / 28) (\(a[max(worst.1, 0)]) vs \(b[max(worst.1, 0)]))",
                      file: file, line: line)
    }

    /// Rows and columns holding any ink: (first column, last column, first row, last row).
    private func inkBox(_ image: [Float]) -> (Int, Int, Int, Int)? {
        var box: (Int, Int, Int, Int)?
        for row in 0..<28 {
            for column in 0..<28 where image[row * 28 + column] > 0 {
                if let b = box {
                    box = (min(b.0, column), max(b.1, column), min(b.2, row), max(b.3, row))
                } else {
                    box = (column, column, row, row)
                }
            }
        }
        return box
    }

    // MARK: Golden images

    static let goldenCases: [(String, Drawing, RasterOptions)] = {
        func p(_ xy: [(Float, Float)]) -> [StrokePoint] { xy.map { StrokePoint(x: $0.0, y: $0.1) } }
        var smooth = goldenOptions
        smooth.smoothing = .catmullRom
        return [
            ("single-point", Drawing(strokes: [p([(5, 5)])]), goldenOptions),
            ("diagonal", Drawing(strokes: [p([(0, 0), (10, 10)])]), goldenOptions),
            ("corner", Drawing(strokes: [p([(0, 0), (0, 20), (10, 20)])]), goldenOptions),
            ("plus", Drawing(strokes: [p([(0, 10), (20, 10)]), p([(10, 0), (10, 20)])]), goldenOptions),
            ("triangle", Drawing(strokes: [p([(0, 20), (10, 0), (20, 20), (0, 20)])]), goldenOptions),
            ("wide-pen", Drawing(strokes: [p([(0, 0), (30, 5), (10, 25)])]),
             RasterOptions(penWidth: 3.5, softness: 1.5, box: 20, smoothing: .none, minimumExtent: 0)),
            ("sparse-curve-catmull-rom", Drawing(strokes: [p([(0, 10), (10, 0), (20, 10), (10, 20), (2, 14)])]), smooth),
        ]
    }()

    /// 28 lines of 28 numbers, each the shortest text that reads back to the same Float.
    static func goldenText(_ image: [Float]) -> String {
        (0..<28).map { row in
            (0..<28).map { column -> String in
                let v = image[row * 28 + column]
                return v == 0 ? "0" : v.description
            }.joined(separator: " ")
        }.joined(separator: "\n") + "\n"
    }

    /// Compares with Fixtures/raster-golden/NAME.txt exactly. With DIGITS_REGENERATE_GOLDEN=1 the
    /// files are rewritten instead (review the diff before committing).
    func testRasterize_MatchesGoldenImagesExactly() throws {
        let regenerate = ProcessInfo.processInfo.environment["DIGITS_REGENERATE_GOLDEN"] == "1"
        for (name, drawing, options) in Self.goldenCases {
            let text = Self.goldenText(Rasterizer(options: options).rasterize(drawing))
            let url = Self.golden.appendingPathComponent(name + ".txt")
            if regenerate {
                try FileIO.writeAtomically(text, to: url.path)
                continue
            }
            let expected = try String(contentsOf: url, encoding: .utf8)
            XCTAssertEqual(text, expected, "\(name): the 28×28 buffer differs from \(url.path)")
            // The text form is exact: parsing it gives back the same floats.
            let parsed = expected.split(whereSeparator: { $0 == " " || $0 == "\n" }).map { Float(String($0)) }
            XCTAssertEqual(parsed, Rasterizer(options: options).rasterize(drawing).map { Optional($0) }, name)
        }
    }

    func testGolden_SinglePointIsASymmetricRoundDot() throws {
        let image = Rasterizer(options: Self.goldenOptions).rasterize(Drawing(strokes: [points([(5, 5)])]))
        // Centred on pixel (14, 14): symmetric in both axes and across the diagonal.
        for row in 0..<28 {
            for column in 0..<28 {
                let v = image[row * 28 + column]
                XCTAssertEqual(v, image[row * 28 + (28 - column) % 28], "mirror x at \(column),\(row)")
                XCTAssertEqual(v, image[((28 - row) % 28) * 28 + column], "mirror y at \(column),\(row)")
                XCTAssertEqual(v, image[column * 28 + row], "transpose at \(column),\(row)")
            }
        }
        XCTAssertEqual(image[14 * 28 + 14], 1)
        XCTAssertEqual(image[14 * 28 + 15], 0.5)   // distance 1 = pen radius: coverage one half
        XCTAssertEqual(image[14 * 28 + 16], 0)     // distance 2 > 1.5 = radius + softness/2
        XCTAssertEqual(inkBox(image)?.0, 13)
        XCTAssertEqual(inkBox(image)?.1, 15)
    }

    // MARK: Geometry

    func testRasterize_CenterOfMassIsAtFourteenFourteen() throws {
        var drawings = try allFixtureDrawings().filter { !$0.1.isEmpty }
        drawings += Self.goldenCases.map { ($0.0, $0.1) }
        var worst: Float = 0
        for (name, drawing) in drawings {
            for options in [RasterOptions(), RasterOptions(penWidth: 3, softness: 1.5), RasterOptions(smoothing: .catmullRom)] {
                let image = Rasterizer(options: options).rasterize(drawing)
                let mass = try XCTUnwrap(Rasterizer.centerOfMass(image), name)
                let error = max(abs(mass.x - 14), abs(mass.y - 14))
                worst = max(worst, error)
                XCTAssertLessThanOrEqual(error, 0.5, "\(name) \(options): centre of mass \(mass)")
            }
        }
        // Sub-pixel placement does much better than the 0.5 px that integer shifts allow.
        XCTAssertLessThan(worst, 0.1, "worst centre-of-mass error \(worst)")
    }

    func testRasterize_InkFitsTheTwentyPixelBoxAndTouchesItOnTheLongerSide() throws {
        for (name, drawing) in try allFixtureDrawings() where !drawing.isEmpty && !name.contains("dot") && !name.contains("point") {
            let image = Rasterizer().rasterize(drawing)
            let box = try XCTUnwrap(inkBox(image), name)
            let width = box.1 - box.0 + 1, height = box.3 - box.2 + 1
            XCTAssertLessThanOrEqual(width, 20, name)
            XCTAssertLessThanOrEqual(height, 20, name)
            XCTAssertGreaterThanOrEqual(max(width, height), 19, name)
            XCTAssertTrue(image.allSatisfy { (0...1).contains($0) }, name)
            XCTAssertEqual(image.max(), 1, name)
        }
    }

    func testRasterize_TallOneStaysThin() throws {
        let image = Rasterizer().rasterize(try fixture("edge-vertical-line"))
        let box = try XCTUnwrap(inkBox(image))
        XCTAssertTrue((19...20).contains(box.3 - box.2 + 1), "height \(box.3 - box.2 + 1)")
        XCTAssertLessThanOrEqual(box.1 - box.0 + 1, 8, "width")
        let slantedOne = Rasterizer().rasterize(try fixture("digit-1-a"))
        let oneBox = try XCTUnwrap(inkBox(slantedOne))
        XCTAssertTrue((19...20).contains(oneBox.3 - oneBox.2 + 1))
        XCTAssertLessThanOrEqual(oneBox.1 - oneBox.0 + 1, 8)
    }

    func testRasterize_HorizontalLineStaysFlat() throws {
        let image = Rasterizer().rasterize(try fixture("edge-horizontal-line"))
        let box = try XCTUnwrap(inkBox(image))
        XCTAssertTrue((19...20).contains(box.1 - box.0 + 1), "width \(box.1 - box.0 + 1)")
        XCTAssertLessThanOrEqual(box.3 - box.2 + 1, 5, "height")
    }

    func testRasterize_SparsePointsMakeAContinuousStroke() {
        // Two samples far apart, as a 100 ms tablet gives on a fast stroke: the segment is drawn.
        let image = Rasterizer().rasterize(Drawing(strokes: [points([(0, 0), (0, 500)])]))
        XCTAssertTrue((19...20).contains(inkBox(image).map { $0.3 - $0.2 + 1 } ?? 0))
        for row in 6...21 { XCTAssertEqual(image[row * 28 + 14], 1, "row \(row) of the line is inked") }
    }

    func testRasterize_OverlapsCombineByMaximum() {
        let once = Drawing(strokes: [points([(0, 0), (10, 30), (20, 0)])])
        let retraced = Drawing(strokes: Array(repeating: once.strokes[0], count: 4)
            + [points([(20, 0), (10, 30), (0, 0)])])
        let a = Rasterizer().rasterize(once), b = Rasterizer().rasterize(retraced)
        // Drawing the same path again changes nothing (up to rounding of reversed segments).
        assertImagesEqual(a, b, tolerance: 1e-5, "retraced")
        XCTAssertEqual(b.max(), 1)
        let repeated = Drawing(strokes: Array(repeating: once.strokes[0], count: 3))
        XCTAssertEqual(Rasterizer().rasterize(repeated), a, "identical repeats are bit-identical")
    }

    func testRasterize_StrokeOrderAndDirectionDoNotMatter() throws {
        let drawing = try fixture("digit-4-a")
        var reordered = drawing
        reordered.strokes.reverse()
        XCTAssertEqual(Rasterizer().rasterize(drawing), Rasterizer().rasterize(reordered), "order: bit-identical")
        var reversed = drawing
        reversed.strokes = drawing.strokes.map { $0.reversed() }
        // Direction changes which points closer than 0.2 px get merged, so only nearly equal.
        assertImagesEqual(Rasterizer().rasterize(drawing), Rasterizer().rasterize(reversed), tolerance: 0.01, "direction")
    }

    func testRasterize_TranslationAndUniformScaleDoNotMatter() throws {
        let base = Drawing(strokes: [points([(0, 0), (12, 3), (5, 20)]), points([(2, 10), (11, 9)])])
        func moved(_ scale: Float, _ dx: Float, _ dy: Float) -> Drawing {
            Drawing(strokes: base.strokes.map { $0.map { StrokePoint(x: $0.x * scale + dx, y: $0.y * scale + dy) } })
        }
        let reference = Rasterizer().rasterize(base)
        for (scale, dx, dy) in [(1, -300, -800), (7.5, 1000, 20), (2e5, 4e6, -3e6), (0.001, 0, 0)] as [(Float, Float, Float)] {
            let image = Rasterizer().rasterize(moved(scale, dx, dy))
            let difference = zip(reference, image).map { abs($0 - $1) }.max() ?? 0
            XCTAssertLessThan(difference, 0.02, "scale \(scale) offset \(dx),\(dy)")
        }
    }

    // MARK: Edge cases

    func testRasterize_EmptyDrawingsAreBlank() throws {
        XCTAssertEqual(Rasterizer().rasterize(Drawing(strokes: [])), [Float](repeating: 0, count: 784))
        XCTAssertEqual(Rasterizer().rasterize(try fixture("edge-empty-strokes")), [Float](repeating: 0, count: 784))
        let nanOnly = Drawing(strokes: [[StrokePoint(x: .nan, y: 3), StrokePoint(x: 1, y: .infinity)]])
        XCTAssertEqual(Rasterizer().rasterize(nanOnly), [Float](repeating: 0, count: 784))
    }

    func testRasterize_IdenticalPointsMakeTheSameDotAsOnePoint() throws {
        let single = Rasterizer().rasterize(try fixture("edge-single-point"))
        let identical = Rasterizer().rasterize(try fixture("edge-identical-points"))
        XCTAssertEqual(single, identical)
        let box = try XCTUnwrap(inkBox(single))
        XCTAssertEqual(box.1 - box.0, box.3 - box.2, "round")
        XCTAssertLessThanOrEqual(box.1 - box.0 + 1, 4, "about the pen width")
    }

    func testRasterize_NonFinitePointsAreIgnored() {
        let clean = Drawing(strokes: [points([(0, 0), (10, 20), (20, 5)])])
        var dirty = clean
        dirty.strokes[0].insert(StrokePoint(x: .nan, y: 4), at: 1)
        dirty.strokes.append([StrokePoint(x: .infinity, y: 0)])
        XCTAssertEqual(Rasterizer().rasterize(clean), Rasterizer().rasterize(dirty))
    }

    func testRasterize_HugeAndNegativeCoordinatesLookLikeTheOrdinaryDigit() throws {
        let huge = Rasterizer().rasterize(try fixture("edge-huge-coordinates"))
        var seven = try fixture("digit-7-a")
        seven.canvasWidth = nil
        seven.canvasHeight = nil
        assertImagesEqual(huge, Rasterizer().rasterize(seven), tolerance: 0.05, "huge")
        let negative = Rasterizer().rasterize(try fixture("edge-negative-coordinates"))
        var four = try fixture("digit-4-a")
        four.canvasWidth = nil
        four.canvasHeight = nil
        assertImagesEqual(negative, Rasterizer().rasterize(four), tolerance: 1e-3, "negative")
        // Far beyond the file limits (a Drawing built in code): finite output, still centred.
        let extreme = Drawing(strokes: [points([(-3e38, -3e38), (3e38, 3e38)])])
        let image = Rasterizer().rasterize(extreme)
        XCTAssertTrue(image.allSatisfy(\.isFinite))
        let mass = try XCTUnwrap(Rasterizer.centerOfMass(image))
        XCTAssertEqual(mass.x, 14, accuracy: 0.1)
    }

    func testRasterize_DenseInputIsFastAndMatchesTheSparsePath() throws {
        let dense = try fixture("edge-dense")
        XCTAssertEqual(dense.pointCount, 20_000)
        let start = Date()
        let image = Rasterizer().rasterize(dense)
        XCTAssertLessThan(Date().timeIntervalSince(start), 1.0, "20,000 points in a debug build")
        let box = try XCTUnwrap(inkBox(image))
        XCTAssertTrue((19...20).contains(max(box.1 - box.0, box.3 - box.2) + 1))
    }

    func testRasterize_TimeIsLinearInThePointCount() {
        func spiral(_ count: Int) -> Drawing {
            Drawing(strokes: [(0..<count).map { i in
                let a = Float(i) * 0.001
                return StrokePoint(x: 140 + 100 * cos(a) * Float(i % 977) / 977, y: 140 + 100 * sin(a))
            }])
        }
        let small = spiral(25_000), large = spiral(200_000)
        func time(_ drawing: Drawing) -> Double {
            let start = Date()
            _ = Rasterizer().rasterize(drawing)
            return Date().timeIntervalSince(start)
        }
        _ = time(small)
        let ratio = time(large) / max(time(small), 1e-4)
        XCTAssertLessThan(ratio, 24, "8x the points took \(ratio)x the time (quadratic would be 64x)")
    }

    func testRasterize_TinyDrawingOnAKnownCanvasStaysSmall() throws {
        let tap = try fixture("nondigit-dot")
        let box = try XCTUnwrap(inkBox(Rasterizer().rasterize(tap)))
        XCTAssertLessThanOrEqual(max(box.1 - box.0, box.3 - box.2) + 1, 10)
        var noCanvas = tap
        noCanvas.canvasWidth = nil
        noCanvas.canvasHeight = nil
        let enlarged = try XCTUnwrap(inkBox(Rasterizer().rasterize(noCanvas)))
        XCTAssertTrue((19...20).contains(max(enlarged.1 - enlarged.0, enlarged.3 - enlarged.2) + 1), "without a canvas, MNIST scaling")
    }

    // MARK: Kernels and API

    func testFastKernel_MatchesTheReferenceKernelBitForBit() throws {
        var cases = try allFixtureDrawings().map(\.1)
        cases += Self.goldenCases.map(\.1)
        for (index, drawing) in cases.enumerated() where drawing.pointCount < 5000 {
            for options in [RasterOptions(), RasterOptions(penWidth: 3.3, softness: 0.4), RasterOptions(penWidth: 1, softness: 2.5),
                            RasterOptions(smoothing: .catmullRom), RasterOptions(smoothing: .sparse)] {
                let rasterizer = Rasterizer(options: options)
                var fast = [Float](repeating: -1, count: 784), reference = [Float](repeating: -1, count: 784)
                fast.withUnsafeMutableBufferPointer { rasterizer.rasterize(drawing, into: $0, kernel: .fast) }
                reference.withUnsafeMutableBufferPointer { rasterizer.rasterize(drawing, into: $0, kernel: .reference) }
                assertImagesEqual(fast, reference, "case \(index) with \(options)")
            }
        }
    }

    func testRasterizeInto_WritesOnly784ValuesAndIgnoresSmallBuffers() {
        let drawing = Drawing(strokes: [points([(0, 0), (5, 9)])])
        var big = [Float](repeating: 7, count: 800)
        big.withUnsafeMutableBufferPointer { Rasterizer().rasterize(drawing, into: $0) }
        XCTAssertEqual(Array(big[..<784]), Rasterizer().rasterize(drawing))
        XCTAssertEqual(Array(big[784...]), [Float](repeating: 7, count: 16))
        var small = [Float](repeating: 7, count: 100)
        small.withUnsafeMutableBufferPointer { Rasterizer().rasterize(drawing, into: $0) }
        XCTAssertEqual(small, [Float](repeating: 7, count: 100))
    }

    func testCatmullRom_PassesThroughThePointsAndRoundsCorners() throws {
        let sparse = Drawing(strokes: [points([(0, 0), (10, 0), (10, 10), (0, 10)])])
        let smooth = CatmullRom.smooth(sparse, step: 1)
        let stroke = try XCTUnwrap(smooth.strokes.first)
        XCTAssertGreaterThan(stroke.count, 25)
        for original in sparse.strokes[0] { XCTAssertTrue(stroke.contains(original), "\(original) kept") }
        XCTAssertNotEqual(Rasterizer(options: RasterOptions(smoothing: .catmullRom)).rasterize(sparse), Rasterizer().rasterize(sparse))
        // Coincident neighbours leave the segment straight instead of producing NaN.
        let repeated = CatmullRom.smooth(Drawing(strokes: [points([(0, 0), (0, 0), (5, 5), (9, 0)])]), step: 0.5)
        XCTAssertTrue(repeated.strokes[0].allSatisfy { $0.x.isFinite && $0.y.isFinite })
    }

    func testSparse_SmoothsOnlyAStrokeWhosePointsLieFarApart() throws {
        // A circle of 40 points (80 units wide, 4 an output pixel: its points lie 1.6 pixels
        // apart) is drawn as recorded; with 10 points (6.3 apart), along the spline; and in a
        // drawing of both, only the sparse stroke is smoothed.
        func circle(_ n: Int, dx: Float = 0) -> [StrokePoint] {
            (0...n).map { k in StrokePoint(x: dx + 50 + 40 * cos(2 * .pi * Float(k) / Float(n)), y: 50 + 40 * sin(2 * .pi * Float(k) / Float(n))) }
        }
        let sparse = RasterOptions(smoothing: .sparse), spline = RasterOptions(smoothing: .catmullRom)
        let dense = Drawing(strokes: [circle(40)])
        XCTAssertEqual(Rasterizer(options: sparse).rasterize(dense), Rasterizer().rasterize(dense))
        XCTAssertNotEqual(Rasterizer(options: spline).rasterize(dense), Rasterizer().rasterize(dense), "the spline alone would change it")
        let few = Drawing(strokes: [circle(10)])
        XCTAssertEqual(Rasterizer(options: sparse).rasterize(few), Rasterizer(options: spline).rasterize(few))
        XCTAssertNotEqual(Rasterizer(options: sparse).rasterize(few), Rasterizer().rasterize(few))
        // Side by side the drawing is 180 wide, 9 units an output pixel: the 40-point circle's
        // points lie 0.7 pixels apart, the 6-point circle's 4.7.
        let both = Drawing(strokes: [circle(40), circle(6, dx: 100)])
        let smoothed = CatmullRom.smooth(both, step: 9, onlySparse: true)
        XCTAssertEqual(smoothed.strokes[0], both.strokes[0])
        XCTAssertGreaterThan(smoothed.strokes[1].count, both.strokes[1].count)
        // Reading draws that way (the weight file's options), training as recorded.
        XCTAssertEqual(try ModelFile.load(path: TestPaths.weights.path).rasterOptions.smoothing, .sparse)
        XCTAssertEqual(RasterOptions().smoothing, .none)
    }

    func testRasterize_OutOfRangeOptionsAreClampedNotTrapped() {
        let drawing = Drawing(strokes: [points([(0, 0), (10, 20)])])
        let nanOptions = RasterOptions(penWidth: .nan, softness: .infinity, box: .nan, minimumExtent: .nan)
        XCTAssertEqual(Rasterizer(options: nanOptions).rasterize(drawing), Rasterizer().rasterize(drawing), "NaN takes the defaults")
        for options in [RasterOptions(penWidth: 1e30, softness: 0), RasterOptions(penWidth: -5, softness: -1, box: 1e9),
                        RasterOptions(box: 0, minimumExtent: 50)] {
            let image = Rasterizer(options: options).rasterize(drawing)
            XCTAssertTrue(image.allSatisfy { $0.isFinite && (0...1).contains($0) }, "\(options)")
        }
    }
}
