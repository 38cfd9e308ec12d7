/*
 * t4_of_response: prints the T4 results document that `launchrank rank --format t4`
 * writes for a rank response read from a file (cli_t4_from_rank), stamped with a fixed
 * time. tests/cli/test_kernel_tuner.py feeds it responses a machine without a GPU
 * cannot produce (configurations timed, one whose timing failed).
 *
 * Usage: t4_of_response RESPONSE.json TIMESTAMP
 */
#include <stdio.h>
#include <stdlib.h>

#include <cJSON.h>

#include "cli_kt.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: t4_of_response RESPONSE.json TIMESTAMP\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    static char text[1 << 22];
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = 0;
    char why[512];
    cJSON *t4 = cli_t4_from_rank(text, argv[2], NULL, why, sizeof why, NULL);
    if (!t4)
        fprintf(stderr, "t4_of_response: %s\n", why);
    char *out = t4 ? cJSON_PrintUnformatted(t4) : NULL;
    if (out)
        puts(out);
    cJSON_free(out);
    cJSON_Delete(t4);
    return out ? 0 : 1;
}
