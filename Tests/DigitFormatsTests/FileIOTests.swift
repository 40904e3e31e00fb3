import DigitFormats
import DigitTestSupport
import Foundation
import XCTest

/// `FileIO.read`: whole files of any size up to the limit, pipes as well as regular files, and one
/// error naming the file for what cannot be read.
final class FileIOTests: XCTestCase {
    func testRead_AFileLargerThanOneBufferComesBackWhole() throws {
        let path = try temporaryFolder(self).appendingPathComponent("big.bin").path
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try FileIO.writeAtomically(bytes, to: path)
        XCTAssertEqual(try FileIO.read(path, limit: 1 << 20), bytes)
        XCTAssertEqual(try FileIO.read(path, limit: bytes.count), bytes, "exactly at the limit")
        XCTAssertThrowsError(try FileIO.read(path, limit: bytes.count - 1)) { error in
            XCTAssertEqual((error as? DigitError)?.kind, .limit)
            XCTAssertTrue("\(error)".contains(path), "\(error)")
        }
    }

    func testRead_APipeIsReadToItsEndAndBoundedByTheLimit() throws {
        let folder = try temporaryFolder(self)
        let fifo = folder.appendingPathComponent("pipe").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let bytes = [UInt8]((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
        let writer = Thread {
            guard let handle = FileHandle(forWritingAtPath: fifo) else { return }
            handle.write(Data(bytes))
            try? handle.close()
        }
        writer.start()
        XCTAssertEqual(try FileIO.read(fifo, limit: 1 << 20), bytes)
        // 2,000 bytes fit in the pipe's buffer: the writer is done before the reader stops early.
        let again = Thread {
            guard let handle = FileHandle(forWritingAtPath: fifo) else { return }
            handle.write(Data(bytes.prefix(2000)))
            try? handle.close()
        }
        again.start()
        XCTAssertThrowsError(try FileIO.read(fifo, limit: 1000)) { error in
            XCTAssertEqual((error as? DigitError)?.kind, .limit)
        }
    }

    func testRead_AMissingFileAndAFolderAreOneLineErrors() throws {
        let folder = try temporaryFolder(self)
        let missing = folder.appendingPathComponent("nothing.json").path
        XCTAssertThrowsError(try FileIO.read(missing, limit: 100)) { error in
            XCTAssertEqual("\(error)", "\(missing): no such file")
        }
        XCTAssertThrowsError(try FileIO.read(folder.path, limit: 100)) { error in
            XCTAssertEqual("\(error)", "\(folder.path): is a directory, expected a file")
        }
    }
}
