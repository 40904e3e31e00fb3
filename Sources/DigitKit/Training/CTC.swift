import Foundation

/// Connectionist temporal classification (Graves, Fernández, Gomez & Schmidhuber 2006): the loss
/// of a sequence of per-column class scores against a label sequence, summed over every way the
/// columns can spell the label (repeats merged, blanks between), by the forward–backward
/// recursion in log space. Class 0 is the blank.
enum CTC {
    /// −log P(label | logits) for one line, and its gradient with respect to the logits (the
    /// softmax over classes is part of the loss) times `scale`, written into `grad`.
    /// `logits` and `grad` hold `frames` rows of `classes` values. A label that cannot fit in the
    /// frames (it needs a frame per symbol and one between repeats) gives a zero gradient and
    /// infinite loss.
    static func loss(logits: UnsafePointer<Float>, frames t: Int, classes c: Int, label: [Int],
                     scale: Float, grad: UnsafeMutablePointer<Float>) -> Float {
        let s = 2 * label.count + 1
        var needed = label.count
        for i in label.indices.dropFirst() where label[i] == label[i - 1] { needed += 1 }
        for i in 0..<(t * c) { grad[i] = 0 }
        guard needed <= t else { return .infinity }
        // Log-softmax of every frame.
        var logp = [Float](repeating: 0, count: t * c)
        for f in 0..<t {
            let z = logits + f * c
            var m = z[0]
            for k in 1..<c { m = max(m, z[k]) }
            var sum: Float = 0
            for k in 0..<c { sum += exp(z[k] - m) }
            let lse = m + log(sum)
            for k in 0..<c { logp[f * c + k] = z[k] - lse }
        }
        func symbol(_ i: Int) -> Int { i % 2 == 0 ? 0 : label[i / 2] }
        // A step from i - 2 skips a blank only between two different symbols.
        func canSkip(_ i: Int) -> Bool { i >= 2 && i % 2 == 1 && label[i / 2] != label[i / 2 - 1] }
        let negInf = -Float.infinity
        var alpha = [Float](repeating: negInf, count: t * s), beta = alpha
        alpha[0] = logp[0]
        if s > 1 { alpha[1] = logp[symbol(1)] }
        for f in 1..<max(t, 1) {
            for i in 0..<s {
                var a = alpha[(f - 1) * s + i]
                if i >= 1 { a = logAdd(a, alpha[(f - 1) * s + i - 1]) }
                if canSkip(i) { a = logAdd(a, alpha[(f - 1) * s + i - 2]) }
                alpha[f * s + i] = a + logp[f * c + symbol(i)]
            }
        }
        beta[(t - 1) * s + s - 1] = logp[(t - 1) * c]
        if s > 1 { beta[(t - 1) * s + s - 2] = logp[(t - 1) * c + symbol(s - 2)] }
        for f in stride(from: t - 2, through: 0, by: -1) {
            for i in 0..<s {
                var b = beta[(f + 1) * s + i]
                if i + 1 < s { b = logAdd(b, beta[(f + 1) * s + i + 1]) }
                if i + 2 < s, canSkip(i + 2) { b = logAdd(b, beta[(f + 1) * s + i + 2]) }
                beta[f * s + i] = b + logp[f * c + symbol(i)]
            }
        }
        let total = s > 1 ? logAdd(alpha[(t - 1) * s + s - 1], alpha[(t - 1) * s + s - 2]) : alpha[(t - 1) * s]
        guard total.isFinite else { return .infinity }
        // d(−log P)/dz[f][k] = softmax[f][k] − Σ_{i: symbol(i) = k} α β / (P · softmax[f][k]).
        var occupancy = [Float](repeating: negInf, count: c)
        for f in 0..<t {
            for k in 0..<c { occupancy[k] = negInf }
            for i in 0..<s {
                let k = symbol(i)
                occupancy[k] = logAdd(occupancy[k], alpha[f * s + i] + beta[f * s + i])
            }
            for k in 0..<c {
                let p = exp(logp[f * c + k])
                let target = occupancy[k] == negInf ? 0 : exp(occupancy[k] - logp[f * c + k] - total)
                grad[f * c + k] = scale * (p - target)
            }
        }
        return -total
    }

    static func logAdd(_ a: Float, _ b: Float) -> Float {
        if a == -.infinity { return b }
        if b == -.infinity { return a }
        return max(a, b) + log1p(exp(-abs(a - b)))
    }
}
