/*
 * devices: the built-in GPUs (the JSON files in estimator/devices/, embedded at build time) and
 * the JSON form of a device, in both directions. A request's "device" is a built-in
 * name, an object {"base": NAME, ...figures to override}, or a full description.
 * Devices that users stored (`launchrank devices add`) are added after the built-ins
 * with lr_devices_add and are then found by name like them.
 */
#ifndef LR_DEVICES_H
#define LR_DEVICES_H

#include <cjson/cJSON.h>

#include "device.h"
#include "lr_error.h"

typedef struct lr_devices lr_devices;

/* Parses the embedded device files. NULL with err set if one is broken (a build
 * error in practice). Free with lr_devices_free. */
lr_devices *lr_devices_load(lr_error *err);
void lr_devices_free(lr_devices *d);

/* Appends dev (already checked, e.g. by lr_device_from_json) as a stored device with
 * its provenance sources (taken: d owns it from now on, also on error; may be NULL).
 * Refuses a name d has already, in any case (LR_INVALID_REQUEST, path "name"). Pointers
 * returned by lr_devices_get and lr_devices_find before the call become invalid.
 * 0 or -1 with err. */
int lr_devices_add(lr_devices *d, const est_device *dev, cJSON *sources, lr_error *err);

int lr_devices_count(const lr_devices *d);
const est_device *lr_devices_get(const lr_devices *d, int i);
/* 1 when device i was added with lr_devices_add, 0 for a built-in. */
int lr_devices_is_stored(const lr_devices *d, int i);
/* The index of the device of that name (exact, case-insensitive), or -1. */
int lr_devices_index(const lr_devices *d, const char *name);
/* The device of that name (exact, case-insensitive), built-in or stored, or NULL. */
const est_device *lr_devices_find(const lr_devices *d, const char *name);

/* Reads a request's "device" value (at JSON path path) into *out. 0 or -1 with err. */
int lr_device_from_json(const lr_devices *d, const cJSON *v, const char *path, est_device *out,
                        lr_error *err);

/* When v (a request's "device" value) names a device of d: the text of
 * lr_device_to_json(NULL, that device, 0), printed once when d got the device (owned by
 * d); else NULL (a device object: print its lr_device_to_json). */
const char *lr_device_canonical_text(const lr_devices *d, const cJSON *v);

/* The word of a provenance in device objects and answers: "measured", "derived" or
 * "borrowed" (static). */
const char *lr_provenance_name(est_provenance p);
/* What a prediction on a device of that provenance is worth, one sentence (static). */
const char *lr_provenance_meaning(est_provenance p);

/* The device as a JSON object with every figure (caller owns the result; NULL on
 * allocation failure). with_sources adds what GET /v1/devices shows: "stored" (whether
 * d has dev's name as a stored device), "units" and the provenance of the figures. */
cJSON *lr_device_to_json(const lr_devices *d, const est_device *dev, int with_sources);

#endif
