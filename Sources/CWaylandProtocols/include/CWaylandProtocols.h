// The overlay's Wayland protocols beyond the core (layer shell, presentation time, xdg-output, xdg-shell and
// virtual pointer for tests): the wayland-scanner output (generated-protocols.h, by
// scripts/gen-wayland-protocols) and the addresses of their interface descriptions.
#ifndef PERCBRIDGE_CWAYLANDPROTOCOLS_H
#define PERCBRIDGE_CWAYLANDPROTOCOLS_H
#include <wayland-client.h>
#include "generated-protocols.h"

// wl_registry_bind needs the address of the interface description itself (the proxy keeps it to
// decode events); Swift would hand over the address of a copy, so C gives out the real ones.
static inline const struct wl_interface *percbridge_zwlr_layer_shell_v1_interface(void) { return &zwlr_layer_shell_v1_interface; }
static inline const struct wl_interface *percbridge_wp_presentation_interface(void) { return &wp_presentation_interface; }
static inline const struct wl_interface *percbridge_xdg_wm_base_interface(void) { return &xdg_wm_base_interface; }
static inline const struct wl_interface *percbridge_zwlr_virtual_pointer_manager_v1_interface(void) { return &zwlr_virtual_pointer_manager_v1_interface; }
static inline const struct wl_interface *percbridge_zxdg_output_manager_v1_interface(void) { return &zxdg_output_manager_v1_interface; }
#endif
