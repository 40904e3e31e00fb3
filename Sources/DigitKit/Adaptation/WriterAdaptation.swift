import DigitKernels
import Foundation

/// Learns one writer's hand from a few labelled drawings (`digits adapt`): the digit network's
/// last layer is refitted on the network's own features of the writer's digits, with everything
/// before it frozen, a pull toward the base weights, and synthetic non-digits held at the base
/// network's answer (so letters and scribbles stay refused). How much of the refit to keep — the
/// `blend` between base and refitted weights — is chosen by k-fold cross-validation on the
/// writer's own drawings: a gain in right answers (or in answers made sure) that makes neither
/// more top-1 errors nor more wrong answers than the base; when nothing helps, the blend is 0 and
/// the profile is the base model.
public struct WriterAdaptation: Sendable {
    public struct Options: Sendable {
        /// Distorted renderings of each drawing trained on, besides the drawing itself (more made
        /// the refit learn the distortions: on held-out pendigits writers, 6 gave more top-1 errors
        /// than 2, docs/adapt.md).
        public var copies = 2
        /// Full-batch Adam steps of the refit, and its learning rate.
        public var steps = 40
        public var learningRate: Float = 0.01
        /// The pulls toward the base weights tried, λ/2 · ‖W − W₀‖² per example: a refit is made
        /// with each, and the writer's own cross-validation chooses (with the blend). A weaker
        /// pull (0.01 beside 0.05) learned more of held-out writers' hands but let letters through
        /// (docs/adapt.md), so the default tries the strong one alone.
        public var pulls: [Float] = [0.05]
        /// Synthetic non-digits (`NonDigitSamples`) whose probabilities are held at the base's.
        public var anchors = 300
        /// Folds of the writer's drawings for choosing the blend (fewer when there are fewer drawings).
        public var folds = 5
        public var blends: [Float] = [0, 0.25, 0.5, 0.75, 1]
        /// The answer filter the figures use (`DigitRecognizer.threshold`).
        public var threshold: Float = 0.9
        /// A refit also counts as a gain when it reads at least `sureGain` more of the writer's
        /// drawings right and at least `sureThreshold` sure: a writer whose few drawings the base
        /// already answers shows no gain in answers, yet the later drawings it doubted are
        /// answered (held-out pendigits writers, K = 5: 98.63% → 98.87% answered, docs/adapt.md).
        public var sureThreshold: Float = 0.99
        public var sureGain = 2
        public var seed: UInt64 = 1
        public init() {}
    }

    /// A labelled 28×28 raster (0…1) to learn from; `group` is the drawing it came from (a
    /// number gives several).
    public struct Example: Sendable {
        public var pixels: [Float]
        public var label: Int
        public var group: Int
        public init(pixels: [Float], label: Int, group: Int) {
            self.pixels = pixels
            self.label = label
            self.group = group
        }
    }

    /// Figures on drawings the refit did not see: top-1 errors, answers (≥ threshold), wrong
    /// answers, right answers at least `Options.sureThreshold` sure; and the log loss,
    /// −Σ ln p(label), which sees a drawing read right but less surely.
    public struct Figures: Sendable, Equatable {
        public var count = 0, errors = 0, answered = 0, wrongAnswered = 0, rightSure = 0
        public var logLoss = 0.0
        public var rightAnswered: Int { answered - wrongAnswered }
        public init() {}
        public mutating func add(_ o: Figures) {
            count += o.count; errors += o.errors; answered += o.answered; wrongAnswered += o.wrongAnswered
            rightSure += o.rightSure
            logLoss += o.logLoss
        }
    }

    public struct Report: Sendable {
        /// Digits learned from, per digit 0–9.
        public var perDigit = [Int](repeating: 0, count: 10)
        /// Cross-validated on the writer's drawings: the base model, and with the chosen blend.
        public var before = Figures(), after = Figures()
        public var blend: Float = 0
        /// The pull of the refit kept (`Options.pulls`).
        public var pull: Float = 0
        public var folds = 0
        public init() {}
    }

    public let options: Options
    public init(options: Options = .init()) { self.options = options }

    /// The digits of labelled drawings, as the recognizer sees them: a drawing labelled with one
    /// digit is that digit; one labelled with a digit string is cut by the number reader and gives
    /// its pieces when they are as many as the label's digits (in order, left to right).
    public static func examples(from records: [DrawingRecord], recognizer: DigitRecognizer) -> (examples: [Example], skipped: [String]) {
        var out: [Example] = [], skipped: [String] = []
        var pixels = [Float](repeating: 0, count: 784)
        for (group, record) in records.enumerated() {
            let place = "\(record.source)" + (record.line.map { ":\($0)" } ?? "#\(record.index)")
            guard case let .success(drawing) = record.result else {
                if case let .failure(e) = record.result { skipped.append("\(place): \(e.message)") }
                continue
            }
            guard let digits = drawing.labelDigits, !digits.isEmpty else {
                skipped.append("\(place): no digit label"); continue
            }
            guard !drawing.isEmpty else { skipped.append("\(place): empty drawing"); continue }
            if digits.count == 1 {
                pixels.withUnsafeMutableBufferPointer { recognizer.rasterizer.rasterize(drawing, into: $0) }
                out.append(Example(pixels: pixels, label: digits[0], group: group))
                continue
            }
            guard let reading = try? recognizer.read(drawing), reading.digits.count == digits.count,
                  reading.digits.allSatisfy({ $0.raster.count == 784 }) else {
                skipped.append("\(place): cut into other than \(digits.count) digits"); continue
            }
            for (d, piece) in zip(digits, reading.digits) { out.append(Example(pixels: piece.raster, label: d, group: group)) }
        }
        return (out, skipped)
    }

    /// Fits a profile for `model` to `examples` (at least one).
    /// With `opinion`, the drawings are read in the cross-validation as they will be with the
    /// profile: the second opinion consulted where the adapted network is unsure.
    public func adapt(model: ModelFile, examples: [Example], opinion: SecondOpinion? = nil, threads: Int = Parallel.processorCount,
                      record: [String: String] = [:]) throws -> (profile: WriterProfile, report: Report) {
        guard !examples.isEmpty else { throw DigitError(.usage, "no labelled digits to learn from") }
        let head = try LastLayer(model: model)
        guard head.outCount >= 10 else { throw DigitError(.usage, "the weights' last layer has \(head.outCount) outputs, not 10 or 11") }
        var report = Report()
        for e in examples { report.perDigit[e.label] += 1 }

        // Features: each example, its distorted copies, and the anchors (held at the base's probabilities).
        var rng = SplitMix64(seed: options.seed)
        var pixels: [Float] = [], labels: [Int] = [], groups: [Int] = [], isCopy: [Bool] = []
        var copy = [Float](repeating: 0, count: 784)
        let distort = Augmentation()
        for e in examples {
            pixels += e.pixels; labels.append(e.label); groups.append(e.group); isCopy.append(false)
            for _ in 0..<options.copies {
                e.pixels.withUnsafeBufferPointer { src in copy.withUnsafeMutableBufferPointer { distort.apply(src.baseAddress!, into: $0.baseAddress!, rng: &rng) } }
                pixels += copy; labels.append(e.label); groups.append(e.group); isCopy.append(true)
            }
        }
        // The anchors drawn as training drew its non-digits: their corners as recorded.
        var anchorRaster = model.rasterOptions
        anchorRaster.smoothing = .none
        let anchorSource = NonDigitSamples(count: options.anchors, seed: options.seed &+ 7, raster: anchorRaster)
        var anchorPixels = [Float](repeating: 0, count: 784 * options.anchors)
        anchorPixels.withUnsafeMutableBufferPointer { p in
            for i in 0..<options.anchors { anchorSource.render(i, augment: false, rng: &rng, into: p.baseAddress! + i * 784) }
        }
        let features = head.features(pixels, threads: threads)
        let second = opinion?.probabilities(pixels: pixels, classes: head.outCount, threads: threads)
        let anchorFeatures = head.features(anchorPixels, threads: threads)
        let anchorTargets = head.probabilities(anchorFeatures, weight: head.weight, bias: head.bias, temperature: model.temperature)

        // Folds by drawing: each digit's drawings dealt round-robin, starting where the last digit stopped.
        let groupList = Array(Set(examples.map(\.group))).sorted()
        let nFolds = max(2, min(options.folds, groupList.count))
        var foldOf: [Int: Int] = [:]
        var next = 0
        for digit in 0..<10 {
            for g in groupList where foldOf[g] == nil && examples.first(where: { $0.group == g })?.label == digit {
                foldOf[g] = next % nFolds; next += 1
            }
        }
        report.folds = groupList.count >= 2 ? nFolds : 0
        // Candidates: each pull with each blend (blend 0, the base, is the same for every pull).
        let pulls = options.pulls.isEmpty ? [Float(0.05)] : options.pulls
        let nb = options.blends.count
        var perBlend = [Figures](repeating: Figures(), count: pulls.count * nb)
        if report.folds > 0 {
            let results = try Parallel.map(nFolds * pulls.count, threads: threads) { job -> [Figures] in
                let fold = job % nFolds, pull = pulls[job / nFolds]
                let train = (0..<labels.count).filter { foldOf[groups[$0]] != fold }
                let test = (0..<labels.count).filter { foldOf[groups[$0]] == fold && !isCopy[$0] }
                let (w, b) = self.refit(head: head, features: features, labels: labels, rows: train,
                                        anchors: anchorFeatures, anchorTargets: anchorTargets, temperature: model.temperature, pull: pull)
                return self.figures(head: head, features: features, labels: labels, rows: test, weight: w, bias: b,
                                    temperature: model.temperature, opinion: second)
            }
            for (job, r) in results.enumerated() { for k in 0..<nb { perBlend[(job / nFolds) * nb + k].add(r[k]) } }
        }
        let best = choice(perBlend, blendsPerPull: nb)
        if let base = perBlend.first {
            report.before = base
            report.after = perBlend[best]
        }
        report.blend = nb == 0 ? 0 : options.blends[best % nb]
        report.pull = pulls[nb == 0 ? 0 : best / nb]

        let (w, b) = refit(head: head, features: features, labels: labels, rows: Array(0..<labels.count),
                           anchors: anchorFeatures, anchorTargets: anchorTargets, temperature: model.temperature, pull: report.pull)
        let blend = report.blend
        let mixedW = zip(head.weight, w).map { $0 + blend * ($1 - $0) }
        let mixedB = zip(head.bias, b).map { $0 + blend * ($1 - $0) }
        var r = record
        r["drawings"] = String(Set(examples.map(\.group)).count)
        r["digits"] = String(examples.count)
        r["per_digit"] = report.perDigit.map(String.init).joined(separator: ",")
        r["folds"] = String(report.folds)
        r["pull"] = String(report.pull)
        func line(_ f: Figures) -> String {
            "\(f.count) drawings, \(f.errors) top-1 errors, \(f.answered) answered, \(f.wrongAnswered) wrong answers, \(f.rightSure) right and sure"
        }
        r["validation_base"] = line(report.before)
        r["validation_adapted"] = line(report.after)
        let profile = WriterProfile(baseWeights: model.weightsID, layerWeight: head.weightName, layerBias: head.biasName,
                                    weight: .init(shape: [head.outCount, head.inCount], values: head.toFile(mixedW)),
                                    bias: head.biasName == nil ? nil : .init(shape: [head.outCount], values: mixedB),
                                    blend: blend, record: r)
        return (profile, report)
    }

    /// The candidate kept (an index of `candidates`, `blendsPerPull` blends of each pull, blend 0
    /// first: index 0 is the base): the lowest log loss on drawings each refit did not see, among
    /// those with no more top-1 errors, no more wrong answers and no fewer right answers than the
    /// base, and fewer errors, more right answers or `Options.sureGain` more right answers at
    /// least `Options.sureThreshold` sure (a counted gain: a log loss lowered on a few dozen
    /// drawings alone did not carry over to the writer's later ones, docs/adapt.md). The log
    /// loss, unlike the counts, sees every drawing (a right answer made surer, a wrong digit made
    /// likelier), so a few dozen drawings are enough to tell a refit that learned the hand from
    /// one that learned its few drawings by heart. On a tie of log loss the pull listed first
    /// (`Options.pulls`) stays.
    public func choice(_ candidates: [Figures], blendsPerPull nb: Int) -> Int {
        guard let base = candidates.first else { return 0 }
        var best = 0
        for (k, c) in candidates.enumerated() where k % max(1, nb) != 0
            && c.errors <= base.errors && c.wrongAnswered <= base.wrongAnswered && c.rightAnswered >= base.rightAnswered
            && (c.errors < base.errors || c.rightAnswered > base.rightAnswered || c.rightSure >= base.rightSure + max(1, options.sureGain))
            && c.logLoss < candidates[best].logLoss {
            best = k
        }
        return best
    }

    /// The refitted layer (weights in feature order) from `rows` of the writer's examples. The
    /// weights are held transposed, (in, 16), for the library's linear kernels.
    func refit(head: LastLayer, features: [Float], labels: [Int], rows: [Int], anchors: [Float], anchorTargets: [Float],
               temperature: Float, pull: Float) -> (weight: [Float], bias: [Float]) {
        let d = head.inCount, k = head.outCount, nA = anchorTargets.count / k, padded = 16
        precondition(k <= padded)
        let kernels: UnsafePointer<dk_kernels> = dk_active()
        var base = [Float](repeating: 0, count: d * padded)
        for j in 0..<k { for i in 0..<d { base[i * padded + j] = head.weight[j * d + i] } }
        var w = base, b = head.bias
        var mw = [Float](repeating: 0, count: w.count), vw = mw, mb = [Float](repeating: 0, count: k), vb = mb
        var gw = [Float](repeating: 0, count: w.count), gb = [Float](repeating: 0, count: k)
        var z = [Float](repeating: 0, count: padded), dz = [Float](repeating: 0, count: padded)
        let n = Float(rows.count + nA)
        let beta1: Float = 0.9, beta2: Float = 0.999
        for step in 1...max(1, options.steps) {
            for i in gw.indices { gw[i] = pull * (w[i] - base[i]) }
            for j in 0..<k { gb[j] = pull * (b[j] - head.bias[j]) }
            // d loss / d logits = (p − target) / T, averaged over the examples.
            func accumulate(_ f: UnsafePointer<Float>, target: (Int) -> Float) {
                kernels.pointee.linear_forward!(f, d, w, b, k, padded, &z, 0)
                var m = -Float.infinity
                for j in 0..<k { z[j] /= temperature; m = max(m, z[j]) }
                var sum: Float = 0
                for j in 0..<k { z[j] = exp(z[j] - m); sum += z[j] }
                for j in 0..<k {
                    dz[j] = (z[j] / sum - target(j)) / (temperature * n)
                    gb[j] += dz[j]
                }
                kernels.pointee.linear_backward!(f, d, w, dz, k, padded, &gw, nil)
            }
            features.withUnsafeBufferPointer { fp in
                for r in rows { let label = labels[r]; accumulate(fp.baseAddress! + r * d) { $0 == label ? 1 : 0 } }
            }
            anchors.withUnsafeBufferPointer { ap in
                for a in 0..<nA { accumulate(ap.baseAddress! + a * d) { anchorTargets[a * k + $0] } }
            }
            let lr = options.learningRate * (1 - pow(beta2, Float(step))).squareRoot() / (1 - pow(beta1, Float(step)))
            adam(&w, gw, &mw, &vw, lr: lr)
            adam(&b, gb, &mb, &vb, lr: lr)
        }
        var out = [Float](repeating: 0, count: k * d)
        for j in 0..<k { for i in 0..<d { out[j * d + i] = w[i * padded + j] } }
        return (out, b)
    }

    private func adam(_ p: inout [Float], _ g: [Float], _ m: inout [Float], _ v: inout [Float], lr: Float) {
        let beta1: Float = 0.9, beta2: Float = 0.999
        p.withUnsafeMutableBufferPointer { p in
            m.withUnsafeMutableBufferPointer { m in
                v.withUnsafeMutableBufferPointer { v in
                    g.withUnsafeBufferPointer { g in
                        for i in 0..<p.count {
                            m[i] = beta1 * m[i] + (1 - beta1) * g[i]
                            v[i] = beta2 * v[i] + (1 - beta2) * g[i] * g[i]
                            p[i] -= lr * m[i] / (v[i].squareRoot() + 1e-8)
                        }
                    }
                }
            }
        }
    }

    /// Figures on `rows` for each of `options.blends` between the base layer and (`weight`, `bias`).
    /// With `opinion` (its probabilities of every row), a row the blend leaves unsure is revised
    /// by it (`SecondOpinion.combine`), as recognizing does.
    func figures(head: LastLayer, features: [Float], labels: [Int], rows: [Int], weight: [Float], bias: [Float],
                 temperature: Float, opinion: (rows: [Float], classes: Int, mix: Float)? = nil) -> [Figures] {
        let k = head.outCount
        var out = [Figures](repeating: Figures(), count: options.blends.count)
        var rowFeatures = [Float](); rowFeatures.reserveCapacity(rows.count * head.inCount)
        for r in rows { rowFeatures += features[(r * head.inCount)..<((r + 1) * head.inCount)] }
        let z0 = head.logits(rowFeatures, weight: head.weight, bias: head.bias)
        let z1 = head.logits(rowFeatures, weight: weight, bias: bias)
        for (bi, blend) in options.blends.enumerated() {
            for (n, r) in rows.enumerated() {
                let logits = (0..<k).map { z0[n * k + $0] + blend * (z1[n * k + $0] - z0[n * k + $0]) }
                var p = [Float](repeating: 0, count: k)
                p.withUnsafeMutableBufferPointer { q in
                    softmax(logits, count: k, temperature: temperature, into: q.baseAddress!)
                    if let opinion, SecondOpinion.isUnsure(UnsafeBufferPointer(q), threshold: options.threshold) {
                        let used = min(k, opinion.classes)
                        opinion.rows.withUnsafeBufferPointer {
                            SecondOpinion.combine(q, with: UnsafeBufferPointer(rebasing: $0[(r * opinion.classes)..<(r * opinion.classes + used)]),
                                                  mix: opinion.mix)
                        }
                    }
                }
                let digits = Array(p.prefix(10))
                let top = digits.indices.max { digits[$0] < digits[$1] }!
                out[bi].count += 1
                out[bi].logLoss -= log(Double(max(p[labels[r]], 1e-12)))
                if top != labels[r] { out[bi].errors += 1 }
                if top == labels[r] && digits[top] >= options.sureThreshold { out[bi].rightSure += 1 }
                if digits[top] >= options.threshold {
                    out[bi].answered += 1
                    if top != labels[r] { out[bi].wrongAnswered += 1 }
                }
            }
        }
        return out
    }
}

/// The digit network's last linear layer and the network before it: the features it reads (in
/// the order the network lays them out) and its weights in that order.
struct LastLayer {
    let features: InferenceNetwork
    let weightName: String
    let biasName: String?
    let inCount: Int, outCount: Int
    /// `(out, in)` with the input in feature order, and `(out)`.
    let weight: [Float], bias: [Float]
    /// For each feature index, the weight file's column (PyTorch's NCHW flatten order).
    let fileColumn: [Int]

    init(model: ModelFile) throws {
        guard !model.isLineModel, let index = model.layers.lastIndex(where: { $0 is Linear }), let linear = model.layers[index] as? Linear,
              model.layers[(index + 1)...].allSatisfy({ $0 is Dropout }) else {
            throw DigitError(.usage, "adapting needs a digit network that ends with a linear layer")
        }
        var shape = ActivationShape(height: InferenceNetwork.inputSize, width: InferenceNetwork.inputSize, channels: 1)
        var beforeFlatten: ActivationShape?
        for layer in model.layers[..<index] {
            if layer is Flatten { beforeFlatten = shape }
            shape = try layer.outputShape(for: shape)
        }
        var tensors = model.tensors
        tensors[linear.weight] = nil
        if let b = linear.bias { tensors[b] = nil }
        inCount = shape.count
        outCount = linear.outCount
        features = try InferenceNetwork(layers: Array(model.layers[..<index]), tensors: tensors, inputMean: model.inputMean,
                                        inputStd: model.inputStd, outputs: inCount)
        weightName = linear.weight
        biasName = linear.bias
        let s = beforeFlatten ?? ActivationShape(height: 1, width: 1, channels: inCount)
        // The inverse of the map the linear layer packs its weights with.
        var column = [Int](repeating: 0, count: inCount)
        for (file, feature) in Linear.nhwcIndex(s).enumerated() { column[feature] = file }
        fileColumn = column
        guard let w = model.tensors[linear.weight], w.shape == [outCount, inCount] else {
            throw DigitError(.format, "the linear layer's weight does not fit its input")
        }
        var fw = [Float](repeating: 0, count: outCount * inCount)
        for j in 0..<outCount { for i in 0..<inCount { fw[j * inCount + i] = w.values[j * inCount + column[i]] } }
        weight = fw
        bias = linear.bias.flatMap { model.tensors[$0]?.values } ?? [Float](repeating: 0, count: outCount)
    }

    /// Weights in feature order back in the file's order.
    func toFile(_ w: [Float]) -> [Float] {
        var out = [Float](repeating: 0, count: w.count)
        for j in 0..<outCount { for i in 0..<inCount { out[j * inCount + fileColumn[i]] = w[j * inCount + i] } }
        return out
    }

    /// The features of 28×28 rasters (784 floats each).
    func features(_ pixels: [Float], threads: Int) -> [Float] {
        let n = pixels.count / 784
        var out = [Float](repeating: 0, count: n * inCount)
        pixels.withUnsafeBufferPointer { p in
            out.withUnsafeMutableBufferPointer { o in features.logits(pixels: p.baseAddress!, count: n, into: o.baseAddress!, threads: threads) }
        }
        return out
    }

    func logits(_ f: [Float], weight: [Float], bias: [Float]) -> [Float] {
        let n = f.count / inCount
        var out = [Float](repeating: 0, count: n * outCount)
        f.withUnsafeBufferPointer { fp in
            weight.withUnsafeBufferPointer { wp in
                for r in 0..<n {
                    out.withUnsafeMutableBufferPointer { o in
                        dk_active().pointee.linear_forward_rows!(fp.baseAddress! + r * inCount, inCount, wp.baseAddress!, bias,
                                                                outCount, o.baseAddress! + r * outCount, 0)
                    }
                }
            }
        }
        return out
    }

    func probabilities(_ f: [Float], weight: [Float], bias: [Float], temperature: Float) -> [Float] {
        let z = logits(f, weight: weight, bias: bias)
        var p = [Float](repeating: 0, count: z.count)
        p.withUnsafeMutableBufferPointer { out in
            for r in 0..<(z.count / outCount) {
                z.withUnsafeBufferPointer { softmax($0.baseAddress! + r * outCount, count: outCount, temperature: temperature,
                                                    into: out.baseAddress! + r * outCount) }
            }
        }
        return p
    }
}

extension WriterAdaptation {
    /// For tests: the last layer's logits from the features (in feature order) beside the whole
    /// network's, for 28×28 rasters (784 floats each).
    public static func checkLayerOrder(model: ModelFile, pixels: [Float]) throws -> [(Float, Float)] {
        let head = try LastLayer(model: model)
        let mine = head.logits(head.features(pixels, threads: 1), weight: head.weight, bias: head.bias)
        let network = try model.makeNetwork()
        var theirs = [Float](repeating: 0, count: mine.count)
        pixels.withUnsafeBufferPointer { p in
            theirs.withUnsafeMutableBufferPointer { network.logits(pixels: p.baseAddress!, count: pixels.count / 784, into: $0.baseAddress!) }
        }
        return Array(zip(mine, theirs))
    }
}
