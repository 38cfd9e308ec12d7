/*
 * volumes: what a configuration moves, per lattice update and field (docs/model.md
 * §3-§5): L1 cycles and wavefronts, L2 loads and stores with their requests, and DRAM
 * loads and stores from the wave footprints and the capacity-miss fits. Model v2
 * counts a few volumes its own way (what L2 receives of folded stores, warm waves,
 * stores shared with the previous wave, partly written sectors evicted): the binding's
 * rules (est_volume_rules) say which, so this file reads no model; each rule names
 * its section.
 */
#include <math.h>

#include "estimator_int.h"

void est_add_volumes(est_volumes *t, const est_volumes *v)
{
    t->l1_cycles += v->l1_cycles;
    t->smx_load += v->smx_load;
    t->l1_load += v->l1_load;
    t->l2_load_compulsory += v->l2_load_compulsory;
    t->l2_load += v->l2_load;
    t->l2_store += v->l2_store;
    t->l2_store_charged += v->l2_store_charged;
    t->l2_store_requests += v->l2_store_requests;
    t->l2_load_requests += v->l2_load_requests;
    t->l2_store_partial += v->l2_store_partial;
    t->l2_store_left += v->l2_store_left;
    t->dram_load_compulsory += v->dram_load_compulsory;
    t->dram_load_warm += v->dram_load_warm;
    t->dram_load += v->dram_load;
    t->dram_store += v->dram_store;
}

/* docs/model.md §4, "Partly written sectors", "Merged store requests": the store
 * volumes and write requests of one field, per lattice update. */
static void l2_stores(const est_binding *b, const est_sample *s, const est_field_sample *fs,
                      est_volumes *v)
{
    const est_device *dev = b->dev;
    const est_warp_counts *w = &fs->warp;
    /* L2 receives a sector that one folding step's stores complete once, and where
     * the stores of all steps merge, the share left unmerged (store_unmerged,
     * bind.c) comes back (docs/model.md "Partly written sectors"). Model v2's limits
     * charge what L2 receives; the reference model charges every store
     * instruction's sectors, except where the stores of all steps merge */
    double per_instruction = div0(w->store_sectors * dev->l1_sector_bytes, s->warp_lups);
    v->l2_store =
        div0((w->store_sectors - w->store_merged) * dev->l1_sector_bytes, s->warp_lups);
    if (b->merge_all_steps)
        v->l2_store += b->store_unmerged * (per_instruction - v->l2_store);
    v->l2_store_charged =
        b->merge_all_steps || b->rules.charge_received ? v->l2_store : per_instruction;
    /* partly written sectors completed later (model v2's evictions): by other
     * blocks, or, when threads fold, by later folding steps of the warp or of the
     * block's other warps; unfolded, the block's other warps complete theirs at
     * the same step, and those count in part (BLOCK_PARTIAL_SHARE) */
    const int *fold = b->cfg.launch.folding;
    int folded = fold[0] * fold[1] * fold[2] > 1;
    double warp_unwritten = div0(w->store_unwritten, s->warp_lups);
    v->l2_store_left = div0(fs->blk_store_unwritten, s->block_lups);
    v->l2_store_partial =
        folded ? warp_unwritten
               : v->l2_store_left +
                     RULE(BLOCK_PARTIAL_SHARE) * (warp_unwritten - v->l2_store_left);
    /* one write request per line each store instruction touches; where an unfolded
     * thread's stores complete their sectors together, L1 sends them as the sectors
     * L2 receives, and the requests merge with them (the array-of-structs copy's four
     * stores: 0.125 requests per update measured against 0.5 per instruction;
     * docs/model.md "Merged store requests"). The
     * hardware merges a folded thread's requests as its sectors too, but the
     * model's sector merge is wrong for some folded threads (a transposed copy's
     * 16x16 block folded 4 in y: 75 % merged in the model, 12 % on the H100), so
     * those keep a request per line and instruction */
    v->l2_store_requests = div0(w->store_lines, s->warp_lups);
    if (b->rules.merge_requests && per_instruction > 0 && !folded)
        v->l2_store_requests *= v->l2_store / per_instruction;
}

/* docs/model.md §3 and §4: L1 cycles and L2 volumes per field, per lattice update. */
void est_l1_l2_volumes(const est_binding *b, const est_sample *s, est_result *r)
{
    const est_device *dev = b->dev;
    double block_l1_alloc = 0, block_l2_load = 0;
    r->l1_wavefronts = RULE(L1_WF_PER_WARP) * div0(s->warps, s->warp_lups);
    r->l1_requests_per_update = 0;
    for (int f = 0; f < b->k->nfields; f++) {
        const est_field_sample *fs = &s->f[f];
        const est_warp_counts *w = &fs->warp;
        est_volumes *v = &r->field[f];
        double C = div0(w->c, s->warp_lups), TAG = div0(w->tag, s->warp_lups);
        double DP = div0(w->dp, s->warp_lups), CST = div0(w->store_c, s->warp_lups);
        double N = div0(w->load_inst, s->warp_lups), M = div0(w->load_m, s->warp_lups);
        r->l1_wavefronts += RULE(L1_WF_PER_LOAD_CYCLE) * (C - CST) +
                            RULE(L1_WF_PER_STORE_CYCLE) * CST + RULE(L1_WF_PER_LOAD) * N +
                            RULE(L1_WF_PER_WIDE_CYCLE) * (M - N) +
                            RULE(L1_WF_PER_WAIT) * fs->mid_load_waits;
        /* The allocation cost counts the lines of loads and of stores separately:
         * this is what reproduces the reference L1 cycles (docs/model.md). */
        double ALLOC = div0(fs->blk_load_lines + fs->blk_store_lines, s->block_lups);
        if (dev->l1_model == EST_L1_KEPLER)
            v->smx_load = div0(w->smx_segments * 128.0, s->warp_lups);
        else
            v->l1_cycles = max3(C, TAG, DP + ALLOC);
        v->l1_load = div0(w->load_sectors * dev->l1_sector_bytes, s->warp_lups);
        r->l1_requests_per_update += div0(w->inst, s->warp_lups);
        l2_stores(b, s, fs, v);
        v->l2_load_compulsory =
            div0(fs->blk_load_sectors * dev->l2_sector_bytes, s->block_lups);
        if (s->nblocks) {
            block_l1_alloc += fs->blk_load_lines * dev->l1_line_bytes / s->nblocks;
            block_l2_load += fs->blk_load_sectors * dev->l2_sector_bytes / s->nblocks;
        }
    }
    r->l1_coverage = block_l1_alloc / sqrt((double)dev->l1_bytes) / sqrt(128.0 * 1024.0);
    double miss_cov = est_fit_eval(dev->miss_l1, r->l1_coverage);
    double hit_overlap =
        1 - est_fit_eval(dev->miss_l1, 2 * block_l2_load / (double)dev->l1_bytes);
    for (int f = 0; f < b->k->nfields; f++) {
        est_volumes *v = &r->field[f];
        double overlap =
            div0(s->f[f].overlap_sectors * dev->l2_sector_bytes, s->mid_block_lups);
        double redundant = v->l1_load - v->l2_load_compulsory;
        double evicts = (redundant > 0 ? redundant : 0) * miss_cov;
        /* a gathering kernel's streamed fields (docs/model.md, "Gathers through an index
         * field") read each line again only in the warp's next instructions (w(j, x) for
         * j = 0..3), before anything can evict it: the H200 mesh corpus measures their L2
         * loads at the compulsory ones at every block size, Langguth's K20 too */
        if (b->spread && !est_field_gathers(&b->k->fields[f]))
            evicts = 0;
        /* its gathers find the block's earlier reads in L1 only while the SM's resident
         * blocks' footprints fit: beyond, the share of them that does not fit misses
         * (Langguth et al.'s K20: 5.62 L2 reads per cell at b = 13,333, every gather) */
        else if (b->spread) {
            double resident = (double)r->blocks_per_sm * block_l1_alloc;
            double spill = resident > 0 ? 1 - (double)dev->l1_bytes / resident : 0;
            evicts = (redundant > 0 ? redundant : 0) * (spill > miss_cov ? spill : miss_cov);
        }
        v->l2_load = v->l2_load_compulsory - overlap * hit_overlap + evicts;
        /* the lines load instructions request, in the share of their bytes L1 misses */
        v->l2_load_requests = div0(s->f[f].warp.load_lines, s->warp_lups) *
                              div0(v->l2_load, v->l1_load);
    }
}

/* Bytes of the launch's stores still dirty in L2 when it ends. */
static void keep_dirty_lines(const est_binding *b, est_result *r)
{
    double stored = 0;
    for (int f = 0; f < b->k->nfields; f++)
        stored += r->field[f].dram_store * (double)r->lattice_updates;
    double kept = RULE(L2_DIRTY_SHARE) * (double)b->dev->l2_bytes;
    r->stores_left_in_l2 = stored < kept ? stored : kept;
}

/* Model v2 (docs/model.md, "Partly written sectors"): the share of the sectors left
 * partly written that L2 evicts before they are completed, which costs a DRAM read to
 * fill them and a write. What else passes through L2 meanwhile decides it: one step
 * of every resident thread, D = (L2 load + store bytes per update) * resident threads,
 * times sqrt(F) for a thread folded F times (it stores its steps back to back after
 * all their loads, so its sectors stay open longer), against PARTIAL_REACH L2 sizes:
 * 1 - exp(-(D / (PARTIAL_REACH * l2_bytes))^2). */
static double partial_evicted(const est_binding *b, const est_result *r)
{
    double l2 = 0;
    for (int f = 0; f < b->k->nfields; f++)
        l2 += r->field[f].l2_load + r->field[f].l2_store;
    const int *fold = b->cfg.launch.folding;
    l2 *= sqrt((double)fold[0] * fold[1] * fold[2]);
    double d = l2 * (double)r->wave_blocks * b->threads /
               (RULE(PARTIAL_REACH) * (double)b->dev->l2_bytes);
    return 1 - exp(-d * d);
}

/* docs/model.md §5: DRAM volumes per field from the wave footprints. */
void est_dram_volumes(const est_binding *b, const est_wave *w, int64_t wave_lups,
                         est_result *r)
{
    const est_device *dev = b->dev;
    int nf = b->k->nfields;
    double lups = w->cur_lups;
    double vnew_load = 0, vnew_store = 0, ov_y = 0, ov_z = 0, old_y = 0, old_z = 0;
    for (int f = 0; f < nf; f++) {
        const est_field_wave *fw = &w->f[f];
        est_volumes *v = &r->field[f];
        v->dram_load_compulsory = div0(fw->vnew_load, lups);
        v->dram_store = div0(fw->vnew_store, lups);
        vnew_load += v->dram_load_compulsory;
        vnew_store += v->dram_store;
        ov_y += div0(fw->ov_y, lups);
        ov_z += div0(fw->ov_z, lups);
        old_y += fw->old_y;
        old_z += fw->old_z;
    }
    r->wave_overlap_y = ov_y;
    r->wave_overlap_z = ov_z;
    /* whole-wave volumes are the per-update ones scaled to exactly W blocks */
    double wl = (double)wave_lups;
    /* model v2 (docs/model.md, "Warm cache of folded waves"): a folded wave's blocks
     * make their steps together, so between a row's (layer's) first use and its reuse
     * L2 sees one step of the wave; the row (layer) of blocks before it has made all
     * its steps before the reuse, so its whole footprint counts (what
     * tests/accuracy/corpus/h100_layers.jsonl measures for z-folded blocks on large
     * layers). The reference model counts all steps */
    const int *fold = b->cfg.launch.folding;
    double steps = b->rules.warm_folded_waves ? (double)fold[0] * fold[1] * fold[2] : 1;
    r->wave_oversub_y = (old_y + (vnew_load - ov_y) * wl / steps) / (double)dev->l2_bytes;
    r->wave_oversub_z = (old_z + (vnew_load - ov_z) * wl / steps) / (double)dev->l2_bytes;
    double hit_y = 1 - est_fit_eval(dev->miss_ovy, r->wave_oversub_y);
    double hit_z = 1 - est_fit_eval(dev->miss_ovz, r->wave_oversub_z);
    r->l2_oversubscription =
        (vnew_load + vnew_store) * wl / sqrt((double)dev->l2_bytes) / 2048.0;
    double miss_store = est_fit_eval(dev->miss_l2store, r->l2_oversubscription);
    double p_evict = b->rules.evict_partial ? partial_evicted(b, r) : 0;
    double reload = b->rules.wave_reloads
                        ? dev->wave_reload_share * vnew_load * wl / (double)dev->l2_bytes
                        : 0;
    r->dram_charged = 0;
    for (int f = 0; f < nf; f++) {
        const est_field_wave *fw = &w->f[f];
        est_volumes *v = &r->field[f];
        v->dram_load_warm = v->dram_load_compulsory - div0(fw->ov_y, lups) * hit_y -
                            div0(fw->ov_z, lups) * hit_z;
        /* model v2 (docs/model.md, "Reloads within a wave"): what a wave reuses of its own
         * footprint (the rows and layers its blocks share) L2 keeps only while the
         * footprint fits: a share of the loads comes again, Su et al.'s Eq. 15 */
        v->dram_load_warm *= 1 + reload;
        /* model v2 (docs/model.md, "Stores shared with the previous wave"): a fetch
         * unit the wave stores into, and the row (layer) before it stored into too, is
         * written back once when L2 still holds it */
        if (b->rules.shared_stores) {
            double vnew = v->dram_store;
            double first = vnew - div0(fw->ov_store_y, lups) * hit_y -
                           div0(fw->ov_store_z, lups) * hit_z;
            double floor = fw->store_floor < vnew ? fw->store_floor : vnew;
            v->dram_store = first > floor ? first : floor;
        }
        double partial = v->l2_store_charged - v->dram_store;
        double evicts = (partial > 0 ? partial : 0) * miss_store;
        /* what the DRAM limit charges: the volumes under the reference rule, and a
         * gather's scattered fetch units at GATHER_DRAM_COST streamed bytes each
         * (docs/model.md, "Gathers through an index field") */
        r->dram_charged += v->dram_load_warm + v->dram_store + 2 * evicts +
                           (RULE(GATHER_DRAM_COST) - 1) * div0(fw->scattered_load, lups);
        if (b->rules.evict_partial)
            evicts = v->l2_store_partial * p_evict;
        v->dram_store += evicts;
        v->dram_load = v->dram_load_warm + evicts;
    }
    if (b->rules.dirty_at_end)
        keep_dirty_lines(b, r);
}

