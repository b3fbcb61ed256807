#!/usr/bin/env python3
# A BlueZ emulator with PERC modules (both profiles) for tests, benchmarks and trying PercBridge by hand.
"""perc_bluez_emulator: "bluetoothd" with PERC tangibles, on a real D-Bus bus.

Built on python-dbusmock's bluez5 template (AgentManager1, adapters) plus what the
template lacks: PERC devices whose Connect/Disconnect/Pair behave like BlueZ's
(Connected, ServicesResolved, GATT objects announced with InterfacesAdded), GATT
services and characteristics for the PERC GATT v1 and the MTK serial profiles (and the
Nordic UART service), AcquireNotify with a real SOCK_SEQPACKET socketpair,
StartNotify/StopNotify with PropertiesChanged(Value), ReadValue/WriteValue.

A control interface `org.percbridge.BlueZEmulator1` at /org/percbridge/BlueZEmulator
(bus name org.percbridge.BlueZEmulator, which stays while "bluetoothd" vanishes) lets
tests and people add PERCs, stream notifications, drop links, unplug adapters and make
bluetoothd vanish and return. See README.md beside this file.
"""

import argparse
import os
import signal
import socket
import sys
import time

import dbus
import dbus.lowlevel
import dbus.mainloop.glib
import dbus.service
import dbusmock
from dbusmock import mockobject
from gi.repository import GLib

BLUEZ = "org.bluez"
CONTROL_NAME = "org.percbridge.BlueZEmulator"
CONTROL_PATH = "/org/percbridge/BlueZEmulator"
CONTROL_IFACE = "org.percbridge.BlueZEmulator1"
OM_IFACE = "org.freedesktop.DBus.ObjectManager"
PROPS_IFACE = "org.freedesktop.DBus.Properties"
ADAPTER_IFACE = "org.bluez.Adapter1"
DEVICE_IFACE = "org.bluez.Device1"
SERVICE_IFACE = "org.bluez.GattService1"
CHAR_IFACE = "org.bluez.GattCharacteristic1"
AGENT_IFACE = "org.bluez.Agent1"
AGENT_MANAGER_IFACE = "org.bluez.AgentManager1"
# bluetoothd's DISCONNECT_TIMER (src/device.c): a Disconnect of a link it believes is up is
# answered only after this (real 5.66 on the harness: the clearing Disconnect took 2 s).
STALE_DISCONNECT_MS = 2000
# The kernel's idle disconnect of an LE link nobody uses any more (HCI_DISCONN_TIMEOUT).
KERNEL_DISCONNECT_MS = 2000
# bluetoothd answers StartDiscovery when the kernel's command completes and announces
# Discovering=true from an idle callback after it: a client sees the reply first.
DISCOVERING_ANNOUNCED_MS = 20


def uuid16(short):
    return f"0000{short:04x}-0000-1000-8000-00805f9b34fb"


PERC_SERVICE = "aee40001-d949-4291-83f3-e445a245d3e5"
PERC_SENSOR = "aee40002-d949-4291-83f3-e445a245d3e5"
PERC_CONFIG = "aee40003-d949-4291-83f3-e445a245d3e5"
PERC_ACTUATOR = "aee40004-d949-4291-83f3-e445a245d3e5"
BATTERY_SERVICE = uuid16(0x180F)
BATTERY_LEVEL = uuid16(0x2A19)
MTK_SERVICE = uuid16(0xFFE0)
MTK_CHAR = uuid16(0xFFE1)
NUS_SERVICE = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
NUS_RX = "6e400002-b5a3-f393-e0a9-e50e24dcca9e"  # host writes
NUS_TX = "6e400003-b5a3-f393-e0a9-e50e24dcca9e"  # host is notified

# profile -> (advertised service UUID, [(service handle, service uuid, [(char handle, uuid, flags, role)])])
# role names what the emulator does with the characteristic: "sensor" is where streams go.
PROFILES = {
    "perc-v1": (PERC_SERVICE, [
        (0x0010, PERC_SERVICE, [
            (0x0011, PERC_SENSOR, ["read", "notify"], "sensor"),
            (0x0014, PERC_CONFIG, ["read", "write"], "config"),
            (0x0016, PERC_ACTUATOR, ["write-without-response"], "actuator"),
        ]),
        (0x0020, BATTERY_SERVICE, [(0x0021, BATTERY_LEVEL, ["read", "notify"], "battery")]),
    ]),
    "mtk-serial": (MTK_SERVICE, [
        (0x0010, MTK_SERVICE, [(0x0011, MTK_CHAR, ["read", "write-without-response", "write", "notify"], "serial")]),
    ]),
    "nordic-uart": (NUS_SERVICE, [
        (0x0010, NUS_SERVICE, [
            (0x0011, NUS_RX, ["write", "write-without-response"], "serial-rx"),
            (0x0013, NUS_TX, ["notify"], "serial"),
        ]),
    ]),
    # Not a PERC: a GATT device with only a battery service (for "not a PERC" checks).
    "none": (None, [
        (0x0020, BATTERY_SERVICE, [(0x0021, BATTERY_LEVEL, ["read", "notify"], "battery")]),
    ]),
}


NO_STRINGS = dbus.Array([], signature="s")


def monotonic_us():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000


def err(name, text):
    return dbus.exceptions.DBusException(text, name=name)


def sender_method(interface, name, fn):
    """A D-Bus method for a mock object that is given the caller's unique name, as
    `fn(obj, sender)`; install it as `obj.methods[interface][name] = ("", "", None, m)`
    (dbusmock dispatches through that table)."""
    def method(obj, sender=None):
        return fn(obj, sender)
    m = dbus.service.method(interface, in_signature="", out_signature="", sender_keyword="sender")(method)
    m.__name__ = name
    return m


def log(msg):
    sys.stderr.write(f"emulator: {msg}\n")
    sys.stderr.flush()


class Emulator:
    """All state of the emulated bluetoothd; the D-Bus objects call into it."""

    def __init__(self, conn, bus_name, logfile):
        self.conn = conn
        self.bus_name = bus_name
        self.logfile = logfile
        self.present = True  # does "bluetoothd" own org.bluez
        self.devices = {}  # address -> PercDevice
        self.unplugged = {}  # adapter name -> [device specs]
        self.agent = None  # (sender, path) of the default agent
        self.watched = set()
        self.send_costs = []  # µs from device-time stamp to send() returned, since the last StartStreamAll

    def watch_client(self, sender):
        """Drops a client's notify sessions and agent when it leaves the bus (as BlueZ does)."""
        if sender in self.watched:
            return
        self.watched.add(sender)

        def changed(owner):
            if owner:
                return
            self.watched.discard(sender)
            for dev in self.devices.values():
                for path, sessions in dev.start_sessions.items():
                    if sender in sessions:
                        sessions.discard(sender)
                        ch = mockobject.objects.get(path)
                        if ch is not None:
                            ch._set_notifying()
            if self.agent is not None and self.agent[0] == sender:
                self.agent = None
            for obj in list(mockobject.objects.values()):
                if ADAPTER_IFACE in obj.props and sender in getattr(obj, "discovery_clients", ()):
                    obj.discovery_clients.discard(sender)
                    self.end_discovery_if_unused(obj)
        self.conn.watch_name_owner(sender, changed)

    # -- tree helpers --
    def manager(self):
        return mockobject.objects["/"]

    def emit(self, path, iface, name, sig, args):
        # Signals go out from the unique name; receivers matching sender=org.bluez only see
        # them while we own org.bluez (dbus-daemon checks ownership at delivery).
        if not self.present:
            return
        msg = dbus.lowlevel.SignalMessage(path, iface, name)
        msg.append(*args, signature=sig)
        self.conn.send_message(msg)

    def interfaces_added(self, path, props):
        self.emit("/", OM_IFACE, "InterfacesAdded", "oa{sa{sv}}", [dbus.ObjectPath(path), props])

    def interfaces_removed(self, path, ifaces):
        self.emit("/", OM_IFACE, "InterfacesRemoved", "oas", [dbus.ObjectPath(path), dbus.Array(ifaces, signature="s")])

    def props_changed(self, path, iface, changed):
        self.emit(path, PROPS_IFACE, "PropertiesChanged", "sa{sv}as",
                  [iface, dbus.Dictionary(changed, signature="sv"), dbus.Array([], signature="s")])

    def device(self, address):
        dev = self.devices.get(address.upper())
        if dev is None:
            raise err("org.percbridge.BlueZEmulator.Error.NoSuchDevice", f"no emulated device {address}")
        return dev

    # -- adapters --
    def add_adapter(self, name, powered=True):
        path = "/org/bluez/" + name
        if path in mockobject.objects:
            return path
        self.manager().AddAdapter(name, "percbridge-emulator")
        adapter = mockobject.objects[path]
        adapter.props[ADAPTER_IFACE]["Powered"] = dbus.Boolean(powered)
        if not powered:
            # The template announced it powered; bluetoothd announces a new adapter as it is.
            self.interfaces_added(path, dbus.Dictionary(
                {ADAPTER_IFACE: dbus.Dictionary(adapter.props[ADAPTER_IFACE], signature="sv")}, signature="sa{sv}"))
        adapter.discovery_filter = None
        adapter.discovery_clients = set()
        # Replace the template's discovery methods: its StartDiscovery fails unless
        # SetDiscoveryFilter came first, and BlueZ rejects a second StartDiscovery.
        adapter.AddMethods(ADAPTER_IFACE, [
            ("SetDiscoveryFilter", "a{sv}", "", lambda a, f: setattr(a, "discovery_filter", f)),
            ("RemoveDevice", "o", "", lambda a, p: self.remove_device_path(str(p))),
            ("GetDiscoveryFilters", "", "as", lambda a: ["UUIDs", "RSSI", "Pathloss", "Transport", "DuplicateData"]),
        ])
        # Discovery is a session per D-Bus client in bluetoothd: these two need the caller.
        for name, fn in (("StartDiscovery", self.start_discovery), ("StopDiscovery", self.stop_discovery)):
            adapter.methods[ADAPTER_IFACE][name] = ("", "", None, sender_method(ADAPTER_IFACE, name, fn))
        return path

    def start_discovery(self, adapter, sender):
        """Like bluetoothd 5.66 (adapter.c start_discovery): one session per client; the
        same client asking again gets InProgress, another client joins the running scan.
        The reply goes out before `Discovering=true` is announced (bluetoothd replies when
        the kernel's command completes and emits the property from an idle callback)."""
        if not adapter.props[ADAPTER_IFACE]["Powered"]:
            raise err("org.bluez.Error.NotReady", "Resource Not Ready")
        if sender in adapter.discovery_clients:
            raise err("org.bluez.Error.InProgress", "Operation already in progress")
        adapter.discovery_clients.add(sender)
        self.watch_client(sender)
        if adapter.props[ADAPTER_IFACE]["Discovering"] or len(adapter.discovery_clients) > 1:
            return

        def announce():
            if not adapter.discovery_clients or adapter.props[ADAPTER_IFACE]["Discovering"]:
                return False
            adapter.props[ADAPTER_IFACE]["Discovering"] = dbus.Boolean(True)
            self.props_changed(adapter.path, ADAPTER_IFACE, {"Discovering": dbus.Boolean(True)})
            # Devices in range show a fresh RSSI while discovering.
            for dev in self.devices.values():
                if dev.adapter_path == adapter.path and dev.in_range:
                    dev.obj.props[DEVICE_IFACE]["RSSI"] = dbus.Int16(dev.rssi)
                    self.props_changed(dev.path, DEVICE_IFACE, {"RSSI": dbus.Int16(dev.rssi)})
            return False
        GLib.timeout_add(DISCOVERING_ANNOUNCED_MS, announce)

    def set_rssi(self, address, rssi):
        """A new signal strength for a device. Like bluetoothd, Device1.RSSI only changes
        (PropertiesChanged) while its adapter discovers and the device is in range; otherwise
        the value waits for the next StartDiscovery. Returns whether it was announced."""
        dev = self.device(address)
        dev.rssi = int(rssi)
        adapter = mockobject.objects.get(dev.adapter_path)
        if adapter is None or not adapter.props[ADAPTER_IFACE]["Discovering"] or not dev.in_range:
            return False
        dev.obj.props[DEVICE_IFACE]["RSSI"] = dbus.Int16(dev.rssi)
        self.props_changed(dev.path, DEVICE_IFACE, {"RSSI": dbus.Int16(dev.rssi)})
        return True

    def stop_discovery(self, adapter, sender):
        """bluetoothd: only a client that started discovery can stop its session; the scan
        ends with the last session."""
        if sender not in adapter.discovery_clients:
            raise err("org.bluez.Error.Failed", "No discovery started")
        adapter.discovery_clients.discard(sender)
        self.end_discovery_if_unused(adapter)

    def end_discovery_if_unused(self, adapter):
        if adapter.discovery_clients or not adapter.props[ADAPTER_IFACE]["Discovering"]:
            return
        adapter.props[ADAPTER_IFACE]["Discovering"] = dbus.Boolean(False)
        self.props_changed(adapter.path, ADAPTER_IFACE, {"Discovering": dbus.Boolean(False)})
        self.forget_rssi(adapter)

    def forget_rssi(self, adapter):
        """Like bluetoothd when discovery ends (discovery_cleanup → invalidate_rssi_and_tx_power):
        every device of the adapter loses Device1.RSSI, announced as an invalidated property."""
        for dev in self.devices.values():
            props = dev.obj.props[DEVICE_IFACE]
            if dev.adapter_path == adapter.path and "RSSI" in props:
                del props["RSSI"]
                self.emit(dev.path, PROPS_IFACE, "PropertiesChanged", "sa{sv}as",
                          [DEVICE_IFACE, dbus.Dictionary({}, signature="sv"), dbus.Array(["RSSI"], signature="s")])

    def unplug_adapter(self, name):
        path = "/org/bluez/" + name
        if path not in mockobject.objects:
            raise err("org.percbridge.BlueZEmulator.Error.NoSuchAdapter", f"no adapter {name}")
        specs = []
        for address, dev in list(self.devices.items()):
            if dev.adapter_path == path:
                dev.link_lost(announce=False)
                specs.append(dev.spec())
                dev.remove_objects(announce=False)
                del self.devices[address]
        self.unplugged[name] = specs
        # Like a yanked USB dongle: only the adapter's removal is announced.
        mockobject.objects[path].remove_from_connection()
        del mockobject.objects[path]
        self.interfaces_removed(path, [ADAPTER_IFACE, "org.bluez.Media1", "org.bluez.Network1",
                                       "org.bluez.LEAdvertisingManager1", "org.bluez.AdvertisementMonitorManager1"])
        log(f"adapter {name} unplugged ({len(specs)} devices)")

    def set_powered(self, name, powered):
        """Like `btmgmt power off|on`: off drops the adapter's links (paired devices stay in
        the auto-connect list); on, bluetoothd connects those of them that advertise."""
        path = "/org/bluez/" + name
        adapter = mockobject.objects.get(path)
        if adapter is None:
            raise err("org.percbridge.BlueZEmulator.Error.NoSuchAdapter", f"no adapter {name}")
        if not powered:
            for dev in self.devices.values():
                if dev.adapter_path == path:
                    dev.link_lost(announce=True)
        changed = {"Powered": dbus.Boolean(powered)}
        if not powered:
            # bluetoothd's adapter_stop → discovery_cleanup: every client's session ends.
            adapter.discovery_clients.clear()
            if adapter.props[ADAPTER_IFACE].get("Discovering"):
                changed["Discovering"] = dbus.Boolean(False)
        adapter.props[ADAPTER_IFACE].update(changed)
        self.props_changed(path, ADAPTER_IFACE, changed)
        if powered:
            for dev in self.devices.values():
                if dev.adapter_path == path and dev.auto_connect:
                    dev.schedule_auto_connect(0.1)
        log(f"adapter {name} powered {'on' if powered else 'off'}")

    def adapter_powered(self, path):
        adapter = mockobject.objects.get(path)
        return adapter is not None and bool(adapter.props[ADAPTER_IFACE].get("Powered", False))

    def plug_adapter(self, name, powered):
        self.add_adapter(name, powered)
        for spec in self.unplugged.pop(name, []):
            self.add_perc(name, *spec)
        log(f"adapter {name} plugged in (powered={powered})")

    # -- devices --
    def add_perc(self, adapter_name, address, name, profile, rssi, paired=False, trusted=False):
        address = address.upper()
        if profile not in PROFILES:
            raise err("org.percbridge.BlueZEmulator.Error.InvalidArguments", f"unknown profile {profile}")
        adapter_path = "/org/bluez/" + adapter_name
        if adapter_path not in mockobject.objects:
            raise err("org.percbridge.BlueZEmulator.Error.NoSuchAdapter", f"no adapter {adapter_name}")
        if address in self.devices:
            self.devices[address].remove_objects(announce=True)
        dev = PercDevice(self, adapter_path, address, name, profile, int(rssi), paired, trusted)
        self.devices[address] = dev
        return dev.path

    def remove_device_path(self, path):
        for address, dev in list(self.devices.items()):
            if dev.path == path:
                dev.link_lost(announce=True)
                dev.remove_objects(announce=True)
                del self.devices[address]
                return
        raise err("org.bluez.Error.DoesNotExist", "Does Not Exist")

    # -- bluetoothd vanishing --
    def vanish(self, seconds, kernel_keeps_links=False, connected_after_s=0.02):
        if not self.present:
            return
        kept = []
        for dev in self.devices.values():
            if kernel_keeps_links and dev.connected:
                # bluetoothd SIGKILLed (real 5.66 + kernel 6.12, harness): the LE link stays in
                # the kernel. The next bluetoothd shows the device Connected with no services
                # (it puts no GATT client on a link it did not make; Connect answers "ok" and
                # does nothing), and the kernel drops the idle link 2 s after the old
                # bluetoothd closed its ATT socket (HCI_DISCONN_TIMEOUT).
                dev.keep_link_without_gatt()
                kept.append(dev)
            else:
                dev.link_lost(announce=False)
            dev.start_sessions.clear()
        self.kept_connected_after_s = connected_after_s
        if kept:
            GLib.timeout_add(KERNEL_DISCONNECT_MS, lambda: [d.kernel_drops_kept_link() for d in kept] and False)
        for path, obj in mockobject.objects.items():
            if ADAPTER_IFACE in obj.props:
                obj.props[ADAPTER_IFACE]["Discovering"] = dbus.Boolean(False)
                obj.discovery_clients = set()
        bluez = mockobject.objects["/org/bluez"]
        bluez.agent_paths = []
        bluez.capabilities = {}
        bluez.default_agent = None
        self.agent = None
        self.present = False
        self.conn.release_name(BLUEZ)
        log("bluetoothd vanished (released org.bluez)")
        if seconds > 0:
            GLib.timeout_add(int(seconds * 1000), self.come_back)

    def come_back(self):
        if not self.present:
            # Real 5.66 (harness): a link the kernel kept is not in the new bluetoothd's first
            # view of the device; its Connected=true follows when the kernel's connection list
            # is read (load_connections), a moment after the name is taken.
            kept = [dev for dev in self.devices.values() if dev.kept_link]
            for dev in kept:
                dev.set_props({"Connected": dbus.Boolean(False)}, announce=False)
            self.present = True
            self.conn.request_name(BLUEZ, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
            log("bluetoothd is back (took org.bluez)")
            after = getattr(self, "kept_connected_after_s", 0.02)
            if kept and after >= 0:
                GLib.timeout_add(int(after * 1000), lambda: [d.set_props({"Connected": dbus.Boolean(True)}) for d in kept if d.kept_link and not d.stale] and False)
            # Like a restarted bluetoothd: paired devices go into the auto-connect list, the
            # ones in range connect by themselves at once, services resolve a moment later.
            for dev in self.devices.values():
                if dev.props_paired():
                    dev.auto_connect = True
                    if dev.in_range:
                        dev.schedule_auto_connect(0.05, resolve_delay_s=0.3)
        return False


class GattCharacteristic(mockobject.DBusMockObject):
    """One GATT characteristic; its methods are class methods so they can reply late."""

    def setup(self, emulator, device, role, flags):
        self.emulator = emulator
        self.device = device
        self.role = role
        self.flags = flags
        self.notify_sock = None  # our end of an AcquireNotify socketpair
        self.notify_watch = None
        self.writes = []

    def notifying(self):
        return self.notify_sock is not None or bool(self.device.start_sessions.get(self.path))

    def _require_connected(self):
        if not self.device.connected:
            raise err("org.bluez.Error.NotConnected", "Not Connected")

    @dbus.service.method(CHAR_IFACE, in_signature="a{sv}", out_signature="ay")
    def ReadValue(self, options):
        self._require_connected()
        if "read" not in self.flags:
            raise err("org.bluez.Error.NotPermitted", "Read not permitted")
        value = self.props[CHAR_IFACE]["Value"]
        if self.role == "sensor" and self.device.last_sensor_value is not None:
            # A read asks the PERC: it answers with its current state (its last value, also
            # one whose notification went nowhere), not with what BlueZ last cached.
            value = dbus.Array(self.device.last_sensor_value, signature="y")
        self.props[CHAR_IFACE]["Value"] = value
        # BlueZ updates Value on a read too (which looks like a notification to StartNotify users).
        self.emulator.props_changed(self.path, CHAR_IFACE, {"Value": dbus.Array(value, signature="y")})
        return dbus.Array(value, signature="y")

    @dbus.service.method(CHAR_IFACE, in_signature="aya{sv}", out_signature="")
    def WriteValue(self, value, options):
        self._require_connected()
        if "write" not in self.flags and "write-without-response" not in self.flags:
            raise err("org.bluez.Error.NotPermitted", "Write not permitted")
        data = bytes(value)
        self.writes.append(data)
        self.device.on_write(self, data)

    @dbus.service.method(CHAR_IFACE, in_signature="", out_signature="", sender_keyword="sender")
    def StartNotify(self, sender=None):
        self._require_connected()
        if "notify" not in self.flags:
            raise err("org.bluez.Error.NotSupported", "Operation is not supported")
        if self.notify_sock is not None:
            raise err("org.bluez.Error.NotPermitted", "Notify acquired")
        sessions = self.device.start_sessions.setdefault(self.path, set())
        if sender in sessions:
            raise err("org.bluez.Error.InProgress", "In Progress")
        sessions.add(sender)
        self.emulator.watch_client(sender)
        self._set_notifying()

    @dbus.service.method(CHAR_IFACE, in_signature="", out_signature="", sender_keyword="sender")
    def StopNotify(self, sender=None):
        sessions = self.device.start_sessions.get(self.path, set())
        if sender not in sessions:
            raise err("org.bluez.Error.Failed", "No notify session started")
        sessions.discard(sender)
        self._set_notifying()

    @dbus.service.method(CHAR_IFACE, in_signature="a{sv}", out_signature="hq")
    def AcquireNotify(self, options):
        self._require_connected()
        if "notify" not in self.flags:
            raise err("org.bluez.Error.NotSupported", "Operation is not supported")
        if not self.device.acquire_allowed:
            raise err("org.bluez.Error.NotSupported", "Operation is not supported")
        if self.device.start_sessions.get(self.path):
            raise err("org.bluez.Error.InProgress", "In Progress")
        if self.notify_sock is not None:
            raise err("org.bluez.Error.NotPermitted", "Notify acquired")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        ours.setblocking(False)
        ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
        self.notify_sock = ours
        # The peer closing its end releases the acquisition (as in BlueZ).
        self.notify_watch = GLib.io_add_watch(ours.fileno(), GLib.IO_HUP | GLib.IO_ERR | GLib.IO_IN, self._peer_closed)
        fd = dbus.types.UnixFd(theirs)
        theirs.close()
        self.props[CHAR_IFACE]["NotifyAcquired"] = dbus.Boolean(True)
        self._set_notifying()
        return fd, dbus.UInt16(self.device.mtu)

    def _peer_closed(self, fd, cond):
        if cond & (GLib.IO_HUP | GLib.IO_ERR):
            self.release_socket()
            return False
        try:
            self.notify_sock.recv(4096)
        except OSError:
            pass
        return True

    def release_socket(self):
        if self.notify_watch is not None:
            GLib.source_remove(self.notify_watch)
            self.notify_watch = None
        if self.notify_sock is not None:
            self.notify_sock.close()
            self.notify_sock = None
            self.props[CHAR_IFACE]["NotifyAcquired"] = dbus.Boolean(False)
            self._set_notifying()

    def _set_notifying(self):
        now = dbus.Boolean(self.notifying())
        if self.props[CHAR_IFACE]["Notifying"] != now:
            self.props[CHAR_IFACE]["Notifying"] = now
            self.emulator.props_changed(self.path, CHAR_IFACE, {"Notifying": now})

    @dbus.service.method(CHAR_IFACE, in_signature="a{sv}", out_signature="hq")
    def AcquireWrite(self, options):
        raise err("org.bluez.Error.NotSupported", "Operation is not supported")

    def notify(self, data):
        """Sends one notification; returns False when nobody listens or the socket is full.

        Sends first and bookkeeps after: the device time inside `data` was stamped just
        before, and everything between stamp and send counts as latency."""
        if self.notify_sock is not None:
            try:
                self.notify_sock.send(data)
                return True
            except OSError:
                return False
        if self.device.start_sessions.get(self.path) and self.emulator.present:
            msg = dbus.lowlevel.SignalMessage(self.path, PROPS_IFACE, "PropertiesChanged")
            msg.append(CHAR_IFACE, {"Value": dbus.ByteArray(data)}, NO_STRINGS, signature="sa{sv}as")
            self.emulator.conn.send_message(msg)
            self.props[CHAR_IFACE]["Value"] = dbus.Array(data, signature="y")
            return True
        return False


class PercDevice:
    """One emulated BLE device: Device1 object, GATT objects, link and streams."""

    def __init__(self, emulator, adapter_path, address, name, profile, rssi, paired, trusted):
        self.emulator = emulator
        self.adapter_path = adapter_path
        self.address = address
        self.name = name
        self.profile = profile
        self.rssi = rssi
        self.path = adapter_path + "/dev_" + address.replace(":", "_")
        self.connected = False
        self.in_range = True
        self.acquire_allowed = True
        self.pair_mode = "ok"  # ok | error:<org.bluez.Error.X> | vanish | hang | reject-agent
        self.mtu = 247
        self.start_sessions = {}  # char path -> set of senders (kept across disconnects, as BlueZ does)
        self.subscribed = set()  # MTK groups subscribed with [g:0:s]
        self.chars = {}  # role -> GattCharacteristic
        self.gatt_paths = []
        self.seq = 0
        self.light = 0
        self.last_sensor_value = None  # the PERC v1 Sensor Event value a read returns
        self.sent = 0
        self.unsent = 0
        self.stream = None
        self.connects = 0
        # Like a paired LE device in the kernel's auto-connect list: after a link loss that
        # was not our Disconnect, and after bluetoothd restarts, bluetoothd connects it by
        # itself as soon as it advertises, and answers Connect meanwhile with
        # Failed "Operation already in progress" (measured on bluetoothd 5.66, docs/bluez.md).
        self.auto_connect = False
        self.connect_calls = 0  # Device1.Connect calls, answered or refused (busy-loop checks)
        self.disconnect_calls = 0
        # bluetoothd lost track of the link (its log: "No matching connection for device",
        # then "Device ... is already connected"): Connect succeeds, Connected stays false
        # until a Disconnect clears it. Seen on real bluetoothd 5.66 after fast link drops.
        self.stale = False
        # The next connect is not signalled (real 5.66, harness: the link's ATT channel came up
        # before bluetoothd handled its connection event; its log: "Device … is already
        # connected"): the link works and Connected reads true, but no PropertiesChanged says
        # so. ServicesResolved is signalled as usual.
        self.connect_unsignalled = False
        # A link the kernel kept when bluetoothd was killed (KillBluetoothd): Connected, no
        # GATT client on it, until the kernel drops it.
        self.kept_link = False
        # Connect to it while it does not advertise waits (no answer) instead of failing.
        self.connect_waits = False
        self.pending_connect = None
        self.pending_pair = None
        self.agent_approvals = 0
        advertised = PROFILES[profile][0]
        props = {
            "Address": dbus.String(address),
            "AddressType": dbus.String("public"),
            "Name": dbus.String(name),
            "Alias": dbus.String(name),
            "Appearance": dbus.UInt16(0),
            "UUIDs": dbus.Array([advertised] if advertised else [], signature="s"),
            "Paired": dbus.Boolean(paired),
            "Bonded": dbus.Boolean(paired),
            "Connected": dbus.Boolean(False),
            "Trusted": dbus.Boolean(trusted),
            "Blocked": dbus.Boolean(False),
            "WakeAllowed": dbus.Boolean(False),
            "Adapter": dbus.ObjectPath(adapter_path),
            "LegacyPairing": dbus.Boolean(False),
            "RSSI": dbus.Int16(rssi),
            "TxPower": dbus.Int16(0),
            # BlueZ types these as dictionaries (the stock template uses arrays).
            "ManufacturerData": dbus.Dictionary({}, signature="qv"),
            "ServiceData": dbus.Dictionary({}, signature="sv"),
            "ServicesResolved": dbus.Boolean(False),
            "AdvertisingFlags": dbus.Array([dbus.Byte(6)], signature="y"),
            "AdvertisingData": dbus.Dictionary({}, signature="yv"),
        }
        manager = emulator.manager()
        manager.AddObject(self.path, DEVICE_IFACE, props, [], mock_class=DeviceObject)
        self.obj = mockobject.objects[self.path]
        self.obj.perc = self
        emulator.interfaces_added(self.path, self.obj.props)

    def spec(self):
        return (self.address, self.name, self.profile, self.rssi,
                bool(self.obj.props[DEVICE_IFACE]["Paired"]), bool(self.obj.props[DEVICE_IFACE]["Trusted"]))

    def set_props(self, changed, announce=True):
        for k, v in changed.items():
            self.obj.props[DEVICE_IFACE][k] = v
        if announce:
            self.emulator.props_changed(self.path, DEVICE_IFACE, changed)

    # -- GATT --
    def add_gatt(self):
        if self.gatt_paths:
            return  # BlueZ's GATT cache keeps them across disconnects
        manager = self.emulator.manager()
        for shandle, suuid, chars in PROFILES[self.profile][1]:
            spath = f"{self.path}/service{shandle:04x}"
            manager.AddObject(spath, SERVICE_IFACE, {
                "UUID": dbus.String(suuid), "Primary": dbus.Boolean(True),
                "Device": dbus.ObjectPath(self.path), "Includes": dbus.Array([], signature="o"),
                "Handle": dbus.UInt16(shandle),
            }, [])
            self.gatt_paths.append(spath)
            self.emulator.interfaces_added(spath, mockobject.objects[spath].props)
            for chandle, cuuid, flags, role in chars:
                cpath = f"{spath}/char{chandle:04x}"
                initial = self.initial_value(role)
                manager.AddObject(cpath, CHAR_IFACE, {
                    "UUID": dbus.String(cuuid), "Service": dbus.ObjectPath(spath),
                    "Value": dbus.Array(initial, signature="y"), "Notifying": dbus.Boolean(False),
                    "Flags": dbus.Array(flags, signature="s"), "NotifyAcquired": dbus.Boolean(False),
                    "WriteAcquired": dbus.Boolean(False), "MTU": dbus.UInt16(self.mtu),
                    "Handle": dbus.UInt16(chandle),
                }, [], mock_class=GattCharacteristic)
                ch = mockobject.objects[cpath]
                ch.setup(self.emulator, self, role, flags)
                self.chars[role] = ch
                self.gatt_paths.append(cpath)
                self.emulator.interfaces_added(cpath, ch.props)

    def initial_value(self, role):
        if role == "battery":
            return [87]
        if role == "config":
            return [0xE8, 0x03, 128, 8]  # heartbeat 1000 ms, threshold 128, hysteresis 8
        if role == "sensor":
            return list(self.v1_value(0, 0, False)[:11])
        return []

    def remove_objects(self, announce):
        self.stop_stream()
        for path in reversed(self.gatt_paths + [self.path]):
            obj = mockobject.objects.pop(path, None)
            if obj is not None:
                ifaces = list(obj.props.keys())
                obj.remove_from_connection()
                if announce:
                    self.emulator.interfaces_removed(path, ifaces)
        self.gatt_paths = []
        self.chars = {}

    # -- link --
    def check_connectable(self):
        """The errors bluetoothd answers Connect with."""
        if self.connected:
            raise err("org.bluez.Error.AlreadyConnected", "Already Connected")
        if not self.emulator.adapter_powered(self.adapter_path):
            raise err("org.bluez.Error.NotReady", "Resource Not Ready")
        if not self.in_range:
            if self.auto_connect and self.props_paired():
                raise err("org.bluez.Error.Failed", "Operation already in progress")
            raise err("org.bluez.Error.Failed", "le-connection-abort-by-local")

    def connect(self, resolve_delay_s=0.0):
        self.check_connectable()
        self.connected = True
        self.connects += 1
        if self.connect_unsignalled:
            self.connect_unsignalled = False
            self.set_props({"Connected": dbus.Boolean(True)}, announce=False)
            log(f"{self.address}: connected without a Connected=true signal (ATT before the connection event)")
            resolve_delay_s = max(resolve_delay_s, 0.05)
        else:
            self.set_props({"Connected": dbus.Boolean(True)})
        if resolve_delay_s > 0:
            # After a bluetoothd restart the GATT client resolves the services a moment after
            # Connected=true (the cache is read, then the PERC is asked).
            GLib.timeout_add(int(resolve_delay_s * 1000), self._resolve)
        else:
            self._resolve()

    def _resolve(self):
        if not self.connected or self.dev_props().get("ServicesResolved"):
            return False
        self.add_gatt()
        for path in self.start_sessions:
            if self.start_sessions[path] and path in mockobject.objects:
                mockobject.objects[path]._set_notifying()
        self.set_props({"ServicesResolved": dbus.Boolean(True)})
        return False

    def dev_props(self):
        obj = mockobject.objects.get(self.path)
        return obj.props[DEVICE_IFACE] if obj is not None else {}

    def props_paired(self):
        return bool(self.dev_props().get("Paired", False))

    def schedule_auto_connect(self, delay_s, resolve_delay_s=0.0):
        """bluetoothd's own connect of a paired device that advertises (auto-connect list)."""
        def fire():
            if (self.auto_connect and self.in_range and not self.connected and not self.stale and self.emulator.present
                    and self.props_paired() and self.path in mockobject.objects):
                log(f"{self.address}: auto-connect (bluetoothd's own)")
                self.connect(resolve_delay_s)
            return False
        GLib.timeout_add(int(delay_s * 1000), fire)

    def keep_link_without_gatt(self):
        """The link stays (Connected; a Connect answers ok and does nothing, as 5.66 does for a
        device it has as LE-connected), but its GATT client and subscriptions went with bluetoothd."""
        self.kept_link = True
        self.subscribed.clear()
        for ch in self.chars.values():
            ch.release_socket()
            ch.props[CHAR_IFACE]["Notifying"] = dbus.Boolean(False)
        self.set_props({"ServicesResolved": dbus.Boolean(False)}, announce=False)

    def kernel_drops_kept_link(self):
        if not self.kept_link:
            return
        self.kept_link = False
        present = self.emulator.present
        if self.stale:
            # bluetoothd lost track of it ("No matching connection for device"): nothing is
            # announced, and it stays stale until a Disconnect clears it.
            self.link_lost(announce=False)
            log(f"{self.address}: the kernel dropped the link the killed bluetoothd left; bluetoothd did not notice")
            return
        self.link_lost(announce=present)
        log(f"{self.address}: the kernel dropped the link the killed bluetoothd left")
        if present and self.auto_connect:
            self.schedule_auto_connect(0.05, resolve_delay_s=0.3)

    def link_lost(self, announce=True, local=False):
        if not self.connected:
            return
        # A link lost by anything but our own Disconnect leaves a paired device in the
        # auto-connect list.
        self.auto_connect = not local and self.props_paired()
        self.connected = False
        self.subscribed.clear()
        for ch in self.chars.values():
            ch.release_socket()
            if announce and ch.props[CHAR_IFACE]["Notifying"]:
                ch.props[CHAR_IFACE]["Notifying"] = dbus.Boolean(False)
                self.emulator.props_changed(ch.path, CHAR_IFACE, {"Notifying": dbus.Boolean(False)})
            ch.props[CHAR_IFACE]["Notifying"] = dbus.Boolean(False)
        self.set_props({"ServicesResolved": dbus.Boolean(False)}, announce)
        self.set_props({"Connected": dbus.Boolean(False)}, announce)

    # -- what the host writes --
    def on_write(self, ch, data):
        if ch.role in ("serial", "serial-rx"):
            text = data.decode("ascii", "replace")
            for frame in text.replace("]", "]\n").split("\n"):
                frame = frame.strip()
                if frame.endswith(":s]") and frame.startswith("["):
                    group = frame[1:].split(":")[0]
                    self.subscribed.add(group)

    # -- notifications --
    def sensor_char(self):
        return self.chars.get("sensor") or self.chars.get("serial")

    def v1_value(self, field, light, heartbeat, raw=None):
        flags = (1 if heartbeat else 0) | (2 if raw is not None else 0)
        data = bytes([(1 << 4) | flags])
        data += (self.seq & 0xFFFF).to_bytes(2, "little")
        data += (monotonic_us() & 0xFFFFFFFF).to_bytes(4, "little")
        data += bytes([field & 1, light & 1])
        data += (raw or 0).to_bytes(2, "little")
        return data

    def send(self, data):
        if self.profile == "perc-v1":
            self.last_sensor_value = bytes(data)
        ch = self.sensor_char()
        if ch is None or not self.connected:
            self.unsent += 1
            return False
        if ch.notify(data):
            self.sent += 1
            return True
        self.unsent += 1
        return False

    def send_event(self):
        """One sensor notification of the device's profile (the light sensor toggles)."""
        self.light ^= 1
        if self.profile == "perc-v1":
            data = self.v1_value(1, self.light, False)
            self.seq = (self.seq + 1) & 0xFFFF
            ok = self.send(data)
            if ok:
                # Our own share of the measured latency: device-time stamp → send() returned.
                stamp = int.from_bytes(data[3:7], "little")
                self.emulator.send_costs.append(((monotonic_us() & 0xFFFFFFFF) - stamp) & 0xFFFFFFFF)
            return ok
        return self.send(f"[3:0:{self.light}]".encode())

    def start_stream(self, rate, count):
        self.stop_stream()
        interval = max(1, int(round(1000.0 / rate)))
        state = {"left": count}

        def tick():
            if self.stream is None:
                return False
            self.send_event()
            if count:
                state["left"] -= 1
                if state["left"] <= 0:
                    self.stream = None
                    return False
            return True

        self.stream = GLib.timeout_add(interval, tick)

    def stop_stream(self):
        if self.stream is not None:
            GLib.source_remove(self.stream)
            self.stream = None


class DeviceObject(mockobject.DBusMockObject):
    """Device1 whose methods behave like BlueZ's (and can reply late, fail or vanish)."""

    @dbus.service.method(DEVICE_IFACE, in_signature="", out_signature="",
                         async_callbacks=("reply", "error"))
    def Connect(self, reply, error):
        self.perc.connect_calls += 1
        perc = self.perc
        if perc.stale:
            return reply()  # bluetoothd believes it is connected: "ok", and no Connected=true follows
        if perc.kept_link and not self.props[DEVICE_IFACE].get("Connected"):
            # Real 5.66 after a SIGKILL (harness): a Connect that comes after the restarted
            # bluetoothd published the device but before it read the kernel's links (MGMT Get
            # Connections) is answered ok, and bluetoothd then believes in a link it does not
            # track ("Device … is already connected", later "No matching connection for
            # device"): no Connected=true, until a Disconnect clears it after its 2 s timer.
            perc.stale = True
            log(f"{perc.address}: Connect before bluetoothd read the kernel's links: stale")
            return reply()
        if perc.connect_waits and not perc.in_range and not perc.connected and perc.pending_connect is None:
            # Real bluetoothd 5.66 (harness run 11): a Connect to a PERC that stopped
            # advertising gets no answer until it advertises again or the LE connect times out.
            def give_up():
                if perc.pending_connect is not None:
                    perc.pending_connect = None
                    error(err("org.bluez.Error.Failed", "le-connection-abort-by-local"))
                return False
            perc.pending_connect = (reply, error)
            GLib.timeout_add(20000, give_up)
            return None
        try:
            perc.check_connectable()
        except dbus.exceptions.DBusException as e:
            return error(e)
        # Like bluetoothd 5.66 on the real-BlueZ harness: the reply to Connect reaches the
        # caller before Connected=true does (the PERC saw the link 3 ms after the caller's
        # Connect had returned). The property changes right after the reply.
        def up():
            if not perc.connected and perc.in_range:
                perc.connect()
            return False
        GLib.timeout_add(2, up)
        reply()

    @dbus.service.method(DEVICE_IFACE, in_signature="", out_signature="",
                         async_callbacks=("reply", "error"))
    def Disconnect(self, reply, error):
        perc = self.perc
        perc.disconnect_calls += 1
        if perc.stale:
            # bluetoothd 5.66 believes the link is there: device_request_disconnect arms its
            # DISCONNECT_TIMER (2 s) and answers once the disconnect it then makes completes.
            def clear():
                perc.stale = False
                perc.auto_connect = False
                reply()
                return False
            GLib.timeout_add(STALE_DISCONNECT_MS, clear)
            return
        if not perc.connected:
            # bluetoothd's Disconnect also takes a paired device out of the auto-connect list.
            perc.auto_connect = False
            return error(err("org.bluez.Error.NotConnected", "Not Connected"))
        if perc.kept_link:
            # device_request_disconnect arms DISCONNECT_TIMER (2 s); the kernel may drop the
            # link first.
            def later():
                perc.kept_link = False
                perc.link_lost(announce=True, local=True)
                reply()
                return False
            GLib.timeout_add(STALE_DISCONNECT_MS, later)
            return
        perc.link_lost(announce=True, local=True)
        reply()

    @dbus.service.method(DEVICE_IFACE, in_signature="s", out_signature="")
    def ConnectProfile(self, uuid):
        raise err("org.bluez.Error.NotAvailable", "Operation currently not available")

    @dbus.service.method(DEVICE_IFACE, in_signature="s", out_signature="")
    def DisconnectProfile(self, uuid):
        raise err("org.bluez.Error.NotAvailable", "Operation currently not available")

    @dbus.service.method(DEVICE_IFACE, in_signature="", out_signature="")
    def CancelPairing(self):
        pending = self.perc.pending_pair
        if pending is None:
            raise err("org.bluez.Error.DoesNotExist", "Does Not Exist")
        self.perc.pending_pair = None
        pending[1](err("org.bluez.Error.AuthenticationCanceled", "Authentication Canceled"))

    @dbus.service.method(DEVICE_IFACE, in_signature="", out_signature="",
                         async_callbacks=("reply", "error"))
    def Pair(self, reply, error):
        perc = self.perc
        emulator = perc.emulator
        if self.props[DEVICE_IFACE]["Paired"]:
            return error(err("org.bluez.Error.AlreadyExists", "Already Exists"))
        if perc.pending_pair is not None:
            return error(err("org.bluez.Error.InProgress", "In Progress"))
        mode = perc.pair_mode
        if mode.startswith("error:"):
            return error(err(mode[len("error:"):], "Pairing failed (emulated)"))
        if mode == "hang":
            perc.pending_pair = (reply, error)  # never answers: clients must time out
            return None
        if mode == "vanish":
            # The device disappears mid-pairing; bluetoothd answers only much later.
            perc.pending_pair = (reply, error)
            GLib.timeout_add(50, lambda: emulator.remove_device_path(perc.path) and False)
            return None

        def finish():
            perc.pending_pair = None
            try:
                if not perc.connected:
                    perc.connect()
            except dbus.exceptions.DBusException as e:
                return error(e)
            perc.set_props({"Paired": dbus.Boolean(True), "Bonded": dbus.Boolean(True)})
            reply()

        agent = emulator.agent
        if agent is None:
            return finish()
        perc.pending_pair = (reply, error)
        # Ask the registered agent, as bluetoothd does for a pairing it cannot decide alone.

        def agent_error(e):
            perc.pending_pair = None
            error(err("org.bluez.Error.AuthenticationRejected", f"Authentication Rejected: {e}"))

        sender, path = agent
        def agent_ok(*_):
            perc.agent_approvals += 1
            finish()

        emulator.conn.call_async(sender, path, AGENT_IFACE, "RequestAuthorization", "o",
                                 (dbus.ObjectPath(self.path),), agent_ok, agent_error, timeout=10)
        return None


class Control(dbus.service.Object):
    """The control interface for tests, benchmarks and people."""

    def __init__(self, conn, emulator):
        super().__init__(conn, CONTROL_PATH)
        self.em = emulator
        # dbusmock's global method lookup expects these on every exported object.
        self.methods = {}
        self.interface = CONTROL_IFACE

    @dbus.service.method(CONTROL_IFACE, in_signature="ssssn", out_signature="o")
    def AddPerc(self, adapter, address, name, profile, rssi):
        """Adds a device in range: profile perc-v1 | mtk-serial | nordic-uart | none."""
        return dbus.ObjectPath(self.em.add_perc(adapter, address, name, profile, rssi))

    @dbus.service.method(CONTROL_IFACE, in_signature="s", out_signature="")
    def RemovePerc(self, address):
        self.em.remove_device_path(self.em.device(address).path)

    @dbus.service.method(CONTROL_IFACE, in_signature="ss", out_signature="")
    def SetPairMode(self, address, mode):
        """ok | error:org.bluez.Error.X | vanish | hang."""
        self.em.device(address).pair_mode = mode

    @dbus.service.method(CONTROL_IFACE, in_signature="sb", out_signature="")
    def SetAcquireNotify(self, address, allowed):
        """False makes AcquireNotify fail NotSupported (clients must fall back to StartNotify)."""
        self.em.device(address).acquire_allowed = bool(allowed)

    @dbus.service.method(CONTROL_IFACE, in_signature="sb", out_signature="")
    def SetInRange(self, address, in_range):
        """Out of range: Connect fails with le-connection-abort-by-local; a live link drops."""
        dev = self.em.device(address)
        dev.in_range = bool(in_range)
        if not in_range:
            dev.link_lost(announce=True)
        elif dev.pending_connect is not None:
            reply, _ = dev.pending_connect
            dev.pending_connect = None
            if not dev.connected:
                dev.connect()
            reply()
        elif dev.auto_connect:
            dev.schedule_auto_connect(0.1)

    @dbus.service.method(CONTROL_IFACE, in_signature="sb", out_signature="")
    def SetPaired(self, address, paired):
        """Paired (and bonded) as after `pair`: the device joins bluetoothd's auto-connect list."""
        dev = self.em.device(address)
        dev.set_props({"Paired": dbus.Boolean(bool(paired)), "Bonded": dbus.Boolean(bool(paired))})

    @dbus.service.method(CONTROL_IFACE, in_signature="s", out_signature="")
    def DropLink(self, address):
        dev = self.em.device(address)
        dev.link_lost(announce=True)
        if dev.auto_connect:
            dev.schedule_auto_connect(0.2)

    @dbus.service.method(CONTROL_IFACE, in_signature="s", out_signature="")
    def DropLinkStale(self, address):
        """The link drops and bluetoothd loses track of it (real 5.66 after a fast drop):
        Connect then answers ok with no Connected=true, until a Disconnect."""
        dev = self.em.device(address)
        dev.link_lost(announce=True)
        dev.stale = True

    @dbus.service.method(CONTROL_IFACE, in_signature="s", out_signature="")
    def DropLinkUnsignalled(self, address):
        """The link drops (announced), and the next connect is not signalled (real 5.66 when
        the ATT channel beats the connection event): Connected reads true, no
        PropertiesChanged says so; the services resolve and that is signalled."""
        dev = self.em.device(address)
        dev.link_lost(announce=True)
        dev.connect_unsignalled = True

    @dbus.service.method(CONTROL_IFACE, in_signature="sb", out_signature="")
    def SetConnectWaits(self, address, waits):
        """True: a Connect while the device is out of range gets no answer until it is in
        range again (then it connects) or 20 s pass (le-connection-abort-by-local)."""
        self.em.device(address).connect_waits = bool(waits)

    @dbus.service.method(CONTROL_IFACE, in_signature="sb", out_signature="")
    def SetPowered(self, name, powered):
        """`btmgmt power off|on` on adapter `name`."""
        self.em.set_powered(name, bool(powered))

    @dbus.service.method(CONTROL_IFACE, in_signature="sdu", out_signature="")
    def StartStream(self, address, rate, count):
        """Sensor notifications at `rate` Hz (count 0: until StopStream). PERC v1 values carry
        CLOCK_MONOTONIC microseconds mod 2^32 as device time, so latency can be measured."""
        self.em.device(address).start_stream(float(rate), int(count))

    @dbus.service.method(CONTROL_IFACE, in_signature="du", out_signature="")
    def StartStreamAll(self, rate, count):
        """Every PERC streams, all in step (one burst of notifications per period)."""
        self.em.send_costs = []
        for dev in self.em.devices.values():
            if dev.profile != "none":
                dev.start_stream(float(rate), int(count))

    @dbus.service.method(CONTROL_IFACE, in_signature="du", out_signature="")
    def StartStreamAllStaggered(self, rate, count):
        """Every PERC streams, their phases spread evenly over one period (ms steps), as a radio
        that serves one link's connection event at a time delivers them."""
        self.em.send_costs = []
        devs = [d for d in self.em.devices.values() if d.profile != "none"]
        period_ms = 1000.0 / float(rate)
        for i, dev in enumerate(devs):
            offset = int(round(i * period_ms / max(1, len(devs))))
            if offset == 0:
                dev.start_stream(float(rate), int(count))
            else:
                GLib.timeout_add(offset, lambda dev=dev: dev.start_stream(float(rate), int(count)) and False)

    @dbus.service.method(CONTROL_IFACE, in_signature="", out_signature="au")
    def SendCosts(self):
        """µs from each PERC v1 notification's device-time stamp to its send() returning, since
        the last StartStreamAll*: the emulator's own share of the measured latency."""
        return dbus.Array(self.em.send_costs, signature="u")

    @dbus.service.method(CONTROL_IFACE, in_signature="s", out_signature="")
    def StopStream(self, address):
        self.em.device(address).stop_stream()

    @dbus.service.method(CONTROL_IFACE, in_signature="syyq", out_signature="b")
    def SendV1(self, address, field, light, raw):
        """One PERC v1 sensor notification with these sensor values."""
        dev = self.em.device(address)
        data = dev.v1_value(field, light, False, raw if raw else None)
        dev.seq = (dev.seq + 1) & 0xFFFF
        return dev.send(data)

    @dbus.service.method(CONTROL_IFACE, in_signature="s", out_signature="b")
    def SendHeartbeat(self, address):
        dev = self.em.device(address)
        data = dev.v1_value(1, dev.light, True)
        dev.seq = (dev.seq + 1) & 0xFFFF
        return dev.send(data)

    @dbus.service.method(CONTROL_IFACE, in_signature="sq", out_signature="")
    def DropSequence(self, address, n):
        """The next notification's sequence number jumps by n (n notifications lost on air)."""
        dev = self.em.device(address)
        dev.seq = (dev.seq + int(n)) & 0xFFFF

    @dbus.service.method(CONTROL_IFACE, in_signature="sq", out_signature="")
    def SetSequence(self, address, seq):
        self.em.device(address).seq = int(seq) & 0xFFFF

    @dbus.service.method(CONTROL_IFACE, in_signature="say", out_signature="b")
    def SendRaw(self, address, value):
        """Any bytes as one notification on the sensor (or serial) characteristic."""
        return self.em.device(address).send(bytes(value))

    @dbus.service.method(CONTROL_IFACE, in_signature="ssu", out_signature="u")
    def SendMtk(self, address, text, chunk):
        """MTK serial text split into notifications of `chunk` bytes (0: all in one)."""
        dev = self.em.device(address)
        data = text.encode("ascii")
        size = int(chunk) or len(data)
        parts = [data[i:i + size] for i in range(0, len(data), size)]
        return sum(1 for p in parts if dev.send(p))

    @dbus.service.method(CONTROL_IFACE, in_signature="sn", out_signature="b")
    def SetRSSI(self, address, rssi):
        """New RSSI (dBm); announced only while the adapter discovers (returns whether it was)."""
        return self.em.set_rssi(address, rssi)

    @dbus.service.method(CONTROL_IFACE, in_signature="sy", out_signature="b")
    def SetBattery(self, address, level):
        ch = self.em.device(address).chars.get("battery")
        return bool(ch and ch.notify(bytes([level])))

    @dbus.service.method(CONTROL_IFACE, in_signature="s", out_signature="a{sv}")
    def Stats(self, address):
        dev = self.em.device(address)
        sensor = dev.sensor_char()
        return dbus.Dictionary({
            "connected": dbus.Boolean(dev.connected),
            "connects": dbus.UInt32(dev.connects),
            "connect_calls": dbus.UInt32(dev.connect_calls),
            "disconnect_calls": dbus.UInt32(dev.disconnect_calls),
            "auto_connect": dbus.Boolean(dev.auto_connect),
            "sent": dbus.UInt32(dev.sent),
            "unsent": dbus.UInt32(dev.unsent),
            "acquired": dbus.Boolean(sensor is not None and sensor.notify_sock is not None),
            "start_sessions": dbus.UInt32(sum(len(s) for s in dev.start_sessions.values())),
            "subscribed": dbus.Array(sorted(dev.subscribed), signature="s"),
            "paired": dbus.Boolean(dev.obj.props[DEVICE_IFACE]["Paired"]),
            "trusted": dbus.Boolean(dev.obj.props[DEVICE_IFACE]["Trusted"]),
            "seq": dbus.UInt16(dev.seq),
            "agent_approvals": dbus.UInt32(dev.agent_approvals),
        }, signature="sv")

    @dbus.service.method(CONTROL_IFACE, in_signature="s", out_signature="aay")
    def Writes(self, address):
        """Every value the host wrote to the device's characteristics, in order."""
        dev = self.em.device(address)
        out = []
        for ch in dev.chars.values():
            out.extend(ch.writes)
        return dbus.Array([dbus.ByteArray(w) for w in out], signature="ay")

    @dbus.service.method(CONTROL_IFACE, in_signature="s", out_signature="")
    def UnplugAdapter(self, name):
        self.em.unplug_adapter(name)

    @dbus.service.method(CONTROL_IFACE, in_signature="sb", out_signature="")
    def PlugAdapter(self, name, powered):
        self.em.plug_adapter(name, bool(powered))

    @dbus.service.method(CONTROL_IFACE, in_signature="d", out_signature="")
    def Vanish(self, seconds):
        """bluetoothd goes away (releases org.bluez); back after `seconds` (0: on Return)."""
        self.em.vanish(float(seconds))

    @dbus.service.method(CONTROL_IFACE, in_signature="dd", out_signature="")
    def KillBluetoothd(self, seconds, connected_after):
        """bluetoothd SIGKILLed: gone like Vanish, but connected links stay in the kernel (see
        vanish); back after `seconds` (0: on Return). The new bluetoothd shows a kept link
        Connected `connected_after` s after it took the name (real 5.66: 20 ms in most runs,
        later than a client's 0.3 s grace in one; < 0: never)."""
        self.em.vanish(float(seconds), kernel_keeps_links=True, connected_after_s=float(connected_after))

    @dbus.service.method(CONTROL_IFACE, in_signature="", out_signature="")
    def Return(self):
        self.em.come_back()

    @dbus.service.method(CONTROL_IFACE, in_signature="", out_signature="")
    def Quit(self):
        GLib.timeout_add(10, lambda: os._exit(0))


def patch_agent_manager(emulator):
    """RegisterAgent that remembers who registered (so Pair can ask the agent).

    dbusmock looks methods up in obj.methods first; ours need the caller's bus name, which
    its code methods cannot get, so we drop those and serve the interface from a class."""
    bluez = mockobject.objects["/org/bluez"]
    for name in ("RegisterAgent", "UnregisterAgent", "RequestDefaultAgent"):
        bluez.methods[AGENT_MANAGER_IFACE].pop(name, None)
    bluez.__class__ = AgentManagerObject
    bluez.emulator = emulator


class AgentManagerObject(mockobject.DBusMockObject):
    @dbus.service.method(AGENT_MANAGER_IFACE, in_signature="os", out_signature="", sender_keyword="sender")
    def RegisterAgent(self, path, capability, sender=None):
        if capability not in ("", "DisplayOnly", "DisplayYesNo", "KeyboardOnly", "NoInputNoOutput", "KeyboardDisplay"):
            raise err("org.bluez.Error.InvalidArguments", "Invalid Arguments")
        if self.emulator.agent is not None and self.emulator.agent[0] == sender:
            raise err("org.bluez.Error.AlreadyExists", "Already Exists")
        self.emulator.agent = (sender, str(path))
        self.emulator.watch_client(sender)
        self.emulator.agent_capability = capability

    @dbus.service.method(AGENT_MANAGER_IFACE, in_signature="o", out_signature="", sender_keyword="sender")
    def UnregisterAgent(self, path, sender=None):
        if self.emulator.agent is None or self.emulator.agent != (sender, str(path)):
            raise err("org.bluez.Error.DoesNotExist", "Does Not Exist")
        self.emulator.agent = None

    @dbus.service.method(AGENT_MANAGER_IFACE, in_signature="o", out_signature="", sender_keyword="sender")
    def RequestDefaultAgent(self, path, sender=None):
        if self.emulator.agent is None or self.emulator.agent != (sender, str(path)):
            raise err("org.bluez.Error.DoesNotExist", "Does Not Exist")


def parse_perc(text):
    parts = text.split(",")
    if len(parts) < 3:
        raise argparse.ArgumentTypeError("--perc wants ADDRESS,NAME,PROFILE[,RSSI]")
    rssi = int(parts[3]) if len(parts) > 3 else -60
    return parts[0], parts[1], parts[2], rssi


def main():
    ap = argparse.ArgumentParser(description="BlueZ emulator with PERC tangibles (see README.md).")
    ap.add_argument("--bus", help="bus address (default: $DBUS_SESSION_BUS_ADDRESS; 'system' for the system bus)")
    ap.add_argument("--adapter", action="append", default=None, help="adapter name, e.g. hci0 (repeatable)")
    ap.add_argument("--perc", action="append", type=parse_perc, default=[],
                    help="ADDRESS,NAME,PROFILE[,RSSI] on the first adapter (repeatable)")
    ap.add_argument("--log", default=os.devnull, help="dbusmock call log file")
    args = ap.parse_args()
    # A parent may have spawned us with signals blocked (Swift's Process does): unblock them
    # so that SIGTERM ends us.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))

    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    if args.bus == "system":
        conn = dbus.SystemBus()
    elif args.bus:
        conn = dbus.bus.BusConnection(args.bus)
    else:
        conn = dbus.SessionBus()

    control_name = dbus.service.BusName(CONTROL_NAME, conn, do_not_queue=True)
    bus_name = dbus.service.BusName(BLUEZ, conn, do_not_queue=True)
    main_object = mockobject.DBusMockObject(bus_name, "/", OM_IFACE, {}, args.log, True)
    mockobject.objects["/"] = main_object
    main_object.AddTemplate("bluez5", {"enable_advertise_api": False, "enable_monitor_api": False})
    emulator = Emulator(conn, bus_name, args.log)
    patch_agent_manager(emulator)
    Control(conn, emulator)

    adapters = args.adapter or ["hci0"]
    for name in adapters:
        emulator.add_adapter(name)
    for address, name, profile, rssi in args.perc:
        emulator.add_perc(adapters[0], address, name, profile, rssi)

    loop = GLib.MainLoop()
    conn.add_signal_receiver(lambda: loop.quit(), signal_name="Disconnected",
                             path="/org/freedesktop/DBus/Local", dbus_interface="org.freedesktop.DBus.Local")
    print(f"ready {conn.get_unique_name()}", flush=True)
    loop.run()
    _ = (control_name, dbusmock)


if __name__ == "__main__":
    main()
