/// An integer rectangle in window pixels, y downward. Empty when `width` or `height` ≤ 0.
public struct PixelRect: Equatable, Sendable, CustomStringConvertible {
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

/// An opaque colour as 0xRRGGBB.
public struct RGB: Equatable, Sendable {
    public var value: UInt32

    public init(_ hex: UInt32) { value = hex & 0xFF_FFFF }
    public init(r: UInt8, g: UInt8, b: UInt8) { value = UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b) }

    public var r: UInt8 { UInt8(truncatingIfNeeded: value >> 16) }
    public var g: UInt8 { UInt8(truncatingIfNeeded: value >> 8) }
    public var b: UInt8 { UInt8(truncatingIfNeeded: value) }
    /// The pixel as stored in a `Surface`: 0xFFRRGGBB.
    public var argb: UInt32 { 0xFF00_0000 | value }

    /// `self` moved toward `other` by `t` in 0…1 (t is clamped; NaN counts as 0).
    public func mixed(with other: RGB, _ t: Float) -> RGB {
        let t = t.isNaN ? 0 : min(max(t, 0), 1)
        func channel(_ a: UInt8, _ b: UInt8) -> UInt8 {
            UInt8(min(max((Float(a) + (Float(b) - Float(a)) * t).rounded(), 0), 255))
        }
        return RGB(r: channel(r, other.r), g: channel(g, other.g), b: channel(b, other.b))
    }

    /// A gray with the given level, 0 = black, 255 = white.
    public static func gray(_ level: UInt8) -> RGB { RGB(r: level, g: level, b: level) }
}
