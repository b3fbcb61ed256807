// How the service logs a PERC link's state changes: level, words to act on, journal fields.
import Logging
import PercBlueZ

extension ServiceLinks {
    /// One line per change, with the fields TANGIBLE, TANGIBLE_ID, ADDRESS, LINK (and REASON,
    /// PROFILE, NOTIFY_PATH where they apply) for `journalctl TANGIBLE=... LINK=lost`.
    func log(_ status: PercLinkStatus, of entry: ServiceLinkEntry) {
        var md: Logger.Metadata = ["tangible": "\(entry.name)", "tangible_id": "\(entry.tangible)",
                                   "address": "\(entry.key.address)", "link": "\(Self.code(status))"]
        let who = "\(entry.name) (\(entry.key.address))"
        switch status {
        case .connected(let profile, let path):
            md["profile"] = "\(profile)"
            md["notify_path"] = "\(path.rawValue)"
            logger.notice("\(who): link up, \(profile), notifications via \(path.rawValue)", metadata: md)
        case .lost(let reason):
            md["reason"] = "\(reason)"
            logger.warning("\(who): link lost (\(reason)); reconnecting", metadata: md)
        case .retrying(let why, let seconds):
            md["reason"] = "\(why)"
            logger.notice("\(who): \(why); retrying in \(Int(seconds.rounded(.up))) s", metadata: md)
        case .awaitingConnection(let why):
            md["reason"] = "\(why)"
            logger.notice("""
                \(who): unreachable (BlueZ answered \(why)): BlueZ connects it as soon as it advertises again; \
                waiting for that, no retries meanwhile
                """, metadata: md)
        case .connecting(let attempt):
            logger.info("\(who): connecting\(attempt > 1 ? " (attempt \(attempt))" : "")", metadata: md)
        case .searching:
            logger.notice("""
                \(who): not known to BlueZ: scanning for it. Is it switched on and in range, and is the address \
                in the registry right? (`percbridge scan` lists what BlueZ sees)
                """, metadata: md)
        case .waitingForBluetoothd:
            logger.warning("\(who): waiting for bluetoothd on the \(bus) (systemctl start bluetooth)", metadata: md)
        case .waitingForAdapter:
            logger.warning("\(who): waiting for a Bluetooth adapter (plug one in, switch it on: bluetoothctl power on, or rfkill unblock bluetooth)", metadata: md)
        case .notAPerc(let services):
            md["services"] = "\(services.joined(separator: ","))"
            logger.error("""
                \(who): connected, but it has none of the PERC services (found: \(services.isEmpty ? "none" : services.joined(separator: ", "))). \
                Check the address in the registry (percbridge list) and the PERC's firmware
                """, metadata: md)
        }
    }

    /// Short name of a link state (the LINK journal field, `statuses` as text).
    public static func code(_ status: PercLinkStatus) -> String {
        switch status {
        case .waitingForBluetoothd: "waiting-for-bluetoothd"
        case .waitingForAdapter: "waiting-for-adapter"
        case .searching: "searching"
        case .connecting: "connecting"
        case .connected: "connected"
        case .lost: "lost"
        case .retrying: "retrying"
        case .awaitingConnection: "unreachable"
        case .notAPerc: "not-a-perc"
        }
    }
}
