/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Repeated sampling for less than a snapshot's cost each time (jmem top,
 * jmem watch, jmem metrics --interval): what each process's files gave is
 * kept between samples, and a process is read again only when its memory
 * moved or its turn came.
 *
 * Every sample reads /proc/PID/statm of every process: counters the kernel
 * keeps, no walk of the page tables (smaps_rollup walks them all, and is
 * most of what a snapshot costs). A process whose resident, shared and
 * text pages are those of the last sample keeps what was read before: PSS,
 * swap, name, owner, state, container and command line; its
 * pss_age_samples says how many samples ago that was. Every process is read
 * whole at least every JMEM_SAMPLER_DEFAULT_REFRESH samples (its turn set
 * by its PID, so the reads spread over the samples instead of landing on
 * one), and whenever its statm changed or could not be read. A new process
 * under a reused PID shows itself by other statm numbers; one that matched
 * all three would keep the old one's name until its turn. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The most samples a process's PSS may be old: at 1 s, 10 s. */
#define JMEM_SAMPLER_DEFAULT_REFRESH 10

typedef struct _JmemSampler JmemSampler;

/* @refresh_samples: read each process whole at least every so many samples
 * (1: every sample, as jmem_collect_snapshot() without a sampler does). */
JmemSampler *jmem_sampler_new (guint refresh_samples);
void jmem_sampler_free (JmemSampler *sampler);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemSampler, jmem_sampler_free)

guint jmem_sampler_get_refresh (const JmemSampler *sampler);

/* How many processes the last sample read whole and how many it kept. */
void jmem_sampler_get_counts (const JmemSampler *sampler,
                              guint             *n_read,
                              guint             *n_kept);

G_END_DECLS
