// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tools/stop.c: a stop request sent twice in a row, as timeout(1) sends it (to the child, then
 * to its process group), stops the command once instead of killing it; one sent a second
 * later still ends the process at once.
 */
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stop.h"
#include "unit.h"

static void nap_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&t, &t))
		;
}

/* A child that takes stop requests: what it wrote (@said) and how it ended (@status). */
static void child_run(int how, char *said, int *status)
{
	int fd[2];
	pid_t pid;

	ck_assert_int_eq(pipe(fd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		close(fd[0]);
		nd_catch_stop();
		raise(SIGTERM);
		raise(how);	/* the repeat, at once: must not end the process */
		if (write(fd[1], nd_stop ? "s" : "-", 1) != 1)
			_exit(3);
		nap_ms(1100);
		raise(how);	/* a second later: ends it, as the signal would */
		if (write(fd[1], "x", 1) != 1)
			_exit(3);
		_exit(0);
	}
	close(fd[1]);
	said[0] = said[1] = said[2] = 0;
	ck_assert_int_ge(read(fd[0], said, 2), 0);
	close(fd[0]);
	ck_assert_int_eq(waitpid(pid, status, 0), pid);
}

START_TEST(stop_twice_at_once_then_again)
{
	static const int sigs[] = { SIGTERM, SIGINT };
	char said[3];
	int status;

	child_run(sigs[_i], said, &status);
	ck_assert_str_eq(said, "s");
	ck_assert(WIFSIGNALED(status));
	ck_assert_int_eq(WTERMSIG(status), sigs[_i]);
}
END_TEST

Suite *suite_stop(void)
{
	Suite *s = suite_create("stop");
	TCase *tc = tcase_create("stop");

	tcase_add_loop_test(tc, stop_twice_at_once_then_again, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
