// An owned Unix file descriptor passed over D-Bus (type `h`), closed when no longer used.
import Glibc
import Synchronization

/// A Unix file descriptor received or sent over D-Bus. The object owns the descriptor and
/// closes it in `deinit`, unless someone took it with `take()`. Equality is identity.
public final class DBusFileDescriptor: Sendable, Hashable, CustomStringConvertible {
    private let fd: Mutex<Int32>

    /// Takes ownership of `fd`: it will be closed by this object.
    public init(owning fd: Int32) {
        self.fd = Mutex(fd)
    }

    /// Duplicates `fd` (the caller keeps its own copy); throws when `dup` fails.
    public convenience init(duplicating fd: Int32) throws {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else {
            throw DBusError(.failed, "cannot duplicate file descriptor \(fd): errno \(errno)")
        }
        self.init(owning: copy)
    }

    deinit {
        let value = fd.withLock { $0 }
        if value >= 0 { close(value) }
    }

    /// The descriptor, or nil if it was taken. Do not close it: this object still owns it.
    public var rawValue: Int32? {
        let value = fd.withLock { $0 }
        return value >= 0 ? value : nil
    }

    /// Takes ownership away from this object: the caller must close the result.
    /// Returns nil if it was already taken.
    public func take() -> Int32? {
        let value = fd.withLock { fd in
            defer { fd = -1 }
            return fd
        }
        return value >= 0 ? value : nil
    }

    public var description: String { "fd(\(rawValue.map(String.init) ?? "taken"))" }

    public static func == (a: DBusFileDescriptor, b: DBusFileDescriptor) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
