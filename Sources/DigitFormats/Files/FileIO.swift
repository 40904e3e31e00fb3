import Foundation

/// File reading and writing with the guarantees the toolkit promises:
/// reads are bounded in size, and writes are atomic (a temporary file in the same
/// folder, flushed, then renamed over the target), so a kill at any moment leaves
/// either the old file or the new one, never half of one.
public enum FileIO {
    /// read(2): the name alone would be this type's `read`.
    private static func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(fd, buffer, count)
        #else
        Darwin.read(fd, buffer, count)
        #endif
    }

    /// Reads a whole file, or standard input for `-`, refusing anything larger than `limit` bytes.
    public static func read(_ path: String, limit: Int) throws -> [UInt8] {
        if path == "-" {
            var bytes: [UInt8] = []
            let handle = FileHandle.standardInput
            while true {
                let chunk = handle.readData(ofLength: 1 << 16)
                if chunk.isEmpty { break }
                bytes.append(contentsOf: chunk)
                if bytes.count > limit {
                    throw DigitError(.limit, file: path, "input is larger than the limit of \(limit) bytes")
                }
            }
            return bytes
        }
        // POSIX calls: Foundation's FileHandle and attributes cost more than the read itself for
        // the small files a short command reads (a drawing, the weights).
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw DigitError(.io, file: path, code == ENOENT ? "no such file" : "cannot open for reading: \(String(cString: strerror(code)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw DigitError(.io, file: path, "cannot open for reading") }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw DigitError(.io, file: path, "is a directory, expected a file") }
        let size = (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
        if let size, size > limit {
            throw DigitError(.limit, file: path, "file is \(size) bytes, more than the limit of \(limit)")
        }
        var bytes = [UInt8](repeating: 0, count: min(size ?? 1 << 16, limit) + 1)
        var count = 0
        while true {
            if count == bytes.count {
                guard count <= limit else { throw DigitError(.limit, file: path, "file is larger than the limit of \(limit) bytes") }
                bytes += [UInt8](repeating: 0, count: min(count, limit + 1 - count))
            }
            let n = bytes.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw DigitError(.io, file: path, "read failed: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            count += n
            if count > limit { throw DigitError(.limit, file: path, "file is larger than the limit of \(limit) bytes") }
        }
        bytes.removeLast(bytes.count - count)
        return bytes
    }

    /// Writes `bytes` to `path` atomically: a temporary file `.NAME.PID.RANDOM.tmp` beside it,
    /// fsync, rename over the target, fsync of the folder. A kill at any moment leaves the old
    /// file or the new one. A kill before the rename (SIGKILL cannot be caught) may leave the
    /// temporary file; the next write to the same target removes such leftovers of processes
    /// that no longer exist.
    public static func writeAtomically<C: Collection>(_ bytes: C, to path: String) throws where C.Element == UInt8 {
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent().path
        if !dir.isEmpty, !FileManager.default.fileExists(atPath: dir) {
            do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
                throw DigitError(.io, file: path, "cannot create folder \(dir)")
            }
        }
        let folder = dir.isEmpty ? "." : dir
        removeStaleTemporaries(in: folder, name: url.lastPathComponent)
        let temp = folder + "/.\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard fd >= 0 else { throw DigitError(.io, file: path, "cannot create temporary file \(temp): \(String(cString: strerror(errno)))") }
        var ok = false
        defer {
            if !ok { unlink(temp) }
        }
        let array = Array(bytes)
        let failure: String? = array.withUnsafeBytes { raw -> String? in
            guard let base = raw.baseAddress else { return nil }
            var written = 0
            while written < raw.count {
                let n = Foundation.write(fd, base + written, raw.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                written += n
            }
            return nil
        }
        if let failure { close(fd); throw DigitError(.io, file: path, "write failed: \(failure)") }
        if fsync(fd) != 0 { let e = String(cString: strerror(errno)); close(fd); throw DigitError(.io, file: path, "fsync failed: \(e)") }
        close(fd)
        if rename(temp, path) != 0 {
            throw DigitError(.io, file: path, "cannot rename temporary file into place: \(String(cString: strerror(errno)))")
        }
        ok = true
        // The rename itself is only durable once the folder is flushed too.
        let dirfd = open(folder, O_RDONLY | O_DIRECTORY)
        if dirfd >= 0 {
            _ = fsync(dirfd)
            close(dirfd)
        }
    }

    /// Removes `.NAME.PID.RANDOM.tmp` files in `folder` left by killed writers of `name`, when
    /// process PID no longer exists.
    static func removeStaleTemporaries(in folder: String, name: String) {
        let prefix = "." + name + "."
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for entry in entries where entry.hasPrefix(prefix) && entry.hasSuffix(".tmp") {
            let fields = entry.dropFirst(prefix.count).dropLast(4).split(separator: ".", omittingEmptySubsequences: false)
            guard fields.count == 2, let pid = Int32(fields[0]), pid > 0, UInt32(fields[1]) != nil, pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { unlink(folder + "/" + entry) }
        }
    }

    public static func writeAtomically(_ text: String, to path: String) throws {
        try writeAtomically(Array(text.utf8), to: path)
    }
}
