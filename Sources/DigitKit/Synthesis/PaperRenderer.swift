import Foundation

/// Makes synthetic photographs of handwriting on paper, for testing a reader of photos with
/// images whose truth is known: the digits and the box of each one.
///
/// The model, in the order it is applied:
/// 1. **Placement.** The drawing is scaled so its ink is `digitHeight` pixels high, turned by
///    `rotation` degrees, given a keystone (`perspective`, a sheet tilted towards the camera),
///    shrunk if it would not fit inside the `margin`, and placed anywhere inside it (`offCentre`).
/// 2. **Pen.** Each stroke is drawn at the output resolution as round-capped segments whose
///    coverage follows the distance to the segment (anti-aliased capsules), pen width
///    `penWidth` × the digit height, varying along the stroke by `penWobble`; ink of one of
///    `inkColours`, `inkOpacity`, thinned in places by `inkMottle` (a ballpoint skipping).
/// 3. **Paper.** A tone (`paperTone`, tinted cream or grey by `paperTint`) with fibre noise:
///    blotches a quarter of the image across, clouds and two layers of thin fibres a few pixels
///    long, and per-pixel grain, all scaled to the writing so the grain stays paper-sized.
///    With probability `invertedShare` the polarity flips: light chalk (`chalkTone`) on a dark
///    board (`boardTone`), for a reader that must find the polarity itself.
/// 4. **Light.** A linear `gradient` in a random direction, a `vignette`, a warm or cool
///    `whiteBalance`, and with probability `shadowShare` a shadow: a half-plane (a band along
///    one side or a corner, by its angle) darker by `shadowDarkness` with an edge blurred over
///    `shadowSoftness` × the image diagonal.
/// 5. **Camera.** Gaussian `blur`, sensor `noise`, 8-bit rounding; `PaperImage.encoded(.jpeg)`
///    compresses at the drawn `jpegQuality`.
///
/// Every range is drawn uniformly; pin a value with a one-point range (`5...5`). Reflectances
/// and tones are on the output's 0…1 scale (0 black, 1 white), without gamma. The same renderer,
/// drawing and generator state give the same bytes.
public struct PaperRenderer: Sendable, Equatable {
    // MARK: Image
    /// Size of the output in pixels.
    public var width = 640
    public var height = 480
    /// RGB and gray, or gray only (faster, and the same gray as a gray photo would decode to).
    public var colour = true
    /// Keep the ink coverage in `PaperImage.inkMask` (for tests).
    public var keepsInkMask = false

    // MARK: Placement
    /// Height of the drawing's ink in pixels (ignoring the pen width); smaller when the number
    /// would not fit inside the margins.
    public var digitHeight: ClosedRange<Float> = 40...160
    /// How many lines' height the drawing is (a note of several lines: `NumberComposer.stacked`);
    /// the pen's width is a share of one line's height.
    public var linesTall: Float = 1
    /// Free border on every side, as a share of the shorter image side.
    public var margin: Float = 0.06
    /// 0 puts the number in the middle; 1 anywhere inside the margins.
    public var offCentre: Float = 0.8
    /// Share of images of two or more digits framed so that the image's left or right edge runs
    /// through the first or the last digit (30–70% of its width kept, the neighbour whole): what
    /// a hurried photo does. The image is that much narrower; the label stays the whole number.
    /// At 0 (the default) no random number is drawn for it, so earlier sets are reproduced.
    public var frameCutShare: Float = 0
    /// Degrees, clockwise on the screen.
    public var rotation: ClosedRange<Float> = -4...4
    /// Keystone: the scale changes by this share across the image's long side, drawn for x and
    /// for y separately (0.06: a digit at one edge is 6% larger than at the other).
    public var perspective: ClosedRange<Float> = -0.06...0.06

    // MARK: Pen
    /// Pen width as a share of the digit height (0.045: a fine ballpoint; 0.11: a felt pen).
    /// At least one pixel.
    public var penWidth: ClosedRange<Float> = 0.045...0.11
    /// The width varies along each stroke by up to ± this share (pressure).
    public var penWobble: Float = 0.2
    /// Ink colours as reflectance; one is chosen per image.
    public var inkColours: [PaperColour] = PaperRenderer.pens
    /// How much of the ink's colour a fully covered pixel takes (the rest is paper).
    public var inkOpacity: ClosedRange<Float> = 0.8...1
    /// Fine noise thins the ink by up to this share.
    public var inkMottle: ClosedRange<Float> = 0.1...0.35

    /// Black, blue and dark blue ballpoint, pencil graphite.
    public static let pens = [
        PaperColour(0.1, 0.1, 0.12), PaperColour(0.14, 0.18, 0.5), PaperColour(0.1, 0.11, 0.3), PaperColour(0.33, 0.33, 0.35),
    ]

    /// Faint writing: a hard pencil, a worn one, a pale blue ballpoint running dry, faded ink.
    public static let lightPens = [
        PaperColour(0.55, 0.55, 0.57), PaperColour(0.63, 0.63, 0.65), PaperColour(0.5, 0.56, 0.78), PaperColour(0.6, 0.57, 0.52),
    ]

    // MARK: Paper
    /// Reflectance of the paper (the brightest pixels of a well exposed photo).
    public var paperTone: ClosedRange<Float> = 0.76...0.95
    /// Positive: cream (red up, blue down by this share); negative: cool.
    public var paperTint: ClosedRange<Float> = -0.02...0.06
    /// Amplitude of the fibre noise as a share of the tone; about 0.4 × this is its standard
    /// deviation.
    public var texture: ClosedRange<Float> = 0.025...0.07

    // MARK: Polarity
    /// Share of images with light ink on a dark board.
    public var invertedShare: Float = 0
    public var boardTone: ClosedRange<Float> = 0.1...0.28
    public var chalkTone: ClosedRange<Float> = 0.72...0.92

    // MARK: Light
    /// Light falls off by this share from the bright side of the image to the dark side.
    public var gradient: ClosedRange<Float> = 0.05...0.35
    /// Darkening at the corners relative to the middle.
    public var vignette: ClosedRange<Float> = 0...0.2
    /// Warmth of the light: red up, blue down by this share.
    public var whiteBalance: ClosedRange<Float> = -0.03...0.08
    /// Share of images with a shadow.
    public var shadowShare: Float = 0.6
    public var shadowDarkness: ClosedRange<Float> = 0.15...0.45
    /// Width of the shadow's soft edge as a share of the image diagonal.
    public var shadowSoftness: ClosedRange<Float> = 0.01...0.08
    /// Share of the image the shadow covers, measured across its edge.
    public var shadowCover: ClosedRange<Float> = 0.1...0.45

    // MARK: Camera
    /// Gaussian blur, standard deviation in pixels.
    public var blur: ClosedRange<Float> = 0.4...1.4
    /// Sensor noise, standard deviation on the 0…1 scale (0.01 is about 2.5 gray levels).
    public var noise: ClosedRange<Float> = 0.004...0.018
    /// JPEG quality (libjpeg's 1…100 scale) for `PaperImage.encoded(.jpeg)`.
    public var jpegQuality: ClosedRange<Int> = 60...90

    public init() {}

    /// A clean render for tests: no rotation, tilt, blur, noise, gradient, vignette, shadow,
    /// texture or mottle, black ink of full opacity, the number in the middle.
    public static var clean: PaperRenderer {
        var r = PaperRenderer()
        let effects: [WritableKeyPath<PaperRenderer, ClosedRange<Float>>] = [
            \.rotation, \.perspective, \.inkMottle, \.paperTint, \.texture, \.gradient, \.vignette, \.whiteBalance, \.blur, \.noise,
        ]
        for effect in effects { r[keyPath: effect] = 0...0 }
        r.offCentre = 0
        r.penWobble = 0
        r.shadowShare = 0
        r.inkColours = [PaperColour(0, 0, 0)]
        r.inkOpacity = 1...1
        r.paperTone = 0.8...0.8
        return r
    }

    /// `number` on paper, one box per digit.
    public func render(_ number: NumberComposer.Number, rng: inout SplitMix64) throws -> PaperImage {
        try render(number.drawing, strokeDigit: number.strokeDigit, rng: &rng)
    }

    /// A note of `lines` lines stacked `lineGap` line heights apart (`NumberComposer.stacked`),
    /// each line as tall, and drawn with as wide a pen, as `digitHeight` and `penWidth` make one.
    public func render(note: NumberComposer.Number, lines: Int, lineGap: Float, rng: inout SplitMix64) throws -> PaperImage {
        var renderer = self
        let tall = max(1, Float(lines) + Float(lines - 1) * lineGap)
        renderer.digitHeight = min(digitHeight.lowerBound * tall, 16_384)...min(digitHeight.upperBound * tall, 16_384)
        renderer.linesTall = tall
        return try renderer.render(note, rng: &rng)
    }

    /// `drawing` (any units, y growing downward) on paper. `strokeDigit[k]` names the digit stroke
    /// `k` belongs to (any integers; one box per distinct value, in increasing order); nil makes
    /// the whole drawing one digit. Throws `.usage` for settings out of range or a `strokeDigit`
    /// of the wrong length.
    public func render(_ drawing: Drawing, strokeDigit: [Int]? = nil, rng: inout SplitMix64) throws -> PaperImage {
        try validate()
        if let strokeDigit, strokeDigit.count != drawing.strokes.count {
            throw DigitError(.usage, "strokeDigit has \(strokeDigit.count) entries for \(drawing.strokes.count) strokes")
        }
        var effects = PaperEffects()
        effects.inverted = rng.nextFloat() < invertedShare
        let layout = place(drawing, rng: &rng, effects: &effects)
        let owners = strokeDigit ?? Array(repeating: 0, count: drawing.strokes.count)

        // Ink, and the boxes worked out from the geometry rather than read from the pixels.
        var ink = PaperInk(width: width, height: height)
        let digits = Array(Set(owners)).sorted()
        var extents = [(Float, Float, Float, Float)?](repeating: nil, count: digits.count)
        for (k, stroke) in layout.strokes.enumerated() where !stroke.isEmpty {
            let slot = digits.firstIndex(of: owners[k])!
            // A one-point stroke is a dot: a segment of length zero.
            for i in 0..<max(1, stroke.count - 1) {
                let a = stroke[i], b = stroke[min(i + 1, stroke.count - 1)]
                let r = (a.r + b.r) / 2
                ink.capsule(a.x, a.y, b.x, b.y, radius: r)
                let e = (min(a.x, b.x) - r, min(a.y, b.y) - r, max(a.x, b.x) + r, max(a.y, b.y) + r)
                extents[slot] = extents[slot].map { (min($0.0, e.0), min($0.1, e.1), max($0.2, e.2), max($0.3, e.3)) } ?? e
            }
        }
        // A pixel gets ink when its centre is less than r + 0.5 from the pen's path, so its column
        // x satisfies minX - r - 1 < x < maxX + r: x0 = ceil(minX - r) - 1, x1 = floor(maxX + r) + 1.
        // The 0.01 absorbs float rounding at the edge; the box is at most about a pixel too large.
        let boxes = extents.map { e -> PixelRect in
            guard let e else { return PixelRect(x0: 0, y0: 0, x1: 0, y1: 0) }
            let x0 = min(width, max(0, Int((e.0 - 0.01).rounded(.up)) - 1))
            let y0 = min(height, max(0, Int((e.1 - 0.01).rounded(.up)) - 1))
            let x1 = max(x0, min(width, Int((e.2 + 0.01).rounded(.down)) + 1))
            let y1 = max(y0, min(height, Int((e.3 + 0.01).rounded(.down)) + 1))
            return PixelRect(x0: x0, y0: y0, x1: x1, y1: y1)
        }

        let planes = shade(ink: ink, layout: layout, rng: &rng, effects: &effects)
        let count = width * height
        var gray = [UInt8](repeating: 0, count: count)
        var rgb: [UInt8]?
        if planes.count == 3 {
            var bytes = [UInt8](repeating: 0, count: 3 * count)
            for i in 0..<count {
                let r = PaperPixels.byte(planes[0][i]), g = PaperPixels.byte(planes[1][i]), b = PaperPixels.byte(planes[2][i])
                bytes[3 * i] = r
                bytes[3 * i + 1] = g
                bytes[3 * i + 2] = b
                let luminance: Int = 299 * Int(r) + 587 * Int(g) + 114 * Int(b) + 500
                gray[i] = UInt8(luminance / 1000)
            }
            rgb = bytes
        } else {
            for i in 0..<count { gray[i] = PaperPixels.byte(planes[0][i]) }
        }
        let image = PaperImage(width: width, height: height, gray: gray, rgb: rgb, digitBoxes: boxes, label: drawing.label,
                               inkMask: keepsInkMask ? ink.coverage.map(PaperPixels.byte) : nil, effects: effects)
        guard frameCutShare > 0, rng.nextFloat() < frameCutShare, boxes.count >= 2 else { return image }
        return Self.frameCut(image, rng: &rng) ?? image
    }

    /// `image` with its frame through the first or the last digit (`frameCutShare`), or nil when
    /// neither can be cut without cutting its neighbour (digits that overlap).
    static func frameCut(_ image: PaperImage, rng: inout SplitMix64) -> PaperImage? {
        let boxes = image.digitBoxes
        let fromLeft = rng.nextFloat() < 0.5
        let kept = rng.uniform(0.3, 0.7)
        for left in [fromLeft, !fromLeft] {
            let (digit, neighbour) = left ? (boxes[0], boxes[1]) : (boxes[boxes.count - 1], boxes[boxes.count - 2])
            let share = left ? 1 - kept : kept
            let x = digit.x + Int((Float(digit.width) * share).rounded())
            if left, x > digit.x, x < neighbour.x { return image.cropped(columns: x..<image.width) }
            if !left, x < digit.maxX, x > neighbour.maxX { return image.cropped(columns: 0..<x) }
        }
        return nil
    }

    // MARK: - Placement

    struct Point {
        var x: Float
        var y: Float
        /// Pen radius here, in pixels.
        var r: Float
    }

    struct Layout {
        var strokes: [[Point]]
        var penRadius: Float
    }

    /// The strokes in pixels: scaled, turned, tilted, fitted inside the margins and placed.
    func place(_ drawing: Drawing, rng: inout SplitMix64, effects: inout PaperEffects) -> Layout {
        var height = rng.uniform(digitHeight.lowerBound, digitHeight.upperBound)
        let penShare = rng.uniform(penWidth.lowerBound, penWidth.upperBound)
        let angle = rng.uniform(rotation.lowerBound, rotation.upperBound)
        let tiltX = rng.uniform(perspective.lowerBound, perspective.upperBound)
        let tiltY = rng.uniform(perspective.lowerBound, perspective.upperBound)
        let placeX = rng.uniform(-0.5, 0.5) * offCentre, placeY = rng.uniform(-0.5, 0.5) * offCentre
        let wobblePhase = rng.uniform(0, 2 * Float.pi)
        effects.rotation = angle
        effects.tiltX = tiltX
        effects.tiltY = tiltY

        let points = drawing.strokes.map { $0.filter { $0.x.isFinite && $0.y.isFinite } }
        let all = points.joined()
        guard let first = all.first else {
            effects.digitHeight = 0
            effects.penWidth = max(1, penShare * height / linesTall)
            return Layout(strokes: points.map { _ in [] }, penRadius: effects.penWidth / 2)
        }
        var minX = first.x, maxX = first.x, minY = first.y, maxY = first.y
        for p in all {
            minX = min(minX, p.x); maxX = max(maxX, p.x)
            minY = min(minY, p.y); maxY = max(maxY, p.y)
        }
        let cx = (minX + maxX) / 2, cy = (minY + maxY) / 2
        // A "1" or a dot must not be blown up to the full height by its width alone.
        let extent = max(maxY - minY, 0.25 * (maxX - minX))
        let unit: Float = extent > 1e-6 ? 1 / extent : 1
        let c = cos(angle * .pi / 180), s = sin(angle * .pi / 180)
        let long = Float(max(self.width, self.height))
        let margin = self.margin * Float(min(self.width, self.height))
        let roomX = max(1, Float(self.width) - 2 * margin), roomY = max(1, Float(self.height) - 2 * margin)

        // Fitting: the transform is close to linear, so a couple of rescalings land inside.
        var moved: [[(Float, Float)]] = []
        var box = (Float(0), Float(0), Float(0), Float(0))
        var radius: Float = 0
        for _ in 0..<4 {
            radius = max(0.5, penShare * height / linesTall / 2)
            let scale = height * unit
            moved = points.map { stroke in
                stroke.map { p in
                    let x = (p.x - cx) * scale, y = (p.y - cy) * scale
                    let rx = c * x - s * y, ry = s * x + c * y
                    let w = 1 + (tiltX * rx + tiltY * ry) / long
                    return (rx / w, ry / w)
                }
            }
            let flat = moved.joined()
            box = (flat.map(\.0).min()! - radius, flat.map(\.1).min()! - radius,
                   flat.map(\.0).max()! + radius, flat.map(\.1).max()! + radius)
            let fit = min(roomX / max(box.2 - box.0, 1e-6), roomY / max(box.3 - box.1, 1e-6))
            if fit >= 1 { break }
            height *= fit * 0.98
        }
        effects.digitHeight = height
        effects.penWidth = 2 * radius

        let freeX = max(0, roomX - (box.2 - box.0)), freeY = max(0, roomY - (box.3 - box.1))
        let dx = margin + freeX * (0.5 + placeX) - box.0
        let dy = margin + freeY * (0.5 + placeY) - box.1
        // Pressure: a slow wave along the stroke, about two per digit height of pen travel.
        let wavelength = max(1, height * 0.5)
        let strokes = moved.map { stroke -> [Point] in
            var travelled: Float = 0
            var previous = stroke.first
            return stroke.map { q in
                if let p = previous { travelled += ((q.0 - p.0) * (q.0 - p.0) + (q.1 - p.1) * (q.1 - p.1)).squareRoot() }
                previous = q
                let r = max(0.5, radius * (1 + penWobble * sin(travelled / wavelength * 2 * .pi + wobblePhase)))
                return Point(x: q.0 + dx, y: q.1 + dy, r: r)
            }
        }
        return Layout(strokes: strokes, penRadius: radius)
    }

    // MARK: - Paper, light and camera

    /// The image as 3 planes (R, G, B) or 1 (gray), 0…1, before rounding.
    func shade(ink: PaperInk, layout: Layout, rng: inout SplitMix64, effects: inout PaperEffects) -> [[Float]] {
        let count = width * height
        let fw = Float(width), fh = Float(height)
        // Surface colours.
        var paper: PaperColour, inkColour: PaperColour
        let mottle: Float
        if effects.inverted {
            let tone = rng.uniform(boardTone.lowerBound, boardTone.upperBound)
            // Green slate or black board.
            paper = rng.nextFloat() < 0.5 ? PaperColour(tone * 0.8, tone * 1.15, tone * 0.95) : PaperColour(tone, tone, tone * 1.03)
            let chalk = rng.uniform(chalkTone.lowerBound, chalkTone.upperBound)
            inkColour = PaperColour(chalk, chalk, chalk * 0.97)
            mottle = rng.uniform(0.3, 0.6)
        } else {
            let tone = rng.uniform(paperTone.lowerBound, paperTone.upperBound)
            let tint = rng.uniform(paperTint.lowerBound, paperTint.upperBound)
            paper = PaperColour(min(1, tone * (1 + tint / 2)), tone, tone * (1 - tint))
            let pen = inkColours[Int(rng.next() % UInt64(inkColours.count))]
            // Ink filters the paper under it.
            inkColour = PaperColour(paper.r * pen.r, paper.g * pen.g, paper.b * pen.b)
            mottle = rng.uniform(inkMottle.lowerBound, inkMottle.upperBound)
        }
        let opacity = rng.uniform(inkOpacity.lowerBound, inkOpacity.upperBound)
        let textureAmount = rng.uniform(texture.lowerBound, texture.upperBound) * (effects.inverted ? 1.5 : 1)
        effects.paper = paper
        effects.ink = inkColour
        effects.inkOpacity = opacity
        effects.texture = textureAmount

        // Texture: sized to the writing, so small digits sit on fine grain.
        let grain = min(2, max(0.6, effects.digitHeight / 80))
        var surface = [Float](repeating: 0, count: count)
        let fibreAngle = rng.uniform(0, .pi)
        let layers: [(Float, Float, Float, Float)] = [  // cellU, cellV, angle, weight
            (0.25 * Float(min(width, height)), 0.25 * Float(min(width, height)), 0, 0.5),
            (6 * grain, 6 * grain, 0, 0.35),
            (14 * grain, 1.3 * grain, fibreAngle, 0.35),
            (10 * grain, 1.2 * grain, fibreAngle + rng.uniform(1.2, 1.9), 0.25),
        ]
        var noiseRng = rng.derived(1)
        if textureAmount > 0 {
            for (cu, cv, a, w) in layers {
                PaperNoise(width: width, height: height, cellU: cu, cellV: cv, angle: a, rng: &noiseRng)
                    .add(to: &surface, width: width, height: height, weight: w * textureAmount)
            }
            PaperPixels.addGrain(to: &surface, seed: noiseRng.next(), weight: 0.25 * textureAmount)
        }
        // Ink amount: coverage × opacity, thinned by mottle at about the pen's scale (chalk
        // breaks up finer than a ballpoint skips).
        var amount = ink.coverage
        let grainOfInk: Float = effects.inverted ? 0.5 : 1
        let mottleNoise = PaperNoise(width: width, height: height, cellU: max(1.5, layout.penRadius * 1.2 * grainOfInk),
                                     cellV: max(1, layout.penRadius * 0.6 * grainOfInk), angle: rng.uniform(0, .pi), rng: &noiseRng)
        for y in 0..<height {
            for x in 0..<width where amount[y * width + x] > 0 {
                let m = mottle > 0 ? mottleNoise.value(x: x, y: y) : 0
                amount[y * width + x] *= opacity * (1 - mottle * 0.5 * (1 + m))
            }
        }

        // Light: gradient × vignette × shadow, coloured by the white balance.
        let gradientAmount = rng.uniform(gradient.lowerBound, gradient.upperBound)
        let gradientAngle = rng.uniform(0, 2 * .pi)
        let vignetteAmount = rng.uniform(vignette.lowerBound, vignette.upperBound)
        let vcx = fw * rng.uniform(0.3, 0.7), vcy = fh * rng.uniform(0.3, 0.7)
        let warm = rng.uniform(whiteBalance.lowerBound, whiteBalance.upperBound)
        let hasShadow = rng.nextFloat() < shadowShare
        let shadowAmount = hasShadow ? rng.uniform(shadowDarkness.lowerBound, shadowDarkness.upperBound) : 0
        let diagonal = (fw * fw + fh * fh).squareRoot()
        let softness = max(1, rng.uniform(shadowSoftness.lowerBound, shadowSoftness.upperBound) * diagonal)
        let shadowAngle = rng.uniform(0, 2 * .pi)
        let cover = rng.uniform(shadowCover.lowerBound, shadowCover.upperBound)
        effects.gradient = gradientAmount
        effects.vignette = vignetteAmount
        effects.shadow = shadowAmount
        effects.shadowSoftness = hasShadow ? softness : 0

        let gx = cos(gradientAngle), gy = sin(gradientAngle)
        let gProjections = [0, fw * gx, fh * gy, fw * gx + fh * gy]
        let gLow = gProjections.min()!, gSpan = max(1, gProjections.max()! - gLow)
        let nx = cos(shadowAngle), ny = sin(shadowAngle)
        let sProjections = [0, fw * nx, fh * ny, fw * nx + fh * ny]
        let sHigh = sProjections.max()!, sLow = sProjections.min()!
        // The shadow is where the projection exceeds `edge`: a `cover` share of the span.
        let edge = sHigh - cover * (sHigh - sLow)
        let halfDiagonal2 = diagonal * diagonal / 4

        let lightColour = colour ? [1 + warm, 1, 1 - warm] : [1]
        // A shadow is lit by the sky or the room, slightly bluer than the direct light.
        let shadowColour: [Float] = colour ? [1, 0.98, 0.92] : [1]
        let paperChannels = colour ? [paper.r, paper.g, paper.b] : [paper.luminance]
        let inkChannels = colour ? [inkColour.r, inkColour.g, inkColour.b] : [inkColour.luminance]
        var planes = [[Float]](repeating: [Float](repeating: 0, count: count), count: paperChannels.count)
        var light = [Float](repeating: 0, count: count)
        var shade = [Float](repeating: 0, count: count)
        for y in 0..<height {
            let py = Float(y) + 0.5
            for x in 0..<width {
                let px = Float(x) + 0.5
                let t = (px * gx + py * gy - gLow) / gSpan
                let dxv = px - vcx, dyv = py - vcy
                let v = 1 - vignetteAmount * min(1, (dxv * dxv + dyv * dyv) / halfDiagonal2)
                let i = y * width + x
                light[i] = (1 - gradientAmount * t) * v
                if hasShadow {
                    let d = ((px * nx + py * ny) - edge) / softness
                    let u = min(1, max(0, 0.5 + 0.5 * d))
                    shade[i] = shadowAmount * u * u * (3 - 2 * u)
                }
            }
        }
        for ch in planes.indices {
            let p = paperChannels[ch], q = inkChannels[ch], l = lightColour[ch], sc = shadowColour[ch]
            planes[ch].withUnsafeMutableBufferPointer { out in
                for i in 0..<count {
                    let surfaceValue = p * (1 + surface[i])
                    let inkValue = q * (1 + 0.5 * surface[i])
                    let reflectance = surfaceValue + (inkValue - surfaceValue) * amount[i]
                    out[i] = reflectance * light[i] * l * (1 - shade[i] * sc)
                }
            }
        }

        // Camera.
        let sigma = rng.uniform(blur.lowerBound, blur.upperBound)
        let noiseSigma = rng.uniform(noise.lowerBound, noise.upperBound)
        effects.blur = sigma
        effects.noise = noiseSigma
        effects.jpegQuality = jpegQuality.lowerBound + Int(rng.next() % UInt64(jpegQuality.count))
        for ch in planes.indices {
            PaperPixels.blur(&planes[ch], width: width, height: height, sigma: sigma)
            PaperPixels.addNoise(to: &planes[ch], seed: noiseRng.next(), sigma: noiseSigma)
        }
        return planes
    }

    // MARK: - Checks

    func validate() throws {
        guard (8...16_384).contains(width), (8...16_384).contains(height) else {
            throw DigitError(.usage, "image size \(width)×\(height) is outside 8…16384 pixels on a side")
        }
        let ranges: [(String, ClosedRange<Float>, ClosedRange<Float>)] = [
            ("digitHeight", digitHeight, 1...16_384), ("rotation", rotation, -180...180), ("perspective", perspective, -0.5...0.5),
            ("penWidth", penWidth, 0...1), ("inkOpacity", inkOpacity, 0...1), ("inkMottle", inkMottle, 0...1),
            ("paperTone", paperTone, 0...1), ("paperTint", paperTint, -0.5...0.5), ("texture", texture, 0...0.5),
            ("boardTone", boardTone, 0...1), ("chalkTone", chalkTone, 0...1), ("gradient", gradient, 0...1),
            ("vignette", vignette, 0...1), ("whiteBalance", whiteBalance, -0.5...0.5), ("shadowDarkness", shadowDarkness, 0...1),
            ("shadowSoftness", shadowSoftness, 0...1), ("shadowCover", shadowCover, 0...1), ("blur", blur, 0...50),
            ("noise", noise, 0...1),
        ]
        for (name, value, allowed) in ranges where !(allowed.contains(value.lowerBound) && allowed.contains(value.upperBound)) {
            throw DigitError(.usage, "\(name) \(value) is outside \(allowed)")
        }
        let shares: [(String, Float)] = [("margin", margin), ("offCentre", offCentre), ("penWobble", penWobble),
                                         ("invertedShare", invertedShare), ("shadowShare", shadowShare),
                                         ("frameCutShare", frameCutShare)]
        for (name, value) in shares where !(0...1).contains(value) {
            throw DigitError(.usage, "\(name) \(value) is outside 0…1")
        }
        guard margin < 0.5 else { throw DigitError(.usage, "margin \(margin) leaves no room (it must be below 0.5)") }
        guard !inkColours.isEmpty else { throw DigitError(.usage, "inkColours is empty") }
        guard (1...100).contains(jpegQuality.lowerBound), (1...100).contains(jpegQuality.upperBound) else {
            throw DigitError(.usage, "jpegQuality \(jpegQuality) is outside 1…100")
        }
    }
}
