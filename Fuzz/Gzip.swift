// libFuzzer entry: gzip files and raw DEFLATE data through Gzip.decompress.
// Built and run by scripts/fuzz gzip; properties in Tests/DigitTestSupport/ImageFuzzChecks.swift.
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzEntry.run("gzip", data, size)
}
