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
    /// The value read at link-up, until the first notification: BlueZ also announces a read
    /// as a `Value` change, which StartNotify users receive like a notification.
    private var readValue: [UInt8]?
    /// The first notification since link-up, while it is the only one: the read's echo may
    /// come before the read's reply.
    private var firstNotification: [UInt8]?
    private var notificationsSinceLinkUp = 0

    init(tangible: TangibleID) { self.tangible = tangible }

    mutating func linkRestarted() {
        lastSequence = nil; lastField = nil; lastLight = nil; recent = 0; readValue = nil
        firstNotification = nil; notificationsSinceLinkUp = 0
    }

    mutating func decode(_ bytes: some Collection<UInt8>, arrival: Seconds) -> [SensorEvent] {
        // The read's own echo (the same bytes, sequence included, before any notification)
        // is not a notification: not counted, no events, no sequence expectation.
        if lastSequence == nil, let read = readValue, read.elementsEqual(bytes) {
            readValue = nil
            return []
        }
        readValue = nil
        stats.notifications += 1
        notificationsSinceLinkUp += 1
        firstNotification = notificationsSinceLinkUp == 1 ? Array(bytes) : nil
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
            if notificationsSinceLinkUp == 1, let first = firstNotification, first.elementsEqual(bytes) {
                stats.notifications -= 1
                notificationsSinceLinkUp = 0
                firstNotification = nil
                lastSequence = nil
                recent = 0
            }
            return []
        }
        guard let value = try? PercV1Value(parsing: bytes) else { return [] }
        readValue = Array(bytes)
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
