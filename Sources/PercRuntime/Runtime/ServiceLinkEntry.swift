// One running PercLink inside the service: the link, its task, and what it was started for.
import MTKTangibles
import Synchronization
import PercBlueZ

/// A link `ServiceLinks` started for one registered PERC. It is restarted when the
/// registry changes what the link depends on (`key`).
final class ServiceLinkEntry: Sendable {
    /// What a link is made from; a registry change to any of these restarts the link.
    struct Key: Hashable, Sendable {
        var address: String
        var profile: PercProfile?
        var lightWhiteValue: Int
    }

    let tangible: TangibleID
    let name: String
    let key: Key
    /// Set right after the link is made (its event handler needs the entry first).
    private let state = Mutex<(link: PercLink?, task: Task<Void, Never>?, lostReported: Int)>((nil, nil, 0))

    init(tangible: TangibleID, name: String, key: Key) {
        self.tangible = tangible; self.name = name; self.key = key
    }

    var link: PercLink? { state.withLock { $0.link } }
    var task: Task<Void, Never>? { state.withLock { $0.task } }

    func started(_ link: PercLink, _ task: Task<Void, Never>) {
        state.withLock { $0.link = link; $0.task = task }
    }

    /// Lost notifications (sequence gaps) not yet counted on /metrics.
    func takeNewlyLost() -> Int {
        guard let total = link?.stats.lost else { return 0 }
        return state.withLock { s in
            defer { s.lostReported = total }
            return max(0, total - s.lostReported)
        }
    }
}
