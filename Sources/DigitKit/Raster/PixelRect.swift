/// An integer rectangle of pixels (a window's, an image's), y downward. Empty when `width` or `height` ≤ 0.
public struct PixelRect: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The rectangle from corner (x0, y0) to corner (x1, y1), half-open: columns `x0..<x1`, rows
    /// `y0..<y1`; empty (at x0, y0) where x1 ≤ x0 or y1 ≤ y0.
    public init(x0: Int, y0: Int, x1: Int, y1: Int) {
        self.init(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }

    public static let zero = PixelRect(x: 0, y: 0, width: 0, height: 0)

    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var midX: Float { Float(x) + Float(width) / 2 }
    public var midY: Float { Float(y) + Float(height) / 2 }
    public var description: String { "(\(x), \(y), \(width)×\(height))" }

    /// True when the point (in pixels, continuous coordinates) lies inside: x ≤ px < maxX.
    public func contains(_ px: Float, _ py: Float) -> Bool {
        px >= Float(x) && px < Float(maxX) && py >= Float(y) && py < Float(maxY)
    }

    /// True when the pixel (x, y) lies inside.
    public func contains(x px: Int, y py: Int) -> Bool { px >= x && px < maxX && py >= y && py < maxY }

    public func intersection(_ other: PixelRect) -> PixelRect {
        let x0 = max(x, other.x), y0 = max(y, other.y)
        let x1 = min(maxX, other.maxX), y1 = min(maxY, other.maxY)
        if x1 <= x0 || y1 <= y0 { return .zero }
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    public func union(_ other: PixelRect) -> PixelRect {
        if isEmpty { return other }
        if other.isEmpty { return self }
        let x0 = min(x, other.x), y0 = min(y, other.y)
        return PixelRect(x: x0, y: y0, width: max(maxX, other.maxX) - x0, height: max(maxY, other.maxY) - y0)
    }

    public func insetBy(_ dx: Int, _ dy: Int) -> PixelRect {
        PixelRect(x: x + dx, y: y + dy, width: max(0, width - 2 * dx), height: max(0, height - 2 * dy))
    }
}
