// libFuzzer entry: stroke JSON and JSON Lines through DrawingLoader.decode (detected format and JSON Lines,
// default and tight limits), then the rasterizer.
// Built and run by scripts/fuzz strokes; properties in Tests/DigitTestSupport/FuzzChecks.swift.
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzEntry.run("strokes", data, size)
}
