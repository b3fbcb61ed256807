// Makes the touch input sources named in the config ([[input]] sections).
import Logging
import MTKTangibles
import PercInput

/// Makes the touch input sources of the config's `[[input]]` sections.
public enum ServiceInputs {
    public static func make(_ inputs: [ServiceConfig.Input], surface: Vec2, logger: Logger, drops: DropLog? = nil) throws -> [any InputSource] {
        try inputs.map { input -> any InputSource in
            switch input.kind {
            case .evdev:
                if input.path == nil || input.path == "auto" { return AutoTouchscreenSource(surfaceSize: surface, logger: logger) }
                return EvdevInputSource(path: input.path!, surfaceSize: surface)
            case .tuio:
                let l = input.listen ?? HostPort(host: "127.0.0.1", port: 3333)
                return UDPTUIOSource(host: l.host, port: l.port, surfaceSize: surface, limits: input.tuioLimits, drops: drops)
            case .jsonTCP:
                let l = input.listen ?? HostPort(host: "127.0.0.1", port: 3334)
                return JSONInputSource(transport: .tcp, host: l.host, port: l.port, surfaceSize: surface)
            case .recording:
                return try RecordingInputSource(path: input.path ?? "", surfaceSize: surface)
            }
        }
    }
}
