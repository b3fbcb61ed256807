// RSSI of registered PERCs: every value BlueZ reports (Device1.RSSI) goes into the recording and the live diagnosis.
import MTKTangibles
import PercSystem
import PercBlueZ

extension ServiceLinks {
    /// Gets every RSSI value BlueZ reports for a registered PERC (the live diagnosis).
    public func observeRSSI(_ observer: @escaping @Sendable (RSSISample) -> Void) {
        state.withLock { $0.rssiObserver = observer }
    }

    /// BlueZ sets `Device1.RSSI` from advertisements while some client discovers (the
    /// service itself only while it looks for a PERC BlueZ does not know; `percbridge scan`
    /// or any other client too) and drops it when discovery ends. The mirror tells us each
    /// change; values of devices that are no registered PERC are not kept.
    func watchRSSI(_ session: BlueZSession) {
        // Weak: the mirror keeps its listeners, and must not keep itself.
        session.mirror.addListener { [weak self, weak mirror = session.mirror] change in
            guard let mirror else { return }
            self?.rssiChanged(change, mirror: mirror)
        }
    }

    /// Runs on the D-Bus event loop thread: a lookup and a buffered append, nothing slow.
    private func rssiChanged(_ change: BlueZChange, mirror: BlueZMirror) {
        let path: DBusObjectPath, dBm: Int, arrival: Double
        switch change {
        case .propertiesChanged(let p, let interface, let changed, _, let at):
            guard interface == BlueZ.deviceInterface, let v = changed.int("RSSI") else { return }
            (path, dBm, arrival) = (p, v, at)
        case .interfacesAdded(let p, let interfaces):
            // A device found by discovery arrives with the RSSI of its first advertisement.
            guard interfaces.contains(BlueZ.deviceInterface), let v = mirror.device(path: p)?.rssi else { return }
            (path, dBm, arrival) = (p, v, MonotonicClock.now())
        default:
            return
        }
        guard RSSISample.isReading(dBm), let address = mirror.device(path: path)?.address.uppercased() else { return }
        let (tangible, clock, observer) = state.withLock { s in
            (s.definitions.first { Self.wantsLink($0) && $0.address?.uppercased() == address }?.id, s.clock, s.rssiObserver)
        }
        guard let tangible else { return }
        let sample = RSSISample(tangible: tangible, address: address, dBm: dBm, arrival: arrival)
        clock?.recorder?.record(rssi: sample)
        observer?(sample)
    }
}
