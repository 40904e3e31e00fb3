import DigitKit
import DigitPadKit
import Foundation
import DigitTestSupport
import XCTest

/// Runs the real `digitpad` binary headless (SDL's offscreen video driver) and collects what it printed.
struct PadProcess {
    var status: Int32
    var stdout: String
    var stderr: String
    var seconds: Double

    var lines: [String] { stdout.split(separator: "\n").map(String.init) }

    /// The repository root, found from this file's location.
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// The weights the tests use: `$DIGITS_WEIGHTS` when set (as the program itself would), else the shipped file.
    static let weights = ProcessInfo.processInfo.environment["DIGITS_WEIGHTS"].flatMap { $0.isEmpty ? nil : $0 }
        ?? repoRoot.appendingPathComponent("Weights/mnist-cnn.safetensors").path

    static func fixture(_ path: String) -> String { repoRoot.appendingPathComponent("Fixtures/" + path).path }

    /// `digitpad` beside the test bundle (both are products of the same build; the test target
    /// depends on the executable, so `swift test` builds it).
    static var binary: URL {
        let candidates = [Bundle.main.bundleURL.deletingLastPathComponent(),
                          URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
                          repoRoot.appendingPathComponent(".build/debug")]
        for dir in candidates {
            let url = dir.appendingPathComponent("digitpad")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return candidates[0].appendingPathComponent("digitpad")
    }

    /// Runs digitpad with `arguments` (plus `--weights` unless given), killing it after `timeout` seconds.
    static func run(_ arguments: [String], timeout: Double = 90, directory: URL? = nil,
                    file: StaticString = #filePath, line: UInt = #line) throws -> PadProcess {
        let process = Process()
        process.executableURL = binary
        var args = arguments
        if !args.contains("--weights") && !args.contains("--help") { args = ["--weights", weights] + args }
        process.arguments = args
        var environment = ProcessInfo.processInfo.environment
        environment["SDL_VIDEODRIVER"] = "offscreen"
        environment["SDL_AUDIODRIVER"] = "dummy"
        process.environment = environment
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        let start = Date()
        try process.run()
        // Read both pipes while the program runs, so a full pipe cannot stall it.
        let outData = Collected(), errData = Collected()
        let readers = DispatchGroup()
        DispatchQueue.global().async(group: readers) { outData.data = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: readers) { errData.data = err.fileHandleForReading.readDataToEndOfFile() }
        if done.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            _ = done.wait(timeout: .now() + 5)
            XCTFail("digitpad \(arguments.joined(separator: " ")) did not finish within \(timeout) s", file: file, line: line)
        }
        readers.wait()
        return PadProcess(status: process.terminationStatus, stdout: String(decoding: outData.data, as: UTF8.self),
                          stderr: String(decoding: errData.data, as: UTF8.self), seconds: Date().timeIntervalSince(start))
    }

    /// Bytes read on another thread; the DispatchGroup wait orders the write before the read.
    private final class Collected: @unchecked Sendable { var data = Data() }

    /// A fresh empty folder under the system's temporary folder.
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("digitpad-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// One printed recognition, decoded from its JSON line.
struct PrintedAnswer {
    var source: String
    var index: Int
    var digit: Int?
    var confidence: Double
    var top: [(digit: Int, probability: Double)]
    var label: String?

    init(_ line: String, file: StaticString = #filePath, line number: UInt = #line) throws {
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                                   "not a JSON object: \(line)", file: file, line: number)
        source = try XCTUnwrap(object["source"] as? String, file: file, line: number)
        index = try XCTUnwrap(object["index"] as? Int, file: file, line: number)
        digit = object["digit"] as? Int
        if digit == nil { XCTAssertTrue(object["digit"] is NSNull, "digit must be a number or null", file: file, line: number) }
        confidence = try XCTUnwrap(object["confidence"] as? Double, file: file, line: number)
        let pairs = try XCTUnwrap(object["top"] as? [[Double]], file: file, line: number)
        top = pairs.map { (Int($0[0]), $0[1]) }
        label = object["label"] as? String
    }
}

/// Screenshot helpers: decode and measure parts of the picture.
struct Screenshot {
    var image: DecodedImage
    /// 0xFFRRGGBB, row-major.
    var pixels: [UInt32]
    var layout: PadLayout

    init(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        image = try PNG.decodeRGB(try FileIO.read(path, limit: 1 << 28), file: path)
        let rgb = image.rgb ?? []
        pixels = (0..<(image.width * image.height)).map { i in
            0xFF00_0000 | UInt32(rgb[3 * i]) << 16 | UInt32(rgb[3 * i + 1]) << 8 | UInt32(rgb[3 * i + 2])
        }
        layout = PadLayout(width: image.width, height: image.height)
    }

    func pixel(_ x: Int, _ y: Int) -> UInt32 { pixels[y * image.width + x] }

    /// Pixels of white ink (gray, brighter than half) inside `rect`.
    func ink(in rect: PixelRect) -> Int {
        var n = 0
        for y in rect.y..<rect.maxY {
            for x in rect.x..<rect.maxX {
                let c = RGB(pixel(x, y))
                if c.r == c.g && c.g == c.b && c.r > 0x80 { n += 1 }
            }
        }
        return n
    }

    /// Variance of the luminance over the whole picture (0 for a blank one).
    var variance: Double {
        var sum = 0.0, squares = 0.0
        for p in pixels {
            let c = RGB(p)
            let v = 0.299 * Double(c.r) + 0.587 * Double(c.g) + 0.114 * Double(c.b)
            sum += v
            squares += v * v
        }
        let n = Double(pixels.count)
        return squares / n - (sum / n) * (sum / n)
    }

    func region(_ rect: PixelRect) -> [UInt32] {
        var out: [UInt32] = []
        for y in rect.y..<rect.maxY { for x in rect.x..<rect.maxX { out.append(pixel(x, y)) } }
        return out
    }
}
