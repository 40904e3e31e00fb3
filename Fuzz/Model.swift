// libFuzzer entry: weight files that load (ModelFile.parse) must give a network that recognizes an image
// and a drawing.
// Built and run by scripts/fuzz model; properties in Tests/DigitKitTests/FuzzChecks.swift.
import DigitKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzEntry.run("model", data, size)
}
