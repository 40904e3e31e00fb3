import DigitFormats
import DigitKit
import DigitTestSupport
import Foundation
import XCTest

/// The compressed inputs below were made with Python's zlib and `gzip -n` (see each comment);
/// the tests check that this decoder reproduces what those encoders were given.
///
/// Errors inside DEFLATE data are found by zlib, which reports where it was reading (the byte
/// holding its next unread bit), not where the faulty code started: those locations are a few
/// bytes later than a decoder of our own would give.
final class GzipTests: XCTestCase {
    // MARK: - Inputs

    /// "hello, gzip\n", one fixed-Huffman block (zlib strategy Z_FIXED).
    let fixed: [UInt8] = [
            0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0xd7,
            0x51, 0x48, 0xaf, 0xca, 0x2c, 0xe0, 0x02, 0x00, 0x86, 0x1f, 0x82, 0xa4, 0x0c, 0x00, 0x00, 0x00,
        ]

    /// "hello, gzip\n" with FEXTRA ("AB", 2 bytes), FNAME "hello.txt", FCOMMENT and FHCRC set.
    let fields: [UInt8] = [
            0x1f, 0x8b, 0x08, 0x1e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x06, 0x00, 0x41, 0x42, 0x02, 0x00,
            0x68, 0x69, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x2e, 0x74, 0x78, 0x74, 0x00, 0x6d, 0x61, 0x64, 0x65,
            0x20, 0x66, 0x6f, 0x72, 0x20, 0x44, 0x69, 0x67, 0x69, 0x74, 0x4b, 0x69, 0x74, 0x20, 0x74, 0x65,
            0x73, 0x74, 0x73, 0x00, 0xc5, 0xab, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0xd7, 0x51, 0x48, 0xaf, 0xca,
            0x2c, 0xe0, 0x02, 0x00, 0x86, 0x1f, 0x82, 0xa4, 0x0c, 0x00, 0x00, 0x00,
        ]

    /// An empty input, from `gzip -n </dev/null`.
    let empty: [UInt8] = [
            0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x00,
        ]

    /// Two members, "hello " and "world\n", one after the other.
    let two: [UInt8] = [
            0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57,
            0x00, 0x00, 0xf6, 0xf9, 0x81, 0xed, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x03, 0x2b, 0xcf, 0x2f, 0xca, 0x49, 0xe1, 0x02, 0x00, 0xa8, 0x61, 0x38, 0xdd,
            0x06, 0x00, 0x00, 0x00,
        ]

    /// `storedContent()` at zlib level 0: one stored block.
    let stored = Array(Data(base64Encoded: (
        "H4sIAAAAAAAAAwEsAdP+AAcOFRwjKjE4P0ZNVFtiaXB3foWMk5qhqK+2vcTL0tng5+71/AMKERgfJi00O0JJUFdeZWxzeoGI" +
        "j5adpKuyucDHztXc4+rx+P8GDRQbIikwNz5FTFNaYWhvdn2Ei5KZoKeutbzDytHY3+bt9PsCCRAXHiUsMzpBSE9WXWRrcnmA" +
        "h46VnKOqsbi/xs3U2+Lp8Pf+BQwTGiEoLzY9REtSWWBnbnV8g4qRmJ+mrbS7wsnQ197l7PP6AQgPFh0kKzI5QEdOVVxjanF4" +
        "f4aNlJuiqbC3vsXM09rh6O/2/QQLEhkgJy41PENKUVhfZm10e4KJkJeepayzusHIz9bd5Ovy+QAHDhUcIyoxOD9GTVRbYmlw" +
        "d36FjJOaoaivtr3Ey9LZ4Ofu9fwDChEYHyYt+7EA4CwBAAA=")) ?? Data())

    /// `dynamicContent()` with zlib level 9 and memLevel 2, which ends a block every 256 symbols:
    /// four dynamic-Huffman blocks.
    let dynamic = Array(Data(base64Encoded: (
        "H4sIAAAAAAAAA2RU0XLDIAz7FT5utOW6C7kk63r7+sWSsdXwEEqNLVuWoS+1HL+97O1d1rqU2u6Po9z6z1b2Y+vPWr7avR1l" +
        "be/6DY9be1UubXm65xns3rZdmoNi45FYefLYKh31iFbAWah93WGQbK+vM3mg0v2vbp9ZTpcEHjhkQADugcgtgYwKg2zHJgCc" +
        "TlxhSNLAQ3Lw98+KTiN8vKdgwS4pZcHxVhsJ+lmy6KYhm8F+/ZxaoGfAsqNUJFXJfvToFWLx1/KhCEESxtyaJ4mkEknR86BW" +
        "BNlRaMe40E71yCMrA6E0sUh3TSbWgI/BRIKcAy9HsC2YJXnPxojBH/+k4/DMZnKXtJBtjTliSuEut8A+HzFvVcxPyNQHblhD" +
        "UJgt06QHDVy1S+acM2wJY1YnNXE18grJSK1jGOOuz/nk2g3RLJ0KJ0M1zb3IKRq6WiISgEnZOgi0nvOTrabB2MaFkTm53KdV" +
        "hlcnUWmGJuMJkVkJepMk11ZG4Li5KSegpEZ5UeIFlZrlQco26Ot5ofvPdhlsKQzDMPCTy21/fx+JrRm73ICWJrGtkQrJBUcD" +
        "MJNxSu/lqs+1kSPM+2/OpL7OygvU5+F3C8/awVjIY1UX7r9qmKpZhaxGG1rM8N2fciQVr6s/7OqwKUN2d6GKfS9HgWDu/nT2" +
        "4l16Ev4el0qYUPdUoquwFJVuSqweDteuFaBnSk8uw8ISSFwj8anRyq7g0QblM+BZDwWc6Us411Zjnnl9f46SUNupoQ0IOshf" +
        "daqg+vmpANcbLC3aGK8aFDmN9CVlP7nuHdti0Lp6/G2BJsamzyVJAWXg0YKUE4o3IJk24zaPRoxrEbUY3wXk1wRDITEleeH/" +
        "LBFEMmcKIguKGJeBFPPhVBlCyxXszS4RSaed7ALndKHdxxlwGFOWMLxfIaYoWPkn9qVh0zlh4g6XZLJl8t03DEsjnK5Pf1XA" +
        "xm7l/B0t0rgo51d0ZRj6VjkHVZuknwljUUDzK6k3Y4BfOnBXeAcMT6EMi+8rDSoHcndYxd44EfbKUxS/14vC4GV3jwMQSAs1" +
        "pDNLfSB/Hlo5C/I06yuKIwVVR13hVYmUMSa1jWREvIyCiYs68GYjqiNstzd3CfsyA7v4ZyVPf34lvTE/KLJf5/xOHNKAPBY0" +
        "agTKGOMQDV6oukm9fiWrFGq2T/rpZr5ymouqZIt/uswkMWIghIFP9vz/lItRlcC5JbN43CC04FS3nfQKZH2TUIQkIhQoKHLH" +
        "QVJegntlQ6Pbu5AC0chQ6SJORTOQGtj6QY8UAY50xhccp0hW96FSLsOtMkMWlUpoWoKknYNeNbedV0mUHIyuBn20M8zd+3uU" +
        "3v//2t6CDtmVrWEumYCGqovqgpJipILeCGtvcNLl5Y37qtfOaWqFOL+3NB0rbrOxO22O1Xnk4jQGYz8tVoK6PK0ILDi/EeMf" +
        "xl37lR2gNEdFHj7F8bEVzFBZCV9OCDXUl4Yf4IJgLACXNKrHihhU7/exJUOlvGfC4MDeQyDFeGNISqmME02AQoYm1fOuA+hE" +
        "nftPPcVvzZmmsP3JajtSilPgpACbqtwT6s0Vgg0GWPRpixrkrRVE2tywq71CtNe74dCBpbAEh/TH+flLIyhnJHFVN7vssthB" +
        "nWsk8IlxDI7IRkslodiTuCKPecJT+1YD3rua8KG4ini+d3GkGHDx/2ONwtmW/soUynTt3Xglz1zNHIVw6n7yS3e9sRd8uB20" +
        "4n0BmIjgQg3bw7XuXuv8vQlP8nEumR5Ieu4iNAcZkiBRpXX+paWhms/PpxylAyIe1nJ4L9+7fP/jaH6fY2xvgGpXaz5IJEpX" +
        "z0usBGPY1gDWfInOnB56MbaizF5Kfq35q0sso4LDw4wvWY8oARFTIcaxnyT9lWXmSADDIAz8cv5feVIgdkVrF044JCGuBwDE" +
        "RrIgBrMV44d668Wzi/V5KePUJEPDxvyMzImyqJKuprnFQ6vSdj7AJJqoFiHL1NgeDSqi5laxuZNqiyROYoDU99ko0hshJF21" +
        "VJ7PZ2mAAhgcvUwiQVIYprvjggCNE6llAERpsaUaSemxNzeV8J8+WS9cwDkeAAA=")) ?? Data())

    /// 300 bytes i * 7 mod 256.
    private func storedContent() -> [UInt8] { (0..<300).map { UInt8($0 * 7 % 256) } }

    /// 1,500 words drawn by SplitMix64(seed: 2024), joined by spaces (7,737 bytes).
    private func dynamicContent() -> [UInt8] {
        let vocabulary = "zero one two three four five six seven eight nine pen stroke ink pixel digit".split(separator: " ")
        var rng = SplitMix64(seed: 2024)
        let words = (0..<1500).map { _ in vocabulary[Int(rng.next() % UInt64(vocabulary.count))] }
        return Array(words.joined(separator: " ").utf8)
    }

    private func assertGzipError(_ bytes: [UInt8], limit: Int = 1 << 20, kind: DigitError.Kind = .format,
                                 location: String, contains: String,
                                 file: StaticString = #filePath, line: UInt = #line) {
        do {
            _ = try Gzip.decompress(bytes, file: "x.gz", limit: limit)
            XCTFail("expected an error", file: file, line: line)
        } catch let error as DigitError {
            XCTAssertEqual(error.kind, kind, "\(error)", file: file, line: line)
            XCTAssertEqual(error.file, "x.gz", "\(error)", file: file, line: line)
            XCTAssertEqual(error.location, location, "\(error)", file: file, line: line)
            XCTAssertTrue(error.message.contains(contains), "'\(error.message)' lacks '\(contains)'", file: file, line: line)
        } catch {
            XCTFail("unexpected error \(error)", file: file, line: line)
        }
    }

    /// Writes DEFLATE bits, first bit lowest, for hand-made streams.
    private struct BitWriter {
        var bytes: [UInt8] = []
        var used = 0
        mutating func bits(_ value: Int, _ count: Int) {
            for i in 0..<count {
                if used % 8 == 0 { bytes.append(0) }
                bytes[bytes.count - 1] |= UInt8(value >> i & 1) << UInt8(used % 8)
                used += 1
            }
        }
        /// A Huffman code, sent most significant bit first.
        mutating func code(_ value: Int, _ count: Int) {
            for i in stride(from: count - 1, through: 0, by: -1) { bits(value >> i & 1, 1) }
        }
    }

    private let header: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3]

    // MARK: - Round trips

    func testGzip_FixedHuffmanBlockDecodes() throws {
        XCTAssertTrue(Gzip.isGzip(fixed))
        XCTAssertEqual(try Gzip.decompress(fixed, file: "x.gz", limit: 100), Array("hello, gzip\n".utf8))
    }

    func testGzip_StoredBlockDecodes() throws {
        XCTAssertEqual(stored.count, 323)
        XCTAssertEqual(try Gzip.decompress(stored, file: "x.gz", limit: 1000), storedContent())
    }

    func testGzip_MultiBlockDynamicHuffmanDecodes() throws {
        XCTAssertEqual(dynamic.count, 1559)
        let content = dynamicContent()
        XCTAssertEqual(content.count, 7737)
        XCTAssertEqual(Gzip.crc32(content), 3_227_266_905)  // zlib.crc32 of the same bytes
        XCTAssertEqual(try Gzip.decompress(dynamic, file: "x.gz", limit: 1 << 20), content)
    }

    func testGzip_HeaderFieldsAreSkipped() throws {
        XCTAssertEqual(try Gzip.decompress(fields, file: "x.gz", limit: 100), Array("hello, gzip\n".utf8))
    }

    func testGzip_EmptyMemberDecodesToNothing() throws {
        XCTAssertEqual(try Gzip.decompress(empty, file: "x.gz", limit: 100), [])
    }

    func testGzip_ConcatenatedMembersAreJoined() throws {
        XCTAssertEqual(try Gzip.decompress(Array(two.prefix(26)), file: "x.gz", limit: 100), Array("hello ".utf8))
        XCTAssertEqual(try Gzip.decompress(two, file: "x.gz", limit: 100), Array("hello world\n".utf8))
        XCTAssertEqual(try Gzip.decompress(fixed + stored, file: "x.gz", limit: 1000), Array("hello, gzip\n".utf8) + storedContent())
    }

    func testGzip_OverlappingMatchRepeatsTheLastBytes() throws {
        // "ab" then a match of length 7 at distance 2: "ababababa". Fixed codes: literals 0...143
        // are 8 bits from 0x30, length 257...279 7 bits from 0, distance codes 5 bits.
        var w = BitWriter()
        w.bits(1, 1); w.bits(1, 2)
        w.code(0x30 + 0x61, 8); w.code(0x30 + 0x62, 8)
        w.code(261 - 256, 7)  // length 7
        w.code(1, 5)          // distance 2
        w.code(0, 7)          // end of block
        let content = Array("ababababa".utf8)
        let crc = Gzip.crc32(content)
        let trailer = (0..<4).map { UInt8(crc >> (8 * $0) & 0xFF) } + [UInt8(content.count), 0, 0, 0]
        XCTAssertEqual(try Gzip.decompress(header + w.bytes + trailer, file: "x.gz", limit: 100), content)
    }

    func testGzip_CRC32MatchesTheStandardCheckValue() {
        XCTAssertEqual(Gzip.crc32(Array("123456789".utf8)), 0xCBF4_3926)
        XCTAssertEqual(Gzip.crc32([]), 0)
    }

    // MARK: - Errors

    func testGzip_NotGzipThrows() {
        assertGzipError([0, 0, 8, 3], location: "byte 0", contains: "not a gzip file")
        assertGzipError([], location: "byte 0", contains: "not a gzip file")
    }

    func testGzip_CorruptedCRCThrows() {
        var bytes = fixed
        bytes[bytes.count - 8] ^= 0x01
        assertGzipError(bytes, location: "byte 24", contains: "CRC-32 mismatch")
    }

    func testGzip_WrongSizeInTrailerThrows() {
        var bytes = fixed
        bytes[bytes.count - 4] = 13
        assertGzipError(bytes, location: "byte 28", contains: "the trailer says 13 bytes")
    }

    func testGzip_CorruptedHeaderCRCThrows() {
        var bytes = fields
        bytes[30] ^= 0x20  // a letter of the comment
        assertGzipError(bytes, location: "byte 52", contains: "header CRC mismatch")
    }

    func testGzip_EveryTruncationThrowsAtTheEndOfInput() {
        for input in [fixed, fields, stored, two, empty] {
            // `two` cut after its first member (26 bytes) is a whole gzip file.
            for cut in 2..<input.count where !(input == two && cut == 26) {
                assertGzipError(Array(input.prefix(cut)), location: "byte \(cut)", contains: "truncated")
            }
        }
        for cut in stride(from: 2, to: dynamic.count, by: 7) {
            assertGzipError(Array(dynamic.prefix(cut)), location: "byte \(cut)", contains: "truncated")
        }
    }

    func testGzip_TrailingGarbageThrows() {
        assertGzipError(fixed + [0, 0], location: "byte 32", contains: "2 bytes after the end of the gzip data")
    }

    func testGzip_OutputLimitIsEnforced() throws {
        // The symbol that crosses the limit starts in byte 1548 and its bits end in byte 1550;
        // zlib has read into byte 1551 (the end-of-block code) when it writes that byte.
        assertGzipError(dynamic, limit: 7736, kind: .limit, location: "byte 1551", contains: "limit of 7736 bytes")
        XCTAssertEqual(try Gzip.decompress(dynamic, file: "x.gz", limit: 7737).count, 7737)
        // The stored block's 300 bytes are bytes 15…314: the 300th is the one over the limit.
        assertGzipError(stored, limit: 299, kind: .limit, location: "byte 315", contains: "limit of 299 bytes")
        XCTAssertEqual(try Gzip.decompress(stored, file: "x.gz", limit: 300), storedContent())
    }

    func testGzip_BadHeaderFieldsThrow() {
        var method = fixed
        method[2] = 7
        assertGzipError(method, location: "byte 2", contains: "compression method 7")
        var flags = fixed
        flags[3] = 0x20
        assertGzipError(flags, location: "byte 3", contains: "reserved header flag bits")
    }

    func testGzip_InvalidBlockTypeThrows() {
        assertGzipError(header + [0x07, 0, 0, 0, 0, 0, 0, 0, 0], location: "byte 10", contains: "invalid block type 3")
    }

    func testGzip_StoredLengthComplementMismatchThrows() {
        var bytes = stored
        bytes[13] ^= 0xFF
        assertGzipError(bytes, location: "byte 11", contains: "does not match its complement")
    }

    func testGzip_MatchBeforeStartOfOutputThrows() {
        var w = BitWriter()
        w.bits(1, 1); w.bits(1, 2)
        w.code(257 - 256, 7)  // length 3
        w.code(0, 5)          // distance 1, with nothing output yet
        w.code(0, 7)
        // The match starts in byte 10; zlib finds the bad distance after reading its code, in byte 11.
        assertGzipError(header + w.bytes + [UInt8](repeating: 0, count: 8), location: "byte 11",
                        contains: "match distance reaches before the start of the output (0 bytes so far)")
        // Nor may a match reach back into the previous member's output.
        assertGzipError(fixed + header + w.bytes + [UInt8](repeating: 0, count: 8), location: "byte 43",
                        contains: "(0 bytes so far)")
    }

    func testGzip_OverSubscribedCodeLengthCodeThrows() {
        var w = BitWriter()
        w.bits(1, 1); w.bits(2, 2)
        w.bits(0, 5); w.bits(0, 5); w.bits(15, 4)
        for _ in 0..<19 { w.bits(1, 3) }  // 19 codes of one bit cannot exist
        // zlib checks the code after reading all 19 lengths: 74 bits from byte 10, so in byte 19.
        assertGzipError(header + w.bytes + [UInt8](repeating: 0, count: 8), location: "byte 19",
                        contains: "invalid code-length code (over-subscribed")
    }

    func testGzip_CorruptedStreamsThrowOrDecodeCorrectly() {
        // Flipping any bit after the header must never crash nor yield different data silently.
        let content = dynamicContent()
        for position in stride(from: 10, to: dynamic.count, by: 3) {
            var bytes = dynamic
            bytes[position] ^= UInt8(1 << (position % 8))
            do {
                let output = try Gzip.decompress(bytes, file: "x.gz", limit: 1 << 20)
                XCTAssertEqual(output, content, "flip at \(position)")
            } catch let error as DigitError {
                XCTAssertEqual(error.kind, .format, "\(error)")
            } catch {
                XCTFail("unexpected error \(error)")
            }
        }
    }
}
