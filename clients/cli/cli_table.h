/*
 * cli_table: the human-readable tables of `launchrank rank --table` and
 * `launchrank devices --table`. They are printers only: they read the response JSON
 * that protocol/api.h returns (the same text the JSON output shows) and never
 * compute a figure themselves, so the table and the JSON cannot disagree.
 */
#ifndef CLI_TABLE_H
#define CLI_TABLE_H

#include <stdio.h>

/* Prints the ranked configurations of a rank response (rank, block, folding,
 * predicted GLup/s, limiter, volumes in B/Lup, L1 cycles), then the configurations
 * that cannot be launched, and the evaluated/cached counts. Those that cannot be
 * launched are one line (how many, and the most common reason with an example) unless
 * all_unlaunchable, which lists each with its reason. json is borrowed.
 * Returns 0, or -1 when json is not a rank response (nothing printed then). */
int cli_table_rank(FILE *out, const char *json, int all_unlaunchable);

/* Prints one line per device (name, SMs, clock, L2 size and bandwidth, DRAM
 * bandwidth) of a devices response, or of a single device response. json is
 * borrowed. Returns 0, or -1 when json holds no device (nothing printed then). */
int cli_table_devices(FILE *out, const char *json);

#endif
