import DigitKit
import DigitTestSupport
import Foundation
import XCTest

/// `Inputs.load` on folders of images with their labels.
final class InputsTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = try temporaryFolder(self)
    }

    /// Copies `Fixtures/paper/NAME` into the scratch folder as `as`.
    private func copyPaper(_ name: String, as target: String) throws {
        try FileManager.default.copyItem(at: TestPaths.fixtures.appendingPathComponent("paper/\(name)"),
                                         to: folder.appendingPathComponent(target))
    }

    private func write(_ text: String, to name: String, bom: Bool = false) throws {
        try FileIO.writeAtomically((bom ? [0xEF, 0xBB, 0xBF] : []) + Array(text.utf8), to: folder.appendingPathComponent(name).path)
    }

    private func images(_ items: [Inputs.Item]) -> [String] {
        items.map { item in
            guard case let .image(path, label) = item else { return "a drawing" }
            return (path as NSString).lastPathComponent + "=" + (label ?? "nil")
        }
    }

    func testFolder_UpperCaseExtensionsAreImagesLabelledFromLabelsCSV() throws {
        try copyPaper("paper-0001.jpg", as: "a.Jpg")
        try copyPaper("paper-0004.jpg", as: "b.JPG")
        try copyPaper("paper-0002.jpg", as: "c.JPEG")
        try FileIO.writeAtomically(try PNG.encode(gray: [0, 255, 255, 0], width: 2, height: 2), to: folder.appendingPathComponent("d.PNG").path)
        try write("notes", to: "notes.txt")
        try write("filename,label\r\na.Jpg,9\r\n\"b.JPG\",5351\r\nd.PNG,Sn\r\n", to: "labels.csv", bom: true)
        XCTAssertEqual(images(try Inputs.load(folder.path)), ["a.Jpg=9", "b.JPG=5351", "c.JPEG=nil", "d.PNG=Sn"])
    }

    func testFolder_LabelsTSVIsReadAsBeforeAndBothFilesAreRefused() throws {
        try copyPaper("paper-0001.jpg", as: "a.jpg")
        try write("a.jpg\t9\t377,231,407,288\n", to: "labels.tsv")
        XCTAssertEqual(images(try Inputs.load(folder.path)), ["a.jpg=9"])
        try write("filename,label\na.jpg,9\n", to: "labels.csv")
        XCTAssertThrowsError(try Inputs.load(folder.path)) { e in
            XCTAssertEqual("\(e)", "\(self.folder.path): holds both labels.csv and labels.tsv: keep one")
        }
    }

    func testFolder_ABadLabelsCSVNamesItsFileAndLine() throws {
        try copyPaper("paper-0001.jpg", as: "a.jpg")
        try write("filename,label\na.jpg,\"9\n", to: "labels.csv")
        XCTAssertThrowsError(try Inputs.load(folder.path)) { e in
            XCTAssertEqual("\(e)", "\(self.folder.appendingPathComponent("labels.csv").path): line 2: "
                           + "the quoted field that starts here is not closed: the file ends inside it")
        }
    }
}
