// The X11 edge of `percbridge overlay`: xcb with SHAPE, Present and RandR.
// Only Sources/PercOverlay/X11 imports this module (and the overlay's X11 tests, as a second client).
#ifndef PERCBRIDGE_CXCB_SHIM_H
#define PERCBRIDGE_CXCB_SHIM_H
#include <stdint.h>
#include <stdlib.h>
#include <xcb/xcb.h>
// xcb_poll_for_reply: the no-Present round trip is read without blocking the loop.
#include <xcb/xcbext.h>
#include <xcb/shape.h>
#include <xcb/present.h>
#include <xcb/randr.h>
// The overlay loop wakes its poll() through an eventfd.
#include <sys/eventfd.h>
#include <sys/prctl.h>

// The extension ids are mutable C globals, which Swift 6 refuses to touch; these hand out their
// query results instead (cached by xcb after the first call).
static inline const xcb_query_extension_reply_t *percbridge_xcb_shape_extension(xcb_connection_t *c) {
    return xcb_get_extension_data(c, &xcb_shape_id);
}
static inline const xcb_query_extension_reply_t *percbridge_xcb_present_extension(xcb_connection_t *c) {
    return xcb_get_extension_data(c, &xcb_present_id);
}
static inline const xcb_query_extension_reply_t *percbridge_xcb_randr_extension(xcb_connection_t *c) {
    return xcb_get_extension_data(c, &xcb_randr_id);
}

// A PresentCompleteNotify, read field by field: xcb's struct for it is packed (its 64-bit msc
// follows xcb's inserted full_sequence), a layout Swift does not import reliably.
typedef struct {
    uint8_t kind;
    uint8_t mode;
    uint32_t window;
    uint32_t serial;
    uint64_t ust;
    uint64_t msc;
} percbridge_present_complete_t;

// 1 and `out` filled when `event` is a PresentCompleteNotify of the extension with `opcode`.
static inline int percbridge_present_complete(const xcb_generic_event_t *event, uint8_t opcode,
                                              percbridge_present_complete_t *out) {
    if ((event->response_type & 0x7f) != XCB_GE_GENERIC) return 0;
    const xcb_ge_generic_event_t *ge = (const xcb_ge_generic_event_t *)event;
    if (ge->extension != opcode || ge->event_type != XCB_PRESENT_COMPLETE_NOTIFY) return 0;
    const xcb_present_complete_notify_event_t *c = (const xcb_present_complete_notify_event_t *)event;
    out->kind = c->kind;
    out->mode = c->mode;
    out->window = c->window;
    out->serial = c->serial;
    out->ust = c->ust;
    out->msc = c->msc;
    return 1;
}

// Names the calling thread as top -H shows it (Glibc's Swift module leaves out prctl's constants).
static inline int percbridge_xcb_set_thread_name(const char *name) { return prctl(PR_SET_NAME, name, 0, 0, 0); }
#endif
