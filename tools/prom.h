/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Port samples in the Prometheus text exposition format (0.0.4), as node_exporter's textfile
 * collector reads it: base units (seconds, not the drivers' microseconds), an info series per
 * port and the time of the collection, so a host with nothing to count is still seen.
 */
#ifndef ND_PROM_H
#define ND_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct nd_sample;
struct nd_counter_info;

/*
 * The metric family a canonical counter is exposed as, "nodrop_..._total", into @buf; *@div is
 * what a value is divided by to reach the base unit (1000000 for microseconds), *@unit that unit.
 */
void nd_prom_name(const struct nd_counter_info *info, char *buf, size_t len, uint64_t *div,
		  const char **unit);

/*
 * Write @n samples to @f: the version, the per-port info, mapped-counter and PFC series (@pfc:
 * each port's PFC mask, -1 unknown; NULL none), each canonical counter's family and, last, the
 * wall-clock time @now_s of the collection; @raw adds the unmapped driver counters. Returns 0 or
 * -EIO.
 */
int nd_prom_print(FILE *f, const struct nd_sample *smp, size_t n, const int *pfc, bool raw,
		  double now_s);

struct nd_report;
struct nd_peer_wait;

/*
 * audit --prometheus: write @path (through a temporary file renamed over it, as the textfile
 * collector wants) with each port's findings by severity, drifted fields and unverified ones
 * (less those @accept names, a bit per enum nd_field), and with @peers
 * (--peer; NULL without) whether its link partner was heard and from where, how many peer checks
 * failed, and one series per failed check naming the switch port. Returns 0 or -errno.
 */
int nd_prom_write_audit(const char *path, const struct nd_report *r,
			const struct nd_peer_wait *peers, uint32_t accept);

#endif
