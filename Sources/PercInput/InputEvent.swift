// One Linux `struct input_event` as Swift values (time on the source's clock, in seconds).
import MTKTangibles

/// One evdev event. `time` is the kernel timestamp (or the recording's).
public struct InputEvent: Hashable, Sendable {
    public var time: Seconds
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(time: Seconds, type: UInt16, code: UInt16, value: Int32) {
        self.time = time; self.type = type; self.code = code; self.value = value
    }
}
