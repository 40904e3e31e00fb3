// swift-tools-version:5.9
//
// digits: handwritten-digit recognition in Swift, with no package dependencies.
//
// The targets, lowest first (imports point one way; docs/architecture.md draws them):
//   CZlib, CJPEG          the system's zlib and libjpeg-turbo (system-library targets; CJPEGShim
//                         catches libjpeg's fatal errors)
//   DigitFormats          file formats: JSON, stroke files, UNIPEN, safetensors, IDX, gzip, PNG, PNM, JPEG,
//                         label files (labels.csv, labels.tsv)
//   DigitKernels          the compute kernels in C, compiled per instruction set and chosen at run time
//   DigitWeights          the shipped weight files, resources (Weights/): the digit network and the
//                         paper reader's line model
//   DigitKit              the library: strokes, raster, network, training, evaluation, recognition,
//                         numbers, images. `import DigitKit` is all a user needs.
//   DigitApp              what the two programs share: arguments, exit codes, data locations, progress, bench
//   digits, digitpad      the command line and the SDL2 window
//
// No target uses unsafe flags, so the package can be a versioned dependency. Optional system
// libraries are detected here and left out when absent (the features then say what to install):
//   DIGITS_SDL unset   the window is built when the SDL2 headers are installed (apt install
//                      libsdl2-dev); DIGITS_SDL=0 never builds it, DIGITS_SDL=1 always does.
//   DIGITS_JPEG unset  JPEG decoding when libjpeg's headers are installed (apt install
//                      libjpeg-turbo8-dev or libjpeg-dev); DIGITS_JPEG=0 leaves it out.
import PackageDescription
import Foundation

let environment = ProcessInfo.processInfo.environment

/// Whether an optional system library is used: the environment switch, else whether its header exists.
func optional(_ switchName: String, header: String) -> Bool {
    switch environment[switchName] {
    case "0": return false
    case "1": return true
    default: return ["/usr/include/", "/usr/local/include/"].contains { FileManager.default.fileExists(atPath: $0 + header) }
    }
}
let withSDL = optional("DIGITS_SDL", header: "SDL2/SDL.h")
let withJPEG = optional("DIGITS_JPEG", header: "jpeglib.h")

let package = Package(
    name: "digits",
    products: [
        // MARK: - Public API
        .library(name: "DigitKit", targets: ["DigitKit"]),
        .executable(name: "digits", targets: ["digits"]),
    ],
    targets: [
        // MARK: - Implementation
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"]), .yum(["zlib-devel"])]),
        .target(
            name: "DigitFormats",
            dependencies: ["CZlib"] + (withJPEG ? ["CJPEGShim"] : []),
            swiftSettings: withJPEG ? [.define("DIGITS_JPEG")] : []),
        .target(name: "DigitKernels"),
        .target(
            name: "DigitWeights",
            path: "Weights",
            exclude: ["README.md", "paper-lines.md", "second-opinion.md"],
            resources: [.copy("mnist-cnn.safetensors"), .copy("second-opinion.safetensors"), .copy("paper-lines.safetensors")]),
        .target(
            name: "DigitKit",
            dependencies: ["DigitFormats", "DigitKernels", "DigitWeights"]),
        .target(
            name: "DigitApp",
            dependencies: ["DigitKit"]),
        .executableTarget(
            name: "digits",
            dependencies: ["DigitApp", "DigitKit"]),
        // The window's logic that needs no SDL (layout, font, drawing, input → strokes): plain
        // Swift, built and tested everywhere.
        .target(
            name: "DigitPadKit",
            dependencies: ["DigitKit", "DigitApp"]),

        // MARK: - Tests
        // What the test targets share: fixture paths, scratch folders, the one way to run the
        // executables, and the properties the fuzzers check.
        .target(
            name: "DigitTestSupport",
            dependencies: ["DigitKit"],
            path: "Tests/DigitTestSupport"),
        .testTarget(
            name: "DigitFormatsTests",
            dependencies: ["DigitFormats", "DigitTestSupport"],
            swiftSettings: withJPEG ? [.define("DIGITS_JPEG")] : []),
        .testTarget(
            name: "DigitKitTests",
            dependencies: ["DigitKit", "DigitKernels", "DigitTestSupport"]),
        // Runs the `digits` executable; depending on it makes `swift test` build it first.
        .testTarget(
            name: "DigitAppTests",
            dependencies: ["DigitApp", "DigitKit", "digits", "DigitTestSupport"]),
        .testTarget(
            name: "DigitPadKitTests",
            dependencies: ["DigitPadKit", "DigitApp", "DigitTestSupport"]),
    ]
)

if withJPEG {
    package.targets += [
        .systemLibrary(name: "CJPEG", path: "Sources/CJPEG", pkgConfig: "libjpeg",
                       providers: [.apt(["libjpeg-turbo8-dev"]), .yum(["libjpeg-turbo-devel"])]),
        // libjpeg reports a fatal error by calling error_exit, which must not return: this C shim
        // turns it into a longjmp back to the call and an error string, which Swift cannot do.
        .target(name: "CJPEGShim", dependencies: ["CJPEG"]),
    ]
}

if withSDL {
    package.products.append(.executable(name: "digitpad", targets: ["DigitPad"]))
    package.targets += [
        // MARK: - Window (SDL2)
        .systemLibrary(name: "CSDL2", path: "Sources/CSDL2",
                       providers: [.apt(["libsdl2-dev"]), .yum(["SDL2-devel"])]),
        .executableTarget(
            name: "DigitPad",
            dependencies: ["DigitKit", "DigitApp", "DigitPadKit", "CSDL2"]),
        // Drives the real `digitpad` binary headless; depending on the executable makes
        // `swift test` build it first.
        .testTarget(
            name: "DigitPadTests",
            dependencies: ["DigitPad", "DigitPadKit", "DigitApp", "DigitKit", "DigitTestSupport"]),
    ]
}
