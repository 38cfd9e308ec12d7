/*
 * assets.c: the files of the web calculator (web/index.html, app.js, style.css),
 * compiled into the daemon by tools/embed.c (web/meson.build) as the built-in devices
 * are, so the daemon serves its page without a data directory and web/ stays the one
 * source. routes.c answers GET / and GET /web/{file} with them; docs/web.md
 * describes the page.
 */
#include <string.h>

#include "embedded.h"
#include "srv_int.h"

/* Generated from web/ by tools/embed.c (web_data.c). */
extern const lr_embedded_file srv_web_files[];
extern const unsigned srv_web_files_count;

void srv_keep_static(void *text)
{
    (void)text; /* the embedded text lives as long as the program */
}

/* Content-Type by extension. Only text files can be embedded (tools/embed.c writes C
 * strings), so this is the whole list; charset=utf-8 because the files are UTF-8
 * and a browser must not guess. */
static const char *type_of(const char *name)
{
    static const struct {
        const char *ext, *type;
    } types[] = {
        {".html", "text/html; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
    };
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot && i < sizeof types / sizeof types[0]; i++)
        if (strcmp(dot, types[i].ext) == 0)
            return types[i].type;
    return NULL;
}

srv_json srv_asset_find(const char *name)
{
    for (unsigned i = 0; i < srv_web_files_count; i++) {
        const char *type = type_of(srv_web_files[i].name);
        /* A file of a type we cannot name is not served: a browser sniffing it
         * would be worse than a 404. */
        if (type && strcmp(name, srv_web_files[i].name) == 0)
            return (srv_json){(char *)srv_web_files[i].text, srv_keep_static, type, 0, 0};
    }
    return (srv_json){NULL, srv_keep_static, NULL, 0, 0};
}
