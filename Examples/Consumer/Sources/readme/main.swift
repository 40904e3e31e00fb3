import DigitKit
import Foundation

// Usage: readme STROKES PHOTO   (e.g. Fixtures/numbers Fixtures/paper/paper-0004.jpg)
let args = CommandLine.arguments
guard args.count == 3 else { print("usage: readme STROKES PHOTO"); exit(2) }

let recognizer = try DigitRecognizer()       // the shipped model; answers when ≥ 90% sure

// Numbers drawn as pen strokes (.json, .jsonl, UNIPEN or a folder; any units, y downward).
for record in try DrawingLoader.load(args[1]) {
    let reading = try recognizer.read(try record.result.get())
    print(reading.text, reading.confidence)  // "2026" 0.98, or "20?6" when a digit is doubtful
    for digit in reading.digits {            // left to right
        let answer = digit.digit.map(String.init) ?? (digit.isNotADigit ? "not a digit" : "?")
        print(" ", answer, digit.confidence, digit.box, digit.strokes)
    }
}

// A photo or scan (PNG, JPEG, PGM/PPM) of a number: boxes in image pixels.
let photo = try recognizer.read(imageAt: args[2])
print(photo.text, photo.digits.map(\.box))

// Exactly one digit: the whole drawing (or 784 pixels in 0…1 with recognize(pixels:)).
let seven = Drawing(strokes: [[StrokePoint(x: 20, y: 20), StrokePoint(x: 80, y: 20), StrokePoint(x: 45, y: 110)]])
let one = recognizer.recognize(seven)
print(one.digit.map(String.init) ?? "?", one.confidence, one.top)
