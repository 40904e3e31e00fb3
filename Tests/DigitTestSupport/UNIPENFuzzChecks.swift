#if !DIGITS_FUZZ
import DigitFormats
#endif
import Foundation

/// The properties the UNIPEN reader keeps on every input (the `unipen` fuzz target; `UNIPENTests`
/// also runs the fixtures and damaged files through them).
extension FuzzChecks {
    static let unipenSource = "fuzz.unipen"

    /// The violated properties, empty when the input was handled correctly: read with the
    /// default and the tight limits, digits and all labels, the y direction detected and forced.
    /// Each reading must be records that are drawings within the limits or errors naming the
    /// source, never holding more points than the input's samples (times
    /// `UNIPEN.allLabelsPointFactor` for all labels).
    public static func checkUNIPEN(_ bytes: [UInt8]) -> [String] {
        var problems: [String] = []
        let samples = sampleBound(bytes)
        let runs: [(StrokeLimits, UNIPEN.Options)] = [
            (StrokeLimits(), UNIPEN.Options()),
            (StrokeLimits(), UNIPEN.Options(labels: .all, yAxis: .down)),
            (tightLimits, UNIPEN.Options(labels: .all)),
            (tightLimits, UNIPEN.Options(yAxis: .up)),
        ]
        for (limits, options) in runs {
            do {
                let reading = try UNIPEN.read(bytes, source: unipenSource, limits: limits, options: options)
                if bytes.count > limits.maxFileBytes { problems.append("read \(bytes.count) bytes over the limit") }
                problems += checkReading(reading, limits: limits, options: options, samples: samples)
            } catch {
                problems += checkError(error, source: unipenSource)
                if bytes.count <= limits.maxFileBytes { problems.append("read threw on an input within the size limit: \(error)") }
            }
        }
        do {
            let records = try UNIPEN.parse(bytes, source: unipenSource)
            if records.isEmpty { problems.append("UNIPEN.parse returned no records instead of throwing") }
        } catch {
            problems += checkError(error, source: unipenSource)
        }
        return problems
    }

    /// At least as many as the samples any reading can find: every sample takes two numbers or more.
    static func sampleBound(_ bytes: [UInt8]) -> Int {
        var words = 0
        var inWord = false
        for byte in bytes {
            let blank = byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0B || byte == 0x0C
            if !blank, !inWord { words += 1 }
            inWord = !blank
        }
        return words / 2
    }

    static func checkReading(_ reading: UNIPEN.Reading, limits: StrokeLimits, options: UNIPEN.Options, samples: Int) -> [String] {
        var problems: [String] = []
        if reading.records.count != reading.segments.count {
            problems.append("\(reading.records.count) records but \(reading.segments.count) segments")
        }
        if !reading.problems.isEmpty { problems.append("problems without any include followed: \(reading.problems)") }
        if let failure = reading.includeFailure { problems.append("an include failure without any include followed: \(failure)") }
        let failed = reading.records.filter { if case .failure = $0.result { return true } else { return false } }.count
        if !(0...failed).contains(reading.segmentsMissingInk) {
            problems.append("\(reading.segmentsMissingInk) segments missing ink among \(failed) failed records")
        }
        if reading.files != [unipenSource] { problems.append("files read: \(reading.files)") }
        if reading.inkPointCount > samples { problems.append("\(reading.inkPointCount) ink points from at most \(samples) samples") }
        if let forced = options.yAxis, reading.yAxis != forced { problems.append("y axis \(reading.yAxis) instead of \(forced)") }
        var previousLine = 0
        var points = 0
        for (i, record) in reading.records.enumerated() {
            if record.index != i { problems.append("record \(i) has index \(record.index)") }
            if record.source != unipenSource { problems.append("record \(i) names source \(record.source)") }
            if let line = record.line {
                if line <= previousLine { problems.append("record \(i) at line \(line) after line \(previousLine)") }
                previousLine = line
            } else {
                problems.append("record \(i) has no line")
            }
            if i < reading.segments.count {
                let segment = reading.segments[i]
                if segment.line != record.line { problems.append("record \(i): segment line \(segment.line)") }
                if segment.file != unipenSource { problems.append("record \(i): segment file \(segment.file)") }
                let digit = segment.label.map { $0.count == 1 && "0123456789".contains($0) } ?? false
                switch options.labels {
                case .digits:
                    if !digit, segment.level != "DIGIT" { problems.append("record \(i): not a digit segment (\(segment.label ?? "nil"))") }
                case .all:
                    if (segment.label ?? "").isEmpty, segment.level != "DIGIT" { problems.append("record \(i): unlabelled segment") }
                }
                if case .success(let drawing) = record.result, drawing.label != (digit ? segment.label : nil) {
                    problems.append("record \(i): drawing label \(drawing.label ?? "nil") for segment label \(segment.label ?? "nil")")
                }
            }
            switch record.result {
            case .failure(let error):
                problems += checkError(error, source: unipenSource).map { "record \(i): \($0)" }
            case .success(let drawing):
                problems += checkUNIPENDrawing(drawing, limits: limits).map { "record \(i): \($0)" }
                points += drawing.pointCount
            }
        }
        let factor = options.labels == .digits ? 1 : UNIPEN.allLabelsPointFactor
        if points > reading.inkPointCount * factor || points > samples * factor {
            problems.append("\(points) points returned from \(reading.inkPointCount) ink points (\(samples) samples at most)")
        }
        return problems
    }

    /// The UNIPEN reader's own contract: no time or pressure, digit labels only, the pendigits canvas or none.
    static func checkUNIPENDrawing(_ drawing: Drawing, limits: StrokeLimits) -> [String] {
        var problems: [String] = []
        if drawing.strokes.count > limits.maxStrokesPerDrawing { problems.append("\(drawing.strokes.count) strokes") }
        if drawing.pointCount > limits.maxPointsPerDrawing { problems.append("\(drawing.pointCount) points") }
        if drawing.strokes.contains(where: \.isEmpty) { problems.append("an empty stroke") }
        let bound = Float(limits.maxCoordinate)
        for point in drawing.strokes.joined() {
            if !(abs(point.x) <= bound && abs(point.y) <= bound) { problems.append("point (\(point.x), \(point.y)) out of range") }
            if point.t != nil || point.p != nil { problems.append("a point with time or pressure") }
        }
        if let label = drawing.label, !(label.count == 1 && "0123456789".contains(label)) { problems.append("label \(label)") }
        for side in [drawing.canvasWidth, drawing.canvasHeight] {
            if let side, side != UNIPEN.tabletHeight { problems.append("canvas side \(side)") }
        }
        return problems
    }
}
