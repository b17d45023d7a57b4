// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * nodrop-mpi.so: the MPI calls nodrop's rendezvous needs, behind struct nd_mpi_plugin. Built
 * separately with mpicc (-DND_MPI_PLUGIN) where an MPI is installed, so that libnodrop and the
 * nodrop binary never depend on one implementation's ABI; in libnodrop's own build this file
 * compiles to nothing.
 */
#ifdef ND_MPI_PLUGIN
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord.h"

static MPI_Request barrier_req = MPI_REQUEST_NULL;

static int fail(int rc, char *err, size_t len)
{
	char msg[MPI_MAX_ERROR_STRING];
	int n = 0;

	if (MPI_Error_string(rc, msg, &n) != MPI_SUCCESS)
		snprintf(msg, sizeof(msg), "unknown MPI error");
	snprintf(err, len, "%s", msg);
	return rc;
}

static int plugin_init(int *rank, int *size, char *err, size_t len)
{
	int inited = 0, provided, rc;

	MPI_Initialized(&inited);
	if (!inited) {
		rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided);
		if (rc != MPI_SUCCESS)
			return fail(rc, err, len);
	}
	/* errors come back to us, which turns them into a FAILED verdict with MPI's words */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rc = MPI_Comm_rank(MPI_COMM_WORLD, rank);
	if (rc == MPI_SUCCESS)
		rc = MPI_Comm_size(MPI_COMM_WORLD, size);
	return rc == MPI_SUCCESS ? 0 : fail(rc, err, len);
}

/* Lengths first, then the parts (to everyone, or to rank 0). */
static int collect(bool all, const void *buf, uint32_t len, uint8_t **out, uint32_t **lens,
		   char *err, size_t errlen)
{
	int rank, size, i, rc, *counts = NULL, *displs = NULL;
	uint64_t total = 0;
	int n = (int)len;

	*out = NULL;
	*lens = NULL;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	counts = calloc((size_t)size, sizeof(int));
	displs = calloc((size_t)size, sizeof(int));
	if (!counts || !displs) {
		rc = MPI_ERR_NO_MEM;
		goto out;
	}
	rc = all ? MPI_Allgather(&n, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD) :
		   MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (rc != MPI_SUCCESS)
		goto out;
	if (all || !rank) {
		for (i = 0; i < size; i++) {
			displs[i] = (int)total;
			total += (uint64_t)counts[i];
		}
		if (total > INT32_MAX) {
			rc = MPI_ERR_COUNT;
			goto out;
		}
		*out = malloc(total ? total : 1);
		*lens = calloc((size_t)size, sizeof(uint32_t));
		if (!*out || !*lens) {
			rc = MPI_ERR_NO_MEM;
			goto out;
		}
		for (i = 0; i < size; i++)
			(*lens)[i] = (uint32_t)counts[i];
	}
	rc = all ? MPI_Allgatherv(buf, n, MPI_BYTE, *out, counts, displs, MPI_BYTE,
				  MPI_COMM_WORLD) :
		   MPI_Gatherv(buf, n, MPI_BYTE, *out, counts, displs, MPI_BYTE, 0,
			       MPI_COMM_WORLD);
out:
	free(counts);
	free(displs);
	if (rc != MPI_SUCCESS) {
		free(*out);
		free(*lens);
		*out = NULL;
		*lens = NULL;
		return fail(rc, err, errlen);
	}
	return 0;
}

static int plugin_allgather(const void *buf, uint32_t len, uint8_t **out, uint32_t **lens,
			    char *err, size_t errlen)
{
	return collect(true, buf, len, out, lens, err, errlen);
}

static int plugin_gather(const void *buf, uint32_t len, uint8_t **out, uint32_t **lens,
			 char *err, size_t errlen)
{
	return collect(false, buf, len, out, lens, err, errlen);
}

static int plugin_bcast(const void *buf, uint32_t len, uint8_t **out, uint32_t *out_len,
			char *err, size_t errlen)
{
	int rank, n = (int)len, rc;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	rc = MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (rc != MPI_SUCCESS)
		return fail(rc, err, errlen);
	*out = malloc(n ? (size_t)n : 1);
	if (!*out)
		return fail(MPI_ERR_NO_MEM, err, errlen);
	if (!rank && n)
		memcpy(*out, buf, (size_t)n);
	rc = MPI_Bcast(*out, n, MPI_BYTE, 0, MPI_COMM_WORLD);
	if (rc != MPI_SUCCESS) {
		free(*out);
		*out = NULL;
		return fail(rc, err, errlen);
	}
	*out_len = (uint32_t)n;
	return 0;
}

static int plugin_ibarrier(char *err, size_t errlen)
{
	int rc = MPI_Ibarrier(MPI_COMM_WORLD, &barrier_req);

	return rc == MPI_SUCCESS ? 0 : fail(rc, err, errlen);
}

static int plugin_test(int *done, char *err, size_t errlen)
{
	int rc = MPI_Test(&barrier_req, done, MPI_STATUS_IGNORE);

	return rc == MPI_SUCCESS ? 0 : fail(rc, err, errlen);
}

static void plugin_abort(int code)
{
	MPI_Abort(MPI_COMM_WORLD, code);
}

static void plugin_finalize(void)
{
	int done = 0;

	MPI_Finalized(&done);
	if (!done)
		MPI_Finalize();
}

static const struct nd_mpi_plugin plugin = {
	.abi = ND_MPI_ABI,
	.init = plugin_init,
	.allgather = plugin_allgather,
	.gather = plugin_gather,
	.bcast = plugin_bcast,
	.ibarrier = plugin_ibarrier,
	.test = plugin_test,
	.abort = plugin_abort,
	.finalize = plugin_finalize,
};

const struct nd_mpi_plugin *nd_mpi_plugin(void);

const struct nd_mpi_plugin *nd_mpi_plugin(void)
{
	return &plugin;
}
#endif /* ND_MPI_PLUGIN */
