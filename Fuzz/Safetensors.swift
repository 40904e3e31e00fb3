// libFuzzer entry: safetensors files (container, writer round trip) and the same bytes as a weight file
// (ModelFile.parse: metadata, layers and network validation).
// Built and run by scripts/fuzz safetensors; properties in Tests/DigitTestSupport/FuzzChecks.swift.
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzEntry.run("safetensors", data, size)
}
