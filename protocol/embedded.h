/* embedded: data files compiled into the binary by tools/embed.c. */
#ifndef LR_EMBEDDED_H
#define LR_EMBEDDED_H

typedef struct lr_embedded_file {
    const char *name; /* file name without directory */
    const char *text;
} lr_embedded_file;

extern const lr_embedded_file lr_builtin_device_files[];
extern const unsigned lr_builtin_device_files_count;

#endif
