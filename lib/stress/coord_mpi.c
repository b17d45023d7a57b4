// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MPI rendezvous, for jobs launched by mpirun or srun. MPI's ABI differs between
 * implementations (MPI_Comm is a pointer in Open MPI, an int in MPICH), so nodrop does not
 * link or dlopen libmpi itself: nodrop-mpi.so, built with mpicc where an MPI is installed,
 * carries the few calls behind a C interface of ours (struct nd_mpi_plugin), and this file
 * loads it only when asked. The nodrop binary runs everywhere; MPI lights up where it exists.
 */
#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coord.h"

struct mpi_conn {
	struct nd_rv_conn base;
	void *dl;
	const struct nd_mpi_plugin *mpi;
};

#define MPI_OF(c) (((struct mpi_conn *)(c))->mpi)

bool nd_stress_mpi_launched(void)
{
	static const char *const vars[] = {
		"OMPI_COMM_WORLD_SIZE",	/* Open MPI's mpirun */
		"PMIX_RANK",		/* PMIx launchers (srun --mpi=pmix, prrte) */
		"PMI_SIZE",		/* MPICH hydra, srun --mpi=pmi2 */
	};
	size_t i;

	for (i = 0; i < ND_ARRAY_SIZE(vars); i++)
		if (getenv(vars[i]))
			return true;
	return false;
}

/* Blobs from a plugin's concatenated parts. */
static int split(uint8_t *all, const uint32_t *lens, uint32_t n, struct nd_blobs *out,
		 struct nd_err *e)
{
	size_t off = 0, i;

	out->v = calloc(n ? n : 1, sizeof(*out->v));
	if (!out->v)
		return nd_err_set(e, -ENOMEM, "out of memory");
	out->n = n;
	for (i = 0; i < n; i++) {
		out->v[i].p = malloc(lens[i] ? lens[i] : 1);
		if (!out->v[i].p) {
			nd_blobs_free(out);
			return nd_err_set(e, -ENOMEM, "out of memory");
		}
		memcpy(out->v[i].p, all + off, lens[i]);
		out->v[i].len = lens[i];
		out->v[i].present = true;
		off += lens[i];
	}
	return 0;
}

static int mpi_fail(int rc, const char *what, const char *msg, struct nd_err *e)
{
	return nd_err_set(e, -EIO, "MPI %s failed (error %d): %s", what, rc, msg);
}

static int collect(struct nd_rv_conn *c, bool all, const void *buf, size_t len,
		   struct nd_blobs *out, struct nd_err *e)
{
	const struct nd_mpi_plugin *mpi = MPI_OF(c);
	uint8_t *data = NULL;
	uint32_t *lens = NULL;
	char msg[256] = "";
	int rc, ret = 0;

	memset(out, 0, sizeof(*out));
	if (len > ND_RV_PAYLOAD_MAX)
		return nd_err_set(e, -E2BIG, "rendezvous part of %zu bytes is too large", len);
	rc = (all ? mpi->allgather : mpi->gather)(buf, (uint32_t)len, &data, &lens, msg,
						  sizeof(msg));
	if (rc)
		return mpi_fail(rc, all ? "allgather" : "gather", msg, e);
	if (data && lens)
		ret = split(data, lens, c->nranks, out, e);
	free(data);
	free(lens);
	return ret;
}

static int mpi_allgather(struct nd_rv_conn *c, const void *buf, size_t len,
			 struct nd_blobs *out, struct nd_err *e)
{
	return collect(c, true, buf, len, out, e);
}

static int mpi_gather(struct nd_rv_conn *c, const void *buf, size_t len, struct nd_blobs *out,
		      struct nd_err *e)
{
	return collect(c, false, buf, len, out, e);
}

static int mpi_bcast(struct nd_rv_conn *c, const void *buf, size_t len, struct nd_blobs *out,
		     struct nd_err *e)
{
	uint8_t *data = NULL;
	uint32_t n = 0;
	char msg[256] = "";
	int rc;

	memset(out, 0, sizeof(*out));
	rc = MPI_OF(c)->bcast(buf, (uint32_t)len, &data, &n, msg, sizeof(msg));
	if (rc)
		return mpi_fail(rc, "broadcast", msg, e);
	rc = split(data, &n, 1, out, e);
	free(data);
	return rc;
}

static int mpi_barrier_start(struct nd_rv_conn *c, struct nd_err *e)
{
	char msg[256] = "";
	int rc = MPI_OF(c)->ibarrier(msg, sizeof(msg));

	return rc ? mpi_fail(rc, "barrier", msg, e) : 0;
}

static int mpi_barrier_test(struct nd_rv_conn *c, bool *done, struct nd_err *e)
{
	char msg[256] = "";
	int flag = 0, rc = MPI_OF(c)->test(&flag, msg, sizeof(msg));

	*done = flag != 0;
	return rc ? mpi_fail(rc, "barrier test", msg, e) : 0;
}

/* MPI has no word for "one rank gave up" short of MPI_Abort: the gather says it instead. */
static int mpi_poll(struct nd_rv_conn *c, struct nd_err *e)
{
	(void)c;
	(void)e;
	return 0;
}

static void mpi_abort_note(struct nd_rv_conn *c, const char *reason)
{
	(void)c;
	(void)reason;
}

static int mpi_fd(struct nd_rv_conn *c)
{
	(void)c;
	return -1;
}

static void mpi_close(struct nd_rv_conn *c)
{
	struct mpi_conn *m = (struct mpi_conn *)c;

	m->mpi->finalize();
	/* libmpi keeps threads and atexit handlers: never dlclose it */
	free(m);
}

static const struct nd_rv_ops mpi_ops = {
	.name = "MPI",
	.allgather = mpi_allgather,
	.gather = mpi_gather,
	.bcast = mpi_bcast,
	.barrier_start = mpi_barrier_start,
	.barrier_test = mpi_barrier_test,
	.poll = mpi_poll,
	.abort = mpi_abort_note,
	.fd = mpi_fd,
	.close = mpi_close,
};

/* Beside the binary (the build directory), else ../lib/nodrop/ (an installed tree). */
static void *load_plugin(char *tried, size_t len)
{
	char exe[PATH_MAX], path[PATH_MAX + 64];
	const char *env = getenv("NODROP_MPI_PLUGIN");
	ssize_t n;
	void *dl;

	if (env && *env) {
		snprintf(tried, len, "%s", env);
		return dlopen(env, RTLD_NOW | RTLD_GLOBAL);
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	dirname(exe);
	snprintf(path, sizeof(path), "%s/" ND_MPI_PLUGIN_NAME, exe);
	snprintf(tried, len, "%s", path);
	/* Open MPI loads its components with dlopen: they need libmpi's symbols global */
	dl = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (dl)
		return dl;
	snprintf(path, sizeof(path), "%s/../lib/nodrop/" ND_MPI_PLUGIN_NAME, exe);
	snprintf(tried + strlen(tried), len - strlen(tried), " or %s", path);
	return dlopen(path, RTLD_NOW | RTLD_GLOBAL);
}

int nd_rv_mpi_open(const struct nd_rendezvous *rv, const volatile int *stop,
		   struct nd_rv_conn **c, struct nd_err *e)
{
	struct mpi_conn *m = calloc(1, sizeof(*m));
	char tried[2 * PATH_MAX + 80] = "", msg[256] = "";
	nd_mpi_plugin_fn get;
	int rank = 0, size = 0, rc;

	if (!m)
		return nd_err_set(e, -ENOMEM, "out of memory");
	m->dl = load_plugin(tried, sizeof(tried));
	if (!m->dl) {
		const char *why = dlerror();

		free(m);
		return nd_err_set(e, -ENOENT, "MPI mode needs %s (%s): this nodrop was built "
				  "without MPI, or the plugin is not where it looked; build with "
				  "an MPI installed (mpicc) or use --coord", ND_MPI_PLUGIN_NAME,
				  why ? why : tried);
	}
	*(void **)&get = dlsym(m->dl, ND_MPI_PLUGIN_SYM);
	m->mpi = get ? get() : NULL;
	if (!m->mpi || m->mpi->abi != ND_MPI_ABI) {
		free(m);
		return nd_err_set(e, -ENOEXEC, "%s is not a nodrop MPI plugin of this version "
				  "(ABI %d): rebuild it with this nodrop", tried, ND_MPI_ABI);
	}
	rc = m->mpi->init(&rank, &size, msg, sizeof(msg));
	if (rc || rank < 0 || size < 1) {
		free(m);
		return nd_err_set(e, -EIO, "MPI initialisation failed (%d): %s", rc, msg);
	}
	m->base.ops = &mpi_ops;
	m->base.rank = (uint32_t)rank;
	m->base.nranks = (uint32_t)size;
	m->base.timeout_s = rv->timeout_s;
	m->base.stop = stop;
	*c = &m->base;
	return 0;
}
