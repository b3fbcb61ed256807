// Inline SVG pictures for the HTML report: bar histograms and a state time line (no scripts, no external assets).
import Foundation

enum SVGChart {
    /// A bar histogram: `bins` counts starting at `from` with `width` per bin; `unit` labels the axis.
    static func histogram(title: String, bins: [Int], from: Double, width: Double, unit: String, marker: (Double, String)? = nil) -> String {
        let w = 520.0, h = 160.0, left = 40.0, bottom = 24.0, top = 18.0
        let peak = Double(max(bins.max() ?? 1, 1))
        let bw = (w - left - 8) / Double(max(bins.count, 1))
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"\(Int(h))\" role=\"img\" aria-label=\"\(esc(title))\">"
        s += "<text x=\"\(left)\" y=\"12\" font-size=\"12\">\(esc(title))</text>"
        s += "<line x1=\"\(left)\" y1=\"\(h - bottom)\" x2=\"\(w - 8)\" y2=\"\(h - bottom)\" stroke=\"#444\"/>"
        s += "<text x=\"4\" y=\"\(top + 10)\" font-size=\"10\">\(Int(peak))</text><text x=\"4\" y=\"\(h - bottom)\" font-size=\"10\">0</text>"
        for (i, c) in bins.enumerated() where c > 0 {
            let bh = (h - bottom - top) * Double(c) / peak
            s += "<rect class=\"bar\" x=\(q(left + Double(i) * bw + 0.5)) y=\(q(h - bottom - bh)) width=\(q(max(bw - 1, 0.5))) height=\(q(bh)) fill=\"#3b7dd8\"><title>\(fmt(from + Double(i) * width))–\(fmt(from + Double(i + 1) * width)) \(unit): \(c)</title></rect>"
        }
        let ticks = 5
        for k in 0...ticks {
            let x = left + (w - left - 8) * Double(k) / Double(ticks)
            let v = from + width * Double(bins.count) * Double(k) / Double(ticks)
            s += "<text x=\(q(x)) y=\"\(h - 8)\" font-size=\"10\" text-anchor=\"middle\">\(fmt(v))</text>"
        }
        s += "<text x=\"\(w - 8)\" y=\"\(h - 8)\" font-size=\"10\" text-anchor=\"end\" dy=\"-12\">\(esc(unit))</text>"
        if let (v, label) = marker, bins.count > 0 {
            let x = left + (v - from) / (width * Double(bins.count)) * (w - left - 8)
            if x >= left && x <= w - 8 {
                s += "<line x1=\(q(x)) y1=\"\(top)\" x2=\(q(x)) y2=\"\(h - bottom)\" stroke=\"#d33\" stroke-dasharray=\"4 3\"/>"
                s += "<text x=\(q(x + 3)) y=\"\(top + 10)\" font-size=\"10\" fill=\"#d33\">\(esc(label))</text>"
            }
        }
        return s + "</svg>"
    }

    static let stateColours: [String: String] = [
        "notInRange": "#bbb", "inRange": "#9ecae1", "onSurface": "#fdae6b", "placed": "#fd8d3c", "tracked": "#31a354",
        "resting": "#756bb1", "notRecognized": "#bbb", "recognized": "#31a354",
    ]

    /// The tangible's states over `duration` seconds, with spontaneous flips (▲) and misses (×) above.
    static func timeline(spans: [StateSpan], flips: [Double], misses: [Double], duration: Double) -> String {
        let w = 720.0, h = 74.0, left = 8.0, barY = 30.0, barH = 18.0
        let scale = (w - 2 * left) / max(duration, 1e-9)
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"\(Int(h))\" role=\"img\" aria-label=\"time line\">"
        for span in spans {
            let x = left + max(0, span.from) * scale, wd = max(0.5, (span.to - max(0, span.from)) * scale)
            s += "<rect x=\(q(x)) y=\"\(barY)\" width=\(q(wd)) height=\"\(barH)\" fill=\"\(stateColours[span.state] ?? "#ccc")\"><title>\(span.state) \(fmt(span.from))–\(fmt(span.to)) s</title></rect>"
        }
        for f in flips { s += "<text class=\"flip\" x=\(q(left + f * scale)) y=\"24\" font-size=\"11\" text-anchor=\"middle\" fill=\"#e6550d\">▲<title>spontaneous flip at \(fmt(f)) s</title></text>" }
        for m in misses { s += "<text class=\"miss\" x=\(q(left + m * scale)) y=\"14\" font-size=\"11\" text-anchor=\"middle\" fill=\"#d33\">×<title>miss at \(fmt(m)) s</title></text>" }
        s += "<text x=\"\(left)\" y=\"\(h - 4)\" font-size=\"10\">0 s</text><text x=\"\(w - left)\" y=\"\(h - 4)\" font-size=\"10\" text-anchor=\"end\">\(fmt(duration)) s</text>"
        return s + "</svg>"
    }

    static func legend() -> String {
        stateColours.sorted { $0.key < $1.key }.filter { $0.key != "notRecognized" }.map {
            "<span class=\"key\"><i style=\"background:\($0.value)\"></i>\($0.key)</span>"
        }.joined() + "<span class=\"key\" style=\"color:#e6550d\">▲ spontaneous flip</span><span class=\"key\" style=\"color:#d33\">× miss</span>"
    }

    private static func q(_ v: Double) -> String { "\"\(String(format: "%.1f", v))\"" }
    private static func fmt(_ v: Double) -> String { v.rounded() == v || abs(v) >= 100 ? String(format: "%.0f", v) : String(format: "%.1f", v) }

    static func esc(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
