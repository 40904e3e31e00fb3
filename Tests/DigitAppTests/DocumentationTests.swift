import DigitTestSupport
import Foundation
import XCTest

/// What the README shows is what runs: its library example is the `readme` program of
/// Examples/Consumer, which scripts/check-consumer builds against a tagged clone and runs.
final class DocumentationTests: XCTestCase {
    private func text(_ relative: String) throws -> String {
        try String(contentsOf: TestPaths.repoRoot.appendingPathComponent(relative), encoding: .utf8)
    }

    /// The code blocks of one `## ` section of a Markdown file, in order.
    private func codeBlocks(_ markdown: String, section: String, language: String) throws -> [String] {
        let sections = markdown.components(separatedBy: "\n## ")
        let body = try XCTUnwrap(sections.first { $0.hasPrefix(section + "\n") }, "no section '## \(section)'")
        return body.components(separatedBy: "```\(language)\n").dropFirst().compactMap { $0.components(separatedBy: "\n```").first }
    }

    func testREADME_LibraryExampleIsTheConsumersReadmeProgram() throws {
        let blocks = try codeBlocks(try text("README.md"), section: "Use it as a library", language: "swift")
        let program = try text("Examples/Consumer/Sources/readme/main.swift")
        XCTAssertTrue(blocks.contains(program.trimmingCharacters(in: .newlines)),
                      "README.md's library example differs from Examples/Consumer/Sources/readme/main.swift: keep them equal")
    }

    func testREADME_PackageLinesAreTheConsumers() throws {
        let blocks = try codeBlocks(try text("README.md"), section: "Use it as a library", language: "swift")
        let manifest = try text("Examples/Consumer/Package.swift")
        XCTAssertTrue(blocks.contains { $0.contains(".package(url:") && $0.contains("from: \"0.2.0\")") },
                      "README.md shows no .package(url:from:) line")
        XCTAssertTrue(blocks.contains { $0.contains(".product(name: \"DigitKit\", package: \"digits\")") })
        XCTAssertTrue(manifest.contains(".package(url: digitsURL, from: \"0.2.0\")"))
        XCTAssertTrue(manifest.contains(".product(name: \"DigitKit\", package: \"digits\")"))
    }

    func testVersion_CHANGELOGAndTheProgramAgree() throws {
        let changelog = try text("CHANGELOG.md")
        // The newest released version: the first heading after an "Unreleased" one.
        let versions = changelog.components(separatedBy: "\n## ").dropFirst().compactMap { $0.split(whereSeparator: \.isWhitespace).first }
        let newest = try XCTUnwrap(versions.first { $0 != "Unreleased" })
        guard let digits = Executable.digits else { return }
        let result = try digits.run(["version"], in: TestPaths.repoRoot)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("digits \(newest)"), "digits version says '\(result.stdout)', CHANGELOG.md \(newest)")
    }

    func testREADME_TeachesInAtMost250Lines() throws {
        let lines = try text("README.md").split(separator: "\n", omittingEmptySubsequences: false).count
        XCTAssertLessThanOrEqual(lines, 250, "README.md has \(lines) lines: move detail to docs/")
    }
}
