#!/usr/bin/env python3
# Same-run Bleak baseline for `percbridge bench notify`: real Bleak clients on the emulator's bus.
"""Connects one BleakClient per PERC v1 device on the bus (found by its advertised service) (Bleak's own BlueZ backend, with
its dbus-fast connection per client), subscribes to the Sensor Event characteristic through
AcquireNotify (--path fd: bluez={"use_start_notify": False}) or StartNotify (--path signal,
Bleak's default), measures the latency from the emulator's send (device time =
CLOCK_MONOTONIC µs mod 2^32) to Bleak's notification callback, and prints one JSON line:
{"client": "bleak 3.1.0", "received": n, "p50_ms": …, "p99_ms": …, "max_ms": …}.
It prints "subscribed" on stdout once every subscription is in place.
Exits with status 3 when Bleak is not installed (the bench then uses the dbus-python client)."""

import argparse
import asyncio
import json
import os
import sys
import time

SERVICE = "aee40001-d949-4291-83f3-e445a245d3e5"
SENSOR = "aee40002-d949-4291-83f3-e445a245d3e5"
CHAR_IFACE = "org.bluez.GattCharacteristic1"
DEVICE_IFACE = "org.bluez.Device1"


def latency_us(data):
    now = (time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000) & 0xFFFFFFFF
    return (now - int.from_bytes(bytes(data[3:7]), "little")) & 0xFFFFFFFF


async def perc_v1_devices():
    """(path, props) of every PERC v1 device (advertising the service) on the bus."""
    from dbus_fast import BusType, Message
    from dbus_fast.aio import MessageBus
    bus = await MessageBus(bus_type=BusType.SYSTEM).connect()
    try:
        reply = await bus.call(Message(destination="org.bluez", path="/", member="GetManagedObjects",
                                       interface="org.freedesktop.DBus.ObjectManager"))
        objects = reply.body[0]
    finally:
        bus.disconnect()
    found = []
    for path, ifaces in objects.items():
        dev = ifaces.get(DEVICE_IFACE)
        if dev is not None and SERVICE in (dev.get("UUIDs").value if "UUIDs" in dev else []):
            found.append((path, {k: v.value for k, v in dev.items()}))
    return sorted(found)


async def run(args):
    # Bleak talks to "the system bus": point it at the emulator's private bus.
    os.environ["DBUS_SYSTEM_BUS_ADDRESS"] = args.bus
    try:
        import bleak
        from bleak import BleakClient
        from bleak.backends.device import BLEDevice
    except ImportError:
        print("bleak is not installed", file=sys.stderr)
        sys.exit(3)
    from importlib.metadata import version
    samples = []

    def on_value(_char, data):
        samples.append(latency_us(data))

    clients = []
    for path, props in await perc_v1_devices():
        device = BLEDevice(props["Address"], props.get("Name"), {"path": path, "props": props})
        client = BleakClient(device, timeout=20)
        await client.connect()
        char = client.services.get_characteristic(SENSOR)
        await client.start_notify(char, on_value, bluez={"use_start_notify": args.path == "signal"})
        clients.append(client)
    print("subscribed", flush=True)
    await asyncio.sleep(args.seconds)
    received = len(samples)
    for client in clients:
        try:
            await client.disconnect()
        except Exception:  # the bench only wants the figures
            pass
    samples.sort()

    def pct(p):
        return samples[min(len(samples) - 1, int(len(samples) * p / 100))] / 1000 if samples else 0

    print(json.dumps({"client": f"bleak {version('bleak')}", "received": received, "p50_ms": pct(50),
                      "p99_ms": pct(99), "max_ms": (samples[-1] / 1000) if samples else 0}), flush=True)
    del bleak


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bus", required=True)
    ap.add_argument("--path", choices=["fd", "signal"], required=True)
    ap.add_argument("--seconds", type=float, required=True)
    asyncio.run(run(ap.parse_args()))


if __name__ == "__main__":
    main()
