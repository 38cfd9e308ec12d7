/*
 * jbuild: JSON building with a sticky out-of-memory flag (issue 10), as SQLite's
 * mallocFailed. cJSON_Add* return NULL when an allocation fails and the tree is left
 * without that member; a response or canonical request built that way would be sent
 * or cached (and, for the canonical request, hashed into a key) with a field silently
 * missing. Every add of a builder goes through one jb context instead: the first
 * failure sets ctx->failed, every later add to a missing parent fails too, and the
 * builder's caller turns a failed build into LR_NO_MEMORY (jb_finish), so nothing
 * half-built leaves the function that built it.
 */
#ifndef LR_JBUILD_H
#define LR_JBUILD_H

#include <cjson/cJSON.h>
#include <stdint.h>

/* One build. Start with jb b = {0}. failed: an add (or a builder it called) failed. */
typedef struct jb {
    int failed;
} jb;

/* Each adds one member key to object o, or one element to array o when key is NULL.
 * o NULL (a container whose creation failed) or an allocation failure sets b->failed;
 * nothing else happens then. jb_obj and jb_arr return the new container (owned by o),
 * NULL on failure. */
void jb_num(jb *b, cJSON *o, const char *key, double v);
void jb_str(jb *b, cJSON *o, const char *key, const char *s);
void jb_bool(jb *b, cJSON *o, const char *key, int v);
void jb_null(jb *b, cJSON *o, const char *key);
/* Adds the text json as it is (cJSON_CreateRaw: printed verbatim, not parsed). */
void jb_raw(jb *b, cJSON *o, const char *key, const char *json);
cJSON *jb_obj(jb *b, cJSON *o, const char *key);
cJSON *jb_arr(jb *b, cJSON *o, const char *key);
/* Adds item (__take: o owns it, or it is deleted on failure); item NULL (a builder
 * that failed) sets b->failed. */
void jb_item(jb *b, cJSON *o, const char *key, cJSON *item);
/* Replaces the value of o's member key by the string s in place (the member keeps its
 * position); o NULL, no such member or an allocation failure sets b->failed. */
void jb_set_str(jb *b, cJSON *o, const char *key, const char *s);
/* An array member key of o holding the n integers v (as JSON numbers). */
void jb_ints(jb *b, cJSON *o, const char *key, const int64_t *v, int n);

/* A new object or array as a build's root; NULL (and b->failed) on failure. */
cJSON *jb_new_obj(jb *b);
cJSON *jb_new_arr(jb *b);

/* The build's result: root (__take) when every add succeeded, otherwise NULL after
 * deleting root. */
cJSON *jb_finish(jb *b, cJSON *root);

#endif
