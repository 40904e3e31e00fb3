// libFuzzer entry: PNG, JPEG and PGM/PPM through ImageDecoder.decode, at full size and with maxSide 16.
// Built and run by scripts/fuzz images; properties in Tests/DigitTestSupport/ImageFuzzChecks.swift.
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzEntry.run("images", data, size)
}
