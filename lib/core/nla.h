/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Netlink message and attribute helpers: walking, checking and building TLVs in a buffer the
 * caller owns. Ours rather than libmnl's: they are a few lines each, and one shared library
 * fewer to load is a measurable part of a one-shot `nodrop counters` (make bench).
 *
 * Lengths are checked exactly as the kernel's nla_ok()/nlmsg_ok() do; nd_nla_check() applies the
 * rules of the kernel's policy types to what the kernel sent (an integer has its exact width, a
 * string its terminating NUL, a nest at least one header or nothing).
 */
#ifndef ND_NLA_H
#define ND_NLA_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <linux/netlink.h>

#define ND_NL_ALIGN(len)	(((len) + 3u) & ~3u)
#define ND_NLMSG_HDRLEN		ND_NL_ALIGN(sizeof(struct nlmsghdr))
#define ND_NLA_HDRLEN		ND_NL_ALIGN(sizeof(struct nlattr))

enum nd_nla_kind {
	ND_NLA_U8,
	ND_NLA_U16,
	ND_NLA_U32,
	ND_NLA_U64,
	ND_NLA_STRING,		/* at least one byte, NUL or not */
	ND_NLA_NUL_STRING,	/* ends in a NUL */
	ND_NLA_NESTED,		/* empty, or at least one attribute header */
};

/* Messages */

static inline bool nd_nlmsg_ok(const struct nlmsghdr *nlh, int len)
{
	return len >= (int)sizeof(*nlh) && nlh->nlmsg_len >= sizeof(*nlh) &&
	       nlh->nlmsg_len <= (unsigned int)len;
}

static inline const struct nlmsghdr *nd_nlmsg_next(const struct nlmsghdr *nlh, int *len)
{
	*len -= (int)ND_NL_ALIGN(nlh->nlmsg_len);
	return (const struct nlmsghdr *)((const char *)nlh + ND_NL_ALIGN(nlh->nlmsg_len));
}

static inline void *nd_nlmsg_data(const struct nlmsghdr *nlh)
{
	return (char *)nlh + ND_NLMSG_HDRLEN;
}

/* The end of the message, where the next attribute is put. */
static inline void *nd_nlmsg_tail(const struct nlmsghdr *nlh)
{
	return (char *)nlh + ND_NL_ALIGN(nlh->nlmsg_len);
}

/* A fresh message header at @buf (zeroed by the caller's buffer discipline or here). */
static inline struct nlmsghdr *nd_nlmsg_put_header(void *buf)
{
	struct nlmsghdr *nlh = buf;

	memset(nlh, 0, ND_NLMSG_HDRLEN);
	nlh->nlmsg_len = ND_NLMSG_HDRLEN;
	return nlh;
}

/* Room for a family header of @size bytes after the netlink header, zeroed. */
static inline void *nd_nlmsg_put_extra(struct nlmsghdr *nlh, size_t size)
{
	char *p = nd_nlmsg_tail(nlh);

	nlh->nlmsg_len += ND_NL_ALIGN((unsigned int)size);
	memset(p, 0, ND_NL_ALIGN(size));
	return p;
}

/* Attributes */

static inline uint16_t nd_nla_type(const struct nlattr *a)
{
	return a->nla_type & NLA_TYPE_MASK;
}

static inline uint16_t nd_nla_len(const struct nlattr *a)
{
	return (uint16_t)(a->nla_len - ND_NLA_HDRLEN);
}

static inline void *nd_nla_data(const struct nlattr *a)
{
	return (char *)a + ND_NLA_HDRLEN;
}

/* Does an attribute start at @a with all of it inside the @len bytes left? */
static inline bool nd_nla_ok(const struct nlattr *a, long len)
{
	return len >= (long)sizeof(*a) && a->nla_len >= sizeof(*a) && a->nla_len <= len;
}

static inline const struct nlattr *nd_nla_next(const struct nlattr *a)
{
	return (const struct nlattr *)((const char *)a + ND_NL_ALIGN(a->nla_len));
}

static inline bool nd_nla_check(const struct nlattr *a, enum nd_nla_kind kind)
{
	static const uint8_t width[] = {
		[ND_NLA_U8] = 1, [ND_NLA_U16] = 2, [ND_NLA_U32] = 4, [ND_NLA_U64] = 8,
	};
	uint16_t len = nd_nla_len(a);

	switch (kind) {
	case ND_NLA_U8:
	case ND_NLA_U16:
	case ND_NLA_U32:
	case ND_NLA_U64:
		return len == width[kind];
	case ND_NLA_STRING:
		return len > 0;
	case ND_NLA_NUL_STRING:
		return len > 0 && ((const char *)nd_nla_data(a))[len - 1] == '\0';
	case ND_NLA_NESTED:
		return len == 0 || len >= sizeof(struct nlattr);
	}
	return false;
}

static inline uint8_t nd_nla_u8(const struct nlattr *a)
{
	return *(const uint8_t *)nd_nla_data(a);
}

static inline uint16_t nd_nla_u16(const struct nlattr *a)
{
	uint16_t v;

	memcpy(&v, nd_nla_data(a), sizeof(v));
	return v;
}

static inline uint32_t nd_nla_u32(const struct nlattr *a)
{
	uint32_t v;

	memcpy(&v, nd_nla_data(a), sizeof(v));
	return v;
}

/* 64-bit attributes are 4-byte aligned in a message: copied, never dereferenced. */
static inline uint64_t nd_nla_u64(const struct nlattr *a)
{
	uint64_t v;

	memcpy(&v, nd_nla_data(a), sizeof(v));
	return v;
}

static inline const char *nd_nla_str(const struct nlattr *a)
{
	return nd_nla_data(a);
}

/* The first attribute after a family header of @off bytes. */
static inline const struct nlattr *nd_nlmsg_attrs(const struct nlmsghdr *nlh, size_t off)
{
	return (const struct nlattr *)((const char *)nlh + ND_NLMSG_HDRLEN + ND_NL_ALIGN(off));
}

/*
 * Every attribute after a family header of @off bytes, bounded by nlmsg_len itself: the aligned
 * end may lie up to 3 bytes past a short datagram.
 */
#define nd_nla_for_each(a, nlh, off)							\
	for ((a) = nd_nlmsg_attrs(nlh, off);						\
	     nd_nla_ok(a, (const char *)(nlh) + (nlh)->nlmsg_len - (const char *)(a));	\
	     (a) = nd_nla_next(a))

/* Every attribute inside the nest @nest. */
#define nd_nla_for_each_nested(a, nest)							\
	for ((a) = (const struct nlattr *)nd_nla_data(nest);				\
	     nd_nla_ok(a, (const char *)nd_nla_data(nest) + nd_nla_len(nest) -		\
			  (const char *)(a));						\
	     (a) = nd_nla_next(a))

static inline void nd_nla_put(struct nlmsghdr *nlh, uint16_t type, size_t len, const void *data)
{
	struct nlattr *a = nd_nlmsg_tail(nlh);
	size_t total = ND_NLA_HDRLEN + len;

	a->nla_type = type;
	a->nla_len = (uint16_t)total;
	if (len)
		memcpy(nd_nla_data(a), data, len);
	memset((char *)a + total, 0, ND_NL_ALIGN(total) - total);
	nlh->nlmsg_len += ND_NL_ALIGN((unsigned int)total);
}

static inline void nd_nla_put_u8(struct nlmsghdr *nlh, uint16_t type, uint8_t v)
{
	nd_nla_put(nlh, type, sizeof(v), &v);
}

static inline void nd_nla_put_u16(struct nlmsghdr *nlh, uint16_t type, uint16_t v)
{
	nd_nla_put(nlh, type, sizeof(v), &v);
}

static inline void nd_nla_put_u32(struct nlmsghdr *nlh, uint16_t type, uint32_t v)
{
	nd_nla_put(nlh, type, sizeof(v), &v);
}

static inline void nd_nla_put_u64(struct nlmsghdr *nlh, uint16_t type, uint64_t v)
{
	nd_nla_put(nlh, type, sizeof(v), &v);
}

static inline void nd_nla_put_strz(struct nlmsghdr *nlh, uint16_t type, const char *s)
{
	nd_nla_put(nlh, type, strlen(s) + 1, s);
}

static inline struct nlattr *nd_nla_nest_start(struct nlmsghdr *nlh, uint16_t type)
{
	struct nlattr *a = nd_nlmsg_tail(nlh);

	a->nla_type = NLA_F_NESTED | type;
	nlh->nlmsg_len += ND_NLA_HDRLEN;
	return a;
}

static inline void nd_nla_nest_end(struct nlmsghdr *nlh, struct nlattr *nest)
{
	nest->nla_len = (uint16_t)((char *)nd_nlmsg_tail(nlh) - (char *)nest);
}

#endif
