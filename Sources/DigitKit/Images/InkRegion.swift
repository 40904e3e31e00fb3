import Foundation

/// A small image of ink (any scale of values) rendered into 28×28 the way MNIST was made: the
/// ink's box fitted into 20×20 keeping its aspect (area averaging), gray levels scaled so strong
/// ink is 1, the centre of mass placed at (14, 14) with sub-pixel accuracy.
struct InkRegion {
    let ink: FloatImage
    let box: (x0: Int, y0: Int, x1: Int, y1: Int)?

    init(ink: FloatImage, keep: Float?) {
        self.ink = ink
        let level = keep ?? 0.1 * (ink.values.max() ?? 0)
        var x0 = Int.max, y0 = Int.max, x1 = -1, y1 = -1
        for y in 0..<ink.height {
            for x in 0..<ink.width where ink.values[y * ink.width + x] > level {
                x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
            }
        }
        box = x1 >= 0 ? (x0, y0, x1, y1) : nil
    }

    /// The stroke width the rendered digit gets, in output pixels (about MNIST's; the pen of the
    /// shipped rasterizer is 2.5): thinner strokes are thickened by a grey-level dilation first.
    static let strokeWidth: Float = 2.4

    func render(extentFloor: Float, into out: UnsafeMutableBufferPointer<Float>) {
        for i in 0..<784 { out[i] = 0 }
        guard let found = box else { return }
        let stride = ink.width
        var inside: [Float] = []
        for y in found.y0...found.y1 {
            for x in found.x0...found.x1 where ink.values[y * stride + x] > 0 { inside.append(ink.values[y * stride + x]) }
        }
        guard !inside.isEmpty else { return }
        let strong = max(Morphology.select(&inside, Int(0.9 * Float(inside.count - 1))), 1e-6)
        let extent = Float(max(found.x1 - found.x0 + 1, found.y1 - found.y0 + 1))
        let scale: Float = 20 / max(extent, extentFloor, 1)
        let radius = thickening(found, strong: strong, scale: scale)
        // A grey-level dilation: the maximum over a square of side 2·radius + 1 (in time independent of the radius).
        let values = radius > 0 ? Morphology.dilate(ink.values, width: ink.width, height: ink.height, radius: radius) : ink.values
        let x0 = max(0, found.x0 - radius), y0 = max(0, found.y0 - radius)
        let x1 = min(ink.width - 1, found.x1 + radius), y1 = min(ink.height - 1, found.y1 + radius)
        let w = x1 - x0 + 1, h = y1 - y0 + 1
        let small = Self.areaAverage(values, stride: stride, x0: x0, y0: y0, w: w, h: h, scale: scale, strong: strong)
        Self.centre(small.values, width: small.width, height: small.height, into: out)
    }

    /// How many pixels to widen the strokes by so that they end about `strokeWidth` output pixels
    /// wide: the width is estimated as 2 · area / boundary of the solid ink.
    private func thickening(_ b: (x0: Int, y0: Int, x1: Int, y1: Int), strong: Float, scale: Float) -> Int {
        var area = 0, boundary = 0
        let level = 0.5 * strong
        func solid(_ x: Int, _ y: Int) -> Bool { x >= 0 && y >= 0 && x < ink.width && y < ink.height && ink.values[y * ink.width + x] > level }
        for y in b.y0...b.y1 {
            for x in b.x0...b.x1 where solid(x, y) {
                area += 1
                if !solid(x - 1, y) || !solid(x + 1, y) || !solid(x, y - 1) || !solid(x, y + 1) { boundary += 1 }
            }
        }
        let width = 2 * Float(area) / Float(max(boundary, 1))
        return max(0, min(12, Int(((Self.strokeWidth / scale - width) / 2).rounded())))
    }

    /// The box `w`×`h` at (`x0`, `y0`) of `values` reduced by `scale` with area averaging, in 0…1
    /// (`strong` ink is 1).
    static func areaAverage(_ values: [Float], stride: Int, x0: Int, y0: Int, w: Int, h: Int, scale: Float,
                            strong: Float) -> (values: [Float], width: Int, height: Int) {
        let ow = max(1, Int((Float(w) * scale).rounded())), oh = max(1, Int((Float(h) * scale).rounded()))
        var small = [Float](repeating: 0, count: ow * oh)
        let sx = Float(w) / Float(ow), sy = Float(h) / Float(oh)
        for oy in 0..<oh {
            let fy0 = Float(oy) * sy, fy1 = fy0 + sy
            for ox in 0..<ow {
                let fx0 = Float(ox) * sx, fx1 = fx0 + sx
                var sum: Float = 0
                var y = Int(fy0)
                while Float(y) < fy1 && y < h {
                    let wy = min(Float(y + 1), fy1) - max(Float(y), fy0)
                    var x = Int(fx0)
                    while Float(x) < fx1 && x < w {
                        let wx = min(Float(x + 1), fx1) - max(Float(x), fx0)
                        sum += wx * wy * values[(y0 + y) * stride + x0 + x]
                        x += 1
                    }
                    y += 1
                }
                small[oy * ow + ox] = min(1, sum / (sx * sy) / strong)
            }
        }
        return (small, ow, oh)
    }

    /// Places `small` in 28×28 with its centre of mass at (14, 14), shifted by a sub-pixel amount
    /// with bilinear interpolation.
    static func centre(_ small: [Float], width ow: Int, height oh: Int, into out: UnsafeMutableBufferPointer<Float>) {
        guard let mass = Rasterizer.centerOfMass(small, width: ow, height: oh) else { return }
        let offsetX: Float = 14 - mass.x, offsetY: Float = 14 - mass.y
        func at(_ x: Int, _ y: Int) -> Float { x >= 0 && y >= 0 && x < ow && y < oh ? small[y * ow + x] : 0 }
        for v in 0..<28 {
            for u in 0..<28 {
                let x = Float(u) - offsetX, y = Float(v) - offsetY
                let xf = x.rounded(.down), yf = y.rounded(.down)
                let xi = Int(xf), yi = Int(yf), tx = x - xf, ty = y - yf
                let top = at(xi, yi) * (1 - tx) + at(xi + 1, yi) * tx
                let bottom = at(xi, yi + 1) * (1 - tx) + at(xi + 1, yi + 1) * tx
                out[v * 28 + u] = top * (1 - ty) + bottom * ty
            }
        }
    }
}
