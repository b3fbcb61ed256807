// The app protocol's `actuate` (LED, vibration, beep) handed to the PERC's link.
import MTKTangibles
import PercBlueZ
import PercRuntime
import PercWeb

extension ServiceLinks {
    /// For the app protocol's `actuate` (ServiceParts.make's `actuate` closure): refused at
    /// once (`unknown-tangible`, `unavailable`) unless the tangible is a connected PERC.
    public func actuate(_ id: TangibleID, _ request: ActuationRequest) -> AppProtocolError? {
        guard let error = actuateInBackground(id, PercActuation(request)) else { return nil }
        let code: AppProtocolError.Code = if case .unknownTangible = error { .unknownTangible } else { .unavailable }
        return AppProtocolError(code: code, message: error.description, inReplyTo: "actuate")
    }
}

extension PercActuation {
    /// The app protocol's request in PERC terms (LED black is off; vibration 0 ms is off).
    init(_ request: ActuationRequest) {
        switch request {
        case .led(0, 0, 0): self = .ledOff
        case .led(let r, let g, let b): self = .led(red: r, green: g, blue: b)
        case .vibrate(let ms) where ms <= 0: self = .vibration(on: false)
        case .vibrate(let ms): self = .vibrate(milliseconds: UInt16(min(ms, Int(UInt16.max))))
        case .beep(let on): self = .beep(on: on)
        }
    }
}
