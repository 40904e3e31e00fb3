import DigitKit
import DigitTestSupport
import XCTest

/// Pictures of rasters: bytes, enlargement, and the ASCII view of `digits rasterize --ascii`.
final class RasterImagesTests: XCTestCase {
    func testRasterPNG_RoundTripsThroughTheDecoder() throws {
        let image = Rasterizer().rasterize(Drawing(strokes: [[StrokePoint(x: 0, y: 0), StrokePoint(x: 10, y: 25), StrokePoint(x: 20, y: 3)]]))
        let gray = RasterImages.grayBytes(image)
        let decoded = try PNG.decode(try PNG.encode(gray: gray, width: 28, height: 28), file: "r.png")
        XCTAssertEqual(decoded.width, 28)
        XCTAssertEqual(decoded.gray, gray)
        XCTAssertTrue(gray.contains(255) && gray.contains(0))
    }

    func testUpscale_RepeatsEachPixel() throws {
        XCTAssertEqual(try RasterImages.upscale([1, 2, 3, 4], width: 2, height: 2, factor: 2),
                       [1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4])
        XCTAssertEqual(try RasterImages.upscale([9], width: 1, height: 1, factor: 1), [9])
        XCTAssertThrowsError(try RasterImages.upscale([1, 2, 3], width: 2, height: 2, factor: 2))
        XCTAssertThrowsError(try RasterImages.upscale([1], width: 1, height: 1, factor: 0))
        XCTAssertThrowsError(try RasterImages.upscale([1], width: 1, height: 1, factor: 65))
    }

    func testGrayBytes_ClampsAndRounds() {
        XCTAssertEqual(RasterImages.grayBytes([0, 1, 0.5, -3, 7, .nan, 0.001, 0.999]), [0, 255, 128, 0, 255, 0, 0, 255])
    }

    func testASCII_RampAndShape() {
        var image = [Float](repeating: 0, count: 784)
        image[0] = 1
        image[1] = 0.01
        image[2] = 0.5
        let text = RasterImages.ascii(image)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.count, 29)  // 28 lines and the final newline
        XCTAssertTrue(lines.dropLast().allSatisfy { $0.count == 56 })
        XCTAssertTrue(lines[0].hasPrefix("@@..++  "))
        XCTAssertEqual(lines[1], Substring(String(repeating: " ", count: 56)))
    }
}
