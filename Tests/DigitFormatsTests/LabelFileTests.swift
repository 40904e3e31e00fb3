import DigitFormats
import DigitTestSupport
import Foundation
import XCTest

/// `LabelFile`: the labels.csv and labels.tsv of a folder of images.
final class LabelFileTests: XCTestCase {
    private func csv(_ text: String) throws -> [LabelFile.Entry] {
        try LabelFile.parse(Array(text.utf8), file: "labels.csv", format: .csv)
    }

    private func pairs(_ entries: [LabelFile.Entry]) -> [String] { entries.map { "\($0.file)=\($0.label)@\($0.line)" } }

    /// The one-line description of the error `text` gives, or a failure.
    private func error(_ text: String, format: LabelFile.Format = .csv, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            let entries = try LabelFile.parse(Array(text.utf8), file: "labels.\(format.rawValue)", format: format)
            XCTFail("read \(entries) instead of refusing", file: file, line: line)
            return ""
        } catch let e as DigitError {
            XCTAssertEqual(e.kind, .format, file: file, line: line)
            return e.description
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return ""
        }
    }

    func testCSV_HeaderIsSkippedAndEveryLineIsAnEntry() throws {
        XCTAssertEqual(pairs(try csv("filename,label\na.Jpg,3\nb.Jpg,4a\nc.Jpg,-\n")), ["a.Jpg=3@2", "b.Jpg=4a@3", "c.Jpg=-@4"])
        XCTAssertEqual(pairs(try csv("FileName,Label\na.png,12")), ["a.png=12@2"], "any case; no line break at the end")
        XCTAssertEqual(pairs(try csv("a.png,12\nb.png,7\n")), ["a.png=12@1", "b.png=7@2"], "the header is optional")
        XCTAssertEqual(pairs(try csv("a.png,12\nfilename,label\n")), ["a.png=12@1", "filename=label@2"], "only the first line is a header")
        XCTAssertEqual(pairs(try csv("")), [])
    }

    func testCSV_QuotedFieldsHoldCommasQuotesAndLineBreaks() throws {
        let text = "filename,label\n\"a,b.png\",\"12\"\nq.png,\"\"\"\"\nnote.png,7,\"a note\nof two lines\"\nafter.png,\"19a\"\n"
        XCTAssertEqual(pairs(try csv(text)), ["a,b.png=12@2", "q.png=\"@3", "note.png=7@4", "after.png=19a@6"],
                       "a line break inside quotes is part of the field (here an ignored third one), and counted")
        XCTAssertEqual(error("a.png,1\n\"two\nlines.png\",7\n"),
                       "labels.csv: line 2: the file name holds a control character (U+A): a label and a file name are one line of text")
        // Spaces around a field are not part of it; inside quotes they are.
        XCTAssertEqual(pairs(try csv(" a.png , 5 \n\" b.png \" ,\" 6\"\n")), ["a.png=5@1", " b.png = 6@2"])
    }

    func testCSV_CRLFAndAByteOrderMarkAreReadAsLF() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("filename,label\r\na.JPG,12\r\n\r\nb.PNG,\"3\r\n\"\r\nc.png,Sn\rd.png,NB\r\n".utf8)
        XCTAssertThrowsError(try LabelFile.parse(bytes, file: "labels.csv", format: .csv)) { e in
            // The quoted CR LF is inside the label: a label is one line of text.
            XCTAssertEqual("\(e)", "labels.csv: line 4: the label of b.PNG holds a control character (U+D): a label and a file name are one line of text")
        }
        let clean: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("filename,label\r\na.JPG,12\r\n\r\nb.PNG,\"3\"\r\nc.png,Sn\rd.png,NB\r\n".utf8)
        XCTAssertEqual(pairs(try LabelFile.parse(clean, file: "labels.csv", format: .csv)),
                       ["a.JPG=12@2", "b.PNG=3@4", "c.png=Sn@5", "d.png=NB@6"])
    }

    func testCSV_BadLinesAreOneLineErrorsNamingTheFileAndLine() {
        XCTAssertEqual(error("filename,label\na.png,1\nb.png\n"), "labels.csv: line 3: expected FILE,LABEL, found one field 'b.png'")
        XCTAssertEqual(error("a.png,1\n,2\n"), "labels.csv: line 2: the file name is empty")
        XCTAssertEqual(error("a.png,1\nb.png,\n"), "labels.csv: line 2: the label of b.png is empty")
        XCTAssertEqual(error("a.png,1\nb.png,19\"\n"),
                       "labels.csv: line 2: a quote inside a field that does not start with one: quote the whole field and double the quotes inside (\"19\"\"\" for 19\")")
        XCTAssertEqual(error("a.png,1\nb.png,\"12\"x\n"), "labels.csv: line 2: expected a comma or the end of the line after a closing quote, found 'x'")
        XCTAssertEqual(error("a.png,1\nb.png,\"12\nc.png,3\n"), "labels.csv: line 2: the quoted field that starts here is not closed: the file ends inside it")
        XCTAssertEqual(error("a.png,1\nb.png,2\na.png,7\n"), "labels.csv: line 3: a.png is labelled '7' here and '1' on line 1")
        XCTAssertEqual(error("a.png,\(String(repeating: "1", count: 65))\n"), "labels.csv: line 1: the label of a.png is 65 characters long; at most 64")
        XCTAssertEqual(error("a.png,1\tb\n"), "labels.csv: line 1: the label of a.png holds a control character (U+9): a label and a file name are one line of text")
        XCTAssertThrowsError(try LabelFile.parse(Array("a.png,1\n".utf8) + [0x62, 0xFF, 0x2C, 0x31], file: "labels.csv", format: .csv)) { e in
            XCTAssertEqual("\(e)", "labels.csv: line 2: the file name is not UTF-8 text")
        }
        // The same file named twice with the same label is one entry.
        XCTAssertEqual(pairs((try? csv("a.png,1\na.png,1\n")) ?? []), ["a.png=1@1"])
    }

    func testTSV_TabSeparatedWithCRLFBOMAndExtraFields() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("paper-0001.jpg\t9\t377,231,407,288\r\nq\"x.png\t\"\r\n\r\nn.png\t9 5351\r\n".utf8)
        XCTAssertEqual(pairs(try LabelFile.parse(bytes, file: "labels.tsv", format: .tsv)),
                       ["paper-0001.jpg=9@1", "q\"x.png=\"@2", "n.png=9 5351@4"], "no quoting in TSV; fields after the second ignored")
        XCTAssertEqual(error("a.png 5\n", format: .tsv), "labels.tsv: line 1: expected FILE<TAB>LABEL, found one field 'a.png 5'")
    }

    func testRead_FormatFromTheNameAndTheSizeLimitBeforeReading() throws {
        let folder = try temporaryFolder(self)
        let csvPath = folder.appendingPathComponent("labels.csv").path, tsvPath = folder.appendingPathComponent("labels.TSV").path
        try FileIO.writeAtomically(Array("a.png,12\n".utf8), to: csvPath)
        try FileIO.writeAtomically(Array("a.png\t1,2\n".utf8), to: tsvPath)
        XCTAssertEqual(pairs(try LabelFile.read(csvPath)), ["a.png=12@1"])
        XCTAssertEqual(pairs(try LabelFile.read(tsvPath)), ["a.png=1,2@1"])
        XCTAssertThrowsError(try LabelFile.read(csvPath, limit: 4)) { e in
            XCTAssertEqual((e as? DigitError)?.kind, .limit)
            XCTAssertTrue("\(e)".hasPrefix(csvPath + ": "), "\(e)")
        }
    }
}
