// dbus/org.percbridge.PercBridge1.conf: parsed, and enforced by a real dbus-daemon on a system-like bus.
import Foundation
import Glibc
import Testing
@testable import PercControl
import PercSystem
import PercTestSupport

@Suite(.serialized) struct DBusPolicyTests {
    static var policy: URL { Helper.repo.appendingPathComponent("dbus/org.percbridge.PercBridge1.conf") }

    /// The policy's rules as python's xml.etree reads them: [[who, rule, attributes]].
    static func rules() throws -> [[String: String]] {
        let script = """
        import json, sys, xml.etree.ElementTree as ET
        out = []
        for p in ET.parse(sys.argv[1]).getroot().findall('policy'):
            who = ' '.join(f'{k}={v}' for k, v in sorted(p.attrib.items()))
            for r in p:
                out.append(dict(r.attrib, who=who, rule=r.tag))
        print(json.dumps(out))
        """
        let r = try Helper.run(Helper.python, ["-c", script, policy.path])
        guard r.status == 0, let data = r.stdout.data(using: .utf8),
              let rules = try JSONSerialization.jsonObject(with: data) as? [[String: String]] else {
            throw PrivateBusError("python could not parse \(policy.path): \(r.stderr)")
        }
        return rules
    }

    @Test func thePolicyGrantsOwnershipToTheServiceAndWritesOnlyToRootAndTheGroup() throws {
        let rules = try Self.rules()
        let name = ControlAPI.busName
        func has(_ who: String, _ rule: String, _ attrs: [String: String]) -> Bool {
            rules.contains { r in r["who"] == who && r["rule"] == rule && attrs.allSatisfy { r[$0.key] == $0.value } && r.count == attrs.count + 2 }
        }
        #expect(has("user=percbridge", "allow", ["own": name]))
        #expect(has("user=root", "allow", ["send_destination": name]))
        #expect(has("group=percbridge", "allow", ["send_destination": name]))
        #expect(has("context=default", "deny", ["own": name]))
        #expect(has("context=default", "deny", ["send_destination": name]))
        // Everybody else: exactly the reads.
        let reads = rules.filter { $0["who"] == "context=default" && $0["rule"] == "allow" }
        let members = Set(reads.compactMap { $0["send_member"] })
        #expect(members == Set(ControlAPI.readMethods + ["Get", "GetAll"]))
        #expect(reads.allSatisfy { $0["send_destination"] == name })
        #expect(!reads.contains { ControlAPI.writeMethods.contains($0["send_member"] ?? "") || ($0["send_interface"] == ControlAPI.interface && $0["send_member"] == nil) })
        #expect(!rules.contains { $0["own"] == name && $0["rule"] == "allow" && !["user=percbridge", "user=root"].contains($0["who"]) })
    }

    /// A system-like bus (deny by default, like /usr/share/dbus-1/system.conf) including the
    /// policy, the real service owning the name, and callers of other users via setpriv.
    /// Where no group `percbridge` exists, the test's copy names group `audio` instead.
    @Test func aSystemLikeBusLetsOthersReadButNotForget() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pb-policy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(at: dir) }
        let group = getgrnam("percbridge") == nil ? "audio" : "percbridge"
        let gid = getgrnam(group).map { Int($0.pointee.gr_gid) } ?? 29
        let policy = try String(contentsOf: Self.policy, encoding: .utf8).replacingOccurrences(of: "group=\"percbridge\"", with: "group=\"\(group)\"")
        try policy.write(to: dir.appendingPathComponent("policy.conf"), atomically: true, encoding: .utf8)
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>system</type>
          <listen>unix:path=\(dir.path)/system_bus_socket</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/>
            <deny own="*"/>
            <deny send_type="method_call"/>
            <allow send_type="signal"/>
            <allow send_requested_reply="true" send_type="method_return"/>
            <allow send_requested_reply="true" send_type="error"/>
            <allow receive_type="method_call"/>
            <allow receive_type="method_return"/>
            <allow receive_type="error"/>
            <allow receive_type="signal"/>
            <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
            <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
          </policy>
          <include>\(dir.path)/policy.conf</include>
        </busconfig>
        """.write(to: dir.appendingPathComponent("system.conf"), atomically: true, encoding: .utf8)
        let daemon = try TestProcess("/usr/bin/dbus-daemon", ["--config-file=\(dir.path)/system.conf", "--nofork", "--print-address=1"])
        defer { daemon.stop() }
        let address = try #require(daemon.readLine(timeout: 10), "dbus-daemon did not start with the policy: \(daemon.errorOutput())")
        #expect(address.hasPrefix("unix:"))
        guard getuid() == 0 else {
            // Without root no caller can be another user: the policy loaded, which is all we can show.
            return
        }

        let demo = try TestProcess(CLI.binary.path, ["demo", "--scenario", "single-placement", "--control-bus", address,
                                                     "--http", "127.0.0.1:0", "--tuio", "127.0.0.1:9", "--log-level", "warning"])
        defer { demo.stop() }
        let root = try DBusConnection(bus: .address(address))
        defer { root.close() }
        let deadline = MonotonicClock.now() + 60
        while try await root.nameOwner(of: ControlAPI.busName) == nil {
            guard MonotonicClock.now() < deadline else { Issue.record("the service did not own its name: \(demo.errorOutput())"); return }
            try await Task.sleep(for: .milliseconds(50))
        }

        func send(_ user: [String], _ interface: String, _ member: String, _ args: [String] = []) async throws -> Helper.Output {
            try await Helper.runAsync("/usr/bin/setpriv", user + ["--", "/usr/bin/dbus-send", "--bus=\(address)", "--print-reply",
                                                               "--dest=\(ControlAPI.busName)", ControlAPI.path.rawValue, "\(interface).\(member)"] + args)
        }
        let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]
        let member = ["--reuid=65534", "--regid=65534", "--groups=\(gid)"]
        let denied = "org.freedesktop.DBus.Error.AccessDenied"

        for (interface, method, args) in [(ControlAPI.interface, "List", [String]()), (ControlAPI.interface, "Status", []),
                                          ("org.freedesktop.DBus.Introspectable", "Introspect", []),
                                          ("org.freedesktop.DBus.Properties", "GetAll", ["string:\(ControlAPI.interface)"])] {
            let r = try await send(nobody, interface, method, args)
            #expect(r.status == 0, "nobody may call \(method): \(r.stderr)")
        }
        for (method, args) in [("Forget", ["string:1"]), ("Define", ["string:x", "string:puc", "string:"]),
                               ("Calibrate", ["string:1"]), ("Pair", ["string:C0:FF:EE:00:00:01", "string:"])] {
            let r = try await send(nobody, ControlAPI.interface, method, args)
            #expect(r.status != 0 && r.stderr.contains(denied), "nobody must not call \(method): \(r.stderr)")
        }
        let set = try await send(nobody, "org.freedesktop.DBus.Properties", "Set",
                                 ["string:\(ControlAPI.interface)", "string:Mode", "variant:string:x"])
        #expect(set.stderr.contains(denied))
        // A member of the group, and root, reach the service (which then refuses the unknown id).
        for user in [member, ["--reuid=0", "--regid=0", "--keep-groups"]] {
            let r = try await send(user, ControlAPI.interface, "Forget", ["string:nope"])
            #expect(r.stderr.contains("org.percbridge.Error.UnknownTangible"), "\(user): \(r.stderr)")
        }
    }
}
