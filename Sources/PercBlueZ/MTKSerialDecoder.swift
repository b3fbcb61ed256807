// Turns MTK serial notifications (ffe1 or Nordic UART) into SensorEvents.
import MTKTangibles

/// Decodes one PERC's MTK serial stream: group 2 is the field sensor, group 3 the light
/// sensor (with the tangible's polarity: `lightWhiteValue` means white). Other groups are
/// counted and skipped. This profile has no sequence numbers and no device time.
struct MTKSerialDecoder: Sendable {
    let tangible: TangibleID
    let lightWhiteValue: Int
    private var framer = MTKSerialFramer()
    private var counted = NotificationStats()

    init(tangible: TangibleID, lightWhiteValue: Int = 1) {
        self.tangible = tangible; self.lightWhiteValue = lightWhiteValue
    }

    var stats: NotificationStats {
        var s = counted
        s.garbage += framer.garbage
        return s
    }

    mutating func linkRestarted() { framer.reset() }

    mutating func decode(_ bytes: some Collection<UInt8>, arrival: Seconds) -> [SensorEvent] {
        counted.notifications += 1
        var events: [SensorEvent] = []
        for frame in framer.feed(bytes) {
            guard frame.group == MTKFrame.fieldGroup || frame.group == MTKFrame.lightGroup else {
                counted.unknownGroups += 1
                continue
            }
            guard let number = Int(frame.value), frame.index == 0 else {
                // `[2:0:s]` echoes and other non-numeric values are not sensor readings.
                counted.garbage += 1
                continue
            }
            switch frame.group {
            case MTKFrame.fieldGroup:
                events.append(SensorEvent(tangible: tangible, kind: .field, value: number == 0 ? 0 : 1, arrival: arrival))
            case MTKFrame.lightGroup:
                events.append(SensorEvent(tangible: tangible, kind: .light, value: number == lightWhiteValue ? 1 : 0,
                                          arrival: arrival))
            default:
                break
            }
        }
        counted.events += events.count
        return events
    }
}
