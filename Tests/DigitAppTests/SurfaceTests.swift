import DigitKit
import DigitTestSupport
import XCTest
@testable import DigitApp

final class SurfaceTests: XCTestCase {
    func testSurface_FillIsClippedToTheBounds() {
        var s = Surface(width: 10, height: 8, fill: RGB(0x000000))
        _ = s.takeDirty()
        s.fill(PixelRect(x: -5, y: 6, width: 100, height: 100), RGB(0xFF0000))
        XCTAssertEqual(s.pixel(0, 6), 0xFFFF_0000)
        XCTAssertEqual(s.pixel(9, 7), 0xFFFF_0000)
        XCTAssertEqual(s.pixel(9, 5), 0xFF00_0000)
        XCTAssertEqual(s.takeDirty(), [PixelRect(x: 0, y: 6, width: 10, height: 2)])
        XCTAssertTrue(s.takeDirty().isEmpty)
    }

    func testSurface_DistantChangesStaySeparateDirtyRectanglesAndTouchingOnesMerge() {
        var s = Surface(width: 100, height: 100)
        _ = s.takeDirty()
        s.fill(PixelRect(x: 0, y: 0, width: 10, height: 10), RGB(0xFFFFFF))
        s.fill(PixelRect(x: 80, y: 80, width: 10, height: 10), RGB(0xFFFFFF))
        s.fill(PixelRect(x: 5, y: 5, width: 10, height: 10), RGB(0xFFFFFF))
        XCTAssertEqual(s.takeDirty(), [PixelRect(x: 80, y: 80, width: 10, height: 10), PixelRect(x: 0, y: 0, width: 15, height: 15)])
        for i in 0..<20 { s.fill(PixelRect(x: i * 5, y: 0, width: 1, height: 1), RGB(0)) }
        let rects = s.takeDirty()
        XCTAssertLessThanOrEqual(rects.count, Surface.maxDirtyRects, "too many are merged")
        XCTAssertEqual(rects.reduce(PixelRect.zero) { $0.union($1) }, PixelRect(x: 0, y: 0, width: 96, height: 1))
        for i in rects.indices { for j in rects.indices where j > i { XCTAssertTrue(rects[i].intersection(rects[j]).isEmpty) } }
    }

    func testSurface_SizesAreClampedToAtLeastOnePixel() {
        let s = Surface(width: 0, height: -3)
        XCTAssertEqual(s.width, 1)
        XCTAssertEqual(s.height, 1)
        XCTAssertEqual(s.pixels.count, 1)
    }

    func testSurface_CapsuleInksTheSegmentWithRoundCapsAndAntialiasedEdges() {
        var s = Surface(width: 40, height: 20, fill: RGB(0x000000))
        // The axis runs through pixel centres (y = 10.5); coverage is radius + 0.5 - distance.
        s.stampCapsule(from: (10, 10.5), to: (30, 10.5), radius: 3, RGB(0xFFFFFF), clip: s.bounds)
        XCTAssertEqual(s.pixel(20, 10), 0xFFFF_FFFF, "on the segment")
        XCTAssertEqual(s.pixel(20, 12), 0xFFFF_FFFF, "within the radius")
        XCTAssertEqual(s.pixel(20, 16), 0xFF00_0000, "beyond radius + 1")
        XCTAssertEqual(s.pixel(7, 10), 0xFFFF_FFFF, "round cap past the start point")
        XCTAssertEqual(s.pixel(3, 10), 0xFF00_0000)
        XCTAssertEqual(s.pixel(20, 13) & 0xFF, 128, "3 px from the axis: half covered")
    }

    func testSurface_OverlappingInkKeepsTheBrighterValueInsteadOfAdding() {
        var s = Surface(width: 20, height: 20, fill: RGB(0x000000))
        s.stampCapsule(from: (10, 10), to: (10, 10), radius: 2, RGB(0x808080), clip: s.bounds)
        s.stampCapsule(from: (10, 10), to: (10, 10), radius: 2, RGB(0x808080), clip: s.bounds)
        XCTAssertEqual(s.pixel(10, 10), 0xFF80_8080)
    }

    func testSurface_InkStaysInsideItsClipRectangle() {
        var s = Surface(width: 30, height: 30, fill: RGB(0x000000))
        let clip = PixelRect(x: 10, y: 10, width: 10, height: 10)
        s.stampCapsule(from: (0, 15), to: (30, 15), radius: 4, RGB(0xFFFFFF), clip: clip)
        XCTAssertEqual(s.pixel(15, 15), 0xFFFF_FFFF)
        XCTAssertEqual(s.pixel(5, 15), 0xFF00_0000)
        XCTAssertEqual(s.pixel(25, 15), 0xFF00_0000)
    }

    func testSurface_HugeAndNonFiniteCoordinatesDrawNothingAndDoNotTrap() {
        var s = Surface(width: 16, height: 16, fill: RGB(0x000000))
        s.stampCapsule(from: (1e30, -1e30), to: (-1e30, 1e30), radius: 3, RGB(0xFFFFFF), clip: s.bounds)
        s.stampCapsule(from: (.nan, 2), to: (3, .infinity), radius: 3, RGB(0xFFFFFF), clip: s.bounds)
        s.stampCapsule(from: (3, 3), to: (4, 4), radius: .nan, RGB(0xFFFFFF), clip: s.bounds)
        s.fill(PixelRect(x: Int.max / 4, y: 0, width: 10, height: 10), RGB(0xFFFFFF))
        s.drawGray([.nan, .infinity, -1, 2], columns: 2, rows: 2, in: s.bounds, background: RGB(0), ink: RGB(0xFFFFFF))
        XCTAssertEqual(s.pixel(0, 0), 0xFF00_0000, "NaN counts as background")
        XCTAssertEqual(s.pixel(15, 0), 0xFFFF_FFFF, "+inf is clamped to ink")
        XCTAssertEqual(s.pixel(0, 15), 0xFF00_0000)
        XCTAssertEqual(s.pixel(15, 15), 0xFFFF_FFFF)
    }

    func testSurface_GrayImageIsScaledByNearestNeighbour() {
        var s = Surface(width: 56, height: 56, fill: RGB(0x123456))
        var image = [Float](repeating: 0, count: 784)
        image[14 * 28 + 3] = 1
        s.drawGray(image, columns: 28, rows: 28, in: s.bounds, background: RGB(0), ink: RGB(0xFFFFFF))
        XCTAssertEqual(s.pixel(6, 28), 0xFFFF_FFFF)
        XCTAssertEqual(s.pixel(7, 29), 0xFFFF_FFFF)
        XCTAssertEqual(s.pixel(8, 28), 0xFF00_0000)
    }

    func testSurface_BlendedCapsulesMixWithTheBackground() {
        var s = Surface(width: 30, height: 30, fill: RGB(0x202020))
        s.blendCapsules([((5, 15.5), (25, 15.5))], radius: 3, RGB(0xE0E0E0), clip: s.bounds)
        XCTAssertEqual(s.pixel(15, 15), 0xFFE0_E0E0)
        XCTAssertEqual(s.pixel(15, 2), 0xFF20_2020)
        let edge = s.pixel(15, 18) & 0xFF
        XCTAssertTrue(edge > 0x20 && edge < 0xE0, "edge between background and ink, got \(edge)")
    }

    func testSurface_RoundedRectangleHasSoftCorners() {
        var s = Surface(width: 40, height: 40, fill: RGB(0x000000))
        s.fillRounded(PixelRect(x: 0, y: 0, width: 40, height: 40), radius: 10, RGB(0xFFFFFF))
        XCTAssertEqual(s.pixel(20, 20), 0xFFFF_FFFF)
        XCTAssertEqual(s.pixel(0, 0), 0xFF00_0000, "the corner is cut")
        XCTAssertEqual(s.pixel(20, 0), 0xFFFF_FFFF, "the edge between corners is straight")
    }
}
