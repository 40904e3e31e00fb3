// libFuzzer entry: gzip files and raw DEFLATE data through Gzip.decompress.
// Built and run by scripts/fuzz-images gzip; properties in Tests/ImageFormatsTests/ImageFuzzChecks.swift.
import ImageFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzEntry.run("gzip", data, size)
}
