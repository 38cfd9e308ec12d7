/*
 * devices: the built-in GPUs (the JSON files in estimator/devices/, embedded at build time) and
 * the JSON form of a device, in both directions. A request's "device" is a built-in
 * name, an object {"base": NAME, ...figures to override}, or a full description.
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

int lr_devices_count(const lr_devices *d);
const est_device *lr_devices_get(const lr_devices *d, int i);
/* The built-in device of that name (exact, case-insensitive), or NULL. */
const est_device *lr_devices_find(const lr_devices *d, const char *name);

/* Reads a request's "device" value (at JSON path path) into *out. 0 or -1 with err. */
int lr_device_from_json(const lr_devices *d, const cJSON *v, const char *path, est_device *out,
                        lr_error *err);

/* The device as a JSON object with every figure (caller owns the result; NULL on
 * allocation failure). with_sources adds the provenance of built-in figures. */
cJSON *lr_device_to_json(const lr_devices *d, const est_device *dev, int with_sources);

#endif
