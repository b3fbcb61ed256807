// Where the touch surface lies on the screen: surface millimetres → screen pixels and back.

/// The touch surface as a rectangle of the screen (root-window pixels), turned by a multiple
/// of 90°. Rotation is clockwise as seen on the screen: at 0 the surface's x axis runs right
/// and its y axis down (as in the app protocol); at 90 its x axis runs down and its y axis
/// left, so its origin (0, 0) is the rectangle's top-right corner. The rectangle is the
/// surface's on-screen extent: `width` × `height` pixels whatever the rotation.
public struct SurfaceMapping: Sendable, Equatable, CustomStringConvertible {
    public var originX: Double
    public var originY: Double
    public var width: Double
    public var height: Double
    public var rotation: Int
    public var surfaceWidthMM: Double
    public var surfaceHeightMM: Double

    public static let rotations = [0, 90, 180, 270]

    /// Nil (with the reason) unless the rectangle has a size, the rotation is one of
    /// `rotations` and the surface has a size.
    public static func make(originX: Double, originY: Double, width: Double, height: Double, rotation: Int,
                            surfaceWidthMM: Double, surfaceHeightMM: Double) -> Result<SurfaceMapping, MappingError> {
        guard [originX, originY, width, height].allSatisfy(\.isFinite), width >= 1, height >= 1 else {
            return .failure(MappingError("the on-screen rectangle \(width)x\(height)+\(originX)+\(originY) is not a rectangle of at least 1x1 pixels; give --size WIDTHxHEIGHT in pixels"))
        }
        guard rotations.contains(rotation) else {
            return .failure(MappingError("rotation \(rotation) is not one of 0, 90, 180, 270 (degrees clockwise)"))
        }
        guard surfaceWidthMM.isFinite, surfaceHeightMM.isFinite, surfaceWidthMM > 0, surfaceHeightMM > 0 else {
            return .failure(MappingError("the service's surface has no size (\(surfaceWidthMM) x \(surfaceHeightMM) mm)"))
        }
        return .success(SurfaceMapping(originX: originX, originY: originY, width: width, height: height, rotation: rotation,
                                       surfaceWidthMM: surfaceWidthMM, surfaceHeightMM: surfaceHeightMM))
    }

    private init(originX: Double, originY: Double, width: Double, height: Double, rotation: Int,
                 surfaceWidthMM: Double, surfaceHeightMM: Double) {
        self.originX = originX; self.originY = originY; self.width = width; self.height = height
        self.rotation = rotation; self.surfaceWidthMM = surfaceWidthMM; self.surfaceHeightMM = surfaceHeightMM
    }

    /// The surface's two axes as fractions (0…1) of its width and height.
    private func fractions(_ x: Double, _ y: Double) -> (u: Double, v: Double) {
        (x / surfaceWidthMM, y / surfaceHeightMM)
    }

    /// The screen pixel (root window) of the surface point `(x, y)` mm.
    public func pixel(x: Double, y: Double) -> (x: Double, y: Double) {
        let (u, v) = fractions(x, y)
        switch rotation {
        case 90: return (originX + (1 - v) * width, originY + u * height)
        case 180: return (originX + (1 - u) * width, originY + (1 - v) * height)
        case 270: return (originX + v * width, originY + (1 - u) * height)
        default: return (originX + u * width, originY + v * height)
        }
    }

    /// The surface point (mm) under screen pixel `(x, y)`: the inverse of `pixel`.
    public func surfacePoint(x px: Double, y py: Double) -> (x: Double, y: Double) {
        let a = (px - originX) / width, b = (py - originY) / height
        let (u, v): (Double, Double) = switch rotation {
        case 90: (b, 1 - a)
        case 180: (1 - a, 1 - b)
        case 270: (1 - b, a)
        default: (a, b)
        }
        return (u * surfaceWidthMM, v * surfaceHeightMM)
    }

    /// Pixels per millimetre along the surface's x and y axes.
    public var pixelsPerMM: (x: Double, y: Double) {
        rotation % 180 == 0 ? (width / surfaceWidthMM, height / surfaceHeightMM)
                            : (height / surfaceWidthMM, width / surfaceHeightMM)
    }

    /// A radius of `mm` in pixels. Discs stay discs: where the two axes' scales differ (a
    /// surface stretched to a screen of another aspect) the larger is used, so a patch is
    /// never drawn smaller than planned under its sensor.
    public func pixels(radius mm: Double) -> Double {
        let s = pixelsPerMM
        return mm * max(s.x, s.y)
    }

    public var description: String {
        "\(Int(width))x\(Int(height))+\(Int(originX))+\(Int(originY)) rotation \(rotation)"
    }
}

public struct MappingError: Error, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
