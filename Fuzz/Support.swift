import Foundation

/// Shared by the libFuzzer entries: runs one target's checks (`FuzzChecks` in
/// Tests/DigitTestSupport/*FuzzChecks.swift, compiled with this file into the module FuzzSupport by
/// scripts/fuzz) and aborts on a violated property, so libFuzzer saves the input as a crash.
public enum FuzzEntry {
    public static func run(_ target: String, _ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        let problems = FuzzChecks.run(target, bytes)
        guard problems.isEmpty else {
            for problem in problems.prefix(20) { fputs("fuzz \(target): property violated: \(problem)\n", stderr) }
            abort()
        }
        return 0
    }
}
