import Foundation
import XCTest

/// A virtual X display for tests that drive a window as a person would: `Xvfb` on a display
/// number it picks itself (`-displayfd`), `xdotool` for the mouse and the keyboard, and the
/// screen's pixels read from the file Xvfb mirrors them into (`-fbdir`, an XWD image), so a test
/// sees what a person would see. Each display is stopped when its test ends.
public final class VirtualDisplay {
    /// `:N`, for `DISPLAY`.
    public let name: String
    public let width: Int
    public let height: Int
    private let server: Executable.Running
    private let folder: URL
    private let xdotoolProgram: Executable

    /// What to install when a tool is missing; the one message the window tests fail with.
    public static let missingTools = "the window tests need Xvfb and xdotool: apt-get install xvfb xdotool"

    /// Starts a display of `width × height` pixels (24-bit colour) for `test`, or fails the test
    /// with one message (Xvfb or xdotool missing, or the server did not start) and returns nil.
    public static func start(for test: XCTestCase, width: Int = 1280, height: Int = 1024,
                             file: StaticString = #filePath, line: UInt = #line) throws -> VirtualDisplay? {
        guard let xvfb = tool("Xvfb"), let xdotool = tool("xdotool") else {
            XCTFail(missingTools, file: file, line: line)
            return nil
        }
        let folder = try temporaryFolder(test)
        // -displayfd 1: Xvfb takes the first free display number and writes it to stdout when
        // it accepts connections. -fbdir: the screen, as an XWD file, in `folder`.
        let server = try xvfb.start(["-displayfd", "1", "-screen", "0", "\(width)x\(height)x24", "-fbdir", folder.path,
                                     "-nolisten", "tcp", "-noreset"], in: folder)
        let deadline = Date().addingTimeInterval(30)
        var number: Int?
        while number == nil && server.process.isRunning && Date() < deadline {
            let text = (try? String(contentsOf: server.out, encoding: .utf8)) ?? ""
            if text.hasSuffix("\n") { number = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if number == nil { usleep(10_000) }
        }
        guard let number else {
            if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) }
            let result = Executable.finish(server, timeout: 10, file: file, line: line)
            XCTFail("Xvfb did not start within 30 s: \(result.stderr)", file: file, line: line)
            return nil
        }
        let display = VirtualDisplay(name: ":\(number)", width: width, height: height, server: server, folder: folder,
                                     xdotool: xdotool)
        test.addTeardownBlock { display.stop() }
        return display
    }

    private init(name: String, width: Int, height: Int, server: Executable.Running, folder: URL, xdotool: Executable) {
        self.name = name
        self.width = width
        self.height = height
        self.server = server
        self.folder = folder
        xdotoolProgram = xdotool
    }

    /// A program on the PATH (or in /usr/bin), or nil.
    static func tool(_ name: String) -> Executable? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"]
        return folders.map { URL(fileURLWithPath: $0).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
            .map { Executable(url: $0) }
    }

    /// The variables a program needs to open its windows here.
    public var environment: [String: String?] { ["DISPLAY": name, "WAYLAND_DISPLAY": nil] }

    public func stop() {
        guard server.process.isRunning else { return }
        server.process.terminate()
        _ = Executable.finish(server, timeout: 20)
    }

    // MARK: - Input

    public struct ToolFailed: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs `xdotool` with `arguments` on this display and returns its output; throws when it fails.
    @discardableResult
    public func xdotool(_ arguments: [String], timeout: Double = 60, file: StaticString = #filePath,
                        line: UInt = #line) throws -> String {
        let result = try xdotoolProgram.run(arguments, in: folder, environment: environment, timeout: timeout,
                                            file: file, line: line)
        guard result.status == 0 else {
            throw ToolFailed(description: "xdotool \(arguments.prefix(12).joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
        }
        return result.stdout
    }

    /// Mapped windows whose name matches `pattern` (a regular expression), of the process `pid`
    /// when given (as the window says in _NET_WM_PID).
    public func windows(named pattern: String, pid: Int32? = nil) throws -> [String] {
        let owner = pid.map { ["--pid", "\($0)"] } ?? []
        let result = try xdotoolProgram.run(["search", "--onlyvisible"] + owner + ["--name", pattern], in: folder,
                                            environment: environment, timeout: 30)
        return result.stdoutLines   // xdotool exits with 1 when nothing matches
    }

    /// A window's place on the screen and its size.
    public func geometry(of window: String) throws -> (x: Int, y: Int, width: Int, height: Int) {
        var values: [String: Int] = [:]
        for line in try xdotool(["getwindowgeometry", "--shell", window]).split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = Int(parts[1]) }
        }
        guard let x = values["X"], let y = values["Y"], let w = values["WIDTH"], let h = values["HEIGHT"] else {
            throw ToolFailed(description: "xdotool getwindowgeometry \(window): no geometry in \(values)")
        }
        return (x, y, w, h)
    }

    // MARK: - Pixels

    /// Part of the screen as it is now: 0xFFRRGGBB, row-major, y downward. Parts outside the
    /// screen are black.
    public func capture(x: Int, y: Int, width: Int, height: Int) throws -> [UInt32] {
        let bytes = try Data(contentsOf: folder.appendingPathComponent("Xvfb_screen0"), options: .alwaysMapped)
        func field(_ i: Int) -> Int {
            // The header is 25 big-endian 32-bit fields.
            (0..<4).reduce(0) { $0 << 8 | Int(bytes[bytes.startIndex + 4 * i + $1]) }
        }
        guard bytes.count >= 100 else { throw ToolFailed(description: "the Xvfb screen file is \(bytes.count) bytes") }
        let headerSize = field(0), format = field(2), screenW = field(4), screenH = field(5), byteOrder = field(7)
        let bitsPerPixel = field(11), bytesPerLine = field(12), colors = field(19)
        guard format == 2, bitsPerPixel == 32, byteOrder == 0, field(14) == 0xFF0000, field(15) == 0xFF00, field(16) == 0xFF else {
            throw ToolFailed(description: "the Xvfb screen is not 32-bit ZPixmap RGB (format \(format), \(bitsPerPixel) bits, byte order \(byteOrder))")
        }
        let start = headerSize + colors * 12
        guard bytes.count >= start + bytesPerLine * screenH else {
            throw ToolFailed(description: "the Xvfb screen file is shorter than its header says")
        }
        let w = max(0, width), h = max(0, height)
        var pixels = [UInt32](repeating: 0xFF00_0000, count: w * h)
        // The rows and columns of the request that are on the screen.
        let rows = max(0, -y)..<max(max(0, -y), min(h, screenH - y))
        let columns = max(0, -x)..<max(max(0, -x), min(w, screenW - x))
        bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            pixels.withUnsafeMutableBufferPointer { out in
                for row in rows {
                    let line = start + (y + row) * bytesPerLine + x * 4
                    for column in columns {
                        // Little-endian 0x00RRGGBB (byte order 0, checked above).
                        let p = raw.loadUnaligned(fromByteOffset: line + column * 4, as: UInt32.self)
                        out[row * w + column] = 0xFF00_0000 | (UInt32(littleEndian: p) & 0xFF_FFFF)
                    }
                }
            }
        }
        return pixels
    }
}

extension Executable.Running {
    /// What the program has written to stdout so far.
    public var stdoutSoFar: String { (try? String(contentsOf: out, encoding: .utf8)) ?? "" }
    /// What the program has written to stderr so far.
    public var stderrSoFar: String { (try? String(contentsOf: err, encoding: .utf8)) ?? "" }
}
