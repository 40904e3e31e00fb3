import Foundation

extension UNIPEN {
    /// Where the file an `.INCLUDE` names is looked for, in this order:
    /// 1. the name itself when it is an absolute path;
    /// 2. the folder of the including file;
    /// 3. each folder of `searchPath`;
    /// 4. with `searchAncestorIncludeFolders`, the folder `include` inside the including file's
    ///    folder and inside each of its ancestors, nearest first: the layout of the UNIPEN
    ///    distribution, whose `data/1a/apb/apb02/app0237.dat` includes `apb/app.doc` from
    ///    `train_r01_v07/include/`, so that no `UNIPEN_INCLUDE_PATH` is needed for it.
    /// The first regular file found is read (devices, pipes and folders are never opened).
    public struct IncludeResolver: Sendable, Equatable {
        /// Folders searched after the including file's own folder.
        public var searchPath: [String]
        public var searchAncestorIncludeFolders: Bool

        public init(searchPath: [String] = [], searchAncestorIncludeFolders: Bool = true) {
            self.searchPath = searchPath
            self.searchAncestorIncludeFolders = searchAncestorIncludeFolders
        }

        /// The name of the environment variable the reference tools (uplib) read the search
        /// path from.
        public static let environmentVariable = "UNIPEN_INCLUDE_PATH"

        /// A resolver whose search path is `UNIPEN_INCLUDE_PATH`, see `searchPath(parsing:)`.
        public static func environment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> IncludeResolver {
            IncludeResolver(searchPath: searchPath(parsing: environment[environmentVariable] ?? ""))
        }

        /// Folders from a search-path value: separated by `:`; a piece that is not a folder but
        /// holds blanks is split at them, as uplib reads the variable (`". .INHERIT ~/unipen-include"`).
        /// `.INHERIT` (uplib's name for the including file's folder, always searched) is dropped
        /// and a leading `~/` is the home folder.
        public static func searchPath(parsing value: String) -> [String] {
            var folders: [String] = []
            for piece in value.split(separator: ":") {
                let trimmed = piece.trimmingCharacters(in: .whitespaces)
                guard !trimmed.isEmpty else { continue }
                var isDirectory: ObjCBool = false
                let exists = FileManager.default.fileExists(atPath: expandHome(trimmed), isDirectory: &isDirectory)
                if (!exists || !isDirectory.boolValue), trimmed.contains(where: { $0 == " " || $0 == "\t" }) {
                    folders += trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
                } else {
                    folders.append(trimmed)
                }
            }
            return folders.filter { $0 != ".INHERIT" }.map(expandHome)
        }

        static func expandHome(_ path: String) -> String {
            guard path == "~" || path.hasPrefix("~/"), let home = ProcessInfo.processInfo.environment["HOME"] else { return path }
            return home + path.dropFirst()
        }

        /// The paths tried for `name`, included from the file `includingFile`, in order.
        public func candidates(for name: String, includedFrom includingFile: String) -> [String] {
            if name.hasPrefix("/") { return [name] }
            let folder = UNIPEN.IncludeResolver.folder(of: includingFile)
            var folders = [folder] + searchPath
            if searchAncestorIncludeFolders {
                var url = URL(fileURLWithPath: folder).standardizedFileURL
                for _ in 0..<32 {
                    folders.append(url.appendingPathComponent("include").path)
                    let parent = url.deletingLastPathComponent().standardizedFileURL
                    if parent.path == url.path { break }
                    url = parent
                }
            }
            var seen = Set<String>()
            var paths: [String] = []
            for folder in folders {
                let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
                if seen.insert(URL(fileURLWithPath: path).standardizedFileURL.path).inserted { paths.append(path) }
            }
            return paths
        }

        /// The folder part of a path (`.` when there is none).
        static func folder(of path: String) -> String {
            guard let slash = path.lastIndex(of: "/") else { return "." }
            return slash == path.startIndex ? "/" : String(path[..<slash])
        }

        static func isRegularFile(_ path: String) -> Bool {
            var info = stat()
            return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
        }

        /// The path with `.`, `..` and symbolic links resolved: the identity of a file for cycle detection.
        static func canonical(_ path: String) -> String {
            URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        }

        /// The bytes of a regular file of at most `limit` bytes.
        static func readRegularFile(_ path: String, limit: Int) -> Result<[UInt8], DigitError> {
            var info = stat()
            guard stat(path, &info) == 0 else { return .failure(DigitError(.io, file: path, "no such file")) }
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                return .failure(DigitError(.io, file: path, "not a regular file"))
            }
            if Int(info.st_size) > limit {
                return .failure(DigitError(.limit, file: path, "file is \(info.st_size) bytes, more than the limit of \(limit)"))
            }
            guard let handle = FileHandle(forReadingAtPath: path) else {
                return .failure(DigitError(.io, file: path, "cannot open for reading"))
            }
            defer { try? handle.close() }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(Int(info.st_size))
            while true {
                let chunk: Data
                do { chunk = try handle.read(upToCount: 1 << 20) ?? Data() } catch {
                    return .failure(DigitError(.io, file: path, "read failed: \(error.localizedDescription)"))
                }
                if chunk.isEmpty { break }
                bytes.append(contentsOf: chunk)
                if bytes.count > limit {
                    return .failure(DigitError(.limit, file: path, "file is larger than the limit of \(limit) bytes"))
                }
            }
            return .success(bytes)
        }
    }
}
