// libFuzzer entry: IDX images and labels, raw and gzip, and every input as a raw DEFLATE stream.
// Built and run by scripts/fuzz idx; properties in Tests/DigitTestSupport/FuzzChecks.swift.
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzEntry.run("idx", data, size)
}
