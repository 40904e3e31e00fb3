import DigitKit
import Foundation

// Reads each drawing of the stroke files named on the command line with the shipped weights and
// prints its answer, then how long one recognize() took (median of 200 calls on the first drawing).
// Usage: consumer FILE...

let files = Array(CommandLine.arguments.dropFirst())
guard !files.isEmpty else {
    FileHandle.standardError.write(Data("usage: consumer FILE...\n".utf8))
    exit(2)
}
do {
    let recognizer = try DigitRecognizer()
    var first: Drawing?
    for file in files {
        for record in try DrawingLoader.load(file) {
            let drawing = try record.result.get()
            first = first ?? drawing
            let answer = recognizer.recognize(drawing)
            print("\(file)#\(record.index): \(answer.digit.map(String.init) ?? "?") \(String(format: "%.3f", answer.confidence))")
        }
    }
    if let drawing = first {
        var times: [Double] = []
        for _ in 0..<200 {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = recognizer.recognize(drawing)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
        }
        times.sort()
        print(String(format: "recognize() median %.1f µs, p90 %.1f µs (200 calls, kernels %@)", times[100], times[180],
                     KernelVariant.active.description))
    }
} catch {
    FileHandle.standardError.write(Data("consumer: \(error)\n".utf8))
    exit(1)
}
