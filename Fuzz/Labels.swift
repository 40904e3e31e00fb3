// libFuzzer entry: a folder's labels.csv and labels.tsv through LabelFile.parse, and the entries
// read written back as quoted CSV and read again.
// Built and run by scripts/fuzz labels; properties in Tests/DigitTestSupport/LabelFuzzChecks.swift.
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzEntry.run("labels", data, size)
}
