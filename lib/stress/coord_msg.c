// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The coordinator's messages. Everything here reads bytes from the network: every length is
 * bounded before it is used, every count against what is left, every string for printable
 * characters, and a message must end exactly where its frame does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "coord.h"

void nd_blobs_free(struct nd_blobs *b)
{
	size_t i;

	for (i = 0; b->v && i < b->n; i++)
		free(b->v[i].p);
	free(b->v);
	b->v = NULL;
	b->n = 0;
}

int nd_rv_frame(const uint8_t *buf, size_t len, uint16_t *type, uint32_t *plen)
{
	struct nd_rbuf r = { buf, len, false };
	uint32_t magic;
	uint16_t version;

	if (len < ND_RV_HDR) {
		/* a wrong magic is known from the first bytes: do not wait for more */
		if (len >= 4 && nd_r_u32(&r) != ND_RV_MAGIC)
			return -EPROTO;
		return -EAGAIN;
	}
	magic = nd_r_u32(&r);
	version = nd_r_u16(&r);
	*type = nd_r_u16(&r);
	*plen = nd_r_u32(&r);
	if (magic != ND_RV_MAGIC || version != ND_RV_VERSION || !*type ||
	    *type > ND_RV_TYPE_MAX || *plen > ND_RV_PAYLOAD_MAX)
		return -EPROTO;
	return len - ND_RV_HDR >= *plen ? 0 : -EAGAIN;
}

static void put_hdr(struct nd_wbuf *w, enum nd_rv_type type, size_t *at)
{
	nd_w_u32(w, ND_RV_MAGIC);
	nd_w_u16(w, ND_RV_VERSION);
	nd_w_u16(w, (uint16_t)type);
	*at = w->len;
	nd_w_u32(w, 0);
}

/* Patch the payload length in once it is known. */
static void end_frame(struct nd_wbuf *w, size_t at)
{
	uint32_t n = (uint32_t)(w->len - at - 4);

	if (w->oom)
		return;
	w->p[at] = (uint8_t)n;
	w->p[at + 1] = (uint8_t)(n >> 8);
	w->p[at + 2] = (uint8_t)(n >> 16);
	w->p[at + 3] = (uint8_t)(n >> 24);
}

/* A hello's payload; @mac NULL writes a zero MAC, as the MAC itself is computed over it. */
static void hello_payload(struct nd_wbuf *w, const struct nd_rv_hello *h, const uint8_t *mac)
{
	static const uint8_t zero[ND_RV_MAC];

	nd_w_str(w, h->token);
	nd_w_u32(w, (uint32_t)h->rank);
	nd_w_u64(w, h->cookie);
	nd_w_str(w, h->host);
	nd_w_u32(w, h->pid);
	nd_gen_job_encode(&h->job, w);
	nd_w_u8(w, h->auth);
	nd_w_bytes(w, h->nonce, ND_RV_NONCE);
	nd_w_bytes(w, mac ? mac : zero, ND_RV_MAC);
	nd_w_str(w, h->cred);
}

void nd_rv_put_hello(struct nd_wbuf *w, const struct nd_rv_hello *h)
{
	size_t at;

	put_hdr(w, ND_RV_HELLO, &at);
	hello_payload(w, h, h->mac);
	end_frame(w, at);
}

int nd_rv_hello_mac(const uint8_t key[ND_RV_KEY], const uint8_t snonce[ND_RV_NONCE],
		    const struct nd_rv_hello *h, uint8_t mac[ND_RV_MAC], struct nd_err *e)
{
	struct nd_wbuf w = { 0 };
	int ret;

	nd_w_bytes(&w, snonce, ND_RV_NONCE);
	hello_payload(&w, h, NULL);
	ret = w.oom ? nd_err_set(e, -ENOMEM, "out of memory") :
		      nd_rv_hmac(key, "nodrop stress hello v3", &w, mac, e);
	nd_wbuf_free(&w);
	return ret;
}

int nd_rv_welcome_mac(const uint8_t key[ND_RV_KEY], const uint8_t snonce[ND_RV_NONCE],
		      const uint8_t cnonce[ND_RV_NONCE], uint32_t rank, uint32_t nranks,
		      uint8_t mac[ND_RV_MAC], struct nd_err *e)
{
	struct nd_wbuf w = { 0 };
	int ret;

	nd_w_bytes(&w, cnonce, ND_RV_NONCE);
	nd_w_bytes(&w, snonce, ND_RV_NONCE);
	nd_w_u32(&w, rank);
	nd_w_u32(&w, nranks);
	ret = w.oom ? nd_err_set(e, -ENOMEM, "out of memory") :
		      nd_rv_hmac(key, "nodrop stress welcome v3", &w, mac, e);
	nd_wbuf_free(&w);
	return ret;
}

void nd_rv_put_welcome(struct nd_wbuf *w, uint32_t rank, uint32_t nranks,
		       const uint8_t mac[ND_RV_MAC])
{
	static const uint8_t zero[ND_RV_MAC];
	size_t at;

	put_hdr(w, ND_RV_WELCOME, &at);
	nd_w_u32(w, rank);
	nd_w_u32(w, nranks);
	nd_w_bytes(w, mac ? mac : zero, ND_RV_MAC);
	end_frame(w, at);
}

void nd_rv_put_challenge(struct nd_wbuf *w, uint8_t auth, const uint8_t nonce[ND_RV_NONCE])
{
	size_t at;

	put_hdr(w, ND_RV_CHALLENGE, &at);
	nd_w_u8(w, auth);
	nd_w_bytes(w, nonce, ND_RV_NONCE);
	end_frame(w, at);
}

void nd_rv_put_reason(struct nd_wbuf *w, enum nd_rv_type type, int32_t rank, const char *why)
{
	size_t at;

	put_hdr(w, type, &at);
	nd_w_u32(w, (uint32_t)rank);
	nd_w_str(w, why);
	end_frame(w, at);
}

void nd_rv_put_op(struct nd_wbuf *w, uint8_t op, uint32_t seq, const void *data, size_t len)
{
	size_t at;

	put_hdr(w, ND_RV_OP, &at);
	nd_w_u8(w, op);
	nd_w_u32(w, seq);
	nd_w_u32(w, (uint32_t)len);
	nd_w_bytes(w, data, len);
	end_frame(w, at);
}

void nd_rv_put_reply(struct nd_wbuf *w, uint8_t op, uint32_t seq, const struct nd_blob *v,
		     size_t n)
{
	size_t at, i;

	put_hdr(w, ND_RV_REPLY, &at);
	nd_w_u8(w, op);
	nd_w_u32(w, seq);
	nd_w_u32(w, (uint32_t)n);
	for (i = 0; i < n; i++) {
		nd_w_u8(w, v[i].present);
		nd_w_u32(w, (uint32_t)v[i].len);
		nd_w_bytes(w, v[i].p, v[i].len);
	}
	end_frame(w, at);
}

void nd_rv_put_bye(struct nd_wbuf *w)
{
	size_t at;

	put_hdr(w, ND_RV_BYE, &at);
	end_frame(w, at);
}

static void get_fixed(struct nd_rbuf *r, uint8_t *dst, size_t n)
{
	const uint8_t *p = nd_r_bytes(r, n);

	if (p)
		memcpy(dst, p, n);
	else
		r->bad = true;
}

static void get_hello(struct nd_rbuf *r, struct nd_rv_hello *h)
{
	nd_r_str(r, h->token, sizeof(h->token));
	h->rank = (int32_t)nd_r_u32(r);
	h->cookie = nd_r_u64(r);
	nd_r_str(r, h->host, sizeof(h->host));
	h->pid = nd_r_u32(r);
	if (h->rank < -1 || !h->token[0])
		r->bad = true;
	if (!r->bad && nd_gen_job_decode(r, &h->job))
		r->bad = true;
	h->auth = nd_r_u8(r);
	get_fixed(r, h->nonce, ND_RV_NONCE);
	get_fixed(r, h->mac, ND_RV_MAC);
	nd_r_str(r, h->cred, sizeof(h->cred));
	if (h->auth > ND_RV_AUTH_KEY || h->auth == ND_RV_AUTH_AUTO)
		r->bad = true;
}

static void get_reply(struct nd_rbuf *r, struct nd_rv_msg *m, uint32_t nranks_max)
{
	struct nd_blobs *b = &m->u.reply.blobs;
	const uint8_t *p;
	size_t n, i;

	m->u.reply.op = nd_r_u8(r);
	m->u.reply.seq = nd_r_u32(r);
	n = nd_r_count(r, nranks_max, 5);
	if (m->u.reply.op >= ND_RV_OP_COUNT || r->bad)
		goto bad;
	b->v = calloc(n ? n : 1, sizeof(*b->v));
	if (!b->v)
		goto bad;
	for (i = 0; i < n; i++) {
		b->v[i].present = nd_r_u8(r) != 0;
		b->v[i].len = nd_r_u32(r);
		p = nd_r_bytes(r, b->v[i].len);
		if (!p || (!b->v[i].present && b->v[i].len))
			goto bad;
		b->v[i].p = malloc(b->v[i].len ? b->v[i].len : 1);
		if (!b->v[i].p)
			goto bad;
		memcpy(b->v[i].p, p, b->v[i].len);
		b->n = i + 1;
	}
	b->n = n;
	return;
bad:
	r->bad = true;
}

int nd_rv_msg_decode(uint16_t type, const uint8_t *payload, size_t len, uint32_t nranks_max,
		     struct nd_rv_msg *m)
{
	struct nd_rbuf r = { payload, len, false };

	memset(m, 0, sizeof(*m));
	m->type = (enum nd_rv_type)type;
	switch (type) {
	case ND_RV_HELLO:
		get_hello(&r, &m->u.hello);
		break;
	case ND_RV_WELCOME:
		m->u.welcome.rank = nd_r_u32(&r);
		m->u.welcome.nranks = nd_r_u32(&r);
		get_fixed(&r, m->u.welcome.mac, ND_RV_MAC);
		if (!m->u.welcome.nranks || m->u.welcome.nranks > nranks_max ||
		    m->u.welcome.rank >= m->u.welcome.nranks)
			r.bad = true;
		break;
	case ND_RV_REJECT:
	case ND_RV_ABORT:
		m->u.abort.rank = (int32_t)nd_r_u32(&r);
		nd_r_str(&r, m->u.abort.reason, sizeof(m->u.abort.reason));
		if (m->u.abort.rank < -1 || m->u.abort.rank >= (int64_t)nranks_max)
			r.bad = true;
		break;
	case ND_RV_OP:
		m->u.op.op = nd_r_u8(&r);
		m->u.op.seq = nd_r_u32(&r);
		m->u.op.len = nd_r_u32(&r);
		m->u.op.data = nd_r_bytes(&r, m->u.op.len);
		if (m->u.op.op >= ND_RV_OP_COUNT)
			r.bad = true;
		break;
	case ND_RV_REPLY:
		get_reply(&r, m, nranks_max);
		break;
	case ND_RV_BYE:
		break;
	case ND_RV_CHALLENGE:
		m->u.challenge.auth = nd_r_u8(&r);
		get_fixed(&r, m->u.challenge.nonce, ND_RV_NONCE);
		if (m->u.challenge.auth > ND_RV_AUTH_KEY || m->u.challenge.auth == ND_RV_AUTH_AUTO)
			r.bad = true;
		break;
	default:
		r.bad = true;
	}
	if (!r.bad && r.left)
		r.bad = true;	/* trailing bytes: not a message we wrote */
	if (r.bad) {
		nd_rv_msg_free(m);
		return -EPROTO;
	}
	return 0;
}

void nd_rv_msg_free(struct nd_rv_msg *m)
{
	if (m->type == ND_RV_REPLY)
		nd_blobs_free(&m->u.reply.blobs);
	memset(m, 0, sizeof(*m));
}
