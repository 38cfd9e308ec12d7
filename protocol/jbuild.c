/* jbuild: see jbuild.h. */
#include "jbuild.h"

/* Adds item to o (member key, or array element when key is NULL); takes item. */
static cJSON *attach(jb *b, cJSON *o, const char *key, cJSON *item)
{
    int ok = o && item &&
             (key ? cJSON_AddItemToObject(o, key, item) : cJSON_AddItemToArray(o, item));
    if (!ok) {
        b->failed = 1;
        cJSON_Delete(item);
        return NULL;
    }
    return item;
}

void jb_num(jb *b, cJSON *o, const char *key, double v)
{
    attach(b, o, key, o ? cJSON_CreateNumber(v) : NULL);
}

void jb_str(jb *b, cJSON *o, const char *key, const char *s)
{
    attach(b, o, key, o ? cJSON_CreateString(s) : NULL);
}

void jb_bool(jb *b, cJSON *o, const char *key, int v)
{
    attach(b, o, key, o ? cJSON_CreateBool(v) : NULL);
}

void jb_null(jb *b, cJSON *o, const char *key)
{
    attach(b, o, key, o ? cJSON_CreateNull() : NULL);
}

void jb_raw(jb *b, cJSON *o, const char *key, const char *json)
{
    attach(b, o, key, o ? cJSON_CreateRaw(json) : NULL);
}

cJSON *jb_obj(jb *b, cJSON *o, const char *key)
{
    return attach(b, o, key, o ? cJSON_CreateObject() : NULL);
}

cJSON *jb_arr(jb *b, cJSON *o, const char *key)
{
    return attach(b, o, key, o ? cJSON_CreateArray() : NULL);
}

void jb_item(jb *b, cJSON *o, const char *key, cJSON *item)
{
    attach(b, o, key, item);
}

void jb_set_str(jb *b, cJSON *o, const char *key, const char *s)
{
    cJSON *v = o ? cJSON_CreateString(s) : NULL;
    if (!v || !cJSON_ReplaceItemInObjectCaseSensitive(o, key, v)) {
        b->failed = 1;
        cJSON_Delete(v);
    }
}

void jb_ints(jb *b, cJSON *o, const char *key, const int64_t *v, int n)
{
    cJSON *a = jb_arr(b, o, key);
    for (int i = 0; i < n; i++)
        jb_num(b, a, NULL, (double)v[i]);
}

cJSON *jb_new_obj(jb *b)
{
    cJSON *o = cJSON_CreateObject();
    b->failed |= !o;
    return o;
}

cJSON *jb_new_arr(jb *b)
{
    cJSON *o = cJSON_CreateArray();
    b->failed |= !o;
    return o;
}

cJSON *jb_finish(jb *b, cJSON *root)
{
    if (b->failed || !root) {
        b->failed = 1;
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}
