import Foundation

/// Random distortions applied to each training image so that the model copes with digits drawn
/// by people on a screen: a random affine map (rotation, scale, aspect, shear, shift) resampled
/// bilinearly, then a random change of stroke thickness (grey-level dilation or erosion with a 3×3
/// window, blended in partially). Optionally an elastic warp as well (Simard, Steinkraus & Platt
/// 2003): a smooth random displacement field added to the affine map.
public struct Augmentation: Sendable, Equatable {
    public var rotationDegrees: Float = 12
    public var scale: ClosedRange<Float> = 0.85...1.12
    public var aspect: ClosedRange<Float> = 0.88...1.12
    public var shear: Float = 0.2
    public var shift: Float = 2.5
    /// Probability of thickening and of thinning the strokes.
    public var thicken: Float = 0.3
    public var thin: Float = 0.2
    /// Probability that an image is passed through undistorted, so the network also learns the
    /// clean digits it is tested on. At 0 no random number is drawn for it (older runs reproduce).
    public var clean: Float = 0
    /// Probability that a distorted image is also warped elastically: each point of a 4×4 grid
    /// over the image (9 pixels apart) moves by up to `elasticAmplitude` pixels each way, and the
    /// displacement between them is interpolated bilinearly. At 0 no random number is drawn for it.
    public var elastic: Float = 0
    public var elasticAmplitude: Float = 2

    public init() {}

    /// One line for the record (`training_data`), empty when nothing differs from an affine map.
    var elasticDescription: String {
        elastic > 0 ? " elastic \(elastic)×\(elasticAmplitude)px" : ""
    }

    /// Writes a distorted copy of the 28×28 image `src` (0…1) into `dst`.
    public func apply(_ src: UnsafePointer<Float>, into dst: UnsafeMutablePointer<Float>, rng: inout SplitMix64) {
        if clean > 0, rng.nextFloat() < clean {
            dst.update(from: src, count: 784)
            return
        }
        let n = 28
        let angle = rng.uniform(-rotationDegrees, rotationDegrees) * .pi / 180
        let s = rng.uniform(scale.lowerBound, scale.upperBound)
        let a = rng.uniform(aspect.lowerBound, aspect.upperBound).squareRoot()
        let sh = rng.uniform(-shear, shear)
        let tx = rng.uniform(-shift, shift), ty = rng.uniform(-shift, shift)
        // Forward map M = R · Shear · Scale; sample the source at M⁻¹ (dst − c − t) + c.
        let (cs, sn) = (cos(angle), sin(angle))
        let sx = s * a, sy = s / a
        let m00 = cs * sx, m01 = cs * sh * sy - sn * sy
        let m10 = sn * sx, m11 = sn * sh * sy + cs * sy
        let det = m00 * m11 - m01 * m10
        let i00 = m11 / det, i01 = -m01 / det, i10 = -m10 / det, i11 = m00 / det
        let c: Float = 13.5
        // The elastic field: 4×4 control points, (dx, dy) each.
        let warped = elastic > 0 && rng.nextFloat() < elastic
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 32) { f in
            if warped {
                for i in 0..<32 { f[i] = rng.uniform(-elasticAmplitude, elasticAmplitude) }
            }
            for v in 0..<n {
                let gy = Float(v) / 9, y0 = min(Int(gy), 2), wy = gy - Float(y0)
                for u in 0..<n {
                    let dx = Float(u) - c - tx, dy = Float(v) - c - ty
                    var x = i00 * dx + i01 * dy + c, y = i10 * dx + i11 * dy + c
                    if warped {
                        let gx = Float(u) / 9, x0 = min(Int(gx), 2), wx = gx - Float(x0)
                        let k = (y0 * 4 + x0) * 2
                        @inline(__always) func lerp(_ o: Int) -> Float {
                            let top = f[k + o] * (1 - wx) + f[k + 2 + o] * wx
                            let bottom = f[k + 8 + o] * (1 - wx) + f[k + 10 + o] * wx
                            return top * (1 - wy) + bottom * wy
                        }
                        x += lerp(0)
                        y += lerp(1)
                    }
                    dst[v * n + u] = Self.bilinear(src, x, y)
                }
            }
        }
        let r = rng.nextFloat()
        if r < thicken {
            morph(dst, dilate: true, amount: rng.uniform(0.3, 1.0))
        } else if r < thicken + thin {
            morph(dst, dilate: false, amount: rng.uniform(0.2, 0.6))
        }
    }

    @inline(__always)
    static func bilinear(_ p: UnsafePointer<Float>, _ x: Float, _ y: Float) -> Float {
        let x0f = x.rounded(.down), y0f = y.rounded(.down)
        guard x0f >= -1, y0f >= -1, x0f <= 27, y0f <= 27 else { return 0 }
        let x0 = Int(x0f), y0 = Int(y0f)
        let fx = x - x0f, fy = y - y0f
        @inline(__always) func at(_ xx: Int, _ yy: Int) -> Float {
            (xx < 0 || yy < 0 || xx > 27 || yy > 27) ? 0 : p[yy * 28 + xx]
        }
        let top = at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx
        let bottom = at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx
        return top * (1 - fy) + bottom * fy
    }

    /// Grey-level dilation (max) or erosion (min) over a 3×3 cross, blended by `amount`.
    private func morph(_ img: UnsafeMutablePointer<Float>, dilate: Bool, amount: Float) {
        var copy = [Float](repeating: 0, count: 784)
        for i in 0..<784 { copy[i] = img[i] }
        for y in 0..<28 {
            for x in 0..<28 {
                var v = copy[y * 28 + x]
                for (dx, dy) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                    let xx = x + dx, yy = y + dy
                    let w: Float = (xx < 0 || yy < 0 || xx > 27 || yy > 27) ? 0 : copy[yy * 28 + xx]
                    v = dilate ? max(v, w) : min(v, w)
                }
                img[y * 28 + x] += amount * (v - copy[y * 28 + x])
            }
        }
    }
}
