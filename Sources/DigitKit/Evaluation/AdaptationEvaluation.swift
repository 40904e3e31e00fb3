import Foundation

/// What adapting to a writer gives (`digits eval --adapt K`): for each writer of a labelled set,
/// a profile is made from their first K drawings of each digit (`WriterAdaptation`), and the rest
/// of their drawings are read as single digits by the base weights and by the weights with the
/// profile. With drawings that are not digits, both also read those (letters must stay refused).
public struct AdaptationEvaluation: Sendable {
    public struct Row: Sendable {
        public var writer: Int
        /// Digits adapted on, drawings tested.
        public var adaptedOn = 0
        public var base = WriterAdaptation.Figures(), adapted = WriterAdaptation.Figures()
        public var blend: Float = 0
        /// The pull of the refit the profile kept (`WriterAdaptation.Report.pull`).
        public var pull: Float = 0
        /// Non-digits not answered, by the base and with the profile (of `nonDigits`).
        public var nonDigits = 0, refusedBase = 0, refusedAdapted = 0
        public var seconds = 0.0
    }

    public var k: Int
    public var threshold: Float = 0.9
    public var adaptation = WriterAdaptation()
    /// A second opinion (its weight file) that the base and the adapted network both consult when
    /// unsure, as `digits recognize --profile` does with the default weights; nil: none.
    public var secondOpinion: String?

    public init(k: Int) { self.k = k }

    /// One row per writer in `records` that passes `writers` and has drawings left to test.
    public func run(model: ModelFile, records: [DrawingRecord], writers: (Int?) -> Bool = { _ in true },
                    nonDigits: [Drawing] = [], threads: Int = Parallel.processorCount,
                    progress: (Int, Int, Row) -> Void = { _, _, _ in }) throws -> [Row] {
        var byWriter: [Int: [Drawing]] = [:]
        for r in records where writers(r.writer) {
            guard let w = r.writer, case let .success(d) = r.result, d.labelDigit != nil, !d.isEmpty else { continue }
            byWriter[w, default: []].append(d)
        }
        let base = try DigitRecognizer(model: model, threshold: threshold)
        base.secondOpinion = try secondOpinion.map { try SecondOpinion(path: $0) }
        let refusedBase = nonDigits.reduce(0) { $0 + (base.recognize($1).digit == nil ? 1 : 0) }
        var rows: [Row] = []
        let order = byWriter.keys.sorted()
        for (n, writer) in order.enumerated() {
            var seen = [Int](repeating: 0, count: 10)
            var learn: [WriterAdaptation.Example] = [], test: [Drawing] = []
            var pixels = [Float](repeating: 0, count: 784)
            for (i, d) in byWriter[writer]!.enumerated() {
                let label = d.labelDigit!
                if seen[label] < k {
                    seen[label] += 1
                    pixels.withUnsafeMutableBufferPointer { base.rasterizer.rasterize(d, into: $0) }
                    learn.append(.init(pixels: pixels, label: label, group: i))
                } else {
                    test.append(d)
                }
            }
            guard !test.isEmpty, !learn.isEmpty else { continue }
            let start = Date()
            let (profile, report) = try adaptation.adapt(model: model, examples: learn, opinion: base.secondOpinion,
                                                             threads: threads)
            var row = Row(writer: writer)
            row.seconds = Date().timeIntervalSince(start)
            row.adaptedOn = learn.count
            row.blend = report.blend
            row.pull = report.pull
            let mine = try DigitRecognizer(model: try profile.apply(to: model), threshold: threshold)
            mine.secondOpinion = base.secondOpinion   // the two read one after the other, never at once
            for d in test {
                let label = d.labelDigit!
                for (recognizer, isBase) in [(base, true), (mine, false)] {
                    let r = recognizer.recognize(d)
                    var f = WriterAdaptation.Figures()
                    f.count = 1
                    if r.bestGuess != label { f.errors = 1 }
                    if let digit = r.digit { f.answered = 1; if digit != label { f.wrongAnswered = 1 } }
                    if isBase { row.base.add(f) } else { row.adapted.add(f) }
                }
            }
            row.nonDigits = nonDigits.count
            row.refusedBase = refusedBase
            row.refusedAdapted = row.blend == 0 ? refusedBase : nonDigits.reduce(0) { $0 + (mine.recognize($1).digit == nil ? 1 : 0) }
            rows.append(row)
            progress(n + 1, order.count, row)
        }
        return rows
    }
}
