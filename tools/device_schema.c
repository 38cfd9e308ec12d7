/*
 * device_schema: build-time tool that writes schema/device.json from its template
 * (estimator/device_schema.json.in) and estimator/params.def, so that a model parameter
 * is declared once: the template holds the device's other figures, and each marker line of it
 * becomes one entry per row of params.def, in the table's order:
 *   @PARAMS_REQUEST@    the row as a property of a request's device (bounds, meaning,
 *                       how it is determined, the default)
 *   @PARAMS_DESCRIBED@  the row as a property of a device the server describes
 *   @PARAMS_NAMES@      the row's name, as an item of a "required" list
 *   @PARAMS_UNITS@      the row's entry in a described device's "units"
 * A marker line's indentation is the entries', and a comma after the marker follows every
 * entry; without it, the last entry has none.
 *   device_schema OUTPUT TEMPLATE
 * The committed schema/device.json is this output (tests/schema holds them equal).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"

typedef struct row {
    const char *name;
    est_mparam_kind kind;
    double h100, lo, hi;
    int lo_open, hi_open;
    const char *must, *doc;
} row;

static const row rows[] = {
#define EST_PARAM(n, kind, h100, lo, lo_open, hi, hi_open, must, unit, doc)                    \
    {#n, kind, h100, lo, hi, lo_open, hi_open, must, doc},
#include "params.def"
#undef EST_PARAM
};
enum { NROWS = sizeof rows / sizeof rows[0] };

/* How each kind of row is determined, as the schema says it. */
static const char *determined(est_mparam_kind kind)
{
    switch (kind) {
    case EST_FITTED:
        return "Fitted on measured kernels (launchrank calibrate, launchrank fit).";
    case EST_HELD:
        return "Held at the base device's by a fit unless it is told to fit it "
               "(estimator/params.def says why).";
    case EST_MEASURED:
        return "Measured by launchrank calibrate (size scans), not fitted.";
    case EST_RANKING:
        return "Measured by tests/accuracy/accuracy on a corpus (docs/accuracy.md, "
               "\\\"Rank precision\\\"), not fitted.";
    }
    return "";
}

/* v as JSON writes it: an integer below 10^7 in full, else the shortest %g that reads
 * back as v. */
static const char *number(double v, char *buf, size_t size)
{
    if (v == (double)(long long)v && v > -1e7 && v < 1e7) {
        snprintf(buf, size, "%lld", (long long)v);
        return buf;
    }
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

/* s as the body of a JSON string (params.def's texts are ASCII). */
static void string_body(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        fputc(*s, out);
    }
}

static void property(FILE *out, const char *ind, const row *r, int with_default)
{
    char lo[32], hi[32], h100[32];
    fprintf(out, "%s\"%s\": {\n%s  \"type\": \"number\",\n%s  \"description\": \"", ind,
            r->name, ind, ind);
    /* "must be in [0, 1)" as a sentence of its own */
    string_body(out, r->doc);
    fprintf(out, " %c", toupper((unsigned char)r->must[0]));
    string_body(out, r->must + 1);
    fprintf(out, ". %s", determined(r->kind));
    if (with_default)
        fprintf(out, " Default: the base device's, else the H100's %s (estimator/params.def).",
                number(r->h100, h100, sizeof h100));
    fprintf(out, "\",\n%s  \"%s\": %s,\n%s  \"%s\": %s\n%s}", ind,
            r->lo_open ? "exclusiveMinimum" : "minimum", number(r->lo, lo, sizeof lo), ind,
            r->hi_open ? "exclusiveMaximum" : "maximum", number(r->hi, hi, sizeof hi), ind);
}

/* The entries of marker for every row, indented by ind; comma: after the last too. */
static void expand(FILE *out, const char *marker, const char *ind, int comma)
{
    for (int i = 0; i < NROWS; i++) {
        const row *r = &rows[i];
        if (!strcmp(marker, "@PARAMS_REQUEST@"))
            property(out, ind, r, 1);
        else if (!strcmp(marker, "@PARAMS_DESCRIBED@"))
            property(out, ind, r, 0);
        else if (!strcmp(marker, "@PARAMS_NAMES@"))
            fprintf(out, "%s\"%s\"", ind, r->name);
        else
            fprintf(out,
                    "%s\"%s\": {\n%s  \"type\": \"string\",\n%s  \"description\": \"Unit of "
                    "%s.\"\n%s}",
                    ind, r->name, ind, ind, r->name, ind);
        fputs(comma || i + 1 < NROWS ? ",\n" : "\n", out);
    }
}

/* The marker a template line holds (NULL: none), its indentation into ind and whether a
 * comma follows it. */
static const char *marker_of(const char *line, char *ind, size_t size, int *comma)
{
    static const char *const markers[] = {"@PARAMS_REQUEST@", "@PARAMS_DESCRIBED@",
                                          "@PARAMS_NAMES@", "@PARAMS_UNITS@"};
    size_t n = strspn(line, " ");
    for (size_t m = 0; m < sizeof markers / sizeof markers[0]; m++) {
        size_t len = strlen(markers[m]);
        if (strncmp(line + n, markers[m], len) || n >= size)
            continue;
        memcpy(ind, line, n);
        ind[n] = '\0';
        *comma = line[n + len] == ',';
        return markers[m];
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: device_schema OUTPUT TEMPLATE\n");
        return 2;
    }
    FILE *in = fopen(argv[2], "r");
    FILE *out = in ? fopen(argv[1], "w") : NULL;
    if (!out) {
        perror(in ? argv[1] : argv[2]);
        return 1;
    }
    char line[16384], ind[64];
    int comma, expanded = 0;
    while (fgets(line, sizeof line, in)) {
        const char *marker = marker_of(line, ind, sizeof ind, &comma);
        if (marker) {
            expand(out, marker, ind, comma);
            expanded++;
        } else {
            fputs(line, out);
        }
    }
    fclose(in);
    if (fclose(out) || !expanded) {
        fprintf(stderr, "device_schema: %s\n", expanded ? "write failed" : "no marker");
        return 1;
    }
    return 0;
}
