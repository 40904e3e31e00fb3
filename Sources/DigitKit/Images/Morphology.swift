import Foundation

/// Grey-level filters on row-major float images, for finding ink on a page: a running maximum
/// (grey dilation) over a square, the closing built from it, a 3×3 mean, and a coarse grid of
/// block percentiles interpolated back to full size. Each runs in time proportional to the pixels,
/// whatever the window.
enum Morphology {
    /// The maximum over the (2·radius + 1)² square around each pixel (the square cut at the image's edges).
    static func dilate(_ values: [Float], width w: Int, height h: Int, radius r: Int) -> [Float] {
        guard r > 0, w > 0, h > 0 else { return values }
        var out = values
        var line = [Float](), scratch = [Float]()
        out.withUnsafeMutableBufferPointer { v in
            for y in 0..<h { runningMax(v, start: y * w, step: 1, count: w, radius: r, line: &line, scratch: &scratch) }
            for x in 0..<w { runningMax(v, start: x, step: w, count: h, radius: r, line: &line, scratch: &scratch) }
        }
        return out
    }

    /// How much darker each pixel is than the paper around it, as a share of the paper's level
    /// (0…255): the paper is the grey closing over the (2·radius + 1)² square, so a shadow, whose
    /// step is wider than the square, does not weaken the ink in it.
    static func darkening(_ values: [Float], width w: Int, height h: Int, radius r: Int) -> [Float] {
        let paper = closing(values, width: w, height: h, radius: r)
        var out = [Float](repeating: 0, count: w * h)
        for i in out.indices { out[i] = 255 * min(1, max(0, (paper[i] - values[i]) / max(paper[i], 1))) }
        return out
    }

    /// The grey closing (dilation, then erosion) over the (2·radius + 1)² square: the image with
    /// every dark feature narrower than the square filled in, and everything else (light areas,
    /// slopes, steps) kept. On a page of dark ink it is the paper as if nothing were written on it.
    static func closing(_ values: [Float], width w: Int, height h: Int, radius r: Int) -> [Float] {
        var v = dilate(values, width: w, height: h, radius: r)
        for i in v.indices { v[i] = -v[i] }
        v = dilate(v, width: w, height: h, radius: r)
        for i in v.indices { v[i] = -v[i] }
        return v
    }

    /// The `k`-th smallest of `v` (0-based), reordering `v` (quickselect).
    static func select(_ v: inout [Float], _ k: Int) -> Float {
        var lo = 0, hi = v.count - 1
        while lo < hi {
            let pivot = v[(lo + hi) / 2]
            var i = lo, j = hi
            while i <= j {
                while v[i] < pivot { i += 1 }
                while v[j] > pivot { j -= 1 }
                if i <= j { v.swapAt(i, j); i += 1; j -= 1 }
            }
            if k <= j { hi = j } else if k >= i { lo = i } else { break }
        }
        return v[k]
    }

    /// The maximum of each window of `2·radius + 1` samples of a strided line, in place (van Herk /
    /// Gil-Werman: the line is padded with −∞ and split into blocks of the window's length; each
    /// window is the tail of one block and the head of the next).
    private static func runningMax(_ v: UnsafeMutableBufferPointer<Float>, start: Int, step: Int, count n: Int, radius r: Int,
                                   line: inout [Float], scratch: inout [Float]) {
        let s = 2 * r + 1
        let padded = n + 2 * r
        let blocks = (padded + s - 1) / s
        let total = blocks * s
        if line.count < total { line = [Float](repeating: 0, count: total); scratch = line }
        line.withUnsafeMutableBufferPointer { prefix in
            scratch.withUnsafeMutableBufferPointer { suffix in
                for i in 0..<total { prefix[i] = -.infinity }
                for i in 0..<n { prefix[r + i] = v[start + i * step] }
                for i in 0..<total { suffix[i] = prefix[i] }
                for b in 0..<blocks {
                    let lo = b * s, hi = lo + s - 1
                    if hi > lo {
                        for i in (lo + 1)...hi { prefix[i] = max(prefix[i], prefix[i - 1]) }
                        for i in stride(from: hi - 1, through: lo, by: -1) { suffix[i] = max(suffix[i], suffix[i + 1]) }
                    }
                }
                for i in 0..<n { v[start + i * step] = max(suffix[i], prefix[i + 2 * r]) }
            }
        }
    }

    /// The mean over the 3×3 square around each pixel (the square cut at the edges).
    static func mean3(_ values: [Float], width w: Int, height h: Int) -> [Float] {
        guard w > 0, h > 0 else { return values }
        var rows = values, out = values
        for y in 0..<h {
            for x in 0..<w {
                let a = values[y * w + max(0, x - 1)], c = values[y * w + min(w - 1, x + 1)]
                rows[y * w + x] = (a + values[y * w + x] + c) / 3
            }
        }
        for y in 0..<h {
            let up = max(0, y - 1) * w, down = min(h - 1, y + 1) * w
            for x in 0..<w { out[y * w + x] = (rows[up + x] + rows[y * w + x] + rows[down + x]) / 3 }
        }
        return out
    }

    /// The middle value of `values` (the upper one of an even count), exactly; not empty.
    static func median(_ values: [Float]) -> Float { values.sorted()[values.count / 2] }

    /// The `q` quantile (0…1) of gray levels (0…255), from a histogram with `binsPerLevel` bins a level.
    static func quantile<S: Sequence>(_ v: S, _ q: Float, binsPerLevel: Int = 1) -> Float where S.Element == Float {
        let bins = 256 * binsPerLevel
        var histogram = [Int](repeating: 0, count: bins)
        var n = 0
        let k = Float(binsPerLevel)
        for x in v where x.isFinite {
            histogram[min(bins - 1, max(0, Int(x * k)))] += 1
            n += 1
        }
        guard n > 0 else { return 0 }
        let target = Int(q * Float(n - 1))
        var seen = 0
        for (bin, count) in histogram.enumerated() {
            seen += count
            if seen > target { return (Float(bin) + 0.5) / k }
        }
        return 255
    }

    /// Otsu's threshold: the level (0…255) that splits `values` into two classes with the most
    /// variance between them (values below it, and the others); in the middle of an empty gap.
    static func otsu(_ values: [Float]) -> Float {
        var histogram = [Int](repeating: 0, count: 256)
        for v in values where v.isFinite { histogram[Int(min(255, max(0, v)))] += 1 }
        let n = histogram.reduce(0, +)
        guard n > 0 else { return 128 }
        let total = histogram.enumerated().reduce(0.0) { $0 + Double($1.offset * $1.element) }
        var below = 0, sumBelow = 0.0, best = -1.0, first = 127, last = 127
        for t in 0..<255 {
            below += histogram[t]
            sumBelow += Double(t * histogram[t])
            guard below > 0, below < n else { continue }
            let m0 = sumBelow / Double(below), m1 = (total - sumBelow) / Double(n - below)
            let between = Double(below) * Double(n - below) * (m0 - m1) * (m0 - m1)
            if between > best * (1 + 1e-9) { best = between; first = t; last = t } else if between >= best * (1 - 1e-9) { last = t }
        }
        // Bins first…last hold the values below the split: it lies after them.
        return Float(first + last) / 2 + 1
    }

    /// The `q` quantile of each block of `block`×`block` pixels, interpolated bilinearly between
    /// the blocks' centres back to full size: a smooth estimate of the page's level.
    static func blockQuantile(_ values: [Float], width w: Int, height h: Int, block: Int, q: Float) -> [Float] {
        let gx = (w + block - 1) / block, gy = (h + block - 1) / block
        var grid = [Float](repeating: 0, count: gx * gy)
        var sample: [Float] = []
        for by in 0..<gy {
            for bx in 0..<gx {
                sample.removeAll(keepingCapacity: true)
                for y in (by * block)..<min(h, (by + 1) * block) {
                    for x in (bx * block)..<min(w, (bx + 1) * block) { sample.append(values[y * w + x]) }
                }
                grid[by * gx + bx] = quantile(sample, q)
            }
        }
        return enlarged(grid, width: gx, height: gy, by: block, toWidth: w, height: h)
    }

    /// `values` (`width` × `height`) enlarged `k` times each way by bilinear interpolation between
    /// the pixels' centres, cut to `toWidth` × `height` (at most `k` times the size).
    static func enlarged(_ values: [Float], width gx: Int, height gy: Int, by k: Int, toWidth w: Int, height h: Int) -> [Float] {
        var out = [Float](repeating: 0, count: w * h)
        for y in 0..<h {
            let fy = min(max((Float(y) + 0.5) / Float(k) - 0.5, 0), Float(gy - 1))
            let y0 = Int(fy), y1 = min(y0 + 1, gy - 1), ty = fy - Float(y0)
            for x in 0..<w {
                let fx = min(max((Float(x) + 0.5) / Float(k) - 0.5, 0), Float(gx - 1))
                let x0 = Int(fx), x1 = min(x0 + 1, gx - 1), tx = fx - Float(x0)
                let top = values[y0 * gx + x0] * (1 - tx) + values[y0 * gx + x1] * tx
                let bottom = values[y1 * gx + x0] * (1 - tx) + values[y1 * gx + x1] * tx
                out[y * w + x] = top * (1 - ty) + bottom * ty
            }
        }
        return out
    }
}
