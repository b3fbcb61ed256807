// What a pairing through the control API gives back.
import MTKTangibles

/// The outcome of a pairing.
public struct LinkPairing: Sendable, Hashable {
    var address: String
    var name: String
    var profile: String
    var tangible: TangibleID
    var alreadyPaired: Bool
}
