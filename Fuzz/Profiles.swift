// libFuzzer entry: personal profiles (digits adapt) through WriterProfile.parse, written back and
// read again, and applied to a tiny digit network.
// Built and run by scripts/fuzz profiles; properties in Tests/DigitTestSupport/ProfileFuzzChecks.swift.
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzEntry.run("profiles", data, size)
}
