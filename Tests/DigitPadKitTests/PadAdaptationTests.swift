import DigitApp
import DigitKit
import DigitTestSupport
import Foundation
import XCTest
@testable import DigitPadKit

/// The window's Adapt: the drawings it learns from, the profile it writes and reads with, what the
/// status line says, the worker that runs it and the key and button that start it.
final class PadAdaptationTests: XCTestCase {
    /// Learning kept short for tests: what is checked is where the drawings come from and where
    /// the profile goes, not how much it learns (WriterAdaptationTests do that).
    private var quick: WriterAdaptation.Options {
        var o = WriterAdaptation.Options()
        o.copies = 1
        o.steps = 10
        o.anchors = 40
        o.folds = 3
        return o
    }

    private var base: ModelFile { get throws { try ModelFile.load(path: TestPaths.weights.path) } }

    /// The first `count` labelled drawings of pendigits writer 3.
    private func writerThree(_ count: Int) throws -> [Drawing] {
        guard let file = TestPaths.requirePendigits() else { throw XCTSkip("no pendigits") }
        let drawings = try DrawingLoader.load(file.path).filter { $0.writer == 3 }.prefix(count).map { try $0.result.get() }
        XCTAssertEqual(drawings.count, count)
        XCTAssertTrue(drawings.allSatisfy { $0.labelDigit != nil })
        return drawings
    }

    /// Saves `drawing` in `folder` as the window's Save does, and returns the path.
    @discardableResult
    private func save(_ drawing: Drawing, _ name: String, in folder: URL) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try FileIO.writeAtomically(StrokeJSON.encode(drawing) + "\n", to: path)
        return path
    }

    private let stroke = Drawing(strokes: [[StrokePoint(x: 10, y: 10), StrokePoint(x: 12, y: 60)]])

    // MARK: - The drawings

    func testGather_TheSaveFolderAndThisSessionsSavesEachOnce() throws {
        let folder = try temporaryFolder(self)
        var one = stroke
        one.label = "1"
        let kept = try save(one, "drawing-20260101-000001.json", in: folder)
        try save(stroke, "drawing-20260101-000002.json", in: folder)
        try Data("not json".utf8).write(to: folder.appendingPathComponent("notes.json"))
        try Data("ignored".utf8).write(to: folder.appendingPathComponent(PadAdaptation.profileName))
        var seven = stroke
        seven.label = "7"
        let saved = [PadAdaptation.Saved(path: kept, drawing: one),
                     // Saved in this session, its file deleted since: it still counts, from memory.
                     PadAdaptation.Saved(path: folder.appendingPathComponent("drawing-gone.json").path, drawing: seven)]
        let records = try PadAdaptation.gather(folder: folder.path, saved: saved)
        XCTAssertEqual(records.count, 4, "three files of the folder (one unreadable) and the deleted save, once each")
        XCTAssertEqual(records.compactMap { try? $0.result.get().label }, ["1", "7"])
        XCTAssertEqual(records.filter { (try? $0.result.get()) == nil }.map { ($0.source as NSString).lastPathComponent }, ["notes.json"])

        XCTAssertThrowsError(try PadAdaptation.gather(folder: folder.appendingPathComponent("missing").path, saved: [])) { error in
            XCTAssertTrue("\(error)".contains("missing"), "\(error)")
        }
    }

    func testAdapt_NoLabelledDrawingsSaysSoAndWritesNothing() throws {
        let folder = try temporaryFolder(self)
        let base = try self.base
        XCTAssertThrowsError(try PadAdaptation.run(base: base, saveDirectory: folder.path, saved: [], threshold: 0.9,
                                                   options: quick, threads: 1)) { error in
            XCTAssertEqual((error as? DigitError)?.kind, .usage)
            XCTAssertEqual((error as? DigitError)?.message,
                           "no drawings in \(folder.path) to learn from: write a digit, type it (0-9), save it (S), then A")
        }
        try save(stroke, "drawing-20260101-000001.json", in: folder)
        var scribble = stroke
        scribble.label = "scribble"
        try save(scribble, "drawing-20260101-000002.json", in: folder)
        XCTAssertThrowsError(try PadAdaptation.run(base: base, saveDirectory: folder.path, saved: [], threshold: 0.9,
                                                   options: quick, threads: 1)) { error in
            let e = error as? DigitError
            XCTAssertEqual(e?.message, "no labelled drawings among the 2 in \(folder.path): type the digits (0-9) before saving (S), then A")
            guard let e else { return XCTFail("not a DigitError: \(error)") }
            let status = PadAdaptation.failedStatus(e)
            XCTAssertEqual(status.kind, .error)
            XCTAssertTrue(status.text.hasPrefix("adapt: no labelled drawings"), status.text)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent(PadAdaptation.profileName).path))
    }

    // MARK: - The profile

    func testAdapt_LearnsFromTheSavedDrawingsWritesTheProfileThereAndReadsWithIt() throws {
        let folder = try temporaryFolder(self)
        let base = try self.base
        let drawings = try writerThree(12)
        for (i, d) in drawings.prefix(10).enumerated() { try save(d, String(format: "drawing-20260101-0000%02d.json", i), in: folder) }
        var unlabelled = drawings[0]
        unlabelled.label = nil
        try save(unlabelled, "drawing-20260101-000099.json", in: folder)
        // Two saved in this session whose files are gone, and one whose file is there (counted once).
        let saved = drawings.suffix(2).enumerated().map { PadAdaptation.Saved(path: folder.appendingPathComponent("gone-\($0.offset).json").path,
                                                                             drawing: $0.element) }
            + [PadAdaptation.Saved(path: folder.appendingPathComponent("drawing-20260101-000000.json").path, drawing: drawings[0])]

        let done = try PadAdaptation.run(base: base, saveDirectory: folder.path, saved: saved, threshold: 0.9, options: quick, threads: 2)
        XCTAssertEqual(done.drawings, 12)
        XCTAssertEqual(done.digits, 12)
        XCTAssertEqual(done.skipped, 1, "the unlabelled drawing")
        XCTAssertEqual(done.report.perDigit.reduce(0, +), 12)
        let path = folder.appendingPathComponent(PadAdaptation.profileName).path
        XCTAssertEqual(done.profilePath, path)

        // The file: a profile of these weights, under 1 MB, no temporary file left beside it.
        let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        XCTAssertLessThan(size, WriterProfile.maxFileBytes)
        let profile = try WriterProfile.load(path: path)
        XCTAssertEqual(profile.baseWeights, base.weightsID)
        XCTAssertEqual(profile.drawingCount, 12)
        XCTAssertEqual(profile.blend, done.report.blend)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasSuffix(".json") },
                       [PadAdaptation.profileName])

        // The recognizer it hands over reads with that profile: as `--profile` would load it.
        XCTAssertEqual(done.recognizer.profileName, PadAdaptation.profileName)
        let reloaded = try DigitRecognizer(model: try applyProfile(path, to: base))
        for d in drawings.prefix(3) {
            XCTAssertEqual(bits(done.recognizer.recognize(d).probabilities), bits(reloaded.recognize(d).probabilities))
        }

        // The status line: how many drawings, the blend or that nothing changed, the errors before → after.
        let status = done.status
        XCTAssertEqual(status.kind, .info)
        XCTAssertTrue(status.text.hasPrefix("learned 12 drawings · "), status.text)
        XCTAssertTrue(status.text.hasSuffix(" · wrote \(path)"), status.text)
        XCTAssertTrue(status.text.contains("errors \(done.report.before.errors)→\(done.report.after.errors)"), status.text)
        XCTAssertTrue(status.text.contains(done.report.blend == 0 ? "weights kept" : "blend \(done.report.blend)"), status.text)
        XCTAssertEqual(status.shorter.first.map { status.text.hasPrefix($0) }, true)

        // Again, with the profile in use: it adapts the base weights, not the profile, and replaces the file.
        let again = try PadAdaptation.run(base: base, saveDirectory: folder.path, saved: [], threshold: 0.9, options: quick, threads: 2)
        XCTAssertEqual(again.drawings, 10)
        XCTAssertEqual(try WriterProfile.load(path: path).baseWeights, base.weightsID)
        XCTAssertEqual(try WriterProfile.load(path: path).drawingCount, 10)
    }

    func testAdapt_TheProfileGoesToTheWorkingDirectoryWithoutASaveFolder() {
        XCTAssertEqual(PadAdaptation.profilePath(saveDirectory: nil), "profile.safetensors")
        XCTAssertEqual(PadAdaptation.profilePath(saveDirectory: "."), "profile.safetensors")
        XCTAssertEqual(PadAdaptation.profilePath(saveDirectory: "saves"), "saves/profile.safetensors")
        XCTAssertEqual(PadAdaptation.profilePath(saveDirectory: "saves/"), "saves/profile.safetensors")
    }

    func testStatus_TheLineShowsTheLongestFormThatFits() throws {
        let recognizer = try DigitRecognizer(model: FuzzChecks.profileBase)
        var report = WriterAdaptation.Report()
        report.folds = 5
        report.blend = 0.5
        report.before.errors = 3
        report.after.errors = 1
        let outcome = PadAdaptation.Outcome(recognizer: recognizer, profilePath: "some/long/folder/of/saves/profile.safetensors",
                                            report: report, drawings: 12, digits: 14, skipped: 0)
        let status = outcome.status
        XCTAssertEqual(status.text, "learned 12 drawings (14 digits) · blend 0.5 · errors 3→1 · wrote some/long/folder/of/saves/profile.safetensors")
        XCTAssertEqual(status.shorter, ["learned 12 drawings · blend 0.5 · errors 3→1", "12 drawings · blend 0.5 · errors 3→1"])
        report.blend = 0
        XCTAssertTrue(PadAdaptation.Outcome(recognizer: recognizer, profilePath: "p", report: report, drawings: 12, digits: 12, skipped: 0)
            .status.text.hasPrefix("learned 12 drawings · no gain: weights kept · errors 3→1"))
        report.folds = 0
        XCTAssertTrue(PadAdaptation.Outcome(recognizer: recognizer, profilePath: "p", report: report, drawings: 1, digits: 1, skipped: 0)
            .status.text.hasPrefix("learned 1 drawing · too few to check: weights kept"))

        // At the default size the whole line does not fit: the status row shows the first form that does.
        let c = PadController(width: 1040, height: 620)
        c.setStatus(status)
        var surface = Surface(width: 1, height: 1)
        c.render(into: &surface)
        let r = c.layout.status, s = c.layout.textScale
        let shown = try XCTUnwrap(([status.text] + status.shorter).first { BitmapFont.width(of: $0, scale: s) <= r.width })
        XCTAssertNotEqual(shown, status.text, "the test needs a line too long for the window")
        var expected = surface
        expected.fill(r, PadTheme.background)
        BitmapFont.draw(shown, x: r.x, y: r.y, scale: s, color: PadTheme.text, on: &expected)
        XCTAssertEqual(Pad.differences(surface, expected, in: r), 0)
    }

    // MARK: - The worker

    func testWorker_RunsOneAdaptationAtATimeAndWakesTheWindowWhenItEnds() throws {
        let woken = expectation(description: "wake")
        woken.expectedFulfillmentCount = 2
        let worker = AdaptationWorker(wake: { woken.fulfill() })
        let gate = DispatchSemaphore(value: 0)
        XCTAssertTrue(worker.start {
            gate.wait()
            throw DigitError(.usage, "no labelled drawings")
        })
        XCTAssertTrue(worker.isBusy)
        XCTAssertFalse(worker.start { throw DigitError(.io, "a second one") }, "one at a time")
        XCTAssertNil(worker.take(), "nothing before it ends")
        gate.signal()

        // Wait for the first outcome, then run a real one.
        let deadline = Date().addingTimeInterval(60)
        var first: Result<PadAdaptation.Outcome, DigitError>?
        while first == nil && Date() < deadline { first = worker.take(); if first == nil { usleep(5_000) } }
        guard case let .failure(error)? = first else { return XCTFail("expected the job's error, got \(String(describing: first))") }
        XCTAssertEqual(error.message, "no labelled drawings")
        XCTAssertFalse(worker.isBusy)

        let folder = try temporaryFolder(self)
        for (i, d) in try writerThree(3).enumerated() { try save(d, "drawing-\(i).json", in: folder) }
        let base = try self.base, options = quick
        XCTAssertTrue(worker.start {
            try PadAdaptation.run(base: base, saveDirectory: folder.path, saved: [], threshold: 0.9, options: options, threads: 1)
        })
        wait(for: [woken], timeout: 120)
        guard case let .success(done)? = worker.take() else { return XCTFail("the adaptation failed") }
        XCTAssertEqual(done.drawings, 3)
        XCTAssertEqual(done.recognizer.profileName, PadAdaptation.profileName)
        XCTAssertNil(worker.take(), "taken once")
        XCTAssertFalse(worker.isBusy)
    }

    // MARK: - Key and button

    func testController_AAndTheAdaptButtonAskToAdaptAfterEndingAStroke() throws {
        let c = PadController(width: 1040, height: 620)
        XCTAssertEqual(c.handle(.key(.adapt)), [.adapt])
        let (x, y) = Pad.at(c, 0.3, 0.3)
        _ = c.handle(.press(.mouse, x: x, y: y, button: 1, time: 0, pressure: nil))
        XCTAssertEqual(c.handle(.key(.adapt)), [.recognize(live: false), .adapt], "the stroke in progress ends first")
        XCTAssertEqual(c.document.strokes.count, 1)
        let r = try XCTUnwrap(c.layout.buttons[.adapt])
        XCTAssertEqual(PadButton.adapt.title, "Adapt")
        XCTAssertEqual(c.handle(.press(.mouse, x: r.midX, y: r.midY, button: 1, time: 1, pressure: nil)), [])
        XCTAssertEqual(c.handle(.release(.mouse, x: r.midX, y: r.midY, button: 1, time: 1)), [.adapt])
        XCTAssertEqual(c.document.strokes.count, 1, "adapting leaves the drawing as it is")
    }
}
