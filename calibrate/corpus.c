/*
 * corpus: reading the corpus's family files (see corpus.h).
 */
#include "corpus.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *corpus_read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        buf[n] = 0;
    fclose(f);
    return buf;
}

static int triple(const cJSON *a, int off, int out[3])
{
    for (int d = 0; d < 3; d++) {
        const cJSON *v = cJSON_GetArrayItem(a, off + d);
        if (!cJSON_IsNumber(v))
            return -1;
        out[d] = v->valueint;
    }
    return 0;
}

int corpus_family_parse(const char *text, const char *path, corpus_family *fam)
{
    memset(fam, 0, sizeof *fam);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    const cJSON *name = cJSON_GetObjectItem(root, "family");
    const cJSON *desc = cJSON_GetObjectItem(root, "description");
    const cJSON *cfgs = cJSON_GetObjectItem(root, "configs");
    if (!cJSON_IsString(name) || !cJSON_IsArray(cfgs)) {
        fprintf(stderr, "corpus: %s: not a family file (family, configs)\n", path);
        cJSON_Delete(root);
        return -1;
    }
    snprintf(fam->name, sizeof fam->name, "%s", name->valuestring);
    snprintf(fam->description, sizeof fam->description, "%s",
             cJSON_IsString(desc) ? desc->valuestring : "");
    cJSON *req = cJSON_CreateObject();
    static const char *const keys[] = {"device", "kernel", "domain"};
    for (int i = 0; i < 3; i++)
        cJSON_AddItemToObject(req, keys[i],
                              cJSON_Duplicate(cJSON_GetObjectItem(root, keys[i]), 1));
    char *r = cJSON_PrintUnformatted(req);
    cJSON_Delete(req);
    fam->request = r;
    if (r)
        r[strlen(r) - 1] = 0; /* drop the closing brace: corpus_body appends members */
    fam->nconfigs = cJSON_GetArraySize(cfgs);
    fam->configs = calloc((size_t)fam->nconfigs + 1, sizeof *fam->configs);
    int bad = !r || !fam->configs;
    for (int i = 0; !bad && i < fam->nconfigs; i++) {
        const cJSON *c = cJSON_GetArrayItem(cfgs, i);
        bad = triple(c, 0, fam->configs[i].block) || triple(c, 3, fam->configs[i].folding);
    }
    cJSON_Delete(root);
    if (bad) {
        fprintf(stderr, "corpus: %s: bad configuration list\n", path);
        corpus_family_release(fam);
        return -1;
    }
    return 0;
}

int corpus_family_load(const char *path, corpus_family *fam)
{
    char *text = corpus_read_text(path);
    if (!text) {
        memset(fam, 0, sizeof *fam);
        fprintf(stderr, "corpus: cannot read %s\n", path);
        return -1;
    }
    int rc = corpus_family_parse(text, path, fam);
    free(text);
    return rc;
}

int corpus_config_index(const corpus_family *fam, const cJSON *block, const cJSON *folding)
{
    int b[3], f[3];
    if (triple(block, 0, b) || triple(folding, 0, f))
        return -1;
    for (int i = 0; i < fam->nconfigs; i++)
        if (!memcmp(fam->configs[i].block, b, sizeof b) &&
            !memcmp(fam->configs[i].folding, f, sizeof f))
            return i;
    return -1;
}

void corpus_family_release(corpus_family *fam)
{
    free(fam->request);
    free(fam->configs);
    memset(fam, 0, sizeof *fam);
}

char *corpus_body(const corpus_family *fam, int i, const char *extra, const char *device,
                  int registers)
{
    const corpus_config *c = &fam->configs[i];
    /* the request is {"device":..,"kernel":{..},"domain":..: the kernel object opens
     * right after its key, and registers go first in it */
    const char *kernel = strstr(fam->request, "\"kernel\":{");
    if (!kernel)
        return NULL;
    int head = (int)(kernel - fam->request) + (int)strlen("\"kernel\":{");
    size_t n = strlen(fam->request) + (extra ? strlen(extra) : 0) +
               (device ? strlen(device) : 0) + 200;
    char *buf = malloc(n);
    if (!buf)
        return NULL;
    char regs[32] = "";
    if (registers > 0)
        snprintf(regs, sizeof regs, "\"registers\":%d,", registers);
    /* a device object is inserted as it is, a name as a string */
    int at = !device         ? snprintf(buf, n, "%.*s", head, fam->request)
             : *device == '{' ? snprintf(buf, n, "{\"device\":%s,\"kernel\":{", device)
                              : snprintf(buf, n, "{\"device\":\"%s\",\"kernel\":{", device);
    snprintf(buf + at, n - (size_t)at,
             "%s%s,\"launch\":{\"block\":[%d,%d,%d],\"folding\":[%d,%d,%d]}%s%s}", regs,
             fam->request + head, c->block[0], c->block[1], c->block[2], c->folding[0],
             c->folding[1], c->folding[2], extra ? "," : "", extra ? extra : "");
    return buf;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **corpus_list(const char *dir, int *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "corpus: cannot read %s\n", dir);
        return NULL;
    }
    char **out = NULL;
    int cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json"))
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 32;
            char **grown = realloc(out, (size_t)cap * sizeof *out);
            if (!grown)
                break;
            out = grown;
        }
        size_t m = strlen(dir) + len + 2;
        out[*n] = malloc(m);
        if (!out[*n])
            break;
        snprintf(out[*n], m, "%s/%s", dir, e->d_name);
        (*n)++;
    }
    closedir(d);
    qsort(out, (size_t)*n, sizeof *out, cmp_str);
    return out;
}

void corpus_list_free(char **paths, int n)
{
    for (int i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
}
