// Parses a surface size given on the command line as `WIDTHxHEIGHT` in millimetres.
import MTKTangibles

/// Parses `WIDTHxHEIGHT` (millimetres) from the command line.
public enum SurfaceSizeParser {
    /// `"1018x573"` → Vec2(1018, 573); nil unless both are positive finite numbers.
    public static func parse(_ s: String) -> Vec2? {
        let parts = s.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Double(parts[0]), let h = Double(parts[1]), w.isFinite, h.isFinite, w > 0, h > 0 else { return nil }
        return Vec2(w, h)
    }
}
