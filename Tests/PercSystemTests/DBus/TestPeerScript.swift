// The python (dbus-python) peer of the D-Bus tests: echo, errors, silence, fds, properties, signals.

/// Python source of the peer. It owns `org.percbridge.TestPeer` on the bus given as argv[1]
/// and prints READY once it does.
enum TestPeerScript {
    static let source = #"""
import os, sys, time, struct
import dbus, dbus.service, dbus.lowlevel
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(sys.argv[1])
NAME, IFACE, PATH = 'org.percbridge.TestPeer', 'org.percbridge.Test', '/org/percbridge/Test'
PROPS = dbus.PROPERTIES_IFACE
OM = 'org.freedesktop.DBus.ObjectManager'

def echo_filter(conn, msg):
    # Echo: the reply carries exactly the call's arguments and signature.
    if msg.get_type() == 1 and msg.get_member() == 'Echo' and msg.get_interface() == IFACE:
        reply = dbus.lowlevel.MethodReturnMessage(msg)
        args = msg.get_args_list()
        if args:
            reply.append(*args, signature=msg.get_signature())
        conn.send_message(reply)
        return dbus.lowlevel.HANDLER_RESULT_HANDLED
    return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED

bus.add_message_filter(echo_filter)

class Test(dbus.service.Object):
    def __init__(self):
        super().__init__(bus, PATH)
        self.props = {'Name': dbus.String('peer'), 'Level': dbus.UInt32(7)}
        self.objects = {}
        self.held = []

    @dbus.service.method(IFACE, in_signature='ss')
    def Fail(self, name, message):
        raise dbus.exceptions.DBusException(message, name=name)

    @dbus.service.method(IFACE, in_signature='', out_signature='', async_callbacks=('ok', 'err'))
    def Never(self, ok, err):
        self.held.append((ok, err))

    @dbus.service.method(IFACE, in_signature='', out_signature='s')
    def WrongType(self):
        return 'a string where callers expect something else'

    @dbus.service.method(IFACE, in_signature='', out_signature='h')
    def OpenFd(self):
        r, w = os.pipe()
        os.write(w, b'hello over fd')
        os.close(w)
        fd = dbus.types.UnixFd(r)
        os.close(r)
        return fd

    @dbus.service.method(IFACE, in_signature='h', out_signature='s')
    def ReadFd(self, fd):
        f = fd.take()
        data = os.read(f, 100)
        os.close(f)
        return data.decode()

    @dbus.service.method(IFACE, in_signature='ouu', out_signature='')
    def Notify(self, path, count, interval_us):
        # GATT-like notifications: PropertiesChanged(Value=ay) whose first 8 bytes are
        # CLOCK_MONOTONIC ns at send time, then a 4-byte sequence number.
        for seq in range(count):
            msg = dbus.lowlevel.SignalMessage(path, PROPS, 'PropertiesChanged')
            payload = struct.pack('<QI', time.monotonic_ns(), seq)
            msg.append('org.bluez.GattCharacteristic1', {'Value': dbus.Array(payload, signature='y')},
                       dbus.Array([], signature='s'), signature='sa{sv}as')
            bus.send_message(msg)
            bus.flush()
            if interval_us:
                time.sleep(interval_us / 1e6)

    @dbus.service.method(IFACE, in_signature='sosssav', out_signature='av')
    def Relay(self, mode, path, dest, iface, member, args):
        # Calls back into a Swift object: 'raw' sends the args as they are, 'proxy' goes
        # through an introspected dbus-python proxy (tests our Introspect XML).
        if mode == 'proxy':
            obj = bus.get_object(dest, path)
            result = getattr(dbus.Interface(obj, iface), member)(*args, timeout=120)
        else:
            obj = bus.get_object(dest, path, introspect=False)
            result = obj.get_dbus_method(member, iface)(*args, timeout=120)
        if result is None:
            return dbus.Array([], signature='v')
        if isinstance(result, tuple):
            return dbus.Array(list(result), signature='v')
        return dbus.Array([result], signature='v')

    @dbus.service.method(PROPS, in_signature='ss', out_signature='v')
    def Get(self, iface, name):
        return self.props[name]

    @dbus.service.method(PROPS, in_signature='s', out_signature='a{sv}')
    def GetAll(self, iface):
        return dbus.Dictionary(self.props, signature='sv')

    @dbus.service.method(PROPS, in_signature='ssv')
    def Set(self, iface, name, value):
        if name != 'Level':
            raise dbus.exceptions.DBusException('Name is read-only', name='org.freedesktop.DBus.Error.PropertyReadOnly')
        self.props[name] = dbus.UInt32(value)
        self.PropertiesChanged(IFACE, {name: self.props[name]}, dbus.Array([], signature='s'))

    @dbus.service.signal(PROPS, signature='sa{sv}as')
    def PropertiesChanged(self, iface, changed, invalidated):
        pass

    @dbus.service.method(IFACE, in_signature='o')
    def AddObject(self, path):
        self.objects[path] = {IFACE: {'Name': dbus.String(path.split('/')[-1])}}
        msg = dbus.lowlevel.SignalMessage('/', OM, 'InterfacesAdded')
        msg.append(path, self.objects[path], signature='oa{sa{sv}}')
        bus.send_message(msg)

    @dbus.service.method(IFACE, in_signature='o')
    def RemoveObject(self, path):
        del self.objects[path]
        msg = dbus.lowlevel.SignalMessage('/', OM, 'InterfacesRemoved')
        msg.append(path, dbus.Array([IFACE], signature='s'), signature='oas')
        bus.send_message(msg)

class Root(dbus.service.Object):
    def __init__(self, test):
        super().__init__(bus, '/')
        self.test = test

    @dbus.service.method(OM, in_signature='', out_signature='a{oa{sa{sv}}}')
    def GetManagedObjects(self):
        return dbus.Dictionary(self.test.objects, signature='oa{sa{sv}}')

test = Test()
root = Root(test)
bus.request_name(NAME)
print('READY', flush=True)
GLib.MainLoop().run()
"""#
}
