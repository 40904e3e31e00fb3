// libFuzzer entry: weight files that load (ModelFile.parse) must give a network that recognizes an image
// and a drawing.
// Built and run by scripts/fuzz model; properties in Tests/DigitTestSupport/FuzzChecks.swift.
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzEntry.run("model", data, size)
}
