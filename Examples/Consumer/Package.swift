// swift-tools-version:5.9
//
// A package that depends on DigitKit by version, as any other package would. By default it uses
// the git repository this folder sits in (its tags: 0.2.0 and later); DIGITS_PACKAGE_URL names
// another one, as CI does with a tagged clone (scripts/check-consumer):
//   DIGITS_PACKAGE_URL=file:///path/to/clone swift build -c release
import PackageDescription
import Foundation

let enclosingRepository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().absoluteString
let digitsURL = ProcessInfo.processInfo.environment["DIGITS_PACKAGE_URL"] ?? enclosingRepository

let package = Package(
    name: "Consumer",
    dependencies: [
        .package(url: digitsURL, from: "0.2.0"),
    ],
    targets: [
        .executableTarget(
            name: "consumer",
            dependencies: [.product(name: "DigitKit", package: "digits")]),
        // The example of the README's "Use it as a library", verbatim (a test checks that).
        .executableTarget(
            name: "readme",
            dependencies: [.product(name: "DigitKit", package: "digits")]),
    ]
)
