import DigitFormats
import DigitKit
import DigitTestSupport
import XCTest

/// Soft copies of real scans (`ScanDegradation`, `digits train --recipe paper --soft-scans`): the
/// ink's edges soften, the image keeps its size, a seed gives the same copy, and a folder's copies
/// are cut and cached apart from its sharp lines.
final class ScanDegradationTests: XCTestCase {
    /// A 130×160 white crop with a black bar 4 pixels wide down its middle.
    static func bar() -> DecodedImage {
        var gray = [UInt8](repeating: 255, count: 130 * 160)
        for y in 40..<120 { for x in 63..<67 { gray[y * 130 + x] = 0 } }
        return DecodedImage(width: 130, height: 160, gray: gray, format: .png, color: .gray, bitDepth: 8)
    }

    /// The largest step in gray between two neighbours along row `y`.
    static func steepest(_ image: DecodedImage, row y: Int) -> Int {
        (1..<image.width).map { abs(Int(image.gray[y * image.width + $0]) - Int(image.gray[y * image.width + $0 - 1])) }.max() ?? 0
    }

    func testSoftScan_SoftensTheInksEdgesKeepsTheSizeAndRepeatsWithItsSeed() {
        let sharp = Self.bar(), degradation = ScanDegradation()
        var rng = SplitMix64(seed: 5), again = SplitMix64(seed: 5)
        let soft = degradation.apply(to: sharp, rng: &rng)
        XCTAssertEqual(soft.width, sharp.width)
        XCTAssertEqual(soft.height, sharp.height)
        XCTAssertEqual(soft.gray, degradation.apply(to: sharp, rng: &again).gray, "the same seed gives the same copy")
        XCTAssertEqual(Self.steepest(sharp, row: 80), 255)
        // A blur of at least 0.8% of 130 pixels (1.04) spreads a 255 step over several pixels.
        XCTAssertLessThan(Self.steepest(soft, row: 80), 140, "the bar's edges are soft")
        // The bar is still the darkest thing on its row, and the paper far from it stays light.
        let row = Array(soft.gray[(80 * 130)..<(81 * 130)])
        XCTAssertTrue((63..<67).contains(row.firstIndex(of: row.min()!)!))
        XCTAssertGreaterThan(row[10], 230)
    }

    func testLineSet_SoftCopiesOfAFolderAreCutApartAndCachedUnderTheirOwnTag() throws {
        let folder = try temporaryFolder(self)
        var labels = "filename,label\n"
        for k in 0..<4 {
            let png = try PNG.encode(gray: Self.bar().gray, width: 130, height: 160)
            try Data(png).write(to: folder.appendingPathComponent("bar\(k).png"))
            labels += "bar\(k).png,1\n"
        }
        try labels.write(to: folder.appendingPathComponent("labels.csv"), atomically: true, encoding: .utf8)
        let cache = folder.appendingPathComponent("strips.bin").path
        let sharp = try LineSet.load(folder: folder.path, threads: 2, cache: cache)
        XCTAssertEqual(sharp.count, 4)
        // Every other image softened, the rest left out; the same cache file, another tag.
        let soft = try LineSet.load(folder: folder.path, threads: 2, cache: cache, variant: "soft test", change: { i, image in
            guard i % 2 == 0 else { return nil }
            var rng = SplitMix64(seed: UInt64(i))
            return ScanDegradation().apply(to: image, rng: &rng)
        })
        XCTAssertEqual(soft.count, 2)
        XCTAssertEqual(soft.labels, ["1", "1"])
        XCTAssertNotEqual(soft.strip(0).pixels, sharp.strip(0).pixels, "the soft copy is cut from the softened image")
        // Read back from the cache: the soft copies, not the sharp lines written there before.
        let cached = try LineSet.load(folder: folder.path, threads: 2, cache: cache, variant: "soft test", change: { _, _ in nil })
        XCTAssertEqual(cached.count, 2)
        XCTAssertEqual(cached.strip(1).pixels, soft.strip(1).pixels)
    }
}

/// The shipped paper model on real crops of the parish validation split made soft as a scan out
/// of focus is (blurred 1.5 pixels, JPEG quality 40): it trained on soft copies of the train
/// split, so it reads most of them, and its answers stay right.
final class SoftScanReadingTests: XCTestCase {
    func testParish_SoftenedValidationCropsAreMostlyReadAndRarelyWrong() throws {
        guard let folder = TestPaths.requireParishValidation() else { return }
        let recognizer = try TestRecognizers.withPaperModel()
        let chosen = try TestPaths.numbers(in: folder, evenly: 300)
        var degradation = ScanDegradation()
        degradation.blur = 0.0113...0.0113   // 1.5 pixels on a crop 133 pixels wide
        degradation.jpegQuality = 40...40
        var right = 0, answered = 0
        for (k, e) in chosen.enumerated() {
            var rng = SplitMix64(seed: UInt64(k))
            let soft = degradation.apply(to: try ImageDecoder.read(path: folder.appendingPathComponent(e.file).path, maxSide: 1200), rng: &rng)
            let reading = try recognizer.read(image: soft)
            if reading.isAnswered { answered += 1; if reading.text == e.label { right += 1 } }
        }
        // The shipped model (S2FS): 233 read right of 238 answered; the model before it, trained
        // on sharp crops only (S2F): 203 of 210, 7 wrong.
        XCTAssertGreaterThanOrEqual(right, 215, "\(right) of \(chosen.count) soft crops read right")
        XCTAssertLessThanOrEqual(Double(answered - right), 0.025 * Double(answered), "\(answered - right) wrong of \(answered) answered")
    }
}
