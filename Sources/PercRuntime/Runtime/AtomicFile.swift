// Replaces a file so that a crash at any moment leaves either the old or the new content.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Write-temp, fsync, rename, fsync-directory: the rename is atomic on POSIX file systems
/// and the two fsyncs make it durable, so readers (and a restarted service) never see a
/// half-written file.
public enum AtomicFile {
    struct WriteError: Error, CustomStringConvertible {
        var path: String
        var step: String
        var reason: String
        var description: String { "cannot write \(path) (\(step): \(reason)); check that its directory exists and is writable" }
    }

    public static func write(_ data: Data, to path: String, permissions: Int = 0o644) throws {
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent().path
        let temp = "\(dir)/.\(url.lastPathComponent).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fm = FileManager.default
        guard fm.createFile(atPath: temp, contents: nil, attributes: [.posixPermissions: permissions]),
              let handle = FileHandle(forWritingAtPath: temp) else {
            throw WriteError(path: path, step: "create \(temp)", reason: String(cString: strerror(errno)))
        }
        do {
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
        } catch {
            try? handle.close()
            try? fm.removeItem(atPath: temp)
            throw WriteError(path: path, step: "write", reason: "\(error)")
        }
        guard rename(temp, path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? fm.removeItem(atPath: temp)
            throw WriteError(path: path, step: "rename", reason: reason)
        }
        // The rename is only durable once the directory entry is on disk.
        if let d = FileHandle(forReadingAtPath: dir) {
            try? d.synchronize()
            try? d.close()
        }
    }

    /// Removes temp files a killed writer left behind next to `path`.
    static func removeStaleTemps(of path: String) {
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent().path
        let prefix = ".\(url.lastPathComponent).tmp-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] where name.hasPrefix(prefix) {
            try? FileManager.default.removeItem(atPath: "\(dir)/\(name)")
        }
    }
}
