// swift-tools-version:5.9
//
// digits: handwritten-digit recognition in Swift, with no package dependencies.
//
// Build switches (read at build time):
//   DIGITS_CPU unset   portable build: runs on any x86-64 / arm64 Linux. Kernels use separate
//                      multiply and add, because a fused multiply-add on baseline x86-64 would be
//                      a call into libm's software fmaf (about 100x slower).
//   DIGITS_CPU=native  compiles for the build machine's CPU (AVX2/AVX-512 on x86-64) and uses
//                      fused multiply-add. The binary may not run on an older CPU.
//   DIGITS_CPU=NAME    any other LLVM CPU name, for example haswell (AVX2 + FMA), x86-64-v3.
//
//   DIGITS_SDL unset   the DigitPad window (product `digitpad`, targets CSDL2 and DigitPad, tests
//                      DigitPadTests) is built when the SDL2 headers are installed (SDL2/SDL.h in
//                      /usr/include or /usr/local/include; apt install libsdl2-dev). Without them
//                      the package is the library and the `digits` CLI only.
//   DIGITS_SDL=0       never build the window, even when SDL2 is installed.
//   DIGITS_SDL=1       always build it (SDL2 found through pkg-config `sdl2` in another place).
import PackageDescription
import Foundation

let environment = ProcessInfo.processInfo.environment
let cpu = environment["DIGITS_CPU"].flatMap { $0.isEmpty ? nil : $0 }
let kernelSettings: [SwiftSetting] = cpu.map {
    [.unsafeFlags(["-target-cpu", $0]), .define("DIGITS_FMA")]
} ?? []
let optimize: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"])]
// DigitKit is compiled with -O in debug builds too: unoptimized generic SIMD code runs the kernels
// about 1,000× slower (about 9 million multiply-adds a second), which would make `swift test`
// (a debug build) unable to train a network or score the MNIST test set in its time budget.
// The CLI and the tests stay at -Onone; only the library is optimized.
let optimizeInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

let withSDL: Bool = {
    switch environment["DIGITS_SDL"] {
    case "0": return false
    case "1": return true
    default:
        return ["/usr/include/SDL2/SDL.h", "/usr/local/include/SDL2/SDL.h"]
            .contains { FileManager.default.fileExists(atPath: $0) }
    }
}()

let package = Package(
    name: "digits",
    products: [
        // MARK: - Public API
        .library(name: "DigitKit", targets: ["DigitKit"]),
        .executable(name: "digits", targets: ["digits"]),
    ],
    targets: [
        // MARK: - Implementation
        .target(
            name: "DigitKit",
            swiftSettings: kernelSettings + optimize + optimizeInDebug),
        .executableTarget(
            name: "digits",
            dependencies: ["DigitKit"],
            swiftSettings: kernelSettings),
        // The window's logic that needs no SDL (layout, font, drawing, input → strokes, scripts):
        // plain Swift, built and tested everywhere.
        .target(
            name: "DigitPadKit",
            dependencies: ["DigitKit"]),

        // MARK: - Tests
        // "digits" is a dependency so that `swift test` builds the executable before the tests:
        // CLITests run .build/<config>/digits as a separate process.
        .testTarget(
            name: "DigitKitTests",
            dependencies: ["DigitKit", "digits"],
            swiftSettings: kernelSettings),
        .testTarget(
            name: "DigitPadKitTests",
            dependencies: ["DigitPadKit"]),
    ]
)

if withSDL {
    package.products.append(.executable(name: "digitpad", targets: ["DigitPad"]))
    package.targets += [
        // MARK: - Window (SDL2)
        .systemLibrary(
            name: "CSDL2",
            path: "Sources/CSDL2",
            pkgConfig: "sdl2",
            providers: [.apt(["libsdl2-dev"])]),
        .executableTarget(
            name: "DigitPad",
            dependencies: ["DigitKit", "DigitPadKit", "CSDL2"]),
        // Drives the real `digitpad` binary headless; depending on the executable makes
        // `swift test` build it first.
        .testTarget(
            name: "DigitPadTests",
            dependencies: ["DigitPad", "DigitPadKit", "DigitKit"]),
    ]
}
