import Foundation

/// How photos and scans are prepared for reading.
public struct ImageOptions: Sendable, Equatable {
    /// Images larger than this on their long side are reduced (by whole factors) before the ink is
    /// looked for; a JPEG is decoded at a reduced scale directly (`ImageDecoder`'s `maxSide`).
    public var workingSide = 1200
    /// Images at most this many pixels on each side are read as one pre-cropped digit (with the
    /// paper model, at most 28: larger small crops are read as lines).
    public var singleDigitSide = 64
    /// The number reader's options for paper (`NumberReaderOptions.paper`): set `maxDigits` here.
    public var reader = NumberReaderOptions.paper
    /// Whether a piece of ink whose strokes cross is also read cut into its strokes
    /// (`InkStrokes`) rather than along seams, the better reading kept: digits that overlap (a
    /// 7's bar running into a 0) come apart where no seam parts them. When the two cuts read
    /// differently, the piece's digits, whichever cut is kept, are only as sure as that cut is
    /// against the other (docs/images.md).
    public var followsStrokes = true
    /// Whether ink that touches the image's border beside the line, drawn like a digit of it,
    /// is read as a digit cut by the photo's frame: shown as "?" (its probabilities halved, never
    /// answered) rather than left out, so a number the frame cuts is not answered without it.
    public var marksCutDigits = true
    /// Whether each line is read whole by the paper model (`LineReader`, the default when one is
    /// shipped or set): no cut between digits is needed, so touching and overlapping digits are
    /// read as written. False cuts the digits apart and reads each with the digit network (the
    /// reader of versions before 0.3; what `--single` and small crops of one digit always use).
    public var readsLinesWhole = true
    /// Whether an image the line reader leaves unanswered is also tried as a close-up of one
    /// digit (`CloseupGlyph`: the whole frame's ink as one glyph, read by the digit network), the
    /// digit network's answer kept when it is sure.
    public var readsCloseups = true
    /// Whether a sheet of paper lying on a darker surface that fills much of the frame (a note
    /// photographed on a desk) is found first and read alone (`PaperSheet`); boxes stay in the
    /// whole image's pixels. A sheet photographed at an angle that runs off the frame has the desk
    /// beyond its straight edges painted the paper's tone first (`SheetEdges`).
    public var findsSheets = true
    public init() {}
}

/// The name of `ImageOptions` until 0.2 (the reader of images was the "page" reader).
@available(*, deprecated, renamed: "ImageOptions")
public typealias PageOptions = ImageOptions

extension DigitRecognizer {
    /// Reads the digits in an image file (PNG, JPEG, PGM/PPM): boxes in the file's pixels.
    public func read(imageAt path: String, options: ImageOptions = .init()) throws -> NumberReading {
        let image = try ImageDecoder.read(path: path, maxSide: options.workingSide)
        do { return try read(image: image, options: options) } catch let e as DigitError { throw e.inFile(path) }
    }

    /// Reads the digits in a decoded image: lines of handwritten digits on paper (dark ink on
    /// light paper, or light on dark), or one pre-cropped digit (at most `singleDigitSide` pixels a
    /// side, either polarity). Boxes are in the stored image's pixels (`originalWidth`×`originalHeight`).
    /// Several lines of writing are read top to bottom into one reading, a space between them in
    /// its `text` ("9 5351"; `NumberReading.lines`), each line cut and read on its own. With
    /// `options.reader.maxDigits == 1` only the main line is read, all its ink as one digit.
    ///
    /// The page is prepared as MNIST was made from scans (see `InkMap`): the polarity is found, the
    /// background (paper, light gradients, shadows) is estimated by a grey closing a few pen widths
    /// across and removed, the ink is found by a threshold with hysteresis, specks and ink touching
    /// the border are dropped, and the ink's connected components are grouped into digits and
    /// touching digits cut (`InkSeams`, and where strokes cross `InkStrokes`) by the same
    /// candidate search as drawings (`read(_:)`).
    /// Each candidate keeps its anti-aliased gray levels, is fitted in 20×20 keeping its aspect
    /// and centred by mass in 28×28.
    public func read(image: DecodedImage, options: ImageOptions = .init()) throws -> NumberReading {
        let page = FloatImage(image)
        if options.findsSheets, let look = SheetGrid(page) {
            var inner = options
            inner.findsSheets = false
            if let sheet = PaperSheet.find(in: look, page: page) {
                let scale = Float(image.scale)
                return try read(image: sheet.cut(from: image), options: inner).moved(dx: Float(sheet.x0) * scale, dy: Float(sheet.y0) * scale)
            }
            if let edges = SheetEdges.find(in: look) { return try read(image: edges.painted(image), options: inner) }
        }
        let lineReader = options.readsLinesWhole && options.reader.maxDigits != 1 ? try paperReader() : nil
        // The paper model reads small crops of numbers (30-60 pixels tall) as lines; only an
        // image of MNIST's size is then one digit.
        let singleSide = lineReader == nil ? options.singleDigitSide : min(options.singleDigitSide, InferenceNetwork.inputSize)
        if image.width <= singleSide && image.height <= singleSide {
            return readSingle(page)
        }
        if let lines = lineReader {
            let (strips, others) = LineImage.linesAndOthers(image: image, workingSide: options.workingSide)
            guard !strips.isEmpty else { return NumberReading(text: "", confidence: 0, digits: [], threshold: threshold) }
            // A further line in which the model reads nothing, or nothing that is even half sure
            // (an underline's band, a smudge, the edge of the next row), is no line. Where the
            // line's looks spelled it differently, every digit kept half its probability, and a
            // line of clear writing with one doubtful digit was dropped (the number below it
            // answered alone): such a line is one when the median of its symbols' probabilities
            // of a digit before the halving is at the threshold (the next row's edge on a
            // register's crop is not, nor a printed word beside the number read as letters).
            func isLine(_ reading: NumberReading) -> Bool {
                guard !reading.isNothingRead else { return false }
                guard reading.looksDisagree else { return reading.digits.contains { max($0.confidence, $0.notADigit) >= 0.5 } }
                let sure = reading.digits.map(\.confidence).sorted(), n = sure.count
                return n > 0 && sure[(n - 1) / 2] + sure[n / 2] >= reading.threshold   // twice the median
            }
            let readings = try strips.map { try lines.read($0, marksCutDigits: options.marksCutDigits) }
            let kept = readings.count == 1 ? readings : readings.filter(isLine)
            if kept.count == 1, kept[0].isNothingRead {
                // The heaviest ink was only a mark (a dash, a ditto, an underline's remains): the
                // writing, if any, is in another band; the best scoring one that reads as a line.
                for strip in others {
                    let reading = try lines.read(strip, marksCutDigits: options.marksCutDigits)
                    if isLine(reading) { return options.readsCloseups ? readCloseup(image, reading, lightInk: strip.lightInk) : reading }
                }
            }
            let reading = NumberReading(lines: kept.isEmpty ? [readings[0]] : kept)
            return options.readsCloseups ? readCloseup(image, reading, lightInk: strips[0].lightInk) : reading
        }
        let working = page.reduced(toSide: options.workingSide)
        let map = InkMap(working)
        let found = InkComponents(map)
        let lines = options.reader.maxDigits == 1 ? found.line(cutByFrame: options.marksCutDigits).map { [$0] } ?? []
            : found.lines(cutByFrame: options.marksCutDigits)
        guard !lines.isEmpty else { return NumberReading(text: "", confidence: 0, digits: [], threshold: threshold) }
        let toImage = Float(working.factor * image.scale)
        // For analysis: the expected text of each line, when the label has one number a line.
        let expected = options.reader.expected?.split(separator: " ").map(String.init)
        return NumberReading(lines: try lines.enumerated().map { k, line in
            var options = options
            if lines.count > 1 { options.reader.expected = expected?.count == lines.count ? expected?[k] : nil }
            return try read(line: line, found: found, map: map, toImage: toImage, options: options)
        })
    }

    /// One line of the page read: cut along seams, then (`followsStrokes`) each wide component cut
    /// into its strokes where that reads better; boxes scaled by `toImage` to the image's pixels.
    private func read(line: InkLine, found: InkComponents, map: InkMap, toImage: Float, options: ImageOptions) throws -> NumberReading {
        let reader = options.reader
        // Components cut along seams; then, left to right, each wide one cut into its strokes
        // instead where that reads better; where the two cuts read differently, the digits of
        // that component keep the share of their probability that the kept cut has.
        let scored = ScoredRuns()
        var (reading, full) = try read(line, ink: map.ink, options: reader, scored: scored)
        // The best reading as the expected digits over every cut tried (`expectedScore`).
        var expected = reading.expectedScore
        var current = line
        if options.followsStrokes, reader.maxDigits != 1 {
            for k in Set(line.pieces.map(\.component)).sorted() {
                let strokes = found.strokes(of: k, lineHeight: line.height)
                guard !strokes.isEmpty else { continue }
                let other = current.replacing(component: k, with: strokes)
                var tried = try read(other, ink: map.ink, options: reader, scored: scored)
                if let e = tried.reading.expectedScore { expected = max(expected ?? e, e) }
                let better = tried.reading.score > reading.score
                if tried.reading.bestText != reading.bestText {
                    // The digits of this piece, by whichever cut is kept, are only as sure as that cut.
                    let share = 1 / (1 + exp(-abs(tried.reading.score - reading.score)))
                    if better {
                        tried.reading.doubt(by: share) { digit in other.pieces[digit.strokes[0]..<digit.strokes[1]].contains { $0.component == k } }
                    } else {
                        reading.doubt(by: share) { digit in current.pieces[digit.strokes[0]..<digit.strokes[1]].contains { $0.component == k } }
                    }
                }
                guard better else { continue }
                (reading, full) = tried
                current = other
            }
        }
        reading.markCutByFrame { current.isCutByFrame($0.strokes[0]..<$0.strokes[1]) }
        var scaled = reading
        scaled.expectedScore = expected
        for k in scaled.digits.indices {
            let s = scaled.digits[k].strokes
            let b = full[s[0]..<s[1]]!
            scaled.digits[k].strokes = []
            scaled.digits[k].box = InkBox(x0: b.x0 * toImage, y0: b.y0 * toImage, x1: (b.x1 + 1) * toImage, y1: (b.y1 + 1) * toImage)
        }
        return scaled
    }

    /// The best reading of a line of pieces, and the full boxes of its candidates (the reader
    /// weighs their core boxes; the digits are given their full boxes after: the `strokes` of a
    /// digit carry its run of pieces until then).
    /// The probabilities of runs that `scored` holds are not computed again.
    private func read(_ line: InkLine, ink: FloatImage, options: NumberReaderOptions, scored: ScoredRuns) throws -> (reading: NumberReading, full: [Range<Int>: InkBox]) {
        let candidates = options.maxDigits == 1 ? line.allAsOne : line.candidates
        var full: [Range<Int>: InkBox] = [:]
        let reading = try read(pieces: line.pieces.count, candidates: candidates, lineHeight: line.height,
                               box: { run in
                                   full[run] = line.box(run)
                                   return line.coreBox(run)
                               }, strokes: { run in [run.lowerBound, run.upperBound] }, options: options,
                               scored: (line.identity, scored)) { run, pixels in
            line.render(run, ink: ink, into: pixels)
        }
        return (reading, full)
    }

    /// A close-up of one digit, read as at most two digits by the line reader. When the whole
    /// image is one glyph that fills the frame (`CloseupGlyph.isCloseup`) and holds what the line
    /// reader read (its ink covers at least `CloseupGlyph.heldShare` of the box of the line
    /// reader's digits: a vignette's dark corners or a shadowed side make a glyph beside the
    /// writing), the digit network reads the glyph:
    /// - a reading left unanswered (a "?" in it, or nothing read) takes the network's answer when
    ///   it is at least `CloseupGlyph.sure` (0.98), or answered at the threshold and one of the
    ///   line reader's best guesses;
    /// - an answer read in a band that holds under `CloseupGlyph.explained` of a one-piece glyph's
    ///   ink (the hat of a 3 read as a 7, the foot of a 1 as a 6) stands only when the network
    ///   reads the whole glyph the same; the network's answer replaces it when at least `sure`;
    ///   otherwise its digits keep half their probability, and it is not answered.
    /// Otherwise the line reader's reading stands.
    private func readCloseup(_ image: DecodedImage, _ reading: NumberReading, lightInk: Bool) -> NumberReading {
        guard reading.digits.count <= 2, let glyph = CloseupGlyph(FloatImage(image), lightInk: lightInk), glyph.isCloseup else { return reading }
        let boxes = reading.digits.map(\.box)
        let region = boxes.first.map { first in boxes.dropFirst().reduce(first) { $0.union($1) } }
        if let region, glyph.inkShare(in: region) < CloseupGlyph.heldShare {
            return reading
        }
        if reading.isAnswered {
            guard let region, glyph.parts == 1 else { return reading }
            let h = region.y1 - region.y0   // a digit's box is the middle 0.6 of its line's band
            let band = InkBox(x0: region.x0, y0: region.y0 - h / 3, x1: region.x1, y1: region.y1 + h / 3)
            guard glyph.share(in: band) < CloseupGlyph.explained else { return reading }
            let r = recognize(pixels: glyph.pixels)
            if let digit = r.digit, r.confidence >= CloseupGlyph.sure || reading.text == "\(digit)" {
                return NumberReading(r, box: glyph.box, strokes: [])
            }
            var doubted = reading
            doubted.doubt(by: 0.5, at: Array(doubted.digits.indices))
            return doubted
        }
        let r = recognize(pixels: glyph.pixels)
        // Sure by itself, or at the usual threshold when the line reader's best reading holds
        // the same digit (two readers of different ink agree).
        guard let digit = r.digit,
              r.confidence >= CloseupGlyph.sure || reading.digits.contains(where: { $0.bestGuess == digit }) else { return reading }
        return NumberReading(r, box: glyph.box, strokes: [])
    }

    /// A pre-cropped digit. The ground is the median of the border (its polarity from the border's
    /// level) and is subtracted; 28×28 images then go to the network as they are (an MNIST image,
    /// black ground, keeps its values exactly), other sizes are fitted and centred as MNIST was.
    private func readSingle(_ page: FloatImage) -> NumberReading {
        let lightInk = page.borderIsDark
        var border: [Float] = []
        for x in 0..<page.width { border += [page.values[x], page.values[(page.height - 1) * page.width + x]] }
        for y in 0..<page.height { border += [page.values[y * page.width], page.values[y * page.width + page.width - 1]] }
        let ground = Morphology.quantile(border, 0.5).rounded(.down)
        let ink = page.with(page.values.map { lightInk ? max(0, $0 - ground) / 255 : max(0, ground - $0) / 255 })
        var pixels = [Float](repeating: 0, count: 784)
        if page.width == 28 && page.height == 28 {
            for i in 0..<784 { pixels[i] = ink.values[i] }
        } else {
            let all = InkRegion(ink: ink, keep: nil)
            pixels.withUnsafeMutableBufferPointer { all.render(extentFloor: 0, into: $0) }
        }
        let r = recognize(pixels: pixels)
        let box = InkRegion(ink: ink, keep: nil).box.map {
            InkBox(x0: Float($0.x0 * page.scale), y0: Float($0.y0 * page.scale), x1: Float(($0.x1 + 1) * page.scale),
                   y1: Float(($0.y1 + 1) * page.scale))
        } ?? InkBox(x0: 0, y0: 0, x1: Float(page.width * page.scale), y1: Float(page.height * page.scale))
        return NumberReading(r, box: box, strokes: [])
    }
}

extension NumberReading {
    /// Marks the digits `which` selects as cut by the photo's frame (`ReadDigit.isCutByFrame`):
    /// whether such a digit is whole is a toss-up, so its probabilities are halved and it is
    /// never answered.
    mutating func markCutByFrame(which: (ReadDigit) -> Bool) {
        markCutByFrame(at: digits.indices.filter { which(digits[$0]) })
    }

    /// Marks the digits at `cut` as cut by the photo's frame.
    mutating func markCutByFrame(at cut: [Int]) {
        guard !cut.isEmpty else { return }
        for k in cut {
            digits[k].isCutByFrame = true
            digits[k].digit = nil
        }
        doubt(by: 0.5, at: cut)
    }
}

