import DigitApp
import DigitKit
import DigitTestSupport
import XCTest
@testable import DigitPadKit

/// The controller under seeded random input, including what no window test can send through a
/// real display: several fingers at once, NaN, infinite and huge coordinates, fingers nobody put
/// down, sizes down to 0×0.
final class RandomInputTests: XCTestCase {
    private func randomInput(_ random: inout SplitMix64, _ c: PadController) -> PadInput {
        let odd: [Float] = [.nan, .infinity, -.infinity, -3, 1e30, -1e30]
        func coordinate(_ extent: Int) -> Float {
            random.nextFloat() < 0.03 ? odd[Int(random.next() % UInt64(odd.count))] : random.uniform(-50, Float(extent) + 50)
        }
        let pointer: PointerID = random.nextFloat() < 0.6 ? .mouse : .finger(Int64(random.next() % 4))
        let x = coordinate(c.layout.width), y = coordinate(c.layout.height)
        let button = random.nextFloat() < 0.85 ? 1 : Int(random.next() % 5)
        let pressure: Float? = random.nextFloat() < 0.5 ? nil : (random.nextFloat() < 0.1 ? .nan : random.uniform(-1, 2))
        let time = random.nextFloat() < 0.02 ? -Double.infinity : Double(random.uniform(0, 100))
        switch random.nextFloat() {
        case ..<0.12: return .press(pointer, x: x, y: y, button: button, time: time, pressure: pressure)
        case ..<0.80: return .move(pointer, x: x, y: y, time: time, pressure: pressure)
        case ..<0.92: return .release(pointer, x: x, y: y, button: button, time: time)
        case ..<0.97:
            let keys: [PadKey] = [.clear, .undo, .save, .open, .digit(3), .digit(-1), .digit(12), .quit]
            return .key(keys[Int(random.next() % UInt64(keys.count))])
        case ..<0.99: return .resize(width: Int(random.uniform(0, 1600)), height: Int(random.uniform(0, 1200)))
        default: return .focusLost
        }
    }

    func testController_RandomInputKeepsTheDrawingOnTheCanvasAndThePictureExact() {
        var random = SplitMix64(seed: 21)
        let c = PadController(width: 640, height: 400)
        var surface = Surface(width: 1, height: 1)
        for step in 0..<3000 {
            _ = c.handle(randomInput(&random, c))
            if step % 10 == 0 { c.render(into: &surface) }   // frames between batches of events, as in the window
        }
        if c.layout.canvas.width < 100 { _ = c.handle(.resize(width: 640, height: 400)) }
        c.render(into: &surface)
        XCTAssertEqual(surface.width, max(c.layout.width, 1))
        XCTAssertEqual(surface.height, max(c.layout.height, 1))
        let points = c.document.strokes.joined()
        XCTAssertEqual(points.count, c.document.pointCount)
        XCTAssertTrue(points.allSatisfy { (0...1).contains($0.x) && (0...1).contains($0.y) }, "every point on the canvas")
        XCTAssertTrue(points.allSatisfy { $0.t.map { $0.isFinite && $0 >= 0 } ?? true })
        XCTAssertTrue(points.allSatisfy { $0.p.map { $0 > 0 && $0 <= 1 } ?? true })
        // What was drawn bit by bit is what a full redraw draws.
        var full = Surface(width: 1, height: 1)
        c.setNeedsFullRedraw()
        c.render(into: &full)
        let canvas = c.layout.canvas
        var differing = 0
        for y in canvas.y..<canvas.maxY {
            for x in canvas.x..<canvas.maxX where surface.pixel(x, y) != full.pixel(x, y) { differing += 1 }
        }
        XCTAssertEqual(differing, 0, "canvas pixels that differ from a full redraw")
    }
}
