// Turns PERC GATT v1 notifications into SensorEvents, counting sequence gaps and bad values.
import MTKTangibles

/// Decodes one PERC's Sensor Event notifications (PROTOCOLS.md §1).
///
/// Each valid value yields the sensors that changed (both on the first value after a
/// (re)connect), or one `heartbeat` event when nothing changed. Sequence gaps count as lost
/// notifications, with the wrap at 65536; an older number arriving late is ignored (counted
/// with the duplicates) and taken off the lost count when it fills a gap. The expectation is cleared on reconnect
/// (`linkRestarted()`), because firmware may restart its counter and what was lost while the
/// link was down is not a notification loss.
struct PercV1Decoder: Sendable {
    let tangible: TangibleID
    private(set) var stats = NotificationStats()
    /// The last rejection, so callers can log the first one per device and count the rest.
    private(set) var lastRejection: PercV1Value.Rejection?
    private var lastSequence: UInt16?
    /// Which of the 64 sequence numbers up to `lastSequence` arrived (bit k: last − k), so a
    /// late one that fills a gap counted as lost is taken off `lost` again.
    private var recent: UInt64 = 0
    private var lastField: UInt8?
    private var lastLight: UInt8?
    /// The first value since link-up while it is the only one, and whether it was the read:
    /// BlueZ also announces a read as a `Value` change, which StartNotify users receive like
    /// a notification, before or after the read's reply. The same bytes again are that echo.
    private var onlyValue: (bytes: [UInt8], read: Bool)?
    private var sawValue = false

    init(tangible: TangibleID) { self.tangible = tangible }

    mutating func linkRestarted() {
        lastSequence = nil; lastField = nil; lastLight = nil; recent = 0; onlyValue = nil; sawValue = false
    }

    /// Notes a value (read or notified) as the only one so far, or that there is more than one.
    private mutating func noteValue(_ bytes: some Collection<UInt8>, read: Bool) {
        onlyValue = sawValue ? nil : (Array(bytes), read)
        sawValue = true
    }

    mutating func decode(_ bytes: some Collection<UInt8>, arrival: Seconds) -> [SensorEvent] {
        // The read's echo after its reply (the same bytes, sequence included) is not a
        // notification: not counted, no events, no sequence expectation.
        if let only = onlyValue, only.read, only.bytes.elementsEqual(bytes) {
            onlyValue = nil
            return []
        }
        noteValue(bytes, read: false)
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
            // Serial-number order (RFC 1982): a step of half the range or more is an older
            // value, not a gap of ~65,000 (run 12 of the real-BlueZ harness counted 196,608
            // "lost" where three pairs had arrived swapped). Up to 63 back it arrived late.
            // Further back than the window: the firmware restarted its counter; follow it.
            let back = last &- value.sequence
            if step == 0 || (step >= 0x8000 && back < 64) {
                if step != 0, recent & (1 << UInt64(back)) == 0 {
                    recent |= 1 << UInt64(back)
                    stats.lost -= 1   // it was counted in the gap it now fills
                }
                stats.duplicates += 1
                return []   // older state than what was decoded already
            }
            if step >= 0x8000 {
                recent = 1
            } else {
                stats.lost += Int(step) - 1
                recent = step >= 64 ? 1 : (recent << UInt64(step)) | 1
            }
        } else {
            recent = 1
        }
        lastSequence = value.sequence

        return stateEvents(value, arrival: arrival, heartbeatWhenUnchanged: true)
    }

    /// A value read (ReadValue) right after subscribing: the current state without waiting
    /// for the next heartbeat. Only used while no notification came yet (a notification is
    /// newer or the same); not counted as a notification, and the sequence expectation stays
    /// unset, so the PERC's own first notification is neither a duplicate nor a gap. BlueZ
    /// announces the read as a `Value` change too (StartNotify users receive it): that echo
    /// is dropped when it comes after the reply, and taken back when it came before.
    mutating func decodeRead(_ bytes: some Collection<UInt8>, arrival: Seconds) -> [SensorEvent] {
        if lastSequence != nil {
            // The only "notification" so far was this read's echo, which came before the
            // reply: it was no notification. Its events (the same state) were delivered;
            // the count and the sequence expectation are taken back, so the PERC's next
            // notification is neither a duplicate nor a gap.
            if let only = onlyValue, !only.read, only.bytes.elementsEqual(bytes) {
                stats.notifications -= 1
                lastSequence = nil
                recent = 0
            }
            onlyValue = nil
            return []
        }
        guard let value = try? PercV1Value(parsing: bytes) else { return [] }
        noteValue(bytes, read: true)
        return stateEvents(value, arrival: arrival, heartbeatWhenUnchanged: false, read: true)
    }

    /// Field and light events for what changed since the last value (a heartbeat when nothing
    /// did and `heartbeatWhenUnchanged`), and the new state remembered. A `read` value's
    /// events carry no sequence and no device time: the value may be older than the read (the
    /// PERC's last state), so its device time says nothing about latency, and it was no
    /// notification.
    private mutating func stateEvents(_ value: PercV1Value, arrival: Seconds, heartbeatWhenUnchanged: Bool,
                                      read: Bool = false) -> [SensorEvent] {
        func event(_ kind: SensorKind, _ v: UInt8) -> SensorEvent {
            SensorEvent(tangible: tangible, kind: kind, value: Int(v), sequence: read ? nil : value.sequence,
                        deviceTime: read ? nil : value.deviceTime, arrival: arrival)
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
