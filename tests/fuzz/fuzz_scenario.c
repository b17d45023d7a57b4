// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for the scenario parser: any bytes must give 0 or a negative errno with a
 * message, leave a failed scenario holding nothing, and leak nothing (ASan's leak check runs at
 * exit). With no directory a CDF path must fail cleanly instead of reading files. A scenario
 * that parses must pass its own cross-key check, as nd_sim_run() will ask.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nodrop.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nd_scenario s;
	struct nd_err e = { 0 };
	int ret;

	ret = nd_scenario_parse((const char *)data, size, "fuzz.yaml", NULL, &s, &e);
	if (ret > 0 || (ret < 0 && (e.code != ret || !e.msg[0] || s.wl.cdf || s.wl.n_cdf)))
		abort();
	if (!ret && (nd_scenario_check(&s, &e) || strlen(s.name) >= sizeof(s.name) ||
		     s.wl.cdf || s.mtu < 64 || s.mtu > 4096))
		abort();
	nd_scenario_free(&s);
	return 0;
}
