// How the control commands print answers for people: aligned tables, poses, offsets.
import Foundation
import PercSystem

/// Control API answers printed for people: aligned tables, poses, offsets.
public enum ControlText {
    public static func table(header: [String], rows: [[String]], indent: String = "") -> String {
        let all = [header] + rows
        let widths = header.indices.map { i in all.map { $0.indices.contains(i) ? $0[i].count : 0 }.max() ?? 0 }
        return all.map { row in
            indent + row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    public static func tangibleRow(_ t: [String: DBusValue]) -> [String] {
        [t["id"]?.int.map(String.init) ?? "?", t["name"]?.string ?? "", t["kind"]?.string ?? "", t["state"]?.string ?? "",
         t["provenance"]?.string ?? "-", pose(t), t["address"]?.string ?? "-", t["link"]?.string ?? "-"]
    }

    /// The `warnings` of listed tangibles, one line each, for after the table.
    public static func tangibleWarnings(_ rows: [[String: DBusValue]]) -> [String] {
        rows.flatMap { t in
            (t["warnings"]?.array ?? []).compactMap(\.string).map { "warning: tangible \(t["id"]?.int.map(String.init) ?? "?") (\(t["name"]?.string ?? "")): \($0)" }
        }
    }

    static func pose(_ t: [String: DBusValue]) -> String {
        guard let x = t["x"]?.double, let y = t["y"]?.double, let a = t["angle"]?.double else { return "-" }
        return String(format: "(%.1f, %.1f) %.0f°", x, y, a * 180 / .pi)
    }

    static func point(_ v: DBusValue?) -> String {
        guard let p = v?.array?.compactMap(\.double), p.count == 2 else { return "-" }
        return String(format: "(%.1f, %.1f) mm", p[0], p[1])
    }

    /// A definition with its calibration, as Define and Calibrate return it.
    public static func definition(_ d: [String: DBusValue], verb: String, bus: DBusBus) -> String {
        let id = d["id"]?.int ?? 0
        var lines = ["\(verb) tangible \(id) \"\(d["name"]?.string ?? "")\" (\(d["kind"]?.string ?? "")\(d["address"]?.string.map { ", \($0)" } ?? ""))."]
        if let markers = d["markers"]?.array {
            lines.append("  markers: " + markers.map { point($0) }.joined(separator: ", ").replacingOccurrences(of: " mm", with: "") + " mm")
        }
        if let c = d["calibration"]?.stringVariantDictionary {
            lines.append(String(format: "  light sensor: %@ from the markers' centroid (%@, confidence %.2f within %.0f mm, %d rounds)",
                                point(d["light_sensor_offset"]), c["status"]?.string ?? "?", c["confidence"]?.double ?? 0,
                                c["tolerance"]?.double ?? 0, c["rounds"]?.int ?? 0))
        } else if d["kind"]?.string == "puc" {
            lines.append("  a PUC: recognised from its markers alone")
        }
        for w in d["warnings"]?.array ?? [] { if let w = w.string { lines.append("  warning: " + w) } }
        lines.append("Watch it: percbridge list\(ControlClient.busArgument(bus))")
        return lines.joined(separator: "\n")
    }
}
