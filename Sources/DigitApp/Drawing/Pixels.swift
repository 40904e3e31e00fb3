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
