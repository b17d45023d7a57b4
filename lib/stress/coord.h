/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Rendezvous: the few collective steps a stress job needs (allgather, gather to rank 0,
 * broadcast from rank 0, barrier), over the built-in TCP coordinator or MPI. The engine sees
 * only struct nd_rv_ops, so both backends run the same job code.
 */
#ifndef ND_COORD_H
#define ND_COORD_H

#include "gen.h"

struct nd_blob {
	uint8_t *p;
	size_t len;
	bool present;			/* false: the rank is gone */
};

struct nd_blobs {
	struct nd_blob *v;
	size_t n;
};

void nd_blobs_free(struct nd_blobs *b);

struct nd_rv_conn;

struct nd_rv_ops {
	const char *name;
	/* every rank's @buf, in rank order */
	int (*allgather)(struct nd_rv_conn *c, const void *buf, size_t len, struct nd_blobs *out,
			 struct nd_err *e);
	/* rank 0 gets every rank's @buf; the others an empty @out */
	int (*gather)(struct nd_rv_conn *c, const void *buf, size_t len, struct nd_blobs *out,
		      struct nd_err *e);
	/* everyone gets rank 0's @buf (the others pass NULL, 0) */
	int (*bcast)(struct nd_rv_conn *c, const void *buf, size_t len, struct nd_blobs *out,
		     struct nd_err *e);
	/* a barrier in two halves, so the engine keeps serving its queues while it waits */
	int (*barrier_start)(struct nd_rv_conn *c, struct nd_err *e);
	int (*barrier_test)(struct nd_rv_conn *c, bool *done, struct nd_err *e);
	/* -ECONNABORTED (and why) once another rank gave up or the coordinator went away */
	int (*poll)(struct nd_rv_conn *c, struct nd_err *e);
	/* tell the others this rank gives up, best effort */
	void (*abort)(struct nd_rv_conn *c, const char *reason);
	/* a descriptor that turns readable when the others have news (-1: none to wait on) */
	int (*fd)(struct nd_rv_conn *c);
	void (*close)(struct nd_rv_conn *c);
};

struct nd_rv_conn {
	const struct nd_rv_ops *ops;
	uint32_t rank, nranks;
	double timeout_s;
	const volatile int *stop;
};

/* Join the job @rv describes (starting the coordinator when @rv->serve). */
int nd_rv_open(const struct nd_rendezvous *rv, const struct nd_stress_job *job,
	       const volatile int *stop, struct nd_rv_conn **c, struct nd_err *e);
int nd_rv_tcp_open(const struct nd_rendezvous *rv, const struct nd_stress_job *job,
		   const volatile int *stop, struct nd_rv_conn **c, struct nd_err *e);
int nd_rv_mpi_open(const struct nd_rendezvous *rv, const volatile int *stop,
		   struct nd_rv_conn **c, struct nd_err *e);

/* ---- the coordinator's wire: frames and messages (coord_msg.c, fuzzed) ---- */

#define ND_RV_MAGIC 0x5652444eu		/* "NDRV" */
#define ND_RV_VERSION 3
#define ND_RV_HDR 12
#define ND_RV_PAYLOAD_MAX (64u << 20)

enum nd_rv_type {
	ND_RV_HELLO = 1,	/* participant -> coordinator: who, which job */
	ND_RV_WELCOME,		/* coordinator -> participant: your rank */
	ND_RV_REJECT,		/* coordinator -> participant: not this job; why */
	ND_RV_OP,		/* participant -> coordinator: my part of a collective step */
	ND_RV_REPLY,		/* coordinator -> participant: the step's outcome */
	ND_RV_ABORT,		/* either way: a rank gave up; why */
	ND_RV_BYE,		/* participant -> coordinator: done, closing */
	ND_RV_CHALLENGE,	/* coordinator -> participant, first: how to prove itself, a nonce */
	ND_RV_TYPE_MAX = ND_RV_CHALLENGE,
};

enum nd_rv_op {
	ND_RV_ALLGATHER,
	ND_RV_GATHER,
	ND_RV_BCAST,
	ND_RV_BARRIER,
	ND_RV_OP_COUNT
};

#define ND_RV_NONCE 32
#define ND_RV_MAC 32
#define ND_RV_KEY 32
#define ND_RV_CRED_MAX 2048		/* a MUNGE credential is a few hundred characters */

struct nd_rv_hello {
	char token[64];
	int32_t rank;			/* wanted, -1 any */
	uint64_t cookie;		/* the serving process's own participant proves itself */
	char host[64];
	uint32_t pid;
	struct nd_stress_job job;
	/* its proof (enum nd_rv_auth): a MUNGE credential, or a nonce of its own and the MAC of
	 * the whole hello (with a zero MAC) under the key and the coordinator's nonce */
	uint8_t auth;
	uint8_t nonce[ND_RV_NONCE];
	uint8_t mac[ND_RV_MAC];
	char cred[ND_RV_CRED_MAX];
};

struct nd_rv_msg {
	enum nd_rv_type type;
	union {
		struct nd_rv_hello hello;
		struct {
			uint32_t rank, nranks;
			uint8_t mac[ND_RV_MAC];	/* key: the coordinator's own proof */
		} welcome;
		struct {
			uint8_t auth;		/* enum nd_rv_auth: what the coordinator asks for */
			uint8_t nonce[ND_RV_NONCE];
		} challenge;
		struct {
			uint8_t op;
			uint32_t seq;
			const uint8_t *data;	/* points into the frame */
			size_t len;
		} op;
		struct {
			uint8_t op;
			uint32_t seq;
			struct nd_blobs blobs;	/* copies: nd_blobs_free() */
		} reply;
		struct {
			int32_t rank;		/* -1: the coordinator itself */
			char reason[ND_ERR_MSG_MAX];
		} abort;			/* also REJECT's reason */
	} u;
};

/*
 * Is there a whole frame at @buf? 0 and its type and payload length; -EAGAIN for more bytes;
 * -EPROTO for anything that is not our protocol (magic, version, type, length over the limit).
 */
int nd_rv_frame(const uint8_t *buf, size_t len, uint16_t *type, uint32_t *plen);
/* Decode a frame's payload; -EPROTO for anything out of bounds. Free with nd_rv_msg_free(). */
int nd_rv_msg_decode(uint16_t type, const uint8_t *payload, size_t len, uint32_t nranks_max,
		     struct nd_rv_msg *m);
void nd_rv_msg_free(struct nd_rv_msg *m);

/* Encoders: a whole frame (header + payload) appended to @w. */
void nd_rv_put_hello(struct nd_wbuf *w, const struct nd_rv_hello *h);
void nd_rv_put_welcome(struct nd_wbuf *w, uint32_t rank, uint32_t nranks,
		       const uint8_t mac[ND_RV_MAC]);
void nd_rv_put_challenge(struct nd_wbuf *w, uint8_t auth, const uint8_t nonce[ND_RV_NONCE]);
void nd_rv_put_reason(struct nd_wbuf *w, enum nd_rv_type type, int32_t rank, const char *why);
void nd_rv_put_op(struct nd_wbuf *w, uint8_t op, uint32_t seq, const void *data, size_t len);
void nd_rv_put_reply(struct nd_wbuf *w, uint8_t op, uint32_t seq, const struct nd_blob *v,
		     size_t n);
void nd_rv_put_bye(struct nd_wbuf *w);

/* ---- who may join (coord_auth.c) ---- */

/* HMAC-SHA-256 under @key of @label and @msg (libcrypto, loaded on first use). */
int nd_rv_hmac(const uint8_t key[ND_RV_KEY], const char *label, const struct nd_wbuf *msg,
	       uint8_t mac[ND_RV_MAC], struct nd_err *e);
bool nd_rv_mac_equal(const uint8_t a[ND_RV_MAC], const uint8_t b[ND_RV_MAC]);
int nd_rv_nonce(uint8_t n[ND_RV_NONCE], struct nd_err *e);
/* A key file: 64 hex digits and a newline, readable by its owner alone. */
int nd_rv_key_load(const char *path, uint8_t key[ND_RV_KEY], struct nd_err *e);
/* libmunge loads and munged's socket is there (NODROP_MUNGE_SOCKET overrides its path). */
bool nd_rv_munge_usable(void);
int nd_rv_munge_encode(const void *p, size_t n, char **cred, struct nd_err *e);
/* The payload (the caller frees) and the uid that made the credential. */
int nd_rv_munge_decode(const char *cred, void **p, size_t *n, uid_t *uid, gid_t *gid,
		       struct nd_err *e);

/* The proofs both sides compute (coord_auth.c's HMAC over coord_msg.c's encodings). */
int nd_rv_hello_mac(const uint8_t key[ND_RV_KEY], const uint8_t snonce[ND_RV_NONCE],
		    const struct nd_rv_hello *h, uint8_t mac[ND_RV_MAC], struct nd_err *e);
int nd_rv_welcome_mac(const uint8_t key[ND_RV_KEY], const uint8_t snonce[ND_RV_NONCE],
		      const uint8_t cnonce[ND_RV_NONCE], uint32_t rank, uint32_t nranks,
		      uint8_t mac[ND_RV_MAC], struct nd_err *e);

/* What a coordinator checks a hello against. */
struct nd_rv_guard {
	enum nd_rv_auth auth;		/* resolved: none, munge or key */
	uint8_t key[ND_RV_KEY];
	uid_t uid;			/* MUNGE: the job's uid */
	long gid;			/* MUNGE: and this gid, -1 any */
	void (*log)(void *arg, const char *line);
	void *log_arg;
};

/* ---- the coordinator (coord_serve.c, coord_job.c): a thread in rank 0's process ---- */

struct nd_coord;

/* Listen on @addr (HOST:PORT) for @nranks processes of @job with @token. */
int nd_coord_start(const char *addr, uint32_t nranks, const char *token,
		   const struct nd_stress_job *job, double timeout_s, const struct nd_rv_guard *g,
		   struct nd_coord **cp, struct nd_err *e);
/* The address a local participant connects to, and the cookie that makes it rank 0. */
const char *nd_coord_local_addr(const struct nd_coord *c);
uint64_t nd_coord_cookie(const struct nd_coord *c);
/* Wait for the coordinator to see every rank leave (at most @wait_s), then free it. */
void nd_coord_stop(struct nd_coord *c, double wait_s);

/* HOST:PORT (IPv6 as [ADDR]:PORT) into its parts; -EINVAL with a message. */
int nd_rv_split_addr(const char *addr, char *host, size_t hlen, char *port, size_t plen,
		     struct nd_err *e);

/* ---- the MPI plugin's interface (coord_mpi.c loads it; coord_mpi_plugin.c is it) ---- */

#define ND_MPI_ABI 1
#define ND_MPI_PLUGIN_NAME "nodrop-mpi.so"

/*
 * Every function returns 0 or an MPI error code with MPI's message in @err. Gathered parts come
 * back concatenated in rank order in *@out (malloc'd) with their lengths in *@lens.
 */
struct nd_mpi_plugin {
	uint32_t abi;
	int (*init)(int *rank, int *size, char *err, size_t errlen);
	int (*allgather)(const void *buf, uint32_t len, uint8_t **out, uint32_t **lens,
			 char *err, size_t errlen);
	/* rank 0 gets the parts; the others NULL */
	int (*gather)(const void *buf, uint32_t len, uint8_t **out, uint32_t **lens, char *err,
		      size_t errlen);
	/* everyone gets rank 0's @buf */
	int (*bcast)(const void *buf, uint32_t len, uint8_t **out, uint32_t *out_len, char *err,
		     size_t errlen);
	int (*ibarrier)(char *err, size_t errlen);
	int (*test)(int *done, char *err, size_t errlen);
	void (*abort)(int code);
	void (*finalize)(void);
};

typedef const struct nd_mpi_plugin *(*nd_mpi_plugin_fn)(void);
#define ND_MPI_PLUGIN_SYM "nd_mpi_plugin"

#endif
