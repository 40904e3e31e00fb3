/// A trainable tensor with its gradient. Each chunk of the batch accumulates into its own
/// gradient buffer (so threads never share one); `reduce()` sums the chunks in chunk order, which
/// makes the result independent of the thread count.
final class Parameter {
    let name: String
    let value: FloatBuffer
    let grad: FloatBuffer
    var chunkGrads: [FloatBuffer] = []
    /// Weight decay applies to conv and linear weights, not to biases or batch-norm parameters.
    let decays: Bool

    init(name: String, count: Int, decays: Bool) {
        self.name = name
        value = FloatBuffer(count: count)
        grad = FloatBuffer(count: count)
        self.decays = decays
    }

    var count: Int { value.count }

    func prepare(chunks: Int) {
        while chunkGrads.count < chunks { chunkGrads.append(FloatBuffer(count: count)) }
        for g in chunkGrads { g.zero() }
    }

    func reduce(chunks: Int) {
        grad.zero()
        for c in 0..<chunks {
            let src = chunkGrads[c].pointer
            for i in 0..<count { grad.pointer[i] += src[i] }
        }
    }
}
