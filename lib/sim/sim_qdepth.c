// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * How deep each switch port's data queue was over the run, weighted by time: a histogram of
 * picoseconds spent at each depth, in SIM_QD_UNIT steps, grown to the deepest the port saw.
 * It answers "queue p50/p99/max" without a sampling event (which would add events and move
 * nothing else), and a port that never queued costs one bucket.
 */
#include <errno.h>
#include <stdlib.h>

#include "sim_core.h"

/* Before port @pi's data queue changes: the time since the last change goes to its depth. */
void sim_qdepth_note(struct sim *s, uint32_t pi)
{
	struct sim_port *port = &s->ports[pi];
	uint64_t depth = port->q[SIM_DATA].bytes;
	size_t k = (size_t)(depth / SIM_QD_UNIT);

	if (k >= port->n_qd) {
		size_t n = k + 1 > 2 * port->n_qd ? k + 1 : 2 * port->n_qd;
		uint64_t *v = realloc(port->qd_ps, n * sizeof(*v));

		if (!v) {
			if (!s->err)
				s->err = -ENOMEM;
			return;
		}
		for (size_t i = port->n_qd; i < n; i++)
			v[i] = 0;
		port->qd_ps = v;
		port->n_qd = n;
	}
	port->qd_ps[k] += s->now - port->qd_since;
	port->qd_since = s->now;
}

/* The depth, to SIM_QD_UNIT below, that port @port's queue stayed at or under for share @q. */
static uint64_t depth_at(const struct sim *s, const struct sim_port *port, double q)
{
	double want = q * (double)s->end, sum = 0;
	size_t k;

	for (k = 0; k < port->n_qd; k++) {
		sum += (double)port->qd_ps[k];
		if (sum >= want && sum > 0)
			return k * SIM_QD_UNIT;
	}
	return port->n_qd ? (port->n_qd - 1) * SIM_QD_UNIT : 0;
}

void sim_qdepth_result(const struct sim *s, uint32_t pi, uint64_t *p50, uint64_t *p99,
		       uint64_t *max)
{
	const struct sim_port *port = &s->ports[pi];

	*p50 = depth_at(s, port, 0.50);
	*p99 = depth_at(s, port, 0.99);
	*max = port->qd_max;
}

void sim_qdepth_free(struct sim *s)
{
	for (uint32_t i = 0; i < s->n_ports; i++) {
		free(s->ports[i].qd_ps);
		s->ports[i].qd_ps = NULL;
		s->ports[i].n_qd = 0;
	}
}
