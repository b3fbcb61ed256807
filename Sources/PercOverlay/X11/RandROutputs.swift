// The screen's RandR outputs that show something: names, places, rotations and refresh rates.
import CXCB
import Glibc
import Logging

/// Reads the outputs with a CRTC through RandR 1.3 (GetScreenResourcesCurrent: no re-probe of the
/// hardware, which could blank a screen for a moment).
enum RandROutputs {
    /// RandR's outputs in its order; nil when the server has no RandR 1.3.
    static func query(_ connection: XCBConnection, logger: Logger) -> [ScreenOutput]? {
        guard connection.extensionOpcode({ percbridge_xcb_randr_extension($0) }) != nil else { return nil }
        do {
            let version = try connection.reply("RandR QueryVersion") { c, e in
                xcb_randr_query_version_reply(c, xcb_randr_query_version(c, 1, 3), e)
            } read: { ($0.pointee.major_version, $0.pointee.minor_version) }
            guard version.0 > 1 || (version.0 == 1 && version.1 >= 3) else {
                logger.info("overlay: RandR \(version.0).\(version.1) is older than 1.3; using the root window as the one output")
                return nil
            }
            let resources = try connection.reply("RandR GetScreenResourcesCurrent") { c, e in
                xcb_randr_get_screen_resources_current_reply(c, xcb_randr_get_screen_resources_current(c, connection.root), e)
            } read: { Resources($0) }
            let primary = try connection.reply("RandR GetOutputPrimary") { c, e in
                xcb_randr_get_output_primary_reply(c, xcb_randr_get_output_primary(c, connection.root), e)
            } read: { $0.pointee.output }
            var outputs: [ScreenOutput] = []
            for output in resources.outputs {
                let info = try connection.reply("RandR GetOutputInfo") { c, e in
                    xcb_randr_get_output_info_reply(c, xcb_randr_get_output_info(c, output, resources.timestamp), e)
                } read: { OutputInfo($0) }
                guard info.crtc != 0 else { continue }
                let crtc = try connection.reply("RandR GetCrtcInfo") { c, e in
                    xcb_randr_get_crtc_info_reply(c, xcb_randr_get_crtc_info(c, info.crtc, resources.timestamp), e)
                } read: { $0.pointee }
                guard crtc.width > 0, crtc.height > 0 else { continue }
                let mode = resources.modes.first { $0.id == crtc.mode }
                outputs.append(ScreenOutput(
                    name: info.name, x: Int(crtc.x), y: Int(crtc.y), width: Int(crtc.width), height: Int(crtc.height),
                    rotation: degrees(crtc.rotation),
                    refreshHz: mode.flatMap { refreshHz(dotClock: $0.dot_clock, htotal: $0.htotal, vtotal: $0.vtotal, flags: $0.mode_flags) },
                    primary: output == primary))
            }
            return outputs
        } catch {
            logger.notice("overlay: cannot read the RandR outputs (\(error)); using the root window as the one output")
            return nil
        }
    }

    /// The CRTC's rotation bits (RR_Rotate_0/90/180/270) in degrees; reflections are ignored.
    static func degrees(_ rotation: UInt16) -> Int {
        let bits = UInt32(rotation)
        if bits & XCB_RANDR_ROTATION_ROTATE_90.rawValue != 0 { return 90 }
        if bits & XCB_RANDR_ROTATION_ROTATE_180.rawValue != 0 { return 180 }
        if bits & XCB_RANDR_ROTATION_ROTATE_270.rawValue != 0 { return 270 }
        return 0
    }

    /// A mode's refresh rate: pixel clock over the frame's pixels (a double-scan mode draws each
    /// line twice, an interlaced one half the lines per field); nil when the mode has no timings.
    static func refreshHz(dotClock: UInt32, htotal: UInt16, vtotal: UInt16, flags: UInt32) -> Double? {
        var lines = Double(vtotal)
        if flags & XCB_RANDR_MODE_FLAG_DOUBLE_SCAN.rawValue != 0 { lines *= 2 }
        if flags & XCB_RANDR_MODE_FLAG_INTERLACE.rawValue != 0 { lines /= 2 }
        guard dotClock > 0, htotal > 0, lines > 0 else { return nil }
        return Double(dotClock) / (Double(htotal) * lines)
    }

    /// What the overlay needs of GetScreenResourcesCurrent, copied out of the reply.
    private struct Resources {
        var timestamp: xcb_timestamp_t
        var outputs: [xcb_randr_output_t]
        var modes: [xcb_randr_mode_info_t]

        init(_ reply: UnsafePointer<xcb_randr_get_screen_resources_current_reply_t>) {
            timestamp = reply.pointee.config_timestamp
            let outputCount = Int(xcb_randr_get_screen_resources_current_outputs_length(reply))
            let modeCount = Int(xcb_randr_get_screen_resources_current_modes_length(reply))
            let outputList = xcb_randr_get_screen_resources_current_outputs(reply)
            let modeList = xcb_randr_get_screen_resources_current_modes(reply)
            outputs = outputList.map { p in (0..<outputCount).map { p[$0] } } ?? []
            modes = modeList.map { p in (0..<modeCount).map { p[$0] } } ?? []
        }
    }

    /// What the overlay needs of GetOutputInfo: the CRTC showing it and its name.
    private struct OutputInfo {
        var crtc: xcb_randr_crtc_t
        var name: String

        init(_ reply: UnsafePointer<xcb_randr_get_output_info_reply_t>) {
            crtc = reply.pointee.crtc
            let length = Int(xcb_randr_get_output_info_name_length(reply))
            if let bytes = xcb_randr_get_output_info_name(reply) {
                name = String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
            } else {
                name = ""
            }
        }
    }
}
