/*
 * request_memory: the memory estimate of protocol/reqmem.c beside the peak memory a
 * request really takes. For each request file it prints the estimate for THREADS
 * computing threads and the peak RSS of `launchrank rank|estimate FILE --threads
 * THREADS` (a ranking when the request has no "launch"), minus that of BASELINE (a
 * trivial estimate): what the estimate must stay above. Not a test: the figures
 * depend on the machine and its malloc.
 *
 *   request_memory LAUNCHRANK THREADS BASELINE FILE...
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#include "api.h"
#include "reqmem.h"
#include "request.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n)
        buf[*len = (size_t)n] = 0;
    else {
        free(buf);
        buf = NULL;
    }
    if (f)
        fclose(f);
    return buf;
}

/* Peak RSS in KiB of launchrank CMD FILE --threads T (its output dropped); -1 on error. */
static long peak_kib(const char *lr, const char *cmd, const char *file, const char *threads)
{
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        if (strcmp(cmd, "rank") == 0)
            execl(lr, lr, cmd, file, "--threads", threads, "--time-limit", "3600",
                  "--max-request-mb", "0", (char *)NULL);
        else
            execl(lr, lr, cmd, file, "--max-request-mb", "0", (char *)NULL);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        return -1;
    return ru.ru_maxrss;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: request_memory LAUNCHRANK THREADS BASELINE FILE...\n");
        return 2;
    }
    lr_error err;
    lr_error_clear(&err);
    lr_api_config cfg = {.threads = 1};
    lr_api *api = lr_api_new(&cfg, &err);
    if (!api) {
        fprintf(stderr, "request_memory: %s\n", err.message);
        return 1;
    }
    unsigned threads = (unsigned)atoi(argv[2]);
    long base = peak_kib(argv[1], "estimate", argv[3], argv[2]);
    printf("baseline %s: %.1f MiB peak RSS\n", argv[3], base / 1024.0);
    printf("%-28s %8s %7s %6s %12s %12s %6s\n", "request", "bytes", "configs", "fields",
           "estimate MiB", "measured MiB", "ratio");
    for (int i = 4; i < argc; i++) {
        size_t len = 0;
        char *body = slurp(argv[i], &len);
        cJSON *j = body ? cJSON_Parse(body) : NULL;
        int rank = j && !cJSON_GetObjectItemCaseSensitive(j, "launch");
        cJSON_Delete(j);
        lr_request req;
        lr_error_clear(&err);
        if (!body || lr_request_parse(lr_api_device_list(api), body, len,
                                      rank ? LR_REQ_RANK : LR_REQ_ESTIMATE, &req, &err)) {
            printf("%-28s cannot be read: %s\n", argv[i], body ? err.message : "no file");
            free(body);
            continue;
        }
        double est = lr_request_memory_bytes(&req, threads) / 1048576.0;
        long peak = peak_kib(argv[1], rank ? "rank" : "estimate", argv[i], argv[2]);
        double got = (peak - base) / 1024.0;
        const char *name = strrchr(argv[i], '/');
        printf("%-28s %8zu %7zu %6d %12.1f %12.1f %6.2f\n", name ? name + 1 : argv[i], len,
               rank ? req.nspace : 1, est_kernel_field_count(req.kernel), est,
               peak < 0 ? -1 : got, peak < 0 || got <= 0 ? 0 : est / got);
        fflush(stdout);
        lr_request_release(&req);
        free(body);
    }
    lr_api_free(api);
    return 0;
}
