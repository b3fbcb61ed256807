#!/usr/bin/env python3
# Same-run baseline for `percbridge bench notify`: a Python BlueZ client (dbus-python, as Python tools do it).
"""Subscribes to the Sensor Event characteristic of connected PERC v1 devices through
AcquireNotify (--path fd) or StartNotify (--path signal), measures the latency from the
emulator's send (device time = CLOCK_MONOTONIC µs mod 2^32) to arrival in Python, and
prints one JSON line: {"received": n, "p50_ms": …, "p99_ms": …, "max_ms": …}.
It prints "subscribed" on stdout once every subscription is in place."""

import argparse
import json
import socket
import sys
import time

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

SENSOR = "aee40002-d949-4291-83f3-e445a245d3e5"
CHAR_IFACE = "org.bluez.GattCharacteristic1"


def latency_us(data):
    now = (time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000) & 0xFFFFFFFF
    return (now - int.from_bytes(bytes(data[3:7]), "little")) & 0xFFFFFFFF


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bus", required=True)
    ap.add_argument("--path", choices=["fd", "signal"], required=True)
    ap.add_argument("--seconds", type=float, required=True)
    args = ap.parse_args()
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(args.bus)
    om = bus.get_object("org.bluez", "/")
    objects = om.GetManagedObjects(dbus_interface="org.freedesktop.DBus.ObjectManager")
    chars = [p for p, ifaces in objects.items()
             if CHAR_IFACE in ifaces and str(ifaces[CHAR_IFACE]["UUID"]) == SENSOR]
    samples = []
    loop = GLib.MainLoop()
    keep = []
    for path in chars:
        ch = bus.get_object("org.bluez", path)
        if args.path == "fd":
            fd, _mtu = ch.AcquireNotify(dbus.Dictionary({}, signature="sv"), dbus_interface=CHAR_IFACE)
            sock = socket.socket(fileno=fd.take())
            keep.append(sock)

            def readable(_fd, _cond, sock=sock):
                data = sock.recv(512)
                if not data:
                    return False
                samples.append(latency_us(data))
                return True
            GLib.io_add_watch(sock.fileno(), GLib.IO_IN | GLib.IO_HUP, readable)
        else:
            def changed(iface, props, _inv):
                if iface == CHAR_IFACE and "Value" in props:
                    samples.append(latency_us(props["Value"]))
            bus.add_signal_receiver(changed, "PropertiesChanged", "org.freedesktop.DBus.Properties",
                                    "org.bluez", path)
            ch.StartNotify(dbus_interface=CHAR_IFACE)
    print("subscribed", flush=True)
    GLib.timeout_add(int(args.seconds * 1000), loop.quit)
    loop.run()
    samples.sort()

    def pct(p):
        return samples[min(len(samples) - 1, int(len(samples) * p / 100))] / 1000 if samples else 0

    print(json.dumps({"received": len(samples), "p50_ms": pct(50), "p99_ms": pct(99),
                      "max_ms": (samples[-1] / 1000) if samples else 0}), flush=True)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
