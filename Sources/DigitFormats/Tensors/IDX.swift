/// A stack of greyscale images read from an IDX file (LeCun's MNIST format).
///
/// `pixels` holds `count * rows * columns` bytes, image after image, each image row-major
/// (row 0 at the top, y growing downward). Values are 0...255 with 0 = background and
/// 255 = full ink, exactly as stored in MNIST (no inversion or scaling is applied).
public struct IDXImages: Sendable {
    public let count: Int
    public let rows: Int
    public let columns: Int
    public let pixels: [UInt8]

    /// Builds an image stack; `pixels.count` must equal `count * rows * columns`.
    public init(count: Int, rows: Int, columns: Int, pixels: [UInt8]) throws {
        let area = rows.multipliedReportingOverflow(by: columns)
        let total = area.partialValue.multipliedReportingOverflow(by: count)
        guard count >= 0, rows > 0, columns > 0, !area.overflow, !total.overflow, total.partialValue == pixels.count else {
            throw DigitError(.format, "image stack of \(count) × \(rows) × \(columns) does not match \(pixels.count) pixels")
        }
        self.count = count
        self.rows = rows
        self.columns = columns
        self.pixels = pixels
    }

    /// Bytes per image (`rows * columns`).
    public var imageSize: Int { rows * columns }

    /// The pixels of image `index`, row-major, as a slice of `pixels`; `index` must be in 0..<count.
    public func image(_ index: Int) -> ArraySlice<UInt8> {
        let size = imageSize
        return pixels[index * size ..< (index + 1) * size]
    }
}

/// Reading the IDX files of MNIST (http://yann.lecun.com/exdb/mnist/, "FILE FORMATS").
///
/// Only unsigned-byte IDX files are accepted: images with magic `0x00000803` (3 dimensions:
/// count, rows, columns) and labels with magic `0x00000801` (1 dimension: count), dimensions
/// as big-endian 32-bit integers, then the data. The file must be exactly as long as its
/// header says. Files may be gzip-compressed; they are recognised by their magic bytes, not
/// by their name.
public enum IDX {
    /// The largest IDX file read, compressed or decompressed: 1 GiB. MNIST's training images
    /// are 47,040,016 bytes; EMNIST's largest split (697,932 images) is about 547 MB.
    public static let maxFileBytes = 1 << 30
    /// The largest image side accepted. MNIST images are 28 × 28; anything past this is
    /// taken as a corrupt header rather than a real image.
    public static let maxSide = 4096

    static let imagesMagic: UInt32 = 0x0000_0803
    static let labelsMagic: UInt32 = 0x0000_0801

    /// Reads an image file (raw or gzip) of at most `limit` bytes, before and after decompression.
    public static func readImages(path: String, limit: Int = maxFileBytes) throws -> IDXImages {
        try parseImages(readMaybeCompressed(path, limit: limit), file: path)
    }

    /// Reads a label file (raw or gzip) of at most `limit` bytes, before and after decompression.
    /// Label values are returned as stored (any byte); `MNISTSet` checks they are digits.
    public static func readLabels(path: String, limit: Int = maxFileBytes) throws -> [UInt8] {
        try parseLabels(readMaybeCompressed(path, limit: limit), file: path)
    }

    /// Parses the bytes of an uncompressed IDX image file; `file` names it in errors.
    public static func parseImages(_ bytes: [UInt8], file: String) throws -> IDXImages {
        let dims = try header(bytes, file: file, magic: imagesMagic, what: "images")
        let count = dims[0], rows = dims[1], columns = dims[2]
        for (i, (name, side)) in [("rows", rows), ("columns", columns)].enumerated() where side > maxSide {
            throw DigitError(.format, file: file, at: "byte \(8 + 4 * i)",
                             "\(name) is \(side), more than the maximum of \(maxSide)")
        }
        // Dimensions are below 2^32 and sides below 2^13, so this product fits in 64 bits.
        let expected = 16 + count * rows * columns
        try checkLength(bytes, expected: expected, file: file,
                        what: "\(count) images of \(rows) × \(columns) pixels")
        return try IDXImages(count: count, rows: rows, columns: columns, pixels: Array(bytes[16...]))
    }

    /// Parses the bytes of an uncompressed IDX label file; `file` names it in errors.
    public static func parseLabels(_ bytes: [UInt8], file: String) throws -> [UInt8] {
        let dims = try header(bytes, file: file, magic: labelsMagic, what: "labels")
        let count = dims[0]
        try checkLength(bytes, expected: 8 + count, file: file, what: "\(count) labels")
        return Array(bytes[8...])
    }

    /// Reads a file and decompresses it when it starts with the gzip magic bytes.
    static func readMaybeCompressed(_ path: String, limit: Int) throws -> [UInt8] {
        let bytes = try FileIO.read(path, limit: limit)
        return Gzip.isGzip(bytes) ? try Gzip.decompress(bytes, file: path, limit: limit) : bytes
    }

    /// Checks the magic number and returns the dimensions, each in 1...UInt32.max.
    private static func header(_ bytes: [UInt8], file: String, magic: UInt32, what: String) throws -> [Int] {
        let rank = Int(magic & 0xFF)
        let headerSize = 4 + 4 * rank
        guard bytes.count >= 4 else {
            throw DigitError(.format, file: file, at: "byte 0",
                             "file is \(bytes.count) bytes, too short for an IDX header of \(headerSize) bytes")
        }
        let found = bigEndian32(bytes, at: 0)
        if found != magic {
            let hint: String
            if bytes[0] == 0, bytes[1] == 0, bytes[2] != 0x08 {
                hint = " (IDX data type 0x\(hex(UInt32(bytes[2]), digits: 2)); only unsigned bytes, 0x08, are supported)"
            } else if bytes[0] == 0, bytes[1] == 0, bytes[2] == 0x08 {
                hint = " (\(bytes[3]) dimensions; IDX \(what) have \(rank))"
            } else {
                hint = " (not an IDX file)"
            }
            throw DigitError(.format, file: file, at: "byte 0",
                             "expected IDX \(what) magic 0x\(hex(magic, digits: 8)), found 0x\(hex(found, digits: 8))\(hint)")
        }
        guard bytes.count >= headerSize else {
            throw DigitError(.format, file: file, at: "byte \(bytes.count)",
                             "file is \(bytes.count) bytes, too short for an IDX header of \(headerSize) bytes")
        }
        var dims: [Int] = []
        for i in 0..<rank {
            let offset = 4 + 4 * i
            let value = Int(bigEndian32(bytes, at: offset))
            guard value > 0 else {
                throw DigitError(.format, file: file, at: "byte \(offset)", "dimension \(i) is 0, expected at least 1")
            }
            dims.append(value)
        }
        return dims
    }

    private static func checkLength(_ bytes: [UInt8], expected: Int, file: String, what: String) throws {
        if bytes.count < expected {
            throw DigitError(.format, file: file, at: "byte \(bytes.count)",
                             "truncated: the header promises \(what), \(expected) bytes in all, but the file has \(bytes.count)")
        }
        if bytes.count > expected {
            throw DigitError(.format, file: file, at: "byte \(expected)",
                             "\(bytes.count - expected) extra bytes: the header promises \(what), \(expected) bytes in all, but the file has \(bytes.count)")
        }
    }

    private static func bigEndian32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}

/// An MNIST split: images with one label 0...9 each, in file order.
public struct MNISTSet: Sendable {
    public let images: IDXImages
    public let labels: [UInt8]
    public var count: Int { labels.count }

    /// Pairs images with labels; the counts must match and every label must be 0...9.
    /// `imagesFile` and `labelsFile` name the sources in errors.
    public init(images: IDXImages, labels: [UInt8], imagesFile: String = "images", labelsFile: String = "labels") throws {
        guard images.count == labels.count else {
            throw DigitError(.format, file: labelsFile, at: "byte 4",
                             "\(labels.count) labels, but \(imagesFile) has \(images.count) images")
        }
        if let bad = labels.firstIndex(where: { $0 > 9 }) {
            throw DigitError(.format, file: labelsFile, at: "byte \(8 + bad)",
                             "label \(labels[bad]) of image \(bad), expected a digit 0...9")
        }
        self.images = images
        self.labels = labels
    }

    /// Loads an image file and a label file (each raw or gzip) and pairs them.
    public static func load(images: String, labels: String) throws -> MNISTSet {
        let stack = try IDX.readImages(path: images)
        let values = try IDX.readLabels(path: labels)
        return try MNISTSet(images: stack, labels: values, imagesFile: images, labelsFile: labels)
    }

    /// The two MNIST splits, named by their file prefixes `train-` and `t10k-`.
    public enum Split: String, Sendable {
        case train, test

        /// The file-name prefix: `train` or `t10k`.
        public var prefix: String { self == .train ? "train" : "t10k" }
    }

    /// Finds `train-images-idx3-ubyte` (or the same name + `.gz`) etc. in `directory`.
    /// The uncompressed file is preferred when both exist.
    public static func load(directory: String, split: Split) throws -> MNISTSet {
        let images = try find(directory: directory, name: "\(split.prefix)-images-idx3-ubyte")
        let labels = try find(directory: directory, name: "\(split.prefix)-labels-idx1-ubyte")
        return try load(images: images, labels: labels)
    }

    private static func find(directory: String, name: String) throws -> String {
        let base = directory.hasSuffix("/") ? directory + name : directory + "/" + name
        for candidate in [base, base + ".gz"] where FileManager.default.fileExists(atPath: candidate) {
            return candidate
        }
        throw DigitError(.io, file: base, "no such file (nor \(name).gz) in \(directory)")
    }
}

import Foundation
