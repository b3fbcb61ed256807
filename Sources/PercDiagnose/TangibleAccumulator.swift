// Everything the diagnosis gathers about one tangible: link, field, light, recognition, and its trusted pose.
import MTKTangibles

struct TangibleAccumulator: Sendable {
    let definition: TangibleDefinition
    var link = LinkAccumulator()
    var field: FieldAccumulator
    var light: LightAccumulator
    var recognition: RecognitionAccumulator
    /// Where the light sensor is while the pose is confirmed or kept (nil otherwise).
    var sensor: Vec2?

    init(definition: TangibleDefinition, origin: Seconds) {
        self.definition = definition
        field = FieldAccumulator(markers: definition.markers.count)
        light = LightAccumulator(origin: origin)
        recognition = RecognitionAccumulator(origin: origin)
    }

    mutating func update(_ r: TangibleReport) {
        guard let pose = r.pose, let offset = definition.lightSensorOffset,
              r.state == .tracked || r.state == .resting, r.provenance == .confirmed || r.provenance == .kept else {
            sensor = nil
            return
        }
        sensor = pose.apply(offset)
    }

    func diagnosis(now: Seconds, settings: DiagnoseSettings) -> TangibleDiagnosis {
        TangibleDiagnosis(id: definition.id, name: definition.name, kind: definition.kind, profile: definition.profile,
                          link: link.report(now: now, profile: definition.profile), field: field.report(settings: settings),
                          light: light.report(), recognition: recognition.report(now: now))
    }
}
