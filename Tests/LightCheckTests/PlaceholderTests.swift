import Testing
import MTKTangibles
@testable import LightCheck

@Suite struct OverlayColourTests {
    @Test func oppositeColourFlips() {
        #expect(LightColour.black.opposite == .white)
        #expect(LightColour(sensorValue: 1) == .white)
    }
}
