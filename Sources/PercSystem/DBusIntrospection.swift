// Introspection XML for exported objects (org.freedesktop.DBus.Introspectable.Introspect).

/// Builds the XML that `Introspect` returns for one path.
enum DBusIntrospection {
    static func xml(for object: DBusExportedObject?, children: [String]) -> String {
        var lines = [
            #"<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN""#,
            #" "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">"#,
            "<node>",
            #"  <interface name="org.freedesktop.DBus.Introspectable">"#,
            #"    <method name="Introspect"><arg name="xml_data" type="s" direction="out"/></method>"#,
            "  </interface>",
            #"  <interface name="org.freedesktop.DBus.Peer">"#,
            #"    <method name="Ping"/>"#,
            #"    <method name="GetMachineId"><arg name="machine_uuid" type="s" direction="out"/></method>"#,
            "  </interface>",
        ]
        if let object {
            lines += standardProperties
            for interface in object.interfaces.values.sorted(by: { $0.name < $1.name }) {
                lines.append("  <interface name=\"\(interface.name)\">")
                for method in interface.methods {
                    lines.append("    <method name=\"\(method.name)\">")
                    lines += args(method.inSignature, method.inNames, direction: "in")
                    lines += args(method.outSignature, method.outNames, direction: "out")
                    lines.append("    </method>")
                }
                for signal in interface.signals {
                    lines.append("    <signal name=\"\(signal.name)\">")
                    lines += args(signal.signature, signal.argumentNames, direction: nil)
                    lines.append("    </signal>")
                }
                for property in interface.properties {
                    lines.append("    <property name=\"\(property.name)\" type=\"\(escape(property.signature.rawValue))\" access=\"\(property.access.rawValue)\"/>")
                }
                lines.append("  </interface>")
            }
        }
        for child in children { lines.append("  <node name=\"\(escape(child))\"/>") }
        lines.append("</node>")
        return lines.joined(separator: "\n") + "\n"
    }

    private static let standardProperties = [
        #"  <interface name="org.freedesktop.DBus.Properties">"#,
        #"    <method name="Get"><arg name="interface_name" type="s" direction="in"/><arg name="property_name" type="s" direction="in"/><arg name="value" type="v" direction="out"/></method>"#,
        #"    <method name="GetAll"><arg name="interface_name" type="s" direction="in"/><arg name="properties" type="a{sv}" direction="out"/></method>"#,
        #"    <method name="Set"><arg name="interface_name" type="s" direction="in"/><arg name="property_name" type="s" direction="in"/><arg name="value" type="v" direction="in"/></method>"#,
        #"    <signal name="PropertiesChanged"><arg name="interface_name" type="s"/><arg name="changed_properties" type="a{sv}"/><arg name="invalidated_properties" type="as"/></signal>"#,
        "  </interface>",
    ]

    private static func args(_ signature: DBusSignature, _ names: [String], direction: String?) -> [String] {
        signature.completeTypes.enumerated().map { index, type in
            let name = index < names.count ? " name=\"\(escape(names[index]))\"" : ""
            let dir = direction.map { " direction=\"\($0)\"" } ?? ""
            return "      <arg\(name) type=\"\(escape(type.rawValue))\"\(dir)/>"
        }
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
