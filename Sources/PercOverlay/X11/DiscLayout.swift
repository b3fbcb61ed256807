// The discs of one frame turned into bounded X arcs (pure): what the shape and the drawing share.

/// One frame's discs as the X protocol draws them: integer arcs in root-window pixels, at most
/// `maxDiscs`, each radius clamped, the discs that miss the root window (or are not numbers) left out.
///
/// X arcs are INT16 positions and CARD16 sizes; clamping the radius to `maxRadius` keeps every disc
/// that touches a root window (at most 32767 pixels wide) inside those ranges.
struct DiscLayout: Equatable {
    /// A filled circle: its bounding square's corner and side, in root-window pixels.
    struct Arc: Equatable {
        var x: Int
        var y: Int
        var diameter: Int
        var white: Bool
    }

    /// A rectangle in root-window pixels.
    struct Box: Equatable {
        var x: Int
        var y: Int
        var width: Int
        var height: Int
    }

    /// More discs than any light check shows at once; the rest of a longer list is dropped.
    static let maxDiscs = 256
    /// Half a pixel: smaller discs would draw nothing.
    static let minRadius = 0.5
    /// Bigger than any patch on any table (a 2048 px radius covers a 4K screen's height twice).
    static let maxRadius = 2048.0

    private(set) var arcs: [Arc] = []
    /// Discs beyond `maxDiscs`.
    private(set) var droppedOverLimit = 0
    /// Discs with a coordinate or radius that is not a finite number, or wholly off the root window.
    private(set) var droppedOffScreen = 0
    /// The union of the arcs' squares, clipped to the root window; nil when nothing is drawn.
    private(set) var bounds: Box?

    init(_ discs: [OverlayDisc], rootWidth: Int, rootHeight: Int) {
        droppedOverLimit = max(0, discs.count - Self.maxDiscs)
        for disc in discs.prefix(Self.maxDiscs) {
            guard let arc = Self.arc(disc, rootWidth: rootWidth, rootHeight: rootHeight) else {
                droppedOffScreen += 1
                continue
            }
            arcs.append(arc)
        }
        bounds = Self.bounds(of: arcs, rootWidth: rootWidth, rootHeight: rootHeight)
    }

    var isEmpty: Bool { arcs.isEmpty }

    static func arc(_ disc: OverlayDisc, rootWidth: Int, rootHeight: Int) -> Arc? {
        guard disc.x.isFinite, disc.y.isFinite, disc.radius.isFinite else { return nil }
        let r = min(max(disc.radius, minRadius), maxRadius)
        guard disc.x + r > 0, disc.y + r > 0, disc.x - r < Double(rootWidth), disc.y - r < Double(rootHeight) else {
            return nil
        }
        let diameter = max(1, Int((2 * r).rounded()))
        return Arc(x: Int((disc.x - r).rounded()), y: Int((disc.y - r).rounded()), diameter: diameter, white: disc.white)
    }

    static func bounds(of arcs: [Arc], rootWidth: Int, rootHeight: Int) -> Box? {
        guard !arcs.isEmpty else { return nil }
        let left = max(0, arcs.map(\.x).min() ?? 0)
        let top = max(0, arcs.map(\.y).min() ?? 0)
        let right = min(rootWidth, arcs.map { $0.x + $0.diameter }.max() ?? 0)
        let bottom = min(rootHeight, arcs.map { $0.y + $0.diameter }.max() ?? 0)
        guard right > left, bottom > top else { return nil }
        return Box(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// Runs of consecutive arcs of one colour, in the caller's order (a later disc covers an
    /// earlier one where they overlap, as the caller listed them).
    var colourRuns: [(white: Bool, arcs: ArraySlice<Arc>)] {
        var runs: [(white: Bool, arcs: ArraySlice<Arc>)] = []
        var start = 0
        for i in arcs.indices where i == arcs.count - 1 || arcs[i + 1].white != arcs[i].white {
            runs.append((arcs[i].white, arcs[start...i]))
            start = i + 1
        }
        return runs
    }
}
