// Making a tangible definition from marker positions measured on the surface (thesis 3.6.3).

extension TangibleDefinition {
    /// Smallest triangle area (mm²) accepted: below it the markers are nearly collinear and
    /// the rotation cannot be told.
    public static let minimumMarkerArea: Double = 20

    /// A definition whose markers are where three touches are now; angle 0 is the pose it
    /// was measured in. PERCs default to the standard light-sensor offset (centroid + (5, 0)).
    /// The footprint defaults to a circle 10 mm beyond the farthest marker.
    public static func fromSurface(points: [Vec2], id: TangibleID, name: String, kind: Kind,
                                   footprint: Footprint? = nil, lightSensorOffset: Vec2? = nil,
                                   address: String? = nil, profile: PercProfile? = nil) throws -> TangibleDefinition {
        try validate(points)
        let c = points.reduce(Vec2.zero, +) / 3
        let reach = points.map { $0.distance(to: c) }.max()!
        return TangibleDefinition(id: id, name: name, kind: kind, markers: points,
                                  footprint: footprint ?? .circle(radius: reach + 10),
                                  lightSensorOffset: kind == .perc ? (lightSensorOffset ?? Vec2(5, 0)) : nil,
                                  address: address, profile: kind == .perc ? (profile ?? .percV1) : nil)
    }

    /// Checks that the markers make a usable pattern: three, finite, not collinear.
    public static func validate(_ points: [Vec2]) throws {
        guard points.count == 3 else { throw DefinitionError.needThreeMarkers(points.count) }
        guard points.allSatisfy(\.isFinite) else { throw DefinitionError.nonFinite }
        let area = abs((points[1] - points[0]).cross(points[2] - points[0])) / 2
        guard area >= minimumMarkerArea else { throw DefinitionError.degenerate(area: area) }
    }
}
