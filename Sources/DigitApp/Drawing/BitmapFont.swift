import DigitKit

/// DigitPad's built-in pixel font: digits, ASCII letters and a few symbols drawn on a grid
/// 7 rows tall above the baseline plus 2 rows of descender, 1 to 5 columns wide (digits are all
/// 5 wide so numbers line up). One column of space separates glyphs. Characters without a glyph
/// are drawn as `?`. Sizes are integer multiples (`scale`) of the grid, so small text stays crisp;
/// `drawStroked` renders a glyph at any size as smooth pen strokes, for the big answer.
public enum BitmapFont {
    /// Rows above the baseline (the cap height).
    public static let capRows = 7
    /// All rows including the descender.
    public static let rows = 9

    /// One glyph: `rows` strings of equal length, `#` = ink.
    struct Glyph {
        let width: Int
        let bits: [Bool]   // (rows, width)

        init(_ pattern: String) {
            var lines = pattern.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            let w = lines.map(\.count).max() ?? 0
            while lines.count < BitmapFont.rows { lines.append(String(repeating: ".", count: w)) }
            width = w
            bits = lines.prefix(BitmapFont.rows).flatMap { line in
                (0..<w).map { i in
                    i < line.count && line[line.index(line.startIndex, offsetBy: i)] == "#"
                }
            }
        }

        func ink(_ column: Int, _ row: Int) -> Bool {
            guard column >= 0, column < width, row >= 0, row < BitmapFont.rows else { return false }
            return bits[row * width + column]
        }
    }

    // Rows separated by `|`, top to bottom; rows 0–6 stand on the baseline, 7–8 descend.
    private static let patterns: [Character: String] = [
        "0": ".###.|#...#|#...#|#...#|#...#|#...#|.###.",
        "1": "..#..|.##..|..#..|..#..|..#..|..#..|.###.",
        "2": ".###.|#...#|....#|...#.|..#..|.#...|#####",
        "3": ".###.|#...#|....#|..##.|....#|#...#|.###.",
        "4": "...#.|..##.|.#.#.|#..#.|#####|...#.|...#.",
        "5": "#####|#....|####.|....#|....#|#...#|.###.",
        "6": "..##.|.#...|#....|####.|#...#|#...#|.###.",
        "7": "#####|....#|...#.|..#..|.#...|.#...|.#...",
        "8": ".###.|#...#|#...#|.###.|#...#|#...#|.###.",
        "9": ".###.|#...#|#...#|.####|....#|...#.|.##..",

        "A": ".###.|#...#|#...#|#####|#...#|#...#|#...#",
        "B": "####.|#...#|#...#|####.|#...#|#...#|####.",
        "C": ".###.|#...#|#....|#....|#....|#...#|.###.",
        "D": "####.|#...#|#...#|#...#|#...#|#...#|####.",
        "E": "#####|#....|#....|####.|#....|#....|#####",
        "F": "#####|#....|#....|####.|#....|#....|#....",
        "G": ".###.|#...#|#....|#.###|#...#|#...#|.####",
        "H": "#...#|#...#|#...#|#####|#...#|#...#|#...#",
        "I": "###|.#.|.#.|.#.|.#.|.#.|###",
        "J": "..###|...#.|...#.|...#.|...#.|#..#.|.##..",
        "K": "#...#|#..#.|#.#..|##...|#.#..|#..#.|#...#",
        "L": "#....|#....|#....|#....|#....|#....|#####",
        "M": "#...#|##.##|#.#.#|#.#.#|#...#|#...#|#...#",
        "N": "#...#|#...#|##..#|#.#.#|#..##|#...#|#...#",
        "O": ".###.|#...#|#...#|#...#|#...#|#...#|.###.",
        "P": "####.|#...#|#...#|####.|#....|#....|#....",
        "Q": ".###.|#...#|#...#|#...#|#.#.#|#..#.|.##.#",
        "R": "####.|#...#|#...#|####.|#.#..|#..#.|#...#",
        "S": ".###.|#...#|#....|.###.|....#|#...#|.###.",
        "T": "#####|..#..|..#..|..#..|..#..|..#..|..#..",
        "U": "#...#|#...#|#...#|#...#|#...#|#...#|.###.",
        "V": "#...#|#...#|#...#|#...#|#...#|.#.#.|..#..",
        "W": "#...#|#...#|#...#|#.#.#|#.#.#|#.#.#|.#.#.",
        "X": "#...#|#...#|.#.#.|..#..|.#.#.|#...#|#...#",
        "Y": "#...#|#...#|.#.#.|..#..|..#..|..#..|..#..",
        "Z": "#####|....#|...#.|..#..|.#...|#....|#####",

        "a": ".....|.....|.###.|....#|.####|#...#|.####",
        "b": "#....|#....|####.|#...#|#...#|#...#|####.",
        "c": ".....|.....|.###.|#....|#....|#...#|.###.",
        "d": "....#|....#|.####|#...#|#...#|#...#|.####",
        "e": ".....|.....|.###.|#...#|#####|#....|.###.",
        "f": "..##|.#..|.#..|###.|.#..|.#..|.#..",
        "g": ".....|.....|.####|#...#|#...#|#...#|.####|....#|.###.",
        "h": "#....|#....|#.##.|##..#|#...#|#...#|#...#",
        "i": ".#.|...|##.|.#.|.#.|.#.|###",
        "j": "...#|....|..##|...#|...#|...#|...#|#..#|.##.",
        "k": "#...|#...|#..#|#.#.|##..|#.#.|#..#",
        "l": "##.|.#.|.#.|.#.|.#.|.#.|###",
        "m": ".....|.....|##.#.|#.#.#|#.#.#|#.#.#|#.#.#",
        "n": ".....|.....|#.##.|##..#|#...#|#...#|#...#",
        "o": ".....|.....|.###.|#...#|#...#|#...#|.###.",
        "p": ".....|.....|####.|#...#|#...#|#...#|####.|#....|#....",
        "q": ".....|.....|.####|#...#|#...#|#...#|.####|....#|....#",
        "r": "....|....|#.##|##..|#...|#...|#...",
        "s": ".....|.....|.####|#....|.###.|....#|####.",
        "t": ".#..|.#..|###.|.#..|.#..|.#.#|..#.",
        "u": ".....|.....|#...#|#...#|#...#|#..##|.##.#",
        "v": ".....|.....|#...#|#...#|#...#|.#.#.|..#..",
        "w": ".....|.....|#...#|#...#|#.#.#|#.#.#|.#.#.",
        "x": ".....|.....|#...#|.#.#.|..#..|.#.#.|#...#",
        "y": ".....|.....|#...#|#...#|#...#|#...#|.####|....#|.###.",
        "z": ".....|.....|#####|...#.|..#..|.#...|#####",

        " ": "...",
        ".": ".|.|.|.|.|.|#",
        ",": "..|..|..|..|..|.#|.#|#.",
        ":": ".|.|#|.|.|#|.",
        ";": "..|..|.#|..|..|.#|.#|#.",
        "!": "#|#|#|#|#|.|#",
        "?": ".###.|#...#|....#|...#.|..#..|.....|..#..",
        "'": "#|#|.|.|.|.|.",
        "\"": "#.#|#.#|...|...|...|...|...",
        "-": "....|....|....|####|....|....|....",
        "+": ".....|..#..|..#..|#####|..#..|..#..|.....",
        "=": ".....|.....|#####|.....|#####|.....|.....",
        "_": ".....|.....|.....|.....|.....|.....|.....|#####",
        "/": "....#|....#|...#.|..#..|.#...|#....|#....",
        "%": "##..#|##..#|...#.|..#..|.#...|#..##|#..##",
        "(": "..#|.#.|#..|#..|#..|.#.|..#",
        ")": "#..|.#.|..#|..#|..#|.#.|#..",
        "[": "###|#..|#..|#..|#..|#..|###",
        "]": "###|..#|..#|..#|..#|..#|###",
        "<": "...#|..#.|.#..|#...|.#..|..#.|...#",
        ">": "#...|.#..|..#.|...#|..#.|.#..|#...",
        "#": ".#.#.|.#.#.|#####|.#.#.|#####|.#.#.|.#.#.",
        "*": ".....|..#..|#.#.#|.###.|#.#.#|..#..|.....",
        "|": "#|#|#|#|#|#|#|#|#",
        "·": ".|.|.|#|.|.|.",
        "×": ".....|#...#|.#.#.|..#..|.#.#.|#...#|.....",
        "…": ".....|.....|.....|.....|.....|.....|#.#.#",
    ]

    static let glyphs: [Character: Glyph] = patterns.mapValues(Glyph.init)
    private static let fallback = Glyph(patterns["?"] ?? "#")

    static func glyph(_ c: Character) -> Glyph { glyphs[c] ?? fallback }

    /// True when `c` has its own glyph (others render as `?`).
    public static func hasGlyph(_ c: Character) -> Bool { glyphs[c] != nil }

    /// Width in pixels of `text` at `scale` (glyph columns plus one column between glyphs).
    public static func width(of text: String, scale: Int) -> Int {
        var columns = 0
        for c in text { columns += glyph(c).width + 1 }
        return max(0, columns - 1) * max(scale, 1)
    }

    /// Height of the capitals in pixels at `scale`.
    public static func capHeight(scale: Int) -> Int { capRows * max(scale, 1) }

    /// Draws `text` with its top-left at (x, y) (the top of the capitals), each grid cell a
    /// `scale × scale` block. Returns the x after the last glyph.
    @discardableResult
    public static func draw(_ text: String, x: Int, y: Int, scale: Int, color: RGB, on surface: inout Surface) -> Int {
        let s = max(scale, 1)
        var penX = x
        for c in text {
            let g = glyph(c)
            for row in 0..<rows {
                for column in 0..<g.width where g.ink(column, row) {
                    surface.fill(PixelRect(x: penX + column * s, y: y + row * s, width: s, height: s), color)
                }
            }
            penX += (g.width + 1) * s
        }
        return penX
    }

    /// Draws one glyph at any size, `height` pixels for its 7 cap rows, centred in `rect`, as
    /// pen strokes: every ink cell is a round dot and neighbouring ink cells are joined by a line
    /// of the same width, diagonal neighbours too when no cell fills the corner between them.
    /// So the staircase of a `7` becomes one slanted stroke and the big answer reads as a digit
    /// written with a pen, not as blocks. `weight` is the stroke width in cells.
    public static func drawStroked(_ c: Character, in rect: PixelRect, height: Int, weight: Float = 0.9,
                                   color: RGB, on surface: inout Surface) {
        let g = glyph(c)
        guard height > 0, g.width > 0 else { return }
        let cell = Float(height) / Float(capRows)
        let originX = rect.midX - Float(g.width) * cell / 2, originY = rect.midY - Float(capRows) * cell / 2
        func center(_ column: Int, _ row: Int) -> (x: Float, y: Float) {
            (originX + (Float(column) + 0.5) * cell, originY + (Float(row) + 0.5) * cell)
        }
        var segments: [((x: Float, y: Float), (x: Float, y: Float))] = []
        for row in 0..<rows {
            for column in 0..<g.width where g.ink(column, row) {
                let here = center(column, row)
                segments.append((here, here))
                if g.ink(column + 1, row) { segments.append((here, center(column + 1, row))) }
                if g.ink(column, row + 1) { segments.append((here, center(column, row + 1))) }
                if g.ink(column + 1, row + 1) && !g.ink(column + 1, row) && !g.ink(column, row + 1) {
                    segments.append((here, center(column + 1, row + 1)))
                }
                if g.ink(column - 1, row + 1) && !g.ink(column - 1, row) && !g.ink(column, row + 1) {
                    segments.append((here, center(column - 1, row + 1)))
                }
            }
        }
        surface.blendCapsules(segments, radius: weight * cell / 2, color, clip: rect)
    }
}
