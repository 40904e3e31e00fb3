@testable import DigitFormats
import DigitTestSupport
import Foundation
import XCTest

/// The UNIPEN reader gives exactly what the pendigits-only reader it replaced gave on the real
/// file (compared record by record while both existed; the digest pins the result): the same
/// records in the same order, with the same index, line, writer, labels, every coordinate and canvas.
final class PendigitsRegressionTests: XCTestCase {
    func testPendigits_TheReaderGivesExactlyTheRecordsOfThePendigitsReaderItReplaced() throws {
        guard let url = TestPaths.requirePendigits() else { return }
        let path = url.path
        let bytes = Array(try Data(contentsOf: url))
        let new = try UNIPEN.parse(bytes, source: path)
        XCTAssertEqual(new.count, 7494)
        XCTAssertEqual(Self.digest(new), Self.pinnedDigest)
        let drawings = new.compactMap { try? $0.result.get() }
        XCTAssertEqual(drawings.reduce(0) { $0 + $1.pointCount }, 304_216)
        XCTAssertEqual(Set(new.compactMap(\.writer)).count, 30)

        // Read as the CLI will (includes followed): the same records, and dene.doc, which UCI
        // does not distribute, is the one problem.
        let reading = try UNIPEN.read(file: path)
        XCTAssertEqual(reading.yAxis, .up)
        XCTAssertEqual(reading.problems.map(\.location), ["line 1"])
        XCTAssertTrue(reading.problems.first?.message.hasPrefix("cannot find the included file 'dene.doc'") ?? false)
        XCTAssertEqual(reading.records.count, new.count)
        XCTAssertTrue(zip(reading.records, new).allSatisfy { (try? $0.result.get()) == (try? $1.result.get()) && $0.writer == $1.writer })
    }

    /// FNV-1a 64 of every record of the pendigits reader of commit 8d4889f on pendigits-orig.tra
    /// (index, line, writer, label, canvas and the bit pattern of every coordinate; not the source).
    static let pinnedDigest = "db6a3d231ab2eed"

    /// FNV-1a 64 over a text that holds everything a record says, coordinates as bit patterns.
    static func digest(_ records: [DrawingRecord]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ text: String) {
            for byte in text.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
        }
        for record in records {
            add("\(record.index) \(record.line ?? -1) \(record.writer ?? -1)\n")
            switch record.result {
            case .failure(let error):
                add("error \(error.description)\n")
            case .success(let drawing):
                add("\(drawing.label ?? "-") \(drawing.canvasWidth?.bitPattern ?? 0) \(drawing.canvasHeight?.bitPattern ?? 0)\n")
                for stroke in drawing.strokes {
                    add(stroke.map { "\($0.x.bitPattern),\($0.y.bitPattern),\($0.t?.bitPattern ?? 0),\($0.p?.bitPattern ?? 0)" }.joined(separator: " ") + "\n")
                }
            }
        }
        return String(hash, radix: 16)
    }
}
