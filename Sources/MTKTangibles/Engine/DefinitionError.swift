// Why a tangible definition was refused.

/// Errors of the definition API (`Engine.add`, `replace`, `defineTangible`).
public enum DefinitionError: Error, Hashable, Sendable, CustomStringConvertible {
    case needThreeMarkers(Int)
    case unknownTrace(TraceID)
    case mixedOrigins
    case degenerate(area: Double)
    case nonFinite
    case duplicateID(TangibleID)
    case unknownID(TangibleID)

    public var description: String {
        switch self {
        case .needThreeMarkers(let n): return "a tangible needs exactly three markers (got \(n)); place it so that all three touch"
        case .unknownTrace(let t): return "trace \(t) is not on the surface; use ids from the latest output's free traces"
        case .mixedOrigins: return "the traces come from different input sources; use three traces of one device"
        case .degenerate(let a): return "the markers are (almost) on one line (area \(a) mm²); use a real triangle"
        case .nonFinite: return "a marker position is not a finite number"
        case .duplicateID(let id): return "tangible id \(id) is already defined; remove or replace it"
        case .unknownID(let id): return "tangible id \(id) is not defined"
        }
    }
}
