import DigitKernels
import Foundation

/// The arithmetic of the two averaging layers that keep one row of the activation: the input seen
/// as `rows` rows of `row` values (`row` the output's size), each output value the mean of its
/// column, and each input value's gradient its output's gradient over `rows`. `GlobalAvgPool`
/// averages every pixel (a row is one pixel's channels) and divides by their number; `HeightPool`
/// averages the rows of the image and multiplies by the reciprocal: each keeps its own rounding.
class RowMeanTraining: TrainingLayer {
    enum Scaling { case divide, multiplyByReciprocal }

    let scaling: Scaling
    private lazy var output = FloatBuffer(count: capacity * outShape.count)
    private lazy var dInput = FloatBuffer(count: capacity * inShape.count)

    init(inShape: ActivationShape, outShape: ActivationShape, capacity: Int, scaling: Scaling) {
        self.scaling = scaling
        super.init(inShape: inShape, outShape: outShape, capacity: capacity)
    }

    /// Divides (or multiplies by the reciprocal of) `count` values by `rows`, in place.
    static func scale(_ values: UnsafeMutablePointer<Float>, _ count: Int, rows: Int, _ scaling: Scaling) {
        switch scaling {
        case .divide: for i in 0..<count { values[i] /= Float(rows) }
        case .multiplyByReciprocal:
            let scale = 1 / Float(rows)
            for i in 0..<count { values[i] *= scale }
        }
    }

    /// The output of one image.
    static func mean(_ input: UnsafePointer<Float>, _ inShape: ActivationShape, _ outShape: ActivationShape,
                     _ output: UnsafeMutablePointer<Float>, _ scaling: Scaling) {
        let row = outShape.count, rows = inShape.count / row
        for i in 0..<row { output[i] = 0 }
        for y in 0..<rows { for i in 0..<row { output[i] += input[y * row + i] } }
        scale(output, row, rows: rows, scaling)
    }

    override func forward(_ x: FloatBuffer, _ ctx: BatchContext) -> FloatBuffer {
        let out = output, s = inShape, o = outShape, scaling = scaling
        ctx.parallel { _, images in
            for n in images { Self.mean(x.pointer + n * s.count, s, o, out.pointer + n * o.count, scaling) }
        }
        return out
    }

    override func backward(_ dy: FloatBuffer, _ ctx: BatchContext, needInputGrad: Bool) -> FloatBuffer? {
        guard needInputGrad else { return nil }
        let di = dInput, s = inShape, row = outShape.count, rows = s.count / row, scaling = scaling
        ctx.parallel { _, images in
            for n in images {
                let image = di.pointer + n * s.count
                for y in 0..<rows { for i in 0..<row { image[y * row + i] = dy[n * row + i] } }
                Self.scale(image, s.count, rows: rows, scaling)
            }
        }
        return di
    }
}

/// The inference op of both: `RowMeanTraining.mean` on one image.
final class RowMeanInference: InferenceOp {
    let scaling: RowMeanTraining.Scaling
    private let opName: String
    private let opSummary: String

    init(input: ActivationShape, output: ActivationShape, scaling: RowMeanTraining.Scaling, name: String, summary: String) {
        self.scaling = scaling
        opName = name
        opSummary = summary
        super.init(input: input, output: output)
    }

    override var name: String { opName }
    override var summary: String { opSummary }

    override func run(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, outputRowStride: Int,
                      kernels: UnsafePointer<dk_kernels>, scratch: UnsafeMutablePointer<Float>) {
        RowMeanTraining.mean(input, self.input, self.output, output, scaling)
    }
}
