// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for the profile parser: any bytes must give 0 or a negative errno with a
 * message, leave a failed profile zeroed and leak nothing (ASan's leak check runs at exit).
 * With no directory, `extends` must fail cleanly instead of reading files.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nodrop.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct nd_profile zero;
	struct nd_profile p;
	struct nd_err e = { 0 };
	int ret;

	ret = nd_profile_parse((const char *)data, size, "fuzz.yaml", NULL, &p, &e);
	if (ret > 0 || (ret < 0 && (e.code != ret || !e.msg[0] || memcmp(&p, &zero, sizeof(p)))))
		abort();
	/* what a caller does next with a good profile: look at it */
	if (!ret && (strlen(p.name) >= sizeof(p.name) || p.n_dcqcn > ND_ECN_PARAM_MAX))
		abort();
	nd_profile_free(&p);
	return 0;
}
