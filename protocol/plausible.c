/*
 * plausible: see plausible.h. The static part looks at accesses written in x, y, z
 * only (their index ranges over the domain follow from the corners of the domain when
 * they are affine); accesses in thread variables depend on the launch and are judged
 * by the volumes the model predicts for each configuration.
 */
#include "plausible.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jbuild.h"

#define MAX_OUTSIDE 8 /* accesses outside their field reported per request */

typedef struct field_info {
    const char *name; /* owned by the kernel */
    int elem_bytes;
    int has_store;
    int load_injective;     /* a load in x, y, z reads a distinct element per lattice point */
    char unfolded_load[64]; /* path of a load in thread variables only, "" if none */
} field_info;

typedef struct outside {
    char path[64];
    char message[320];
} outside;

/* A dimension of the domain that the kernel's accesses do not match. */
typedef struct mismatch {
    char path[64];
    char message[448];
} mismatch;

struct lr_plausible {
    int nfields;
    field_info f[EST_MAX_FIELDS];
    int nmismatch;
    mismatch dim[3]; /* at most one per dimension of the domain */
    int noutside;
    outside out[MAX_OUTSIDE];
};

/* An access whose indices use only x, y, z and are affine: its extremes over the
 * domain lie at the domain's corners. */
static int lattice_affine(const est_kernel *k, int f, int a, int nd)
{
    for (int d = 0; d < nd; d++) {
        const est_expr *e = est_kernel_access_index(k, f, a, d);
        if ((est_expr_uses(e) & ~EST_VARS_LATTICE) || !est_expr_is_affine(e, 0))
            return 0;
    }
    return 1;
}

/* Index d of access a at lattice point p; -1 when it overflows int64. */
static int index_at(const est_kernel *k, int f, int a, int d, const int64_t p[3], int64_t *out)
{
    int64_t val[EST_VAR_COUNT] = {0};
    val[EST_VAR_X] = p[0];
    val[EST_VAR_Y] = p[1];
    val[EST_VAR_Z] = p[2];
    return est_expr_eval_checked(est_kernel_access_index(k, f, a, d), val, out);
}

/* The smallest and largest index d of access a over the domain (corners). */
static int index_range(const est_kernel *k, int f, int a, int d, const int64_t dom[3],
                       int64_t *lo, int64_t *hi)
{
    for (int c = 0; c < 8; c++) {
        int64_t p[3] = {c & 1 ? dom[0] - 1 : 0, c & 2 ? dom[1] - 1 : 0, c & 4 ? dom[2] - 1 : 0},
                v;
        if (index_at(k, f, a, d, p, &v))
            return -1;
        if (c == 0 || v < *lo)
            *lo = v;
        if (c == 0 || v > *hi)
            *hi = v;
    }
    return 0;
}

/* Whether access a (lattice_affine) gives each lattice point of the domain its own
 * element: with the address c0 + cx*x + cy*y + cz*z (in elements), sorted by |c|,
 * each coefficient exceeds the span of the smaller ones (a mixed-radix number).
 * Sufficient, not necessary: an access that fails reads as not injective. */
static int injective(const est_kernel *k, int f, int a, int nd, const int64_t dom[3])
{
    int64_t dims[3], stride[3] = {1, 1, 1}, c[3], base = 0;
    est_kernel_field_dims(k, f, dims);
    stride[1] = dims[0];
    stride[2] = dims[0] * dims[1];
    for (int v = -1; v < 3; v++) {
        int64_t p[3] = {0, 0, 0}, addr = 0, x;
        if (v >= 0)
            p[v] = 1;
        for (int d = 0; d < nd; d++) {
            if (index_at(k, f, a, d, p, &x))
                return 0;
            addr += x * stride[d];
        }
        if (v < 0)
            base = addr;
        else
            c[v] = addr > base ? addr - base : base - addr;
    }
    int order[3] = {0, 1, 2};
    for (int i = 1; i < 3; i++)
        for (int j = i; j > 0 && c[order[j - 1]] > c[order[j]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    double span = 0; /* largest address offset the smaller coefficients reach */
    for (int i = 0; i < 3; i++) {
        int v = order[i];
        if (dom[v] <= 1)
            continue;
        if ((double)c[v] <= span)
            return 0;
        span += (double)c[v] * (double)(dom[v] - 1);
    }
    return 1;
}

static void access_path(char *buf, size_t n, int f, int is_store, int idx, int nd, int d)
{
    if (nd > 1 && d >= 0)
        snprintf(buf, n, "kernel.fields[%d].%s[%d][%d]", f, is_store ? "stores" : "loads", idx,
                 d);
    else
        snprintf(buf, n, "kernel.fields[%d].%s[%d]", f, is_store ? "stores" : "loads", idx);
}

/* The variables that place an access in dimension d of the lattice: d itself and,
 * since kernel.indexing is "linear3d" once parsed (blockwise4d is renamed to it),
 * the thread indices along d. blockDim and gridDim are sizes, not positions. */
static uint32_t position_vars(int d)
{
    return EST_VAR_BIT(EST_VAR_X + d) | EST_VAR_BIT(EST_VAR_TIDX + d) |
           EST_VAR_BIT(EST_VAR_THREADIDX_X + d) | EST_VAR_BIT(EST_VAR_BLOCKIDX_X + d);
}

/* Records the dimensions in which the kernel and the domain disagree (issue 46): a
 * domain longer than 1 in a dimension no access uses (a 2-D kernel sent a 3-D
 * domain: every layer computes the same points, so the answer is that of nothing a
 * GPU would run), and a flat domain in a dimension the accesses use (a 3-D kernel
 * sent a 2-D domain: one layer is predicted). Both are answered without error, and
 * no other check names the cause. */
static void check_dimensions(lr_plausible *p, const lr_request *req)
{
    static const char axis[3] = {'x', 'y', 'z'};
    const est_kernel *k = req->kernel;
    char first_use[3][64] = {"", "", ""}; /* the first access using each dimension */
    uint32_t threads = 0;                 /* thread positions used, any dimension */
    for (int f = 0; f < est_kernel_field_count(k); f++) {
        int nd = est_kernel_field_ndims(k, f);
        for (int a = 0, nl = 0, ns = 0, n = est_kernel_access_count(k, f); a < n; a++) {
            int st = est_kernel_access_is_store(k, f, a), idx = st ? ns++ : nl++;
            uint32_t uses = 0;
            for (int d = 0; d < nd; d++)
                uses |= est_expr_uses(est_kernel_access_index(k, f, a, d));
            threads |= uses & ~EST_VARS_LATTICE;
            for (int d = 0; d < 3; d++)
                if ((uses & position_vars(d)) && !first_use[d][0])
                    access_path(first_use[d], sizeof first_use[d], f, st, idx, nd, -1);
        }
    }
    int64_t fixed[3];
    for (int d = 0; d < 3; d++)
        fixed[d] = first_use[d][0] ? req->domain[d] : 1;
    for (int d = 0; d < 3; d++) {
        mismatch *m = &p->dim[p->nmismatch];
        if (req->domain[d] > 1 && !first_use[d][0]) {
            char hint[200] = ""; /* for kernels written in thread indices */
            if (threads & (position_vars(0) | position_vars(1) | position_vars(2)))
                snprintf(hint, sizeof hint,
                         " (under kernel.indexing \"linear3d\", %c is blockIdx.%c*blockDim.%c "
                         "+ threadIdx.%c; pystencils' Blockwise4D, whose blockIdx.y walks z, "
                         "needs \"blockwise4d\")",
                         axis[d], axis[d], axis[d], axis[d]);
            snprintf(m->path, sizeof m->path, "domain");
            snprintf(m->message, sizeof m->message,
                     "the domain has %lld points in %c, but no access of the kernel uses %c: "
                     "every %c layer would compute the same lattice points; send domain "
                     "[%lld, %lld, %lld], or write the accesses in %c%s",
                     (long long)req->domain[d], axis[d], axis[d], axis[d], (long long)fixed[0],
                     (long long)fixed[1], (long long)fixed[2], axis[d], hint);
            p->nmismatch++;
        } else if (req->domain[d] == 1 && first_use[d][0]) {
            memcpy(m->path, first_use[d], sizeof m->path); /* both 64 bytes */
            snprintf(m->message, sizeof m->message,
                     "the domain has 1 point in %c, but the kernel's accesses use %c (%s): "
                     "the prediction is for a single %c layer of it; send the domain's "
                     "extent in %c, or write the accesses without %c",
                     axis[d], axis[d], first_use[d], axis[d], axis[d], axis[d]);
            p->nmismatch++;
        }
    }
}

/* How far the lattice-affine accesses of field f spread in dimension d over the
 * domain: the larger of the spreads of their lowest and of their highest indices. */
static int64_t reach_of(const est_kernel *k, int f, int d, int nd, const int64_t domain[3])
{
    int64_t lo_min = 0, lo_max = 0, hi_min = 0, hi_max = 0;
    int any = 0;
    for (int a = 0, n = est_kernel_access_count(k, f); a < n; a++) {
        int64_t lo, hi;
        if (!lattice_affine(k, f, a, nd) || index_range(k, f, a, d, domain, &lo, &hi))
            continue;
        lo_min = any && lo_min < lo ? lo_min : lo;
        lo_max = any && lo_max > lo ? lo_max : lo;
        hi_min = any && hi_min < hi ? hi_min : hi;
        hi_max = any && hi_max > hi ? hi_max : hi;
        any = 1;
    }
    return hi_max - hi_min > lo_max - lo_min ? hi_max - hi_min : lo_max - lo_min;
}

/* Records the accesses of field f that leave it by more than the stencil's reach:
 * the spread of the field's own accesses (x-1 .. x+1 may leave a field without halo
 * by one, a field smaller than the domain may not). */
static void check_outside(lr_plausible *p, const lr_request *req, int f)
{
    const est_kernel *k = req->kernel;
    int n = est_kernel_access_count(k, f), nd = est_kernel_field_ndims(k, f);
    int64_t dims[3];
    est_kernel_field_dims(k, f, dims);
    for (int d = 0; d < nd; d++) {
        int64_t reach = reach_of(k, f, d, nd, req->domain);
        for (int a = 0, nl = 0, ns = 0; a < n; a++) {
            int st = est_kernel_access_is_store(k, f, a), idx = st ? ns++ : nl++;
            int64_t lo, hi;
            if (!lattice_affine(k, f, a, nd) || index_range(k, f, a, d, req->domain, &lo, &hi))
                continue;
            int64_t over = -lo > hi - (dims[d] - 1) ? -lo : hi - (dims[d] - 1);
            if (over <= 0 || over <= reach || p->noutside >= MAX_OUTSIDE)
                continue;
            outside *o = &p->out[p->noutside++];
            access_path(o->path, sizeof o->path, f, st, idx, nd, d);
            snprintf(o->message, sizeof o->message,
                     "'%s' runs from %lld to %lld over the domain, but field '%s' has %lld "
                     "elements in dimension %d (its other accesses reach %lld further): the "
                     "kernel would %s outside the field; make dims match the array",
                     est_expr_text(est_kernel_access_index(k, f, a, d)), (long long)lo,
                     (long long)hi, est_kernel_field_name(k, f), (long long)dims[d], d,
                     (long long)reach, st ? "write" : "read");
        }
    }
}

lr_plausible *lr_plausible_new(const lr_request *req)
{
    lr_plausible *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    const est_kernel *k = req->kernel;
    p->nfields = est_kernel_field_count(k);
    for (int f = 0; f < p->nfields; f++) {
        field_info *fi = &p->f[f];
        fi->name = est_kernel_field_name(k, f);
        fi->elem_bytes = est_kernel_field_elem_bytes(k, f);
        int nd = est_kernel_field_ndims(k, f);
        for (int a = 0, nl = 0, ns = 0, n = est_kernel_access_count(k, f); a < n; a++) {
            int st = est_kernel_access_is_store(k, f, a), idx = st ? ns++ : nl++;
            uint32_t uses = 0;
            for (int d = 0; d < nd; d++)
                uses |= est_expr_uses(est_kernel_access_index(k, f, a, d));
            if (st) {
                fi->has_store = 1;
                continue;
            }
            if (!(uses & EST_VARS_LATTICE) && !fi->unfolded_load[0])
                access_path(fi->unfolded_load, sizeof fi->unfolded_load, f, 0, idx, nd, -1);
            if (!fi->load_injective && lattice_affine(k, f, a, nd) &&
                injective(k, f, a, nd, req->domain))
                fi->load_injective = 1;
        }
        check_outside(p, req, f);
    }
    check_dimensions(p, req);
    return p;
}

void lr_plausible_free(lr_plausible *p)
{
    free(p);
}

static void add_warning(jb *b, cJSON *arr, const char *code, const char *path, const char *fmt,
                        ...) __attribute__((format(printf, 5, 6)));
static void add_warning(jb *b, cJSON *arr, const char *code, const char *path, const char *fmt,
                        ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cJSON *w = jb_obj(b, arr, NULL);
    jb_str(b, w, "code", code);
    jb_str(b, w, "message", msg);
    jb_str(b, w, "path", path);
}

cJSON *lr_plausible_request_warnings(const lr_plausible *p)
{
    jb b = {0};
    cJSON *arr = jb_new_arr(&b);
    for (int i = 0; i < p->nmismatch; i++)
        add_warning(&b, arr, "domain_dimensions", p->dim[i].path, "%s", p->dim[i].message);
    for (int i = 0; i < p->noutside; i++)
        add_warning(&b, arr, "access_outside_field", p->out[i].path, "%s", p->out[i].message);
    return jb_finish(&b, arr);
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

cJSON *lr_plausible_warnings(const lr_plausible *p, const est_launch *l, const cJSON *est)
{
    jb b = {0};
    cJSON *arr = jb_new_arr(&b);
    const cJSON *fields = cJSON_GetObjectItemCaseSensitive(est, "fields"),
                *tot = cJSON_GetObjectItemCaseSensitive(est, "estimate");
    int fold = l->folding[0] * l->folding[1] * l->folding[2];
    double compulsory = 0;
    for (int f = 0; f < p->nfields; f++) {
        const field_info *fi = &p->f[f];
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(fields, fi->name);
        char path[64];
        compulsory += fi->elem_bytes * (fi->has_store + fi->load_injective);
        if (fold > 1 && fi->unfolded_load[0])
            add_warning(&b, arr, "load_not_folded", fi->unfolded_load,
                        "this load of field '%s' uses no x, y or z, so it is issued once per "
                        "thread, not once for each of the %d lattice points a thread updates "
                        "under folding %dx%dx%d; if the kernel loads it per point, write it "
                        "in x, y, z",
                        fi->name, fold, l->folding[0], l->folding[1], l->folding[2]);
        double st = num(v, "dram_store");
        if (fi->has_store && st < (1 - LR_PLAUSIBLE_SLACK) * fi->elem_bytes) {
            snprintf(path, sizeof path, "kernel.fields[%d].stores", f);
            add_warning(&b, arr, "stores_do_not_cover_domain", path,
                        "the stores of field '%s' write %.3g B per lattice update to DRAM, "
                        "less than one %d-byte element: some lattice points are never "
                        "written, or several threads write the same elements; check how "
                        "the grid maps threads to lattice points",
                        fi->name, st, fi->elem_bytes);
        }
    }
    double dram = num(tot, "dram_load") + num(tot, "dram_store");
    if (dram < (1 - LR_PLAUSIBLE_SLACK) * compulsory)
        add_warning(&b, arr, "below_compulsory_traffic", "",
                    "the predicted DRAM traffic, %.3g B per lattice update, is below the %.3g "
                    "B that updating every lattice point once must move (one element per "
                    "stored field, and per field read at a distinct element per point): the "
                    "prediction is not that of the kernel described",
                    dram, compulsory);
    return jb_finish(&b, arr);
}

int lr_plausible_bounds_error(const lr_plausible *p, lr_error *err)
{
    if (p->noutside == 0)
        return 0;
    return lr_error_set(err, LR_NOT_LAUNCHABLE, p->out[0].path, "%s", p->out[0].message);
}

/* ---- registers assumed (issue 43) ---- */

/* Where a user finds the kernel's registers per thread. */
#define REGISTERS_HOW                                                                          \
    "send kernel.registers, the count that ptxas -v (nvcc -Xptxas -v), nvcc "                  \
    "--resource-usage or cuobjdump --dump-resource-usage prints for the kernel"

static void launch_text(const est_launch *l, char *out, size_t n)
{
    const int *b = l->block, *f = l->folding;
    if (f[0] * f[1] * f[2] > 1)
        snprintf(out, n, "%dx%dx%d folding %dx%dx%d", b[0], b[1], b[2], f[0], f[1], f[2]);
    else
        snprintf(out, n, "%dx%dx%d", b[0], b[1], b[2]);
}

static int threads_of(const est_launch *l)
{
    return l->block[0] * l->block[1] * l->block[2];
}

/* "as many of its blocks fit on an SM up to 32 registers per thread, fewer from 33
 * ..., and none from 65 ..." for blocks of threads threads of req's kernel. */
static void thresholds_text(const lr_request *req, int threads, char *out, size_t n)
{
    int none, drop = est_register_threshold(req->kernel, &req->device, threads, &none);
    if (drop > EST_MAX_REGISTERS)
        snprintf(out, n, "as many of its blocks fit on an SM up to %d registers per thread",
                 EST_MAX_REGISTERS);
    else if (none > EST_MAX_REGISTERS)
        snprintf(out, n,
                 "as many of its blocks fit on an SM up to %d registers per thread, fewer "
                 "from %d (lower occupancy), and it launches up to %d",
                 drop - 1, drop, EST_MAX_REGISTERS);
    else
        snprintf(out, n,
                 "as many of its blocks fit on an SM up to %d registers per thread, fewer "
                 "from %d (lower occupancy), and none from %d (it cannot launch)",
                 drop - 1, drop, none);
}

/* kernel.instructions that do not count: under the published method, which has no
 * issue limit, or on a device that lacks a rate they need (that rate does not limit
 * them, v2.c). Assumptions the user did not make. */
static void instruction_rates_note(jb *b, cJSON *arr, const lr_request *req)
{
    est_instructions m;
    const est_device *d = &req->device;
    if (!est_kernel_instructions(req->kernel, &m))
        return;
    if (est_kernel_model(req->kernel) == EST_MODEL_WARPSPEED) {
        add_warning(b, arr, "instructions_not_used", "kernel.instructions",
                    "the published method (\"model\": \"warpspeed\") limits arithmetic by "
                    "fp_instructions alone, so kernel.instructions is not used; model v2 (the "
                    "default) limits the kernel by its instruction issue");
        return;
    }
    const char *missing = d->issue_lanes <= 0                      ? "issue_lanes"
                          : m.special > 0 && d->special_lanes <= 0 ? "special_lanes"
                          : m.integer > 0 && d->integer_lanes <= 0 ? "integer_lanes"
                                                                   : NULL;
    if (missing)
        add_warning(b, arr, "instruction_rate_unknown", "kernel.instructions",
                    "device '%s' gives no %s, so %s: add issue_lanes, special_lanes and "
                    "integer_lanes to it (docs/api.md, the device figures)",
                    d->name, missing,
                    d->issue_lanes <= 0 ? "kernel.instructions are not used (the flop limit "
                                          "is fp_instructions')"
                                        : "that pipe does not limit the kernel");
}

/* Every GPU the model knows allocates a block's shared memory in units of 128 or 256 B
 * (NVIDIA's occupancy calculator); shared memory of a multiple of 256 B rounds alike in
 * both. */
#define SHARED_ALLOC_LARGEST 256

/* kernel.shared_bytes on a device without shared_alloc_bytes (a description without
 * "base" that leaves it out): not rounded up, so blocks per SM may be over-stated. An
 * assumption the user did not make. */
static void shared_alloc_note(jb *b, cJSON *arr, const lr_request *req)
{
    long long shared = (long long)est_kernel_shared_bytes(req->kernel);
    if (req->device.shared_alloc_bytes > 0 || shared % SHARED_ALLOC_LARGEST == 0)
        return;
    add_warning(b, arr, "shared_alloc_unknown", "device.shared_alloc_bytes",
                "device '%s' gives no shared_alloc_bytes, so kernel.shared_bytes (%lld B per "
                "block) is not rounded up to the unit the GPU allocates, and more blocks may "
                "be counted per SM than fit: add shared_alloc_bytes to the device (128 from "
                "compute capability 8.0, 256 before; docs/api.md, the device figures)",
                req->device.name, shared);
}

/* The note of kernel.registers compiled from kernel.source (request_source.c), and of
 * figures the device lacks. */
static void registers_note(jb *b, cJSON *arr, const lr_request *req)
{
    if (req->registers_note[0])
        add_warning(b, arr, "registers_from_source", "kernel.source", "%s",
                    req->registers_note);
    instruction_rates_note(b, arr, req);
    shared_alloc_note(b, arr, req);
}

void lr_plausible_registers_estimate(jb *b, cJSON *arr, const lr_request *req,
                                     const est_launch *l)
{
    registers_note(b, arr, req);
    if (!req->registers_assumed)
        return;
    char cfg[64], th[200];
    launch_text(l, cfg, sizeof cfg);
    thresholds_text(req, threads_of(l), th, sizeof th);
    add_warning(b, arr, "registers_assumed", "kernel.registers",
                "kernel.registers was not sent, so %d registers per thread are assumed; at "
                "block %s %s; " REGISTERS_HOW,
                est_kernel_registers(req->kernel), cfg, th);
}

/* The smallest register count above the kernel's at which the recommendation among
 * the configurations of c[0..m) that still launch differs from c[rec]: *alt gets the
 * new pick's index, or m when none launches then. EST_MAX_REGISTERS + 1 when the
 * recommendation holds up to EST_MAX_REGISTERS; -1 when out of memory. */
static int pick_changes_at(const lr_request *req, const lr_choice *c, size_t m, size_t rec,
                           size_t *alt)
{
    double precision = est_device_tie_width(&req->device);
    int v2 = est_kernel_model(req->kernel) == EST_MODEL_V2, found = EST_MAX_REGISTERS + 1;
    int *none = malloc(m * sizeof *none);
    lr_choice *kept = malloc(m * sizeof *kept);
    size_t *from = malloc(m * sizeof *from);
    *alt = m;
    if (!none || !kept || !from)
        found = -1;
    for (size_t i = 0; found > 0 && i < m; i++)
        est_register_threshold(req->kernel, &req->device, threads_of(&c[i].launch), &none[i]);
    /* the counts at which some configuration stops launching, in increasing order:
     * the only ones at which the pick can change */
    for (int r = 0, last = est_kernel_registers(req->kernel); found > 0; last = r) {
        r = EST_MAX_REGISTERS + 1;
        for (size_t i = 0; i < m; i++)
            if (none[i] > last && none[i] < r)
                r = none[i];
        if (r > EST_MAX_REGISTERS)
            break;
        size_t nk = 0;
        for (size_t i = 0; i < m; i++)
            if (none[i] > r) {
                from[nk] = i;
                kept[nk++] = c[i];
            }
        size_t p = nk ? lr_decision_pick(kept, nk, precision, v2) : nk;
        if (p == nk || from[p] != rec) {
            found = r;
            *alt = p == nk ? m : from[p];
            break;
        }
    }
    free(none);
    free(kept);
    free(from);
    return found;
}

void lr_plausible_registers_rank(jb *b, cJSON *arr, const lr_request *req, const lr_choice *c,
                                 size_t m)
{
    registers_note(b, arr, req);
    if (!req->registers_assumed)
        return;
    int regs = est_kernel_registers(req->kernel);
    size_t rec = lr_decision_pick(c, m, est_device_tie_width(&req->device),
                                  est_kernel_model(req->kernel) == EST_MODEL_V2);
    if (rec >= m) {
        add_warning(b, arr, "registers_assumed", "kernel.registers",
                    "kernel.registers was not sent, so %d registers per thread are "
                    "assumed; " REGISTERS_HOW,
                    regs);
        return;
    }
    char cfg[64], other[64] = "", th[200], change[200];
    size_t alt;
    int at = pick_changes_at(req, c, m, rec, &alt);
    if (at < 0) {
        b->failed = 1; /* no answer rather than one without the threshold */
        return;
    }
    launch_text(&c[rec].launch, cfg, sizeof cfg);
    thresholds_text(req, threads_of(&c[rec].launch), th, sizeof th);
    if (at > EST_MAX_REGISTERS)
        snprintf(change, sizeof change, "it stays the pick up to %d", EST_MAX_REGISTERS);
    else if (alt >= m)
        snprintf(change, sizeof change,
                 "the pick holds up to %d registers per thread; from %d no configuration "
                 "launches",
                 at - 1, at);
    else {
        launch_text(&c[alt].launch, other, sizeof other);
        snprintf(change, sizeof change,
                 "the pick holds up to %d registers per thread; from %d the pick among the "
                 "configurations that still launch is %s",
                 at - 1, at, other);
    }
    add_warning(b, arr, "registers_assumed", "kernel.registers",
                "kernel.registers was not sent, so %d registers per thread are assumed; the "
                "recommendation %s: %s; %s (decided on the predictions at %d "
                "registers); " REGISTERS_HOW,
                regs, cfg, th, change, regs);
}
