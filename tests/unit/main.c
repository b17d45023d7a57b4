// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The unit tier: every suite in one runner, so Check prints one closing line. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "nodrop.h"

#include "unit.h"

const char *unit_fixtures(void)
{
	const char *dir = getenv("ND_FIXTURES");

	return dir && *dir ? dir : "tests/fixtures";
}

void unit_use_fixture(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", unit_fixtures(), name);
	setenv("NODROP_SYSROOT", path, 1);
	nd_sysroot_reset();
}

uint64_t unit_rand(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

char *unit_read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long len;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)len + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(fread(buf, 1, (size_t)len, f), len);
	fclose(f);
	return buf;
}

void unit_no_root(void)
{
	unsetenv("NODROP_SYSROOT");
	nd_sysroot_reset();
}

int main(void)
{
	SRunner *sr = srunner_create(suite_nl());
	int failed;

	srunner_add_suite(sr, suite_dcbnl());
	srunner_add_suite(sr, suite_sysfs());
	srunner_add_suite(sr, suite_show());
	srunner_add_suite(sr, suite_plan());
	srunner_add_suite(sr, suite_ecn());
	srunner_add_suite(sr, suite_lint());
	srunner_add_suite(sr, suite_profile());
	srunner_add_suite(sr, suite_headroom());
	srunner_add_suite(sr, suite_model());
	srunner_add_suite(sr, suite_print());
	srunner_add_suite(sr, suite_sim());
	srunner_add_suite(sr, suite_sim_scenario());
	srunner_add_suite(sr, suite_counters());
	srunner_add_suite(sr, suite_doctor());
	srunner_add_suite(sr, suite_triage());
	srunner_add_suite(sr, suite_gen_plan());
	srunner_add_suite(sr, suite_gen_wire());
	srunner_add_suite(sr, suite_gen_payload());
	srunner_add_suite(sr, suite_gen_probe());
	srunner_add_suite(sr, suite_gen_engine());
	srunner_add_suite(sr, suite_gen_verdict());
	srunner_add_suite(sr, suite_gen_coord());
	srunner_add_suite(sr, suite_gen_mem());
	srunner_add_suite(sr, suite_gen_gpu());
	srunner_add_suite(sr, suite_gen_cuda());
	srunner_add_suite(sr, suite_stop());
	srunner_add_suite(sr, suite_report());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
