// swift-tools-version:5.9
//
// digits: handwritten-digit recognition in Swift, with no package dependencies.
//
// Build switches (read at build time):
//   DIGITS_CPU unset   portable build: runs on any x86-64 / arm64 Linux. The library's own
//                      kernels use separate multiply and add, because a fused multiply-add on
//                      baseline x86-64 would be a call into libm's software fmaf (about 100x
//                      slower). On x86-64 the same kernel sources are compiled twice more, into
//                      DigitKernelsAVX2 (-target-cpu haswell: AVX2 + FMA) and DigitKernelsAVX512
//                      (-target-cpu skylake-avx512: AVX-512 + FMA), whose folders hold symbolic
//                      links to Sources/DigitKit/Network; at run time DigitKit picks the best copy
//                      this CPU can run (/proc/cpuinfo; DIGITS_KERNELS=built-in|avx2|avx512 to
//                      choose), so a plain build is fast where the CPU allows and runs everywhere.
//   DIGITS_CPU=native  compiles everything for the build machine's CPU and uses fused
//                      multiply-add; no other copies. The binary may not run on an older CPU.
//   DIGITS_CPU=NAME    any other LLVM CPU name, for example haswell (AVX2 + FMA) or znver4.
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

// The extra compiled copies of the kernels (see DIGITS_CPU above): x86-64 hosts, portable builds.
#if arch(x86_64)
let kernelVariants: [(target: String, cpu: String)] = cpu == nil
    ? [("DigitKernelsAVX2", "haswell"), ("DigitKernelsAVX512", "skylake-avx512")] : []
#else
let kernelVariants: [(target: String, cpu: String)] = []
#endif
let variantSettings: [SwiftSetting] = kernelVariants.isEmpty ? [] : [.define("DIGITS_KERNEL_VARIANTS")]

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
            dependencies: kernelVariants.map { .target(name: $0.target) },
            swiftSettings: kernelSettings + variantSettings + optimize + optimizeInDebug),
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
            swiftSettings: kernelSettings + variantSettings),
        .testTarget(
            name: "DigitPadKitTests",
            dependencies: ["DigitPadKit"]),
    ]
)

package.targets += kernelVariants.map { variant in
    .target(
        name: variant.target,
        swiftSettings: [.unsafeFlags(["-target-cpu", variant.cpu]), .define("DIGITS_FMA")]
            + optimize + optimizeInDebug)
}

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
