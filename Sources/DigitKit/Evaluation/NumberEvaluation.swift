import Foundation

/// How well numbers are read: labelled drawings of numbers (labels of digits, "2026") through
/// `DigitRecognizer.read`, and drawings labelled as something other than a number ("A",
/// "scribble") counted as refusals when nothing is answered.
public struct NumberEvaluationReport: Sendable {
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

    public init() {}

    public var exactMatch: Double { numbers == 0 ? 0 : Double(exact) / Double(numbers) }
    public var coverage: Double { numbers == 0 ? 0 : Double(answered) / Double(numbers) }
    /// Right among answered (1 when nothing is answered).
    public var selectiveAccuracy: Double { answered == 0 ? 1 : Double(answeredRight) / Double(answered) }
    /// 1 − edit distance / label digits.
    public var digitAccuracy: Double { labelDigits == 0 ? 0 : 1 - Double(editDistance) / Double(labelDigits) }
    public var refusalRate: Double { nonNumbers == 0 ? 0 : Double(refused) / Double(nonNumbers) }

    /// Counts one reading against its label.
    public mutating func add(_ reading: NumberReading, label: String?) {
        guard let label else { return }
        guard Self.isNumbers(label) else {
            nonNumbers += 1
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
        if reading.isAnswered {
            answered += 1
            if Array(reading.text.utf8) == truth { answeredRight += 1 }
        }
        let (distance, insertions, deletions) = Self.align(truth, best)
        labelDigits += truth.filter { $0 != UInt8(ascii: " ") }.count
        editDistance += distance
        splits += insertions
        merges += deletions
    }

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
        return s
    }

    /// One JSON object with every figure.
    public var json: String {
        func n(_ v: Double) -> String { JSONText.number(v) }
        return "{\"numbers\":\(numbers),\"exact_match\":\(n(exactMatch)),\"digit_accuracy\":\(n(digitAccuracy)),"
            + "\"coverage\":\(n(coverage)),\"selective_accuracy\":\(n(selectiveAccuracy)),\"answered_wrong\":\(answered - answeredRight),"
            + "\"splits\":\(splits),\"merges\":\(merges),\"called_not_a_digit\":\(numbersCalledNotADigit),\"held_back_by_not_a_digit\":\(numbersHeldBack),"
            + "\"wrong_scored_lower\":\(wrongScoredLower),\"wrong_not_reached\":\(wrongNotReached),"
            + "\"wrong_not_among_candidates\":\(wrongNotAmongCandidates),"
            + "\"non_numbers\":\(nonNumbers),\"refusal_rate\":\(n(refusalRate)),\"refused_as_not_a_digit\":\(refusedAsNotADigit),\"non_numbers_held_back_by_not_a_digit\":\(nonNumbersHeldBack),"
            + "\"threshold\":\(n(Double(threshold))),\"errors\":\(errors.count)}"
    }
}

extension NumberEvaluationReport {
    /// Reads every labelled image (path, label) as a page with `options`, and counts it; `each`
    /// sees every reading with its image; an image that cannot be read is counted in `errors`.
    public static func evaluate(images: [(path: String, label: String)], recognizer: DigitRecognizer,
                                options: PageOptions = .init(),
                                each: (((path: String, label: String), NumberReading) -> Void)? = nil) -> NumberEvaluationReport {
        var report = NumberEvaluationReport()
        report.threshold = recognizer.threshold
        for (path, label) in images {
            var options = options
            options.reader.expected = label
            do {
                let reading = try recognizer.read(imageAt: path, options: options)
                report.add(reading, label: label)
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
                report.add(reading, label: drawing.label)
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
