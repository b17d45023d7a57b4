// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for flow-size CDF files (nd_cdf_load reads them through sim_cdf_parse): any
 * bytes must give 0 or a negative errno with a message, hand back nothing on failure, and leak
 * nothing (ASan's leak check runs at exit). A CDF that loads must be one the Poisson workload
 * can draw from without a check of its own: 2 points or more, sizes finite, not negative and
 * rising, percentages finite, rising from 0 to 100; every draw a finite size between the first
 * and the last, and a finite mean above 0 (the arrival gap divides by it).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "nodrop.h"
#include "sim/sim_core.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct nd_cdf_point *p, size_t n)
{
	/* the ends of [0, 1] and the draws next to them, as sim_rng_unit gives */
	static const double u[] = { 0, 0x1p-53, 0.5, 1 - 0x1p-53, 1 };
	double v, mean;
	size_t i;

	if (n < 2 || p[0].pct != 0 || p[n - 1].pct != 100)
		abort();
	for (i = 0; i < n; i++) {
		if (!isfinite(p[i].bytes) || p[i].bytes < 0 || !isfinite(p[i].pct) ||
		    p[i].pct < 0 || p[i].pct > 100)
			abort();
		if (i && (p[i].bytes <= p[i - 1].bytes || p[i].pct <= p[i - 1].pct))
			abort();
	}
	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		v = sim_cdf_sample(p, n, u[i]);
		if (!isfinite(v) || v < p[0].bytes || v > p[n - 1].bytes)
			abort();
	}
	mean = nd_cdf_mean(p, n);
	if (!isfinite(mean) || mean <= 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nd_cdf_point *p = (struct nd_cdf_point *)1;
	struct nd_err e = { 0 };
	size_t n = 1;
	int ret;

	ret = sim_cdf_parse("fuzz.cdf", (const char *)data, size, &p, &n, &e);
	if (ret > 0 || (ret < 0 && (e.code != ret || !e.msg[0] || p || n)))
		abort();
	if (!ret)
		check(p, n);
	free(p);
	return 0;
}
