// Turns PERC GATT v1 notifications into SensorEvents, counting sequence gaps and bad values.
import MTKTangibles

/// Decodes one PERC's Sensor Event notifications (PROTOCOLS.md §1).
///
/// Each valid value yields the sensors that changed (both on the first value after a
/// (re)connect), or one `heartbeat` event when nothing changed. Sequence gaps count as lost
/// notifications, with the wrap at 65536. The expectation is cleared on reconnect
/// (`linkRestarted()`), because firmware may restart its counter and what was lost while the
/// link was down is not a notification loss.
struct PercV1Decoder: Sendable {
    let tangible: TangibleID
    private(set) var stats = NotificationStats()
    /// The last rejection, so callers can log the first one per device and count the rest.
    private(set) var lastRejection: PercV1Value.Rejection?
    private var lastSequence: UInt16?
    private var lastField: UInt8?
    private var lastLight: UInt8?

    init(tangible: TangibleID) { self.tangible = tangible }

    mutating func linkRestarted() {
        lastSequence = nil; lastField = nil; lastLight = nil
    }

    mutating func decode(_ bytes: some Collection<UInt8>, arrival: Seconds) -> [SensorEvent] {
        stats.notifications += 1
        let value: PercV1Value
        do {
            value = try PercV1Value(parsing: bytes)
        } catch {
            stats.rejected += 1
            lastRejection = error
            return []
        }
        if let last = lastSequence {
            let step = value.sequence &- last
            if step == 0 {
                stats.duplicates += 1
                return []
            }
            stats.lost += Int(step) - 1
        }
        lastSequence = value.sequence

        return stateEvents(value, arrival: arrival, heartbeatWhenUnchanged: true)
    }

    /// A value read (ReadValue) right after subscribing: the current state without waiting
    /// for the next heartbeat. Only used while no notification came yet (a notification is
    /// newer or the same); not counted as a notification, and the sequence expectation stays
    /// unset, so the PERC's own first notification is neither a duplicate nor a gap.
    mutating func decodeRead(_ bytes: some Collection<UInt8>, arrival: Seconds) -> [SensorEvent] {
        guard lastSequence == nil, let value = try? PercV1Value(parsing: bytes) else { return [] }
        return stateEvents(value, arrival: arrival, heartbeatWhenUnchanged: false)
    }

    /// Field and light events for what changed since the last value (a heartbeat when nothing
    /// did and `heartbeatWhenUnchanged`), and the new state remembered.
    private mutating func stateEvents(_ value: PercV1Value, arrival: Seconds, heartbeatWhenUnchanged: Bool) -> [SensorEvent] {
        func event(_ kind: SensorKind, _ v: UInt8) -> SensorEvent {
            SensorEvent(tangible: tangible, kind: kind, value: Int(v), sequence: value.sequence,
                        deviceTime: value.deviceTime, arrival: arrival)
        }
        var events: [SensorEvent] = []
        if lastField != value.field { events.append(event(.field, value.field)) }
        if lastLight != value.light { events.append(event(.light, value.light)) }
        if events.isEmpty && heartbeatWhenUnchanged { events.append(event(.heartbeat, value.field)) }
        lastField = value.field
        lastLight = value.light
        stats.events += events.count
        return events
    }
}
