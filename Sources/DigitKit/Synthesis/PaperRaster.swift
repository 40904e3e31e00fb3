import Foundation

// The pixel work of `PaperRenderer`: anti-aliased capsules, value noise, Gaussian blur and sensor
// noise on planes of Float (row-major, `width * height`, 0…1 for light and reflectance).

/// Ink coverage of a whole image, 0…1 a pixel, drawn as round-capped segments.
struct PaperInk {
    let width: Int
    let height: Int
    var coverage: [Float]

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        coverage = [Float](repeating: 0, count: width * height)
    }

    /// The segment a–b with radius `r` (pixels): a pixel's coverage is `r + 0.5 - d` clamped to
    /// 0…1, with `d` the distance from its centre to the segment, a one-pixel linear ramp at the
    /// edge. Overlapping ink keeps the larger coverage (ink on ink does not get darker here).
    /// The loop runs two pixels beyond the pen on every side on purpose: which pixels get ink is
    /// decided by the distance alone, so `PaperRenderer`'s box arithmetic is checked against it.
    mutating func capsule(_ ax: Float, _ ay: Float, _ bx: Float, _ by: Float, radius r: Float) {
        let reach = r + 2
        let xs = max(0, Int((min(ax, bx) - reach).rounded(.down)))
        let xe = min(width - 1, Int((max(ax, bx) + reach).rounded(.up)))
        let ys = max(0, Int((min(ay, by) - reach).rounded(.down)))
        let ye = min(height - 1, Int((max(ay, by) + reach).rounded(.up)))
        guard xs <= xe, ys <= ye else { return }
        let dx = bx - ax, dy = by - ay
        let length2 = dx * dx + dy * dy
        let inverse = length2 > 1e-12 ? 1 / length2 : 0
        let edge = r + 0.5
        let w = width
        coverage.withUnsafeMutableBufferPointer { cov in
            for y in ys...ye {
                let py = Float(y) + 0.5 - ay
                let row = y * w
                for x in xs...xe {
                    let px = Float(x) + 0.5 - ax
                    let t = min(1, max(0, (px * dx + py * dy) * inverse))
                    let ex = px - t * dx, ey = py - t * dy
                    let d = (ex * ex + ey * ey).squareRoot()
                    let c = min(1, edge - d)
                    if c > cov[row + x] { cov[row + x] = c }
                }
            }
        }
    }
}

/// Smooth value noise in −1…1: random values on a lattice of `cellU` × `cellV` pixels turned by
/// `angle`, blended with smoothstep weights. Long thin cells make paper fibres, square ones clouds.
struct PaperNoise {
    private let lattice: [Float]
    private let columns: Int
    private let originU: Int
    private let originV: Int
    private let ux: Float, uy: Float, vx: Float, vy: Float

    init(width: Int, height: Int, cellU: Float, cellV: Float, angle: Float, rng: inout SplitMix64) {
        let c = cos(angle), s = sin(angle)
        ux = c / cellU
        uy = s / cellU
        vx = -s / cellV
        vy = c / cellV
        let corners: [(Float, Float)] = [(0, 0), (Float(width), 0), (0, Float(height)), (Float(width), Float(height))]
        let us = corners.map { $0.0 * c / cellU + $0.1 * s / cellU }
        let vs = corners.map { -$0.0 * s / cellV + $0.1 * c / cellV }
        originU = Int(us.min()!.rounded(.down)) - 1
        originV = Int(vs.min()!.rounded(.down)) - 1
        columns = Int(us.max()!.rounded(.up)) - originU + 3
        let rows = Int(vs.max()!.rounded(.up)) - originV + 3
        var values = [Float](repeating: 0, count: columns * rows)
        for i in values.indices { values[i] = rng.uniform(-1, 1) }
        lattice = values
    }

    /// The noise at the centre of pixel (x, y).
    func value(x: Int, y: Int) -> Float {
        let fx = Float(x) + 0.5, fy = Float(y) + 0.5
        let u = fx * ux + fy * uy - Float(originU), v = fx * vx + fy * vy - Float(originV)
        return lattice.withUnsafeBufferPointer { Self.interpolate($0, columns: columns, u, v) }
    }

    /// The smoothstep interpolation of the lattice at (u, v) in lattice units.
    @inline(__always)
    static func interpolate(_ grid: UnsafeBufferPointer<Float>, columns: Int, _ u: Float, _ v: Float) -> Float {
        let iu = Int(u), iv = Int(v)
        let fu = u - Float(iu), fv = v - Float(iv)
        let su = fu * fu * (3 - 2 * fu), sv = fv * fv * (3 - 2 * fv)
        let k = iv * columns + iu
        let top = grid[k] + (grid[k + 1] - grid[k]) * su
        let bottom = grid[k + columns] + (grid[k + columns + 1] - grid[k + columns]) * su
        return top + (bottom - top) * sv
    }

    /// Adds `weight` × the noise to every pixel of `plane`.
    func add(to plane: inout [Float], width: Int, height: Int, weight: Float) {
        let columns = self.columns, originU = self.originU, originV = self.originV
        let ux = self.ux, uy = self.uy, vx = self.vx, vy = self.vy
        lattice.withUnsafeBufferPointer { grid in
            plane.withUnsafeMutableBufferPointer { out in
                for y in 0..<height {
                    let fy = Float(y) + 0.5
                    var u = 0.5 * ux + fy * uy - Float(originU)
                    var v = 0.5 * vx + fy * vy - Float(originV)
                    let row = y * width
                    for x in 0..<width {
                        out[row + x] += weight * Self.interpolate(grid, columns: columns, u, v)
                        u += ux
                        v += vx
                    }
                }
            }
        }
    }
}

enum PaperPixels {
    /// A well-mixed 64-bit hash (the SplitMix64 finalizer) of `seed` and `index`.
    @inline(__always) static func hash(_ seed: UInt64, _ index: Int) -> UInt64 {
        var z = seed &+ UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Approximately standard normal noise from one hash: the sum of four 16-bit uniforms
    /// (Irwin–Hall, variance 4/12) rescaled to unit variance; cheap enough for every pixel.
    @inline(__always) static func gaussian(_ seed: UInt64, _ index: Int) -> Float {
        let h = hash(seed, index)
        let sum = Float(h & 0xFFFF) + Float(h >> 16 & 0xFFFF) + Float(h >> 32 & 0xFFFF) + Float(h >> 48)
        return (sum * (1 / 65536) - 2) * 1.7320508
    }

    /// Uniform −1…1 per pixel (paper grain).
    static func addGrain(to plane: inout [Float], seed: UInt64, weight: Float) {
        plane.withUnsafeMutableBufferPointer { out in
            for i in out.indices {
                out[i] += weight * (Float(hash(seed, i) >> 40) * (2 / Float(1 << 24)) - 1)
            }
        }
    }

    /// Gaussian blur with standard deviation `sigma` pixels, separable, edges repeated; the kernel
    /// reaches 3 sigma. Does nothing below 0.2 pixels.
    static func blur(_ plane: inout [Float], width: Int, height: Int, sigma: Float) {
        guard sigma >= 0.2 else { return }
        let radius = max(1, Int((3 * sigma).rounded(.up)))
        var kernel = (-radius...radius).map { exp(-Float($0 * $0) / (2 * sigma * sigma)) }
        let total = kernel.reduce(0, +)
        for i in kernel.indices { kernel[i] /= total }
        var temp = [Float](repeating: 0, count: plane.count)
        kernel.withUnsafeBufferPointer { k in
            plane.withUnsafeMutableBufferPointer { p in
                temp.withUnsafeMutableBufferPointer { t in
                    // Rows into temp, then columns back into the plane.
                    for y in 0..<height {
                        let row = y * width
                        for x in 0..<width {
                            var acc: Float = 0
                            if x >= radius && x + radius < width {
                                for j in 0...(2 * radius) { acc += k[j] * p[row + x - radius + j] }
                            } else {
                                for j in 0...(2 * radius) {
                                    acc += k[j] * p[row + min(width - 1, max(0, x - radius + j))]
                                }
                            }
                            t[row + x] = acc
                        }
                    }
                    // Column pass row by row, so the inner loop walks memory in order.
                    for y in 0..<height {
                        let row = y * width
                        for x in 0..<width { p[row + x] = 0 }
                        for j in 0...(2 * radius) {
                            let source = min(height - 1, max(0, y - radius + j)) * width
                            let weight = k[j]
                            for x in 0..<width { p[row + x] += weight * t[source + x] }
                        }
                    }
                }
            }
        }
    }

    /// Adds sensor noise of standard deviation `sigma` to every pixel.
    static func addNoise(to plane: inout [Float], seed: UInt64, sigma: Float) {
        guard sigma > 0 else { return }
        plane.withUnsafeMutableBufferPointer { out in
            for i in out.indices { out[i] += sigma * gaussian(seed, i) }
        }
    }

    /// Gray bytes of R, G, B bytes with `DecodedImage`'s integer BT.601 formula (as `PaperRenderer`
    /// makes them).
    static func gray(fromRGB rgb: [UInt8]) -> [UInt8] {
        (0..<(rgb.count / 3)).map { i in
            let r = Int(rgb[3 * i]), g = Int(rgb[3 * i + 1]), b = Int(rgb[3 * i + 2])
            let luminance: Int = 299 * r + 587 * g + 114 * b + 500
            return UInt8(luminance / 1000)
        }
    }

    /// 0…1 to a byte, rounded and clamped.
    @inline(__always) static func byte(_ v: Float) -> UInt8 {
        UInt8(min(255, max(0, v * 255 + 0.5)))
    }
}
