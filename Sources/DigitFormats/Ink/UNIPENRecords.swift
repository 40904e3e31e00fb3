/// The second pass: resolves the selected segments' delineations, decides the y direction and
/// the flip, and builds the records.
struct UNIPENBuilder {
    let input: UNIPENInput
    let source: String
    let limits: StrokeLimits
    let options: UNIPEN.Options

    /// Pen-down components before component i (i in 0…n).
    private var downBefore: [Int]
    /// Pen-down samples before component i.
    private var downPointsBefore: [Int]
    /// The pen-down components, in order.
    private var downIndex: [Int]
    /// Components with an error, in order, and how many come before component i.
    private var failedIndex: [Int]
    private var failedBefore: [Int]

    /// A run of one pen-down component's samples, `from…to` (indices within the component).
    struct Piece: Hashable {
        var component: Int
        var from: Int
        var to: Int
    }

    /// What a segment names, checked but not yet visited: the runs `(n, s)…(m, t)` of
    /// components n…m (input-wide indices), from point s of n to point t of m.
    struct Plan {
        var runs: [(n: Int, s: Int, m: Int, t: Int)] = []
        var points = 0
        /// The runs as intervals of input-wide sample indices, adjacent ones merged: two plans
        /// with the same key name the same samples.
        var key: [Int] = []
    }

    /// One delineation item, `first[:firstPoint][-last[:lastPoint]]`, numbers within the set.
    struct Part: Equatable {
        var first: Int
        var firstPoint: Int?
        var last: Int
        var lastPoint: Int?
    }

    init(input: UNIPENInput, source: String, limits: StrokeLimits, options: UNIPEN.Options) {
        self.input = input
        self.source = source
        self.limits = limits
        self.options = options
        let count = input.components.count
        downBefore = [Int](repeating: 0, count: count + 1)
        downPointsBefore = [Int](repeating: 0, count: count + 1)
        failedBefore = [Int](repeating: 0, count: count + 1)
        downIndex = []
        failedIndex = input.componentErrors.keys.sorted()
        var failed = failedIndex.makeIterator()
        var nextFailed = failed.next()
        for (i, component) in input.components.enumerated() {
            downBefore[i + 1] = downBefore[i] + (component.penDown ? 1 : 0)
            downPointsBefore[i + 1] = downPointsBefore[i] + (component.penDown ? component.count : 0)
            if component.penDown { downIndex.append(i) }
            var failedHere = 0
            if nextFailed == i {
                failedHere = 1
                nextFailed = failed.next()
            }
            failedBefore[i + 1] = failedBefore[i] + failedHere
        }
    }

    // MARK: - Records

    func reading() -> UNIPEN.Reading {
        let segments = input.segments
        let followEnds = followingEnds()
        let budgetFactor = options.labels == .digits ? 1 : UNIPEN.allLabelsPointFactor
        let inkPoints = downPointsBefore[input.components.count]
        let budget = inkPoints.multipliedReportingOverflow(by: budgetFactor).partialValue

        // Plans are checked arithmetically; only those returned are visited, and those hold at
        // most `budget` points in all: the work is bounded by the input.
        var outcomes: [(segment: Int, result: Result<[Piece], DigitError>, writer: Int32)] = []
        var returnedKeys = Set<DuplicateKey>()
        var returned = 0
        var missingInk = 0
        for (s, segment) in segments.enumerated() {
            var namesMissingInk = false
            let (planned, writerComponent) = plan(segment, followEnd: followEnds[segment.mark], namesMissingInk: &namesMissingInk)
            if namesMissingInk { missingInk += 1 }
            var result: Result<[Piece], DigitError>
            switch planned {
            case .failure(let failure):
                result = .failure(failure)
            case .success(let plan):
                let key = DuplicateKey(label: segment.label ?? "", samples: plan.key)
                if options.labels == .digits, !plan.key.isEmpty, returnedKeys.contains(key) { continue }
                if plan.points > budget - returned {
                    let what = options.labels == .digits ? "the \(inkPoints) pen-down points the input holds"
                        : "\(budgetFactor) × the \(inkPoints) pen-down points the input holds"
                    result = .failure(error(.limit, segment, "with this segment the drawings would hold more points than \(what) (segments overlap)"))
                } else {
                    returned += plan.points
                    if options.labels == .digits, !plan.key.isEmpty { returnedKeys.insert(key) }
                    result = .success(pieces(plan))
                }
            }
            var writer = segment.writer
            if case .success(let pieces) = result, let first = pieces.first {
                writer = input.components[first.component].writer
            } else if let writerComponent {
                writer = input.components[writerComponent].writer
            }
            outcomes.append((s, result, writer))
        }

        let axis = options.yAxis ?? detectedAxis(outcomes.compactMap { outcome in
            guard UNIPENScanner.isDigit(segments[outcome.segment].label), case .success(let pieces) = outcome.result else { return nil }
            return pieces.first
        })
        let frame = Frame(axis: axis, input: input, limits: limits, inkPoints: inkPoints)

        var records: [DrawingRecord] = []
        var details: [UNIPEN.Segment] = []
        records.reserveCapacity(outcomes.count)
        details.reserveCapacity(outcomes.count)
        for outcome in outcomes {
            let segment = segments[outcome.segment]
            let result = outcome.result.flatMap { drawing($0, segment: segment, frame: frame) }
            let writer = outcome.writer >= 0 ? Int(outcome.writer) : nil
            records.append(DrawingRecord(source: source, index: records.count, line: segment.line,
                                         writer: writer.map { input.writerNumbers[$0] }, result: result))
            details.append(UNIPEN.Segment(level: segment.level, label: segment.label, quality: segment.quality,
                                          delineation: segment.delineation, writer: writer.map { input.writers[$0] },
                                          file: input.files[segment.file], line: segment.line))
        }
        return UNIPEN.Reading(records: records, segments: details, problems: input.problems, yAxis: axis,
                              files: input.files, inkPointCount: inkPoints, segmentsMissingInk: missingInk)
    }

    struct DuplicateKey: Hashable {
        var label: String
        var samples: [Int]
    }

    func error(_ kind: DigitError.Kind, _ segment: UNIPENSegmentStatement, _ message: String) -> DigitError {
        DigitError(kind, file: input.files[segment.file], at: "line \(segment.line)", message)
    }

    func error(_ segment: UNIPENSegmentStatement, _ message: String) -> DigitError {
        error(.format, segment, message)
    }

    // MARK: - Levels

    /// For each segment (mark), the component where a `?` delineation stops: the `followStart`
    /// of the next segment of the same or a coarser level (uplib's rule), else the end of the
    /// input. A level missing from `.HIERARCHY` counts as coarsest. Linear: a monotonic stack.
    func followingEnds() -> [Int] {
        var depthOf: [String: Int] = [:]
        for (depth, level) in input.hierarchy.enumerated() {
            let name = level == "CHAR" ? "CHARACTER" : level
            if depthOf[name] == nil { depthOf[name] = depth }
        }
        let levelDepth = input.levels.map { depthOf[$0 == "CHAR" ? "CHARACTER" : $0] ?? -1 }
        let marks = input.marks
        var ends = [Int](repeating: input.components.count, count: marks.count)
        var stack: [Int] = []  // later marks; a deeper one never ends an earlier segment once a shallower one comes after it
        for i in marks.indices.reversed() {
            let depth = levelDepth[Int(marks[i].level)]
            while let top = stack.last, levelDepth[Int(marks[top].level)] > depth { stack.removeLast() }
            if let top = stack.last { ends[i] = marks[top].followStart }
            stack.append(i)
        }
        return ends
    }

    // MARK: - Delineations

    /// `12`, `6-7`, `1,3-4`, `399:3-399:42`, `5:2`, `3-4:7`, `3:2-4`; nil for anything else.
    static func parseDelineation(_ text: String) -> [Part]? {
        let bytes = Array(text.utf8)
        var i = 0
        func number() -> Int? {
            var value = 0
            let start = i
            while i < bytes.count, bytes[i] &- UInt8(ascii: "0") < 10, i - start < 9 {
                value = value * 10 + Int(bytes[i] &- UInt8(ascii: "0"))
                i += 1
            }
            guard i > start, i == bytes.count || bytes[i] &- UInt8(ascii: "0") >= 10 else { return nil }
            return value
        }
        func point() -> Int?? {
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return .some(nil) }
            i += 1
            return number().map { .some($0) } ?? nil
        }
        var parts: [Part] = []
        while true {
            guard let first = number(), let firstPoint = point() else { return nil }
            var part = Part(first: first, firstPoint: firstPoint, last: first, lastPoint: firstPoint)
            if i < bytes.count, bytes[i] == UInt8(ascii: "-") {
                i += 1
                guard let last = number(), let lastPoint = point() else { return nil }
                part.last = last
                part.lastPoint = lastPoint
            }
            parts.append(part)
            if i == bytes.count { return parts }
            guard bytes[i] == UInt8(ascii: ",") else { return nil }
            i += 1
        }
    }

    /// What a segment names, checked against the components, their errors and the limits
    /// without visiting them; and the first component it names (for the writer).
    /// `namesMissingInk` is set when it fails for naming a component or a point past the ink read.
    func plan(_ segment: UNIPENSegmentStatement, followEnd: Int, namesMissingInk: inout Bool) -> (Result<Plan, DigitError>, Int?) {
        if let syntax = segment.syntaxError { return (.failure(error(segment, syntax)), nil) }
        if segment.level == "DIGIT" {
            guard let label = segment.label else {
                return (.failure(error(segment, "expected a quoted digit label such as \"7\" on the .SEGMENT DIGIT line")), nil)
            }
            guard UNIPENScanner.isDigit(label) else {
                return (.failure(error(segment, "the digit label must be one of \"0\"…\"9\", found \"\(label.prefix(20))\"")), nil)
            }
        }
        let set = Int(input.marks[segment.mark].set)
        let setStart = input.setStarts[set]
        let setEnd = set + 1 < input.setStarts.count ? input.setStarts[set + 1] : input.components.count
        let followStart = input.marks[segment.mark].followStart
        let parts: [Part]
        if let text = segment.delineation, text != "?" {
            guard let parsed = UNIPENBuilder.parseDelineation(text) else {
                return (.failure(error(segment, "unsupported delineation '\(text.prefix(40))': expected component numbers and "
                                       + "ranges such as 12, 6-7, 399:3-399:42 or 1,3-4")), nil)
            }
            parts = parsed
        } else {
            let end = min(followEnd, setEnd)
            parts = end > followStart
                ? [Part(first: followStart - setStart, firstPoint: nil, last: end - 1 - setStart, lastPoint: nil)] : []
        }
        var firstComponent: Int?
        var plan = Plan()
        var strokes = 0
        for part in parts {
            let size = setEnd - setStart
            guard part.first < size, part.last < size else {
                let missing = part.first >= size ? part.first : part.last
                let scope = input.setStarts.count > 1 ? "its .START_SET has" : "the input has"
                namesMissingInk = true
                return (.failure(error(segment, "the delineation names component \(missing), but \(scope) only \(size) "
                                       + "(blocks of points, counted from 0)")), firstComponent)
            }
            let n = setStart + part.first
            let m = setStart + part.last
            if firstComponent == nil { firstComponent = n }
            func backwards() -> DigitError { error(segment, "the delineation range '\(describe(part))' runs backwards") }
            guard n <= m else { return (.failure(backwards()), firstComponent) }
            if failedBefore[m + 1] > failedBefore[n], let failure = firstFailure(in: n...m) {
                return (.failure(failure), firstComponent)
            }
            let countN = input.components[n].count
            let countM = input.components[m].count
            let s = part.firstPoint ?? 0
            let t = part.lastPoint ?? countM - 1
            namesMissingInk = s >= countN || t >= countM
            if s >= countN { return (.failure(missingPoint(segment, s, part.first, countN)), firstComponent) }
            if t >= countM { return (.failure(missingPoint(segment, t, part.last, countM)), firstComponent) }
            guard n < m || s <= t else { return (.failure(backwards()), firstComponent) }
            strokes += downBefore[m + 1] - downBefore[n]
            if strokes > limits.maxStrokesPerDrawing {
                return (.failure(error(.limit, segment, "more than the limit of \(limits.maxStrokesPerDrawing) strokes per drawing")), firstComponent)
            }
            var points = downPointsBefore[m + 1] - downPointsBefore[n]
            if input.components[n].penDown { points -= s }
            if input.components[m].penDown { points -= countM - 1 - t }
            plan.points += points
            if plan.points > limits.maxPointsPerDrawing {
                return (.failure(error(.limit, segment, "more than the limit of \(limits.maxPointsPerDrawing) points per drawing")), firstComponent)
            }
            plan.runs.append((n, s, m, t))
            let first = input.components[n].start + s
            let last = input.components[m].start + t
            if let end = plan.key.last, end + 1 == first {
                plan.key[plan.key.count - 1] = last
            } else {
                plan.key += [first, last]
            }
        }
        return (.success(plan), firstComponent)
    }

    /// The pen-down runs of a plan, one per stroke.
    func pieces(_ plan: Plan) -> [Piece] {
        var pieces: [Piece] = []
        for run in plan.runs {
            for k in downBefore[run.n]..<downBefore[run.m + 1] {
                let c = downIndex[k]
                pieces.append(Piece(component: c, from: c == run.n ? run.s : 0,
                                    to: c == run.m ? run.t : input.components[c].count - 1))
            }
        }
        return pieces
    }

    func firstFailure(in range: ClosedRange<Int>) -> DigitError? {
        var low = 0
        var high = failedIndex.count
        while low < high {
            let mid = (low + high) / 2
            if failedIndex[mid] < range.lowerBound { low = mid + 1 } else { high = mid }
        }
        guard low < failedIndex.count, range.contains(failedIndex[low]) else { return nil }
        return input.componentErrors[failedIndex[low]]
    }

    func missingPoint(_ segment: UNIPENSegmentStatement, _ point: Int, _ component: Int, _ count: Int) -> DigitError {
        error(segment, "the delineation names point \(point) of component \(component), which has \(count) point\(count == 1 ? "" : "s") (counted from 0)")
    }

    func describe(_ part: Part) -> String {
        func end(_ c: Int, _ p: Int?) -> String { p.map { "\(c):\($0)" } ?? "\(c)" }
        return end(part.first, part.firstPoint) + "-" + end(part.last, part.lastPoint)
    }

    // MARK: - Coordinates

    /// Which way y grows, from the first strokes of the digit segments (`pieces`), else from
    /// every pen-down component: a stroke whose first point lies nearer its largest y than its
    /// smallest votes for y upward (digits are begun at the top), the opposite votes for downward.
    func detectedAxis(_ firstStrokes: [Piece]) -> UNIPEN.YAxis {
        var up = 0
        var down = 0
        func vote(_ component: Int, _ from: Int, _ to: Int) {
            let start = input.components[component].start
            var low = input.ys[start + from]
            var high = low
            for i in (start + from)...(start + to) {
                low = min(low, input.ys[i])
                high = max(high, input.ys[i])
            }
            let first = input.ys[start + from]
            if first - low > high - first { up += 1 } else if first - low < high - first { down += 1 }
        }
        for piece in firstStrokes { vote(piece.component, piece.from, piece.to) }
        if up == 0, down == 0 {
            for (c, component) in input.components.enumerated() where component.penDown && component.count > 0 {
                vote(c, 0, component.count - 1)
            }
        }
        return down > up ? .down : .up
    }

    /// How read coordinates become drawing coordinates.
    struct Frame {
        var axis: UNIPEN.YAxis
        /// y' = flipHeight − y when the axis is up.
        var flipHeight: Double
        var canvas: Float?

        init(axis: UNIPEN.YAxis, input: UNIPENInput, limits: StrokeLimits, inkPoints: Int) {
            self.axis = axis
            flipHeight = 0
            canvas = nil
            guard axis == .up, inkPoints > 0 else { return }
            var minX = Float.infinity, maxX = -Float.infinity, minY = Float.infinity, maxY = -Float.infinity
            for component in input.components where component.penDown {
                for i in component.start..<(component.start + component.count) {
                    minX = min(minX, input.xs[i])
                    maxX = max(maxX, input.xs[i])
                    minY = min(minY, input.ys[i])
                    maxY = max(maxY, input.ys[i])
                }
            }
            let box = UNIPEN.tabletHeight
            if let yDim = input.yDim, yDim <= limits.maxCoordinate, minY >= 0, Double(maxY) <= yDim {
                flipHeight = yDim
            } else if input.xDim == nil, input.yDim == nil, minX >= 0, minY >= 0, maxX <= box, maxY <= box,
                      maxX - minX >= box / 2 || maxY - minY >= box / 2 {
                flipHeight = Double(box)
                canvas = box
            } else {
                flipHeight = Double(maxY)
            }
        }
    }

    func drawing(_ pieces: [Piece], segment: UNIPENSegmentStatement, frame: Frame) -> Result<Drawing, DigitError> {
        var strokes: [[StrokePoint]] = []
        strokes.reserveCapacity(pieces.count)
        let flip = frame.axis == .up
        let bound = limits.maxCoordinate
        for piece in pieces {
            let start = input.components[piece.component].start
            var stroke: [StrokePoint] = []
            stroke.reserveCapacity(piece.to - piece.from + 1)
            for i in (start + piece.from)...(start + piece.to) {
                let y = flip ? frame.flipHeight - Double(input.ys[i]) : Double(input.ys[i])
                guard abs(y) <= bound else {
                    return .failure(error(.limit, segment, "a point lies outside the limit of ±\(UNIPENBuilder.format(bound)) once y is "
                                          + "flipped (y' = \(UNIPENBuilder.format(frame.flipHeight)) - y)"))
                }
                stroke.append(StrokePoint(x: input.xs[i], y: Float(y)))
            }
            strokes.append(stroke)
        }
        let label = UNIPENScanner.isDigit(segment.label) ? segment.label : nil
        return .success(Drawing(strokes: strokes, label: label, canvasWidth: frame.canvas, canvasHeight: frame.canvas))
    }

    /// A number as a person writes it: `500`, `10000000`, `2.5`.
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }
}
