import DigitFormats
import Foundation
import DigitTestSupport
import XCTest

final class IDXTests: XCTestCase {
    // MARK: - Synthetic files

    private func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    /// An IDX image file: magic 0x803, then count, rows, columns, then `pixels` (or count*rows*columns made-up bytes).
    private func imagesFile(count: UInt32, rows: UInt32, columns: UInt32, pixels: [UInt8]? = nil) -> [UInt8] {
        let data = pixels ?? (0..<Int(count * rows * columns)).map { UInt8($0 * 37 % 256) }
        return be32(0x803) + be32(count) + be32(rows) + be32(columns) + data
    }

    private func labelsFile(_ labels: [UInt8]) -> [UInt8] { be32(0x801) + be32(UInt32(labels.count)) + labels }

    private func assertFormatError(_ body: () throws -> Void, location: String, contains: String,
                                   file: StaticString = #filePath, line: UInt = #line) {
        do {
            try body()
            XCTFail("expected an error", file: file, line: line)
        } catch let error as DigitError {
            XCTAssertEqual(error.kind, .format, "\(error)", file: file, line: line)
            XCTAssertEqual(error.file, "x.idx", "\(error)", file: file, line: line)
            XCTAssertEqual(error.location, location, "\(error)", file: file, line: line)
            XCTAssertTrue(error.message.contains(contains), "'\(error.message)' lacks '\(contains)'", file: file, line: line)
        } catch {
            XCTFail("unexpected error \(error)", file: file, line: line)
        }
    }

    func testIDX_ValidImagesParseRowMajor() throws {
        let pixels: [UInt8] = [0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 255]
        let images = try IDX.parseImages(imagesFile(count: 2, rows: 2, columns: 3, pixels: pixels), file: "x.idx")
        XCTAssertEqual(images.count, 2)
        XCTAssertEqual(images.rows, 2)
        XCTAssertEqual(images.columns, 3)
        XCTAssertEqual(images.pixels, pixels)
        XCTAssertEqual(Array(images.image(1)), [10, 11, 12, 13, 14, 255])
    }

    func testIDX_ValidLabelsParse() throws {
        XCTAssertEqual(try IDX.parseLabels(labelsFile([7, 0, 9, 200]), file: "x.idx"), [7, 0, 9, 200])
    }

    func testIDX_BadMagicThrows() {
        var bytes = imagesFile(count: 1, rows: 2, columns: 2)
        bytes[3] = 0x01
        assertFormatError({ _ = try IDX.parseImages(bytes, file: "x.idx") }, location: "byte 0", contains: "found 0x00000801")
        assertFormatError({ _ = try IDX.parseLabels(Array("PK\u{3}\u{4}abcdefgh".utf8), file: "x.idx") },
                          location: "byte 0", contains: "not an IDX file")
    }

    func testIDX_NonByteDataTypeIsNamed() {
        var bytes = imagesFile(count: 1, rows: 2, columns: 2)
        bytes[2] = 0x0D
        assertFormatError({ _ = try IDX.parseImages(bytes, file: "x.idx") }, location: "byte 0", contains: "data type 0x0d")
    }

    func testIDX_TruncatedHeaderThrows() {
        let bytes = Array(imagesFile(count: 1, rows: 2, columns: 2).prefix(10))
        assertFormatError({ _ = try IDX.parseImages(bytes, file: "x.idx") }, location: "byte 10", contains: "header of 16 bytes")
        assertFormatError({ _ = try IDX.parseLabels([0, 0], file: "x.idx") }, location: "byte 0", contains: "file is 2 bytes")
        assertFormatError({ _ = try IDX.parseLabels([], file: "x.idx") }, location: "byte 0", contains: "file is 0 bytes")
    }

    func testIDX_TruncatedDataThrowsWithByteCounts() {
        let bytes = Array(imagesFile(count: 3, rows: 2, columns: 2).dropLast(5))
        assertFormatError({ _ = try IDX.parseImages(bytes, file: "x.idx") }, location: "byte 23",
                          contains: "3 images of 2 × 2 pixels, 28 bytes in all, but the file has 23")
        let labels = Array(labelsFile([1, 2, 3]).dropLast())
        assertFormatError({ _ = try IDX.parseLabels(labels, file: "x.idx") }, location: "byte 10",
                          contains: "11 bytes in all, but the file has 10")
    }

    func testIDX_ExtraTrailingBytesThrow() {
        let bytes = imagesFile(count: 1, rows: 2, columns: 2) + [9, 9]
        assertFormatError({ _ = try IDX.parseImages(bytes, file: "x.idx") }, location: "byte 20",
                          contains: "2 extra bytes")
        assertFormatError({ _ = try IDX.parseLabels(labelsFile([1]) + [0], file: "x.idx") }, location: "byte 9",
                          contains: "1 extra bytes")
    }

    func testIDX_ZeroDimensionThrows() {
        assertFormatError({ _ = try IDX.parseImages(imagesFile(count: 0, rows: 2, columns: 2), file: "x.idx") },
                          location: "byte 4", contains: "dimension 0 is 0")
        assertFormatError({ _ = try IDX.parseImages(imagesFile(count: 1, rows: 2, columns: 0, pixels: []), file: "x.idx") },
                          location: "byte 12", contains: "dimension 2 is 0")
        assertFormatError({ _ = try IDX.parseLabels(labelsFile([]), file: "x.idx") }, location: "byte 4", contains: "dimension 0 is 0")
    }

    func testIDX_AbsurdSideThrows() {
        let bytes = be32(0x803) + be32(1) + be32(1) + be32(0xFFFF_FFFF) + [0, 0, 0, 0]
        assertFormatError({ _ = try IDX.parseImages(bytes, file: "x.idx") }, location: "byte 12",
                          contains: "columns is 4294967295, more than the maximum of 4096")
    }

    func testIDX_HugeCountInSmallFileFailsFastWithoutAllocating() {
        // 2^31 images of 28 × 28 would be 1.6 TiB: the length check must come before any allocation.
        var bytes = be32(0x803) + be32(1 << 31) + be32(28) + be32(28)
        bytes += [UInt8](repeating: 0, count: 100 - bytes.count)
        let start = Date()
        assertFormatError({ _ = try IDX.parseImages(bytes, file: "x.idx") }, location: "byte 100",
                          contains: "2147483648 images of 28 × 28 pixels, 1683627180048 bytes in all, but the file has 100")
        var labels = be32(0x801) + be32(0xFFFF_FFFF)
        labels += [UInt8](repeating: 0, count: 100 - labels.count)
        assertFormatError({ _ = try IDX.parseLabels(labels, file: "x.idx") }, location: "byte 100",
                          contains: "4294967303 bytes in all")
        XCTAssertLessThan(Date().timeIntervalSince(start), 0.5)
    }

    func testMNISTSet_CountMismatchThrows() throws {
        let images = try IDX.parseImages(imagesFile(count: 3, rows: 2, columns: 2), file: "i")
        XCTAssertThrowsError(try MNISTSet(images: images, labels: [1, 2], imagesFile: "i", labelsFile: "l")) { error in
            XCTAssertEqual(error as? DigitError,
                           DigitError(.format, file: "l", at: "byte 4", "2 labels, but i has 3 images"))
        }
    }

    func testMNISTSet_LabelTenThrows() throws {
        let images = try IDX.parseImages(imagesFile(count: 3, rows: 2, columns: 2), file: "i")
        XCTAssertThrowsError(try MNISTSet(images: images, labels: [1, 10, 2], imagesFile: "i", labelsFile: "l")) { error in
            XCTAssertEqual(error as? DigitError,
                           DigitError(.format, file: "l", at: "byte 9", "label 10 of image 1, expected a digit 0...9"))
        }
    }

    func testMNISTSet_LoadsFromDirectoryByPrefix() throws {
        let dir = try temporaryFolder(self).path
        try FileIO.writeAtomically(imagesFile(count: 2, rows: 2, columns: 2), to: dir + "/t10k-images-idx3-ubyte")
        try FileIO.writeAtomically(labelsFile([4, 2]), to: dir + "/t10k-labels-idx1-ubyte")
        let set = try MNISTSet.load(directory: dir, split: .test)
        XCTAssertEqual(set.count, 2)
        XCTAssertEqual(set.labels, [4, 2])
        XCTAssertEqual(set.images.pixels, Array(imagesFile(count: 2, rows: 2, columns: 2).dropFirst(16)))
        XCTAssertThrowsError(try MNISTSet.load(directory: dir, split: .train)) { error in
            XCTAssertEqual((error as? DigitError)?.kind, .io)
            XCTAssertEqual((error as? DigitError)?.file, dir + "/train-images-idx3-ubyte")
        }
    }

    func testIDX_ReadNamesThePathInErrors() throws {
        let dir = try temporaryFolder(self).path
        let path = dir + "/bad-idx"
        try FileIO.writeAtomically(labelsFile([1, 2]) + [3], to: path)
        XCTAssertThrowsError(try IDX.readLabels(path: path)) { error in
            XCTAssertEqual((error as? DigitError)?.file, path)
            XCTAssertEqual((error as? DigitError)?.location, "byte 10")
        }
    }

    // MARK: - Real MNIST (Fixtures/mnist, filled by scripts/fetch-mnist)

    func testMNIST_TestSetHasTenThousandDigitsWithPlausibleLabels() throws {
        guard let dir = TestPaths.requireMNIST() else { return }
        let set = try MNISTSet.load(directory: dir.path, split: .test)
        XCTAssertEqual(set.count, 10_000)
        XCTAssertEqual(set.images.count, 10_000)
        XCTAssertEqual(set.images.rows, 28)
        XCTAssertEqual(set.images.columns, 28)
        XCTAssertEqual(set.images.pixels.count, 10_000 * 784)
        var histogram = [Int](repeating: 0, count: 10)
        for label in set.labels { histogram[Int(label)] += 1 }
        XCTAssertEqual(histogram.reduce(0, +), 10_000)
        // The published class counts of the MNIST test set.
        XCTAssertEqual(histogram, [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009])
        XCTAssertEqual(Array(set.labels.prefix(5)), [7, 2, 1, 0, 4])
        // Background is 0 and strokes reach full ink.
        XCTAssertEqual(set.images.image(0).first, 0)
        XCTAssertEqual(set.images.image(0).max(), 255)
    }

    func testMNIST_GzipFileGivesTheSameBytesAsTheFixture() throws {
        guard let dir = TestPaths.requireMNIST() else { return }
        // The shared data folder sits beside the repository root (see its README).
        let shared = TestPaths.repoRoot.deletingLastPathComponent().appendingPathComponent("shared/data/mnist")
        let gz = shared.appendingPathComponent("t10k-images-idx3-ubyte.gz").path
        guard FileManager.default.fileExists(atPath: gz) else {
            return XCTFail("\(gz) is missing: the shared data folder must sit beside the repository")
        }
        let raw = try FileIO.read(dir.appendingPathComponent("t10k-images-idx3-ubyte").path, limit: 1 << 24)
        let compressed = try FileIO.read(gz, limit: 1 << 24)
        XCTAssertTrue(Gzip.isGzip(compressed))
        let images = try IDX.readImages(path: gz)
        XCTAssertEqual(images.count, 10_000)
        XCTAssertEqual(images.pixels, Array(raw.dropFirst(16)))
        let set = try MNISTSet.load(directory: shared.path, split: .test)
        XCTAssertEqual(set.labels, try IDX.readLabels(path: dir.appendingPathComponent("t10k-labels-idx1-ubyte").path))
    }
}
