import Foundation
import DigitFormats
import DigitKit
import DigitTestSupport
import XCTest

/// Hostile input through the fuzz properties (`ImageFuzzChecks`): every fixture, every fixture
/// with bytes flipped or cut, and random bytes behind each format's magic number. Each must be
/// decoded within the limits or refused with a `DigitError` naming the file, never crash.
final class ImageRobustnessTests: XCTestCase {
    private func assertNoProblems(_ problems: [String], _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(problems.isEmpty, "\(what): \(problems.prefix(5))", file: file, line: line)
    }

    private func fixtureNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: TestPaths.images.path)
            .filter { name in [".png", ".pgm", ".ppm", ".jpg"].contains { name.hasSuffix($0) } }.sorted()
    }

    func testRobustness_EveryFixturePassesTheFuzzChecks() throws {
        let names = try fixtureNames()
        XCTAssertGreaterThan(names.count, 60)
        for name in names {
            assertNoProblems(FuzzChecks.checkImageDecoding(try TestPaths.image(name)), name)
        }
    }

    func testRobustness_FlippedBytesNeverCrash() throws {
        var rng = SplitMix64(seed: 17)
        for name in try fixtureNames() {
            let bytes = try TestPaths.image(name)
            for _ in 0..<40 {
                var broken = bytes
                let position = Int.random(in: 0..<bytes.count, using: &rng)
                broken[position] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))
                assertNoProblems(FuzzChecks.checkImageDecoding(broken), "\(name) with byte \(position) flipped")
            }
        }
    }

    func testRobustness_TruncatedFilesNeverCrash() throws {
        for name in try fixtureNames() {
            let bytes = try TestPaths.image(name)
            for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 40)) {
                assertNoProblems(FuzzChecks.checkImageDecoding(Array(bytes.prefix(cut))), "\(name) cut at \(cut)")
            }
        }
    }

    func testRobustness_RandomBytesBehindEachMagicNeverCrash() {
        var rng = SplitMix64(seed: 23)
        let magics: [[UInt8]] = [PNG.signature, PNG.signature + PNGBuilder.ihdr(width: 3, height: 2), [0xFF, 0xD8, 0xFF],
                                 Array("P5 3 2 255\n".utf8), Array("P2\n".utf8), Array("P6 ".utf8), [], [0x1F, 0x8B]]
        for magic in magics {
            for _ in 0..<150 {
                let tail = (0..<Int.random(in: 0...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                assertNoProblems(FuzzChecks.checkImageDecoding(magic + tail), "random bytes after \(magic)")
                assertNoProblems(FuzzChecks.checkGzip(magic + tail), "random bytes as gzip")
            }
        }
    }

    func testRobustness_ErrorsNameTheFileEvenWhenItsNameIsHostile() {
        let name = "evil\n\u{1B}[31mname.png"
        do {
            _ = try ImageDecoder.decode(PNG.signature + [0, 0], file: name)
            XCTFail("expected an error")
        } catch let error as DigitError {
            XCTAssertEqual(error.file, name)
            XCTAssertFalse(error.description.contains("\n"))
            XCTAssertFalse(error.description.contains("\u{1B}"))
        } catch {
            XCTFail("\(error)")
        }
    }
}
