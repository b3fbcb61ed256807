// The only C edge of PercBridge: libdbus-1 and libsystemd.
// Only Sources/PercSystem (the DBus* files and the sd-* wrappers) import this module.
#ifndef PERCBRIDGE_CDBUS_SHIM_H
#define PERCBRIDGE_CDBUS_SHIM_H
#include <dbus/dbus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <systemd/sd-device.h>
// The D-Bus event loop wakes its poll() through an eventfd.
#include <sys/eventfd.h>
// The AcquireNotify socket reader waits in epoll (Glibc's Swift module does not export it).
#include <sys/epoll.h>
// bench engine --memory reads the heap in use (Glibc's Swift module leaves out malloc.h).
#include <malloc.h>
// Threads name themselves (Glibc's Swift module leaves out the GNU pthread_setname_np, and
// Foundation's Thread.name set before start() never reached the kernel).
#include <sys/prctl.h>
static inline int percbridge_set_thread_name(const char *name) { return prctl(PR_SET_NAME, name, 0, 0, 0); }
#endif
