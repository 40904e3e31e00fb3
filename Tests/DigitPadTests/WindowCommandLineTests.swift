import DigitKit
import DigitTestSupport
import Foundation
import XCTest

/// `digitpad`'s command line: what it says and which exit code it gives before any window opens.
final class WindowCommandLineTests: XCTestCase {
    private func run(_ arguments: [String], environment: [String: String?] = ["DISPLAY": nil, "WAYLAND_DISPLAY": nil],
                     file: StaticString = #filePath, line: UInt = #line) throws -> Executable.Result? {
        guard let digitpad = Executable.named("digitpad", file: file, line: line) else { return nil }
        let weights = arguments.contains("--help") ? [] : ["--weights", PadFixtures.weights]
        return try digitpad.run(weights + arguments, in: try temporaryFolder(self), environment: environment,
                                timeout: 60, file: file, line: line)
    }

    func testCommandLine_HelpPrintsUsageAndExitsZero() throws {
        guard let run = try run(["--help"]) else { return }
        XCTAssertEqual(run.status, 0)
        XCTAssertTrue(run.stdout.hasPrefix("digitpad — write a number"))
        for option in ["--open FILE", "--replay FILE", "--print", "--screenshot FILE.png", "--exit", "--single", "--max-digits N",
                       "--label TEXT", "clear the label", "--profile FILE",
                       "A or Adapt", "profile.safetensors"] {
            XCTAssertTrue(run.stdout.contains(option), option)
        }
        XCTAssertFalse(run.stdout.contains("--script"), "the test harness is not part of the program")
    }

    func testCommandLine_BadArgumentsPrintOneLineAndExitWithTwo() throws {
        let cases: [([String], String)] = [
            (["--threshold", "2"], "digitpad: --threshold must be a number in 0.0...1.0, got '2'\n"),
            (["--bogus"], "digitpad: unknown option '--bogus' (see --help)\n"),
            (["--script", "undo"], "digitpad: unknown option '--script' (see --help)\n"),
            (["--screenshot", "shot.bmp"], "digitpad: --screenshot must name a .png file, got 'shot.bmp'\n"),
        ]
        for (arguments, message) in cases {
            guard let run = try run(arguments) else { return }
            XCTAssertEqual(run.status, 2, "\(arguments)")
            XCTAssertEqual(run.stderr, message)
            XCTAssertEqual(run.stdout, "")
        }
    }

    func testCommandLine_UnreadableFilesStopBeforeTheWindowOpens() throws {
        let dir = try temporaryFolder(self)
        let broken = dir.appendingPathComponent("broken.json").path
        try FileIO.writeAtomically("{\"strokes\": [[[1, 2], [3]]]}", to: broken)
        let empty = dir.appendingPathComponent("empty.json").path
        try FileIO.writeAtomically("{\"strokes\": []}", to: empty)
        // No display is set: reaching the window would end with code 4 instead.
        guard let missing = try run(["--replay", dir.appendingPathComponent("nope.json").path, "--exit"]),
              let bad = try run(["--replay", broken, "--exit"]),
              let nothing = try run(["--replay", empty, "--exit"]),
              let open = try run(["--open", dir.appendingPathComponent("gone.json").path, "--exit"]) else { return }
        XCTAssertEqual(missing.status, 3)
        XCTAssertTrue(missing.stderr.hasSuffix("nope.json: no such file\n"), missing.stderr)
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.hasPrefix("digitpad: \(broken): "), bad.stderr)
        XCTAssertEqual(bad.stderrLines.count, 1, "one line")
        XCTAssertEqual(nothing.status, 1)
        XCTAssertEqual(nothing.stderr, "digitpad: \(empty): drawing 0 is empty: nothing to replay\n")
        XCTAssertEqual(open.status, 3, "--open of a missing file")
        XCTAssertTrue(open.stderr.hasSuffix("gone.json: no such file\n"), open.stderr)
    }

    func testCommandLine_AProfileForOtherWeightsIsRefusedBeforeTheWindowOpens() throws {
        let dir = try temporaryFolder(self)
        let profile = try RobustnessFixtures.writeQuickProfile(for: PadFixtures.weights, in: dir, name: "mine.safetensors")
        let tiny = try RobustnessFixtures.writeTinyModel(in: dir)
        guard let digitpad = Executable.named("digitpad") else { return }
        // No display: reaching the window would end with code 4 instead.
        let refused = try digitpad.run(["--weights", tiny, "--profile", profile, "--exit"], in: dir,
                                       environment: ["DISPLAY": nil, "WAYLAND_DISPLAY": nil], timeout: 60)
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertEqual(refused.stderrLines.count, 1, "one line: \(refused.stderr)")
        XCTAssertTrue(refused.stderr.hasPrefix("digitpad: \(profile): this profile adapts the weights "), refused.stderr)
        let missing = try digitpad.run(["--weights", PadFixtures.weights, "--profile", dir.appendingPathComponent("gone.safetensors").path,
                                        "--exit"], in: dir, environment: ["DISPLAY": nil, "WAYLAND_DISPLAY": nil], timeout: 60)
        XCTAssertEqual(missing.status, 3, missing.stderr)
        XCTAssertTrue(missing.stderr.hasSuffix("gone.safetensors: no such file\n"), missing.stderr)
        // The right weights get as far as the window (none here: 4).
        let accepted = try digitpad.run(["--weights", PadFixtures.weights, "--profile", profile, "--exit"], in: dir,
                                        environment: ["DISPLAY": ":digitpad-no-such-display", "WAYLAND_DISPLAY": nil,
                                                      "SDL_VIDEODRIVER": "x11"], timeout: 60)
        XCTAssertEqual(accepted.status, 4, accepted.stderr)
    }

    func testCommandLine_NoDisplayExitsWithFour() throws {
        guard let run = try run(["--exit"], environment: ["DISPLAY": ":digitpad-no-such-display", "WAYLAND_DISPLAY": nil,
                                                          "SDL_VIDEODRIVER": "x11"]) else { return }
        XCTAssertEqual(run.status, 4)
        XCTAssertTrue(run.stderr.hasPrefix("digitpad: cannot start SDL video: "), run.stderr)
        XCTAssertEqual(run.stderrLines.count, 1, "one line")
    }
}
