// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The unit tier: every suite, in one runner or (ND_UNIT_JOBS=N) a process each, N at once, with
 * one closing line in Check's words either way.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

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

/* Every suite, in the order the closing line counts them. */
static Suite *(*const suites[])(void) = {
	suite_nl, suite_dcbnl, suite_sysfs, suite_show, suite_plan, suite_ecn, suite_lint,
	suite_profile, suite_headroom, suite_model, suite_print, suite_sim, suite_simref, suite_sim_scenario, suite_peer,
	suite_path,
	suite_counters, suite_doctor, suite_triage, suite_gen_plan, suite_gen_wire,
	suite_gen_payload, suite_gen_probe, suite_gen_engine, suite_gen_verdict, suite_gen_coord,
	suite_gen_mem, suite_gen_gpu, suite_gen_cuda, suite_stop, suite_report,
};

#define N_SUITES (sizeof(suites) / sizeof(suites[0]))

/* One runner over every suite (CK_RUN_SUITE picks one): Check's own closing line. */
static int run_one_process(void)
{
	SRunner *sr = srunner_create(suites[0]());
	size_t i;
	int failed;

	for (i = 1; i < N_SUITES; i++)
		srunner_add_suite(sr, suites[i]());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* A suite's output, kept until the suites before it have printed theirs, and its counts. */
struct suite_run {
	FILE *out;
	pid_t pid;
	int run, failures, errors;	/* written by the child, in shared memory */
	bool done;
};

static void suite_child(size_t i, struct suite_run *r)
{
	SRunner *sr = srunner_create(suites[i]());
	TestResult **res;
	int k, n;

	fflush(NULL);
	if (dup2(fileno(r->out), 1) < 0 || dup2(fileno(r->out), 2) < 0)
		_exit(EXIT_FAILURE);
	srunner_run_all(sr, CK_NORMAL);
	n = srunner_ntests_run(sr);
	res = srunner_results(sr);
	for (k = 0; k < n; k++) {
		r->failures += tr_rtype(res[k]) == CK_FAILURE;
		r->errors += tr_rtype(res[k]) == CK_ERROR;
	}
	r->run = n;
	free(res);
	srunner_free(sr);
	fflush(NULL);
	_exit(EXIT_SUCCESS);
}

/*
 * The suites in @jobs processes at once (ND_UNIT_JOBS): one runner over all of them forks every
 * test from an ever larger ASan process, and took twice what the suites take one by one. Each
 * suite's output is printed in order, then one closing line as Check writes it, over all.
 */
static int run_parallel(size_t jobs)
{
	struct suite_run *r = mmap(NULL, N_SUITES * sizeof(*r), PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	size_t i, next = 0, printed = 0, running = 0;
	int run = 0, bad = 0, failures = 0, errors = 0, status;
	char line[4096];
	pid_t pid;

	if (r == MAP_FAILED)
		return run_one_process();
	memset(r, 0, N_SUITES * sizeof(*r));
	while (printed < N_SUITES) {
		while (running < jobs && next < N_SUITES) {
			r[next].out = tmpfile();
			if (!r[next].out) {
				perror("unit: tmpfile");
				return EXIT_FAILURE;
			}
			fflush(NULL);
			pid = fork();
			if (pid < 0) {
				perror("unit: fork");
				return EXIT_FAILURE;
			}
			if (!pid)
				suite_child(next, &r[next]);
			r[next++].pid = pid;
			running++;
		}
		pid = wait(&status);
		for (i = 0; pid > 0 && i < next; i++) {
			if (r[i].pid != pid)
				continue;
			r[i].done = true;
			running--;
			/* a runner that died counts as an error of its own */
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				r[i].errors++, r[i].run++;
		}
		for (; printed < next && r[printed].done; printed++) {
			rewind(r[printed].out);
			while (fgets(line, sizeof(line), r[printed].out))
				fputs(line, stdout);
			fclose(r[printed].out);
			run += r[printed].run;
			failures += r[printed].failures;
			errors += r[printed].errors;
		}
	}
	bad = failures + errors;
	printf("Running suite(s): all %zu, %zu at a time\n%d%%: Checks: %d, Failures: %d, "
	       "Errors: %d\n", N_SUITES, jobs, run ? (run - bad) * 100 / run : 0, run, failures,
	       errors);
	munmap(r, N_SUITES * sizeof(*r));
	return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}

int main(void)
{
	const char *jobs = getenv("ND_UNIT_JOBS");

	/* one at a time too: a process per suite takes half what one runner over all takes */
	if (!getenv("CK_RUN_SUITE") && !getenv("CK_RUN_CASE") && jobs && atoi(jobs) >= 1)
		return run_parallel((size_t)atoi(jobs));
	return run_one_process();
}
