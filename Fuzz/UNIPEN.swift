// libFuzzer entry: UNIPEN through UNIPEN.parse (default and tight limits), then the stroke JSON round trip
// and the rasterizer.
// Built and run by scripts/fuzz unipen; properties in Tests/DigitTestSupport/FuzzChecks.swift.
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzEntry.run("unipen", data, size)
}
