// The Wayland edge of `percbridge overlay`: libwayland-client (core protocol) and what its
// shared-memory buffers need. Only Sources/PercOverlay/Wayland imports this module (and the
// overlay's Wayland tests, as a second client).
#ifndef PERCBRIDGE_CWAYLAND_SHIM_H
#define PERCBRIDGE_CWAYLAND_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <wayland-client.h>

// wl_registry_bind needs the address of the interface description itself (the proxy keeps it to
// decode events); Swift would hand over the address of a copy, so C gives out the real ones.
static inline const struct wl_interface *percbridge_wl_compositor_interface(void) { return &wl_compositor_interface; }
static inline const struct wl_interface *percbridge_wl_shm_interface(void) { return &wl_shm_interface; }
static inline const struct wl_interface *percbridge_wl_output_interface(void) { return &wl_output_interface; }
static inline const struct wl_interface *percbridge_wl_seat_interface(void) { return &wl_seat_interface; }

// An anonymous file for a wl_shm pool (memfd_create through syscall: the glibc wrapper needs
// _GNU_SOURCE, which a module header cannot set for the system headers). 1 = MFD_CLOEXEC.
static inline int percbridge_memfd_create(const char *name) {
    return (int)syscall(SYS_memfd_create, name, 1u);
}

// libwayland-client writes its own lines to stderr ("error: XDG_RUNTIME_DIR is invalid or not set
// in the environment."); the overlay says what went wrong in one line of its own instead.
static void percbridge_wl_log_nothing(const char *format, va_list args) { (void)format; (void)args; }
static inline void percbridge_wl_silence_log(void) { wl_log_set_handler_client(percbridge_wl_log_nothing); }

static inline int percbridge_wl_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}
#endif
