// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma-core's libibverbs and librdmacm, loaded on first use. Most commands never make a verbs
 * call (--help, headroom, sim, counters and show on a host without RDMA), and loading the two
 * libraries with what they need (libnl-route, libnl) costs more CPU than a whole `ethtool -S`.
 * So libnodrop does not link them: it defines the entry points it uses, and each one opens the
 * library the first time any of them is called and calls through to it. Without the library
 * the entry points fail as a host without RDMA devices would (NULL, errno ENOSYS), and
 * nd_rdma_lib_error() says why.
 *
 * The definitions are hidden: inside libnodrop.so they are its own, and a program that links
 * libnodrop.a beside -libverbs keeps rdma-core's for every other caller.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "internal.h"

/* the functions themselves, not the header's inline wrappers around them */
#undef ibv_get_device_list
#undef ibv_query_port

#define HIDDEN __attribute__((visibility("hidden")))

/* X(library, return type, name, (parameters), (arguments), value when it cannot be loaded) */
#define VERBS_FNS(X, V)								\
	X(VERBS, struct ibv_device **, ibv_get_device_list, (int *n), (n), NULL)	\
	V(VERBS, ibv_free_device_list, (struct ibv_device **l), (l))		\
	X(VERBS, const char *, ibv_get_device_name, (struct ibv_device *d), (d), NULL) \
	X(VERBS, struct ibv_context *, ibv_open_device, (struct ibv_device *d), (d), NULL) \
	X(VERBS, int, ibv_close_device, (struct ibv_context *c), (c), ENOSYS)	\
	X(VERBS, int, ibv_query_device, (struct ibv_context *c, struct ibv_device_attr *a), \
	  (c, a), ENOSYS)							\
	X(VERBS, int, ibv_query_port,						\
	  (struct ibv_context *c, uint8_t p, struct _compat_ibv_port_attr *a), (c, p, a), ENOSYS) \
	X(VERBS, ssize_t, _ibv_query_gid_table,					\
	  (struct ibv_context *c, struct ibv_gid_entry *v, size_t n, uint32_t f, size_t sz), \
	  (c, v, n, f, sz), -ENOSYS)						\
	X(VERBS, const char *, ibv_port_state_str, (enum ibv_port_state s), (s), "unknown") \
	X(VERBS, const char *, ibv_wc_status_str, (enum ibv_wc_status s), (s), "unknown") \
	X(VERBS, struct ibv_pd *, ibv_alloc_pd, (struct ibv_context *c), (c), NULL) \
	X(VERBS, int, ibv_dealloc_pd, (struct ibv_pd *pd), (pd), ENOSYS)	\
	X(VERBS, struct ibv_mr *, ibv_reg_mr_iova2,				\
	  (struct ibv_pd *pd, void *a, size_t n, uint64_t iova, unsigned int acc),	\
	  (pd, a, n, iova, acc), NULL)						\
	X(VERBS, struct ibv_mr *, ibv_reg_dmabuf_mr,				\
	  (struct ibv_pd *pd, uint64_t off, size_t n, uint64_t iova, int fd, int acc), \
	  (pd, off, n, iova, fd, acc), NULL)					\
	X(VERBS, int, ibv_dereg_mr, (struct ibv_mr *mr), (mr), ENOSYS)		\
	X(VERBS, struct ibv_comp_channel *, ibv_create_comp_channel, (struct ibv_context *c), \
	  (c), NULL)								\
	X(VERBS, int, ibv_destroy_comp_channel, (struct ibv_comp_channel *ch), (ch), ENOSYS) \
	X(VERBS, struct ibv_cq *, ibv_create_cq,					\
	  (struct ibv_context *c, int cqe, void *ctx, struct ibv_comp_channel *ch, int vec), \
	  (c, cqe, ctx, ch, vec), NULL)						\
	X(VERBS, int, ibv_destroy_cq, (struct ibv_cq *cq), (cq), ENOSYS)	\
	X(VERBS, int, ibv_get_cq_event,						\
	  (struct ibv_comp_channel *ch, struct ibv_cq **cq, void **ctx), (ch, cq, ctx), -1) \
	V(VERBS, ibv_ack_cq_events, (struct ibv_cq *cq, unsigned int n), (cq, n)) \
	X(VERBS, struct ibv_qp *, ibv_create_qp,					\
	  (struct ibv_pd *pd, struct ibv_qp_init_attr *a), (pd, a), NULL)	\
	X(VERBS, int, ibv_modify_qp, (struct ibv_qp *qp, struct ibv_qp_attr *a, int mask), \
	  (qp, a, mask), ENOSYS)						\
	X(VERBS, int, ibv_destroy_qp, (struct ibv_qp *qp), (qp), ENOSYS)	\
	X(CM, struct rdma_event_channel *, rdma_create_event_channel, (void), (), NULL) \
	V(CM, rdma_destroy_event_channel, (struct rdma_event_channel *ch), (ch))	\
	X(CM, int, rdma_create_id,						\
	  (struct rdma_event_channel *ch, struct rdma_cm_id **id, void *ctx,	\
	   enum rdma_port_space ps), (ch, id, ctx, ps), -1)			\
	X(CM, int, rdma_destroy_id, (struct rdma_cm_id *id), (id), -1)		\
	X(CM, int, rdma_bind_addr, (struct rdma_cm_id *id, struct sockaddr *a), (id, a), -1) \
	X(CM, int, rdma_listen, (struct rdma_cm_id *id, int backlog), (id, backlog), -1) \
	X(CM, int, rdma_resolve_addr,						\
	  (struct rdma_cm_id *id, struct sockaddr *src, struct sockaddr *dst, int ms), \
	  (id, src, dst, ms), -1)						\
	X(CM, int, rdma_resolve_route, (struct rdma_cm_id *id, int ms), (id, ms), -1) \
	X(CM, int, rdma_create_qp,						\
	  (struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *a), \
	  (id, pd, a), -1)							\
	V(CM, rdma_destroy_qp, (struct rdma_cm_id *id), (id))			\
	X(CM, int, rdma_connect, (struct rdma_cm_id *id, struct rdma_conn_param *p), \
	  (id, p), -1)								\
	X(CM, int, rdma_accept, (struct rdma_cm_id *id, struct rdma_conn_param *p), \
	  (id, p), -1)								\
	X(CM, int, rdma_reject, (struct rdma_cm_id *id, const void *d, uint8_t n), \
	  (id, d, n), -1)							\
	X(CM, int, rdma_disconnect, (struct rdma_cm_id *id), (id), -1)		\
	X(CM, int, rdma_get_cm_event,						\
	  (struct rdma_event_channel *ch, struct rdma_cm_event **ev), (ch, ev), -1) \
	X(CM, int, rdma_ack_cm_event, (struct rdma_cm_event *ev), (ev), -1)	\
	X(CM, const char *, rdma_event_str, (enum rdma_cm_event_type t), (t), "unknown") \
	X(CM, int, rdma_set_option,						\
	  (struct rdma_cm_id *id, int level, int name, void *val, size_t len),	\
	  (id, level, name, val, len), -1)					\
	X(CM, __be16, rdma_get_src_port, (struct rdma_cm_id *id), (id), 0)	\
	X(CM, struct ibv_context **, rdma_get_devices, (int *n), (n), NULL)	\
	V(CM, rdma_free_devices, (struct ibv_context **l), (l))

enum { VERBS, CM, LIBS };

static const char *const soname[LIBS] = { "libibverbs.so.1", "librdmacm.so.1" };
static const char *const package[LIBS] = { "libibverbs1", "librdmacm1" };

static struct lib {
	pthread_once_t once;
	bool ok;
	char error[ND_ERR_MSG_MAX];
} libs[LIBS] = { { PTHREAD_ONCE_INIT, false, "" }, { PTHREAD_ONCE_INIT, false, "" } };

#define PTR(lib, ret, name, params, args, fail) static ret(*p_##name) params;
#define PTR_V(lib, name, params, args) static void(*p_##name) params;
VERBS_FNS(PTR, PTR_V)

struct sym {
	int lib;
	const char *name;
	void **ptr;
};

#define SYM(lib, ret, name, params, args, fail) { lib, #name, (void **)&p_##name },
#define SYM_V(lib, name, params, args) { lib, #name, (void **)&p_##name },
static const struct sym syms[] = { VERBS_FNS(SYM, SYM_V) };

static void load(int lib)
{
	struct lib *l = &libs[lib];
	void *h = dlopen(soname[lib], RTLD_NOW | RTLD_GLOBAL);
	size_t i;

	if (!h) {
		snprintf(l->error, sizeof(l->error), "cannot load %s (%s): apt-get install %s",
			 soname[lib], dlerror(), package[lib]);
		return;
	}
	for (i = 0; i < ND_ARRAY_SIZE(syms); i++) {
		if (syms[i].lib != lib)
			continue;
		*syms[i].ptr = dlsym(h, syms[i].name);
		if (!*syms[i].ptr) {
			snprintf(l->error, sizeof(l->error), "%s has no %s: rdma-core is too old "
				 "(nodrop needs rdma-core 34 or later)", soname[lib], syms[i].name);
			return;
		}
	}
	l->ok = true;
}

static void load_verbs(void)
{
	load(VERBS);
}

static void load_cm(void)
{
	load(CM);
}

static bool loaded(int lib)
{
	pthread_once(&libs[lib].once, lib == VERBS ? load_verbs : load_cm);
	if (!libs[lib].ok)
		errno = ENOSYS;
	return libs[lib].ok;
}

const char *nd_rdma_lib_error(void)
{
	int lib;

	for (lib = 0; lib < LIBS; lib++)
		if (libs[lib].error[0])
			return libs[lib].error;
	return NULL;
}

#define WRAP(lib, ret, name, params, args, fail)				\
	HIDDEN ret name params							\
	{									\
		return loaded(lib) ? p_##name args : (fail);			\
	}
#define WRAP_V(lib, name, params, args)						\
	HIDDEN void name params							\
	{									\
		if (loaded(lib))						\
			p_##name args;						\
	}
VERBS_FNS(WRAP, WRAP_V)
