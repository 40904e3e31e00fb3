import Foundation

/// How well numbers are read: labelled drawings or images of numbers (labels of digits, "2026")
/// through `DigitRecognizer.read`, and items labelled as something other than a number ("A",
/// "scribble", "19a", "-") counted as refusals when nothing is answered: answering them is wrong.
/// Besides the totals: the figures by the number's length (`byLength`) and the worst readings
/// (`confidentlyWrong`, `wrongNotAnswered`) with their sources.
public struct NumberEvaluationReport: Sendable {
    /// The figures of the numbers whose label has `digits` digits (the spaces between lines not
    /// counted).
    public struct LengthFigures: Equatable, Sendable {
        public var digits: Int
        public var count = 0
        /// The best reading equals the label.
        public var exact = 0
        public var answered = 0
        public var answeredRight = 0

        public init(digits: Int) { self.digits = digits }

        public var exactMatch: Double { count == 0 ? 0 : Double(exact) / Double(count) }
        public var coverage: Double { count == 0 ? 0 : Double(answered) / Double(count) }
        /// Right among answered (1 when nothing is answered).
        public var selectiveAccuracy: Double { answered == 0 ? 1 : Double(answeredRight) / Double(answered) }
    }

    /// A reading that went wrong, and where it came from.
    public struct Miss: Equatable, Sendable {
        /// The image's path, or `FILE#INDEX` of a drawing.
        public var source: String
        public var label: String
        /// The answer, `?` for each digit below the threshold (`NumberReading.text`).
        public var text: String
        /// The best digits whatever their probabilities (`NumberReading.bestText`).
        public var best: String
        /// The reading's confidence: the product of its digits' probabilities.
        public var confidence: Float
        public var isAnswered: Bool
        /// False for an item whose label is not a number: any answer to it is wrong.
        public var isNumber: Bool

        public init(source: String, label: String, text: String, best: String, confidence: Float, isAnswered: Bool, isNumber: Bool) {
            self.source = source
            self.label = label
            self.text = text
            self.best = best
            self.confidence = confidence
            self.isAnswered = isAnswered
            self.isNumber = isNumber
        }
    }

    /// Drawings whose label is a number.
    public var numbers = 0
    /// Of those: the best reading's digits equal the label (whatever the threshold).
    public var exact = 0
    /// Answered: no `?` in the reading.
    public var answered = 0
    /// Answered and right.
    public var answeredRight = 0
    /// Digits in the labels, and the edit distance (insertions, deletions, substitutions) between
    /// each best reading and its label, summed.
    public var labelDigits = 0
    public var editDistance = 0
    /// Digits read twice (a digit split in two: an insertion in the alignment) and digits read as
    /// one with a neighbour (a deletion).
    public var splits = 0
    public var merges = 0
    /// Drawings whose label is not a number, how many of them got no answer, and how many of
    /// those were called "not a digit" (the rest: "not sure").
    public var nonNumbers = 0
    public var refused = 0
    public var refusedAsNotADigit = 0
    /// Numbers with no answer because some ink was called "not a digit".
    public var numbersCalledNotADigit = 0
    /// Numbers not answered only because of the "not a digit" output's share: every digit below
    /// the threshold would pass it on the ten digits' share alone (`ReadDigit.isHeldBackByNotADigit`).
    public var numbersHeldBack = 0
    /// Non-numbers refused only by the "not a digit" output's share, the same way: what the
    /// output gives in refusals for what it costs in answers.
    public var nonNumbersHeldBack = 0
    /// Of the wrong best readings whose expected score was computed (`NumberReaderOptions.expected`):
    /// the right digits were among the candidates but scored lower; scored higher but the search
    /// did not reach them (a page's pieces are cut one at a time); not among the candidates.
    public var wrongScoredLower = 0
    public var wrongNotReached = 0
    public var wrongNotAmongCandidates = 0
    /// Readings that could not be made (too many parts), with their errors.
    public var errors: [DigitError] = []
    public var threshold: Float = 0.9
    /// The numbers by length, shortest first; lengths without a number are left out.
    public private(set) var byLength: [LengthFigures] = []
    /// Answered but wrong — a number answered with other digits, or an item that is not a number
    /// answered at all — most confident first (the earlier first on a tie), at most `worstCount`.
    public private(set) var confidentlyWrong: [Miss] = []
    /// Numbers not answered whose best reading is not the label, most confident first, at most
    /// `worstCount`: what a lower threshold would answer wrong first.
    public private(set) var wrongNotAnswered: [Miss] = []
    /// How many readings each of the two lists keeps (the report's memory stays bounded).
    public var worstCount = 10
    /// Numbers not answered whose best reading is not the label, all of them.
    public var notAnsweredWrong = 0
    /// Answered but wrong, all of them: numbers answered with other digits, and items that are
    /// not numbers answered.
    public var answeredWrong: Int { answered - answeredRight + nonNumbers - refused }

    public init() {}

    public var exactMatch: Double { numbers == 0 ? 0 : Double(exact) / Double(numbers) }
    public var coverage: Double { numbers == 0 ? 0 : Double(answered) / Double(numbers) }
    /// Right among answered (1 when nothing is answered).
    public var selectiveAccuracy: Double { answered == 0 ? 1 : Double(answeredRight) / Double(answered) }
    /// 1 − edit distance / label digits.
    public var digitAccuracy: Double { labelDigits == 0 ? 0 : 1 - Double(editDistance) / Double(labelDigits) }
    public var refusalRate: Double { nonNumbers == 0 ? 0 : Double(refused) / Double(nonNumbers) }

    /// Counts one reading against its label; `source` (an image's path, `FILE#INDEX` of a
    /// drawing) names it in the worst readings.
    public mutating func add(_ reading: NumberReading, label: String?, source: String = "") {
        guard let label else { return }
        func miss(isNumber: Bool) -> Miss {
            Miss(source: source, label: label, text: reading.text, best: reading.bestText, confidence: reading.confidence,
                 isAnswered: reading.isAnswered, isNumber: isNumber)
        }
        guard Self.isNumbers(label) else {
            nonNumbers += 1
            if reading.isAnswered { Self.keep(miss(isNumber: false), in: &confidentlyWrong, count: worstCount) }
            if !reading.isAnswered { refused += 1 }
            if !reading.isAnswered, reading.hasNotADigit { refusedAsNotADigit += 1 }
            if reading.isHeldBackByNotADigit { nonNumbersHeldBack += 1 }
            return
        }
        numbers += 1
        if reading.hasNotADigit { numbersCalledNotADigit += 1 }
        if reading.isHeldBackByNotADigit { numbersHeldBack += 1 }
        let truth = Array(label.utf8), best = Array(reading.bestText.utf8)
        if truth == best { exact += 1 } else if let e = reading.expectedScore {
            if e == -.infinity { wrongNotAmongCandidates += 1 } else if e < reading.score { wrongScoredLower += 1 } else { wrongNotReached += 1 }
        }
        let right = reading.isAnswered && Array(reading.text.utf8) == truth
        if reading.isAnswered {
            answered += 1
            if right { answeredRight += 1 }
        }
        let length = truth.filter { $0 != UInt8(ascii: " ") }.count
        let k = byLength.firstIndex { $0.digits >= length } ?? byLength.count
        if k == byLength.count || byLength[k].digits != length { byLength.insert(LengthFigures(digits: length), at: k) }
        byLength[k].count += 1
        if truth == best { byLength[k].exact += 1 }
        if reading.isAnswered { byLength[k].answered += 1 }
        if right { byLength[k].answeredRight += 1 }
        if reading.isAnswered, !right {
            Self.keep(miss(isNumber: true), in: &confidentlyWrong, count: worstCount)
        } else if !reading.isAnswered, truth != best {
            notAnsweredWrong += 1
            Self.keep(miss(isNumber: true), in: &wrongNotAnswered, count: worstCount)
        }
        let (distance, insertions, deletions) = Self.align(truth, best)
        labelDigits += length
        editDistance += distance
        splits += insertions
        merges += deletions
    }

    /// Puts `miss` into `list` (most confident first, the earlier first on a tie), keeping at most
    /// `count`.
    static func keep(_ miss: Miss, in list: inout [Miss], count: Int) {
        let at = list.firstIndex { $0.confidence < miss.confidence } ?? list.count
        guard at < count else { return }
        list.insert(miss, at: at)
        if list.count > count { list.removeLast() }
    }

    /// The worst readings: `confidentlyWrong`, then `wrongNotAnswered`.
    public var worst: [Miss] { confidentlyWrong + wrongNotAnswered }

    /// True for a label of a number, or of the numbers of several lines separated by single spaces
    /// ("9 5351", as `NumberReading.text` gives them).
    static func isNumbers(_ label: String) -> Bool {
        let groups = label.split(separator: " ", omittingEmptySubsequences: false)
        return groups.allSatisfy { !$0.isEmpty && $0.unicodeScalars.allSatisfy { ("0"..."9").contains($0) } }
    }

    /// Levenshtein distance of `a` (the label) and `b` (the reading), with the insertions and
    /// deletions of one optimal alignment.
    static func align(_ a: [UInt8], _ b: [UInt8]) -> (distance: Int, insertions: Int, deletions: Int) {
        var table = [[(Int, Int, Int)]](repeating: [(Int, Int, Int)](repeating: (0, 0, 0), count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = (i, 0, i) }
        for j in 0...b.count { table[0][j] = (j, j, 0) }
        if a.isEmpty || b.isEmpty { return table[a.count][b.count] }
        for i in 1...a.count {
            for j in 1...b.count {
                let substitute = table[i - 1][j - 1], insert = table[i][j - 1], delete = table[i - 1][j]
                let options = [(substitute.0 + (a[i - 1] == b[j - 1] ? 0 : 1), substitute.1, substitute.2),
                               (insert.0 + 1, insert.1 + 1, insert.2),
                               (delete.0 + 1, delete.1, delete.2 + 1)]
                table[i][j] = options.min { $0.0 < $1.0 }!
            }
        }
        return table[a.count][b.count]
    }

    /// The report as a table of lines.
    public var table: String {
        func pct(_ v: Double) -> String { String(format: "%.2f%%", v * 100) }
        var s = ""
        if numbers > 0 {
            let singles = labelDigits == numbers   // every label one digit
            s += (singles ? "digits               " : "numbers              ") + "\(numbers)\n"
            s += (singles ? "top-1 accuracy       " : "exact match          ")
                + "\(pct(exactMatch))   (\(exact) of \(numbers), best reading)\n"
            if !singles { s += "digit accuracy       \(pct(digitAccuracy))   (1 - edit distance / \(labelDigits) digits)\n" }
            s += "answered (no ?)      \(pct(coverage))   (\(answered) at threshold \(threshold)"
                + (numbersCalledNotADigit > 0 ? "; \(numbersCalledNotADigit) called not a digit" : "")
                + (numbersHeldBack > 0 ? "; \(numbersHeldBack) held back by the \"not a digit\" share" : "") + ")\n"
            s += "right among answered \(pct(selectiveAccuracy))   (\(answered - answeredRight) wrong)\n"
            if !singles {
                s += "answered right       \(pct(Double(answeredRight) / Double(numbers)))   (\(answeredRight) of \(numbers): "
                    + "answered and read exactly)\n"
            }
            s += "split / merged       \(splits) / \(merges) digits\n"
            let analysed = wrongScoredLower + wrongNotReached + wrongNotAmongCandidates
            if analysed > 0 {
                s += "wrong readings       \(analysed): right digits among the candidates, scored lower \(wrongScoredLower); "
                    + "scored higher, not reached \(wrongNotReached); not among them \(wrongNotAmongCandidates)\n"
            }
        }
        if nonNumbers > 0 {
            s += "not digits           \(nonNumbers)\n"
            s += "refused              \(pct(refusalRate))   (\(refused) of \(nonNumbers): \(refusedAsNotADigit) \"not a digit\", "
                + "\(refused - refusedAsNotADigit) \"not sure\""
                + (nonNumbersHeldBack > 0 ? "; \(nonNumbersHeldBack) held back by the \"not a digit\" share" : "") + ")\n"
        }
        if !errors.isEmpty { s += "not readable         \(errors.count)\n" }
        if byLength.count > 1 {
            s += "\nby length       count     exact  answered  right among answered\n"
            for f in byLength {
                s += String(format: "  %3d ", f.digits) + (f.digits == 1 ? "digit " : "digits")
                    + String(format: "  %7d  %7.2f%%  %7.2f%%  %7.2f%%   (%d wrong)\n", f.count, f.exactMatch * 100, f.coverage * 100,
                             f.selectiveAccuracy * 100, f.answered - f.answeredRight)
            }
        }
        func reading(_ m: Miss) -> String { m.isAnswered ? m.text : m.text + " (best " + m.best + ")" }
        let readingWidth = max(7, min(32, worst.map { reading($0).count }.max() ?? 0))
        let labelWidth = max(5, min(12, worst.map(\.label.count).max() ?? 0))
        let header = "  confidence  " + Self.padded("reading", readingWidth) + "  " + Self.padded("label", labelWidth) + "  source\n"
        func line(_ m: Miss) -> String {
            String(format: "  %9.2f%%  ", Double(m.confidence) * 100) + Self.padded(reading(m), readingWidth) + "  "
                + Self.padded(m.label, labelWidth) + "  " + m.source + (m.isNumber ? "" : "  (not a number)") + "\n"
        }
        if !confidentlyWrong.isEmpty {
            s += "\nanswered but wrong, most confident first (\(confidentlyWrong.count) of \(answeredWrong))\n" + header
            for m in confidentlyWrong { s += line(m) }
        }
        if !wrongNotAnswered.isEmpty {
            s += "\nnot answered, best reading wrong, most confident first (\(wrongNotAnswered.count) of \(notAnsweredWrong))\n" + header
            for m in wrongNotAnswered { s += line(m) }
        }
        return s
    }

    /// `text` followed by spaces up to `width` characters.
    static func padded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    /// Every figure as one JSON object: the totals, `by_length` (an object per length, shortest
    /// first) and `worst` (`confidentlyWrong` then `wrongNotAnswered`).
    public var jsonValue: JSONValue {
        func n(_ v: Int) -> JSONValue { .number(Double(v)) }
        // A Float's shortest decimal (0.999, not 0.9990000128746033).
        func n(_ v: Float) -> JSONValue { .number(Double(v.description) ?? Double(v)) }
        let lengths: [JSONValue] = byLength.map { f in
            .object([JSONMember("digits", n(f.digits)), JSONMember("count", n(f.count)), JSONMember("exact", n(f.exact)),
                     JSONMember("answered", n(f.answered)), JSONMember("answered_right", n(f.answeredRight)),
                     JSONMember("exact_match", .number(f.exactMatch)), JSONMember("coverage", .number(f.coverage)),
                     JSONMember("selective_accuracy", .number(f.selectiveAccuracy))])
        }
        let worst: [JSONValue] = self.worst.map { m in
            .object([JSONMember("source", .string(m.source)), JSONMember("label", .string(m.label)), JSONMember("text", .string(m.text)),
                     JSONMember("best", .string(m.best)), JSONMember("confidence", n(m.confidence)),
                     JSONMember("answered", .bool(m.isAnswered)), JSONMember("number", .bool(m.isNumber))])
        }
        return .object([
            JSONMember("numbers", n(numbers)), JSONMember("exact_match", .number(exactMatch)),
            JSONMember("digit_accuracy", .number(digitAccuracy)), JSONMember("coverage", .number(coverage)),
            JSONMember("selective_accuracy", .number(selectiveAccuracy)), JSONMember("answered_wrong", n(answered - answeredRight)),
            JSONMember("splits", n(splits)), JSONMember("merges", n(merges)), JSONMember("called_not_a_digit", n(numbersCalledNotADigit)),
            JSONMember("held_back_by_not_a_digit", n(numbersHeldBack)), JSONMember("wrong_scored_lower", n(wrongScoredLower)),
            JSONMember("wrong_not_reached", n(wrongNotReached)), JSONMember("wrong_not_among_candidates", n(wrongNotAmongCandidates)),
            JSONMember("non_numbers", n(nonNumbers)), JSONMember("refusal_rate", .number(refusalRate)),
            JSONMember("refused_as_not_a_digit", n(refusedAsNotADigit)),
            JSONMember("non_numbers_held_back_by_not_a_digit", n(nonNumbersHeldBack)),
            JSONMember("threshold", .number(Double(threshold))), JSONMember("errors", n(errors.count)),
            JSONMember("exact", n(exact)), JSONMember("answered", n(answered)), JSONMember("answered_right", n(answeredRight)),
            JSONMember("not_answered_wrong", n(notAnsweredWrong)), JSONMember("by_length", .array(lengths)), JSONMember("worst", .array(worst)),
        ])
    }

    /// `jsonValue` as one line of JSON.
    public var json: String { jsonValue.serialized() }
}

extension NumberEvaluationReport {
    /// Reads every labelled image (path, label) as a page with `options`, and counts it; `each`
    /// sees every reading with its image; an image that cannot be read is counted in `errors`.
    public static func evaluate(images: [(path: String, label: String)], recognizer: DigitRecognizer,
                                options: ImageOptions = .init(),
                                each: (((path: String, label: String), NumberReading) -> Void)? = nil) -> NumberEvaluationReport {
        var report = NumberEvaluationReport()
        report.threshold = recognizer.threshold
        for (path, label) in images {
            var options = options
            options.reader.expected = label
            do {
                let reading = try recognizer.read(imageAt: path, options: options)
                report.add(reading, label: label, source: path)
                each?((path, label), reading)
            } catch let e as DigitError {
                report.errors.append(e)
            } catch {
                report.errors.append(DigitError(.format, file: path, "\(error)"))
            }
        }
        return report
    }

    /// Reads every labelled drawing of `records` (whose writer passes `writers`) and counts it;
    /// `each` sees every reading with its record.
    public static func evaluate(_ records: [DrawingRecord], recognizer: DigitRecognizer, options: NumberReaderOptions = .init(),
                                writers: ((Int?) -> Bool)? = nil,
                                each: ((DrawingRecord, NumberReading) -> Void)? = nil) -> NumberEvaluationReport {
        var report = NumberEvaluationReport()
        report.threshold = recognizer.threshold
        for record in records {
            if let writers, !writers(record.writer) { continue }
            guard case let .success(drawing) = record.result, drawing.label != nil else { continue }
            do {
                var options = options
                options.expected = drawing.label
                let reading = try recognizer.read(drawing, options: options)
                report.add(reading, label: drawing.label, source: "\(record.source)#\(record.index)")
                each?(record, reading)
            } catch let e as DigitError {
                report.errors.append(e.inFile(record.source))
            } catch {
                report.errors.append(DigitError(.format, file: record.source, "\(error)"))
            }
        }
        return report
    }
}
