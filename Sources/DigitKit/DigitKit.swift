// DigitKit: handwritten-digit recognition. `import DigitKit` gives everything a library user
// needs, the file formats (DigitFormats) included.
@_exported import DigitFormats

/// The release, semantic versioning (see CHANGELOG.md).
public enum DigitKitVersion {
    public static let string = "0.2.0"
}
