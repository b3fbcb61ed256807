// The Python side of the hotplug test: a umockdev testbed that plugs devices in and out at run time.
import Foundation

/// Run under `umockdev-wrapper` (the driver must be preloaded too, or umockdev cannot send
/// uevents: "uevent_sender_send: No such device"). It starts the command given after the
/// script with the testbed's environment, waits for "following touchscreen hotplug" on its
/// stderr, then: adds a keyboard (not a touchscreen), adds a touchscreen, removes the
/// touchscreen, and prints the child's stdout after `--- child stdout`.
/// `add_device` sends the `add` uevent itself; the `remove` uevent is sent explicitly.
enum HotplugDriverScript {
    static let source = #"""
import os, subprocess, sys, time, threading
import gi
gi.require_version("UMockdev", "1.0")
from gi.repository import UMockdev

tb = UMockdev.Testbed.new()
env = dict(os.environ, LD_PRELOAD="libumockdev-preload.so.0", UMOCKDEV_DIR=tb.get_root_dir())
child = subprocess.Popen(sys.argv[1:], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
err_lines = []
ready = threading.Event()
def read_err():
    for line in child.stderr:
        err_lines.append(line)
        if "following touchscreen hotplug" in line:
            ready.set()
threading.Thread(target=read_err, daemon=True).start()
if not ready.wait(20):
    child.kill()
    print("child never started following:", "".join(err_lines))
    sys.exit(2)
time.sleep(0.2)
parent = tb.add_device("input", "input98", None, ["name", "Test Keyboard"], ["ID_INPUT", "1"])
tb.add_device("input", "event98", parent, ["dev", "13:98"],
              ["DEVNAME", "/dev/input/event98", "ID_INPUT", "1", "ID_INPUT_KEYBOARD", "1"])
parent = tb.add_device("input", "input99", None, ["name", "Hotplug Test Panel"], ["ID_INPUT", "1"])
ts = tb.add_device("input", "event99", parent, ["dev", "13:99"],
                   ["DEVNAME", "/dev/input/event99", "ID_INPUT", "1", "ID_INPUT_TOUCHSCREEN", "1"])
time.sleep(0.3)
tb.uevent(ts, "remove")
tb.remove_device(ts)
out, _ = child.communicate(timeout=20)
print("--- child stdout")
print(out, end="")
print("--- child stderr")
print("".join(err_lines), end="")
"""#
}
