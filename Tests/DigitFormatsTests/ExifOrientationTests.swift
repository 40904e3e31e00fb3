import DigitFormats
import DigitTestSupport
import XCTest

/// A phone stores a portrait photo on its side and records the turn in its EXIF orientation;
/// `JPEG.decode` turns it upright, as every viewer does.
final class ExifOrientationTests: XCTestCase {
    func testOrientation_IsReadInEitherByteOrderAndIgnoredWhenDamaged() {
        let plain: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x02, 0xFF, 0xD9]
        XCTAssertEqual(ExifOrientation.read(plain), 1, "no EXIF segment")
        for value in 1...8 {
            XCTAssertEqual(ExifOrientation.read(ExifFixtures.withOrientation(plain, value)), value)
            XCTAssertEqual(ExifOrientation.read(ExifFixtures.withOrientation(plain, value, bigEndian: false)), value)
        }
        XCTAssertEqual(ExifOrientation.read(ExifFixtures.withOrientation(plain, 9)), 1, "out of 1…8")
        let tagged = ExifFixtures.withOrientation(plain, 6)
        // The segment cut short, its TIFF header's IFD offset past its end, its byte order unknown.
        var short = tagged; short[5] = 20
        var farIFD = tagged; farIFD[17] = 0xF0
        var order = tagged; order[12] = 0x41
        for (name, bytes) in [("short", short), ("far IFD", farIFD), ("order", order), ("cut", Array(tagged.prefix(20)))] {
            XCTAssertEqual(ExifOrientation.read(bytes), 1, name)
        }
    }

    #if DIGITS_JPEG
    /// A 32×16 white image with a black 8×8 square in its top-left corner, stored with each
    /// orientation: the square lands where the orientation says, and the sides swap for 5…8.
    func testDecode_TurnsTheStoredPixelsUpright() throws {
        let w = 32, h = 16
        var gray = [UInt8](repeating: 255, count: w * h)
        for y in 0..<8 { for x in 0..<8 { gray[y * w + x] = 0 } }
        let stored = try JPEG.encode(gray: gray, width: w, height: h, quality: 100)
        // Where the square's centre is seen: (left, top) as a share of the upright image.
        let expected: [Int: (left: Bool, top: Bool)] = [
            1: (true, true), 2: (false, true), 3: (false, false), 4: (true, false),
            5: (true, true), 6: (false, true), 7: (false, false), 8: (true, false),
        ]
        for value in 1...8 {
            let image = try JPEG.decode(ExifFixtures.withOrientation(stored, value), file: "o\(value).jpg")
            let swapped = value >= 5
            XCTAssertEqual(image.width, swapped ? h : w, "orientation \(value)")
            XCTAssertEqual(image.height, swapped ? w : h, "orientation \(value)")
            XCTAssertEqual(image.originalWidth, image.width)
            XCTAssertEqual(image.orientation, value)
            let cornerX = expected[value]!.left ? 3 : image.width - 4, cornerY = expected[value]!.top ? 3 : image.height - 4
            XCTAssertLessThan(image.gray[cornerY * image.width + cornerX], 40, "orientation \(value): the square's corner")
            XCTAssertEqual(image.gray.filter { $0 < 128 }.count, 64, accuracy: 6, "orientation \(value): the square's size")
        }
        let turned = try JPEG.decode(ExifFixtures.withOrientation(stored, 6), file: "o6.jpg")
        XCTAssertTrue(turned.summary.contains("turned upright (EXIF orientation 6)"), turned.summary)
        // DCT scaling turns the same way: the stored 32×16 at 1/2 is 8×16 upright.
        let half = try JPEG.decode(ExifFixtures.withOrientation(stored, 8), file: "o8.jpg", maxSide: 16)
        XCTAssertEqual([half.scale, half.width, half.height, half.originalWidth, half.originalHeight], [2, 8, 16, 16, 32])
    }
    #endif
}
