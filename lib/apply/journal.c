// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The apply journal: the pre-state of every port an apply touches, written durably (write,
 * fsync, rename, fsync the directory) before the first change, so that a run killed half way
 * can be undone by `nodrop rollback`. JSON, so a person can read it at 3 a.m.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <json-c/json.h>

#include "core/internal.h"
#include "journal.h"

#define JOURNAL_VERSION 2
#define JOURNAL_MAX_BYTES (16 * 1024 * 1024)
/* far above any host's RDMA ports; a bound on what loading takes (two states a port) */
#define JOURNAL_MAX_PORTS 4096

static struct json_object *u8s(const uint8_t *v, size_t n)
{
	struct json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_int(v[i]));
	return a;
}

static struct json_object *u64s(const uint64_t *v, size_t n)
{
	struct json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_uint64(v[i]));
	return a;
}

static struct json_object *state_json(const struct nd_profile *p)
{
	struct json_object *o = json_object_new_object(), *map, *dcqcn;
	uint64_t sizes[ND_PRIO_MAX];
	size_t i;

	json_object_object_add(o, "set", json_object_new_uint64(p->set));
	json_object_object_add(o, "mtu", json_object_new_uint64(p->mtu));
	json_object_object_add(o, "dcbx", json_object_new_int(p->dcbx));
	json_object_object_add(o, "trust", json_object_new_int(p->trust));
	map = json_object_new_array();
	for (i = 0; i < ND_DSCP_MAX; i++)
		json_object_array_add(map, json_object_new_int(p->dscp2prio[i]));
	json_object_object_add(o, "dscp2prio", map);
	json_object_object_add(o, "pfc_en", json_object_new_int(p->pfc_en));
	json_object_object_add(o, "pfc_delay", json_object_new_int(p->pfc_delay));
	json_object_object_add(o, "prio_tc", u8s(p->prio_tc, ND_PRIO_MAX));
	json_object_object_add(o, "tc_tsa", u8s(p->tc_tsa, ND_PRIO_MAX));
	json_object_object_add(o, "tc_bw", u8s(p->tc_bw, ND_PRIO_MAX));
	json_object_object_add(o, "prio2buffer", u8s(p->prio2buffer, ND_PRIO_MAX));
	for (i = 0; i < ND_PRIO_MAX; i++)
		sizes[i] = p->buffer_size[i];
	json_object_object_add(o, "buffer_size", u64s(sizes, ND_PRIO_MAX));
	json_object_object_add(o, "maxrate", u64s(p->maxrate, ND_PRIO_MAX));
	json_object_object_add(o, "ecn_np", json_object_new_int(p->ecn_np));
	json_object_object_add(o, "ecn_rp", json_object_new_int(p->ecn_rp));
	json_object_object_add(o, "cnp_dscp", json_object_new_int(p->cnp_dscp));
	json_object_object_add(o, "cnp_prio", json_object_new_int(p->cnp_prio));
	dcqcn = json_object_new_object();
	for (i = 0; i < p->n_dcqcn; i++)
		json_object_object_add(dcqcn, p->dcqcn[i].name,
				       json_object_new_uint64(p->dcqcn[i].value));
	json_object_object_add(o, "dcqcn", dcqcn);
	json_object_object_add(o, "roce_tos", json_object_new_int(p->roce_tos));
	json_object_object_add(o, "roce_mode", json_object_new_string(p->roce_mode));
	json_object_object_add(o, "roce_reset", json_object_new_boolean(p->roce_reset));
	return o;
}

/*
 * Strict readers: a journal that does not parse exactly is refused, never half-used. A key that
 * is missing or of another type is -EBADMSG (damaged, or another version's); a value that no
 * port holds is -EINVAL. Each sets @e to what is wrong, "pre-state mtu 0 is below 68"; the
 * caller puts the file and the port in front and what to do after (journal_refuse()).
 */
struct jctx {
	const char *what;		/* "pre-state" or "post-state" */
	struct nd_err *e;
};

static int get(struct json_object *o, const char *key, json_type type, struct json_object **v)
{
	if (!json_object_object_get_ex(o, key, v) || !json_object_is_type(*v, type))
		return -EBADMSG;
	return 0;
}

/* @s as a message may quote it: at most 32 characters, '?' for what a terminal would act on. */
static const char *quotable(const char *s, char buf[static 33])
{
	size_t i;

	for (i = 0; s[i] && i < 32; i++)
		buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	buf[i] = '\0';
	return buf;
}

/* @v as a whole number in [@min, @max]; @key names it in the message. */
static int num_in(const struct jctx *c, struct json_object *v, const char *key, int64_t min,
		  int64_t max, int64_t *out)
{
	if (!json_object_is_type(v, json_type_int))
		return nd_err_set(c->e, -EBADMSG, "%s %s is missing or not a whole number",
				  c->what, key);
	*out = json_object_get_int64(v);
	/* json-c gives INT64_MAX for a larger unsigned number: that is out of range too */
	if (*out < min || *out > max ||
	    (*out == INT64_MAX && json_object_get_uint64(v) != (uint64_t)INT64_MAX))
		return nd_err_set(c->e, -EINVAL, "%s %s %s is out of range (%" PRId64 "..%" PRId64
				  ")", c->what, key, json_object_to_json_string(v), min, max);
	return 0;
}

static int get_num(const struct jctx *c, struct json_object *o, const char *key, int64_t min,
		   int64_t max, int64_t *out)
{
	struct json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return num_in(c, v, key, min, max, out);
}

static int get_array(const struct jctx *c, struct json_object *o, const char *key, size_t n,
		     int64_t min, int64_t max, int64_t *out)
{
	struct json_object *a;
	char at[32];
	size_t i;
	int ret;

	if (get(o, key, json_type_array, &a) || json_object_array_length(a) != n)
		return nd_err_set(c->e, -EBADMSG, "%s %s is missing or not a list of %zu numbers",
				  c->what, key, n);
	for (i = 0; i < n; i++) {
		snprintf(at, sizeof(at), "%s[%zu]", key, i);
		ret = num_in(c, json_object_array_get_idx(a, i), at, min, max, &out[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* The RoCE modes configfs shows (default_roce_mode); "" where the state has none. */
static bool roce_mode_ok(const char *mode, bool set)
{
	return !strcmp(mode, "RoCE v2") || !strcmp(mode, "IB/RoCE v1") || (!set && !*mode);
}

static int dcqcn_parse(const struct jctx *c, struct json_object *o, struct nd_profile *p)
{
	struct json_object *v;
	char q[33];
	size_t i;
	int64_t x;
	int ret;

	if (get(o, "dcqcn", json_type_object, &v))
		return nd_err_set(c->e, -EBADMSG, "%s dcqcn is missing or not an object", c->what);
	json_object_object_foreach(v, key, val) {
		/* the names are the ones a port's ECN backend reads: each at most once */
		if (!nd_ecn_param_known(key))
			return nd_err_set(c->e, -EINVAL, "%s dcqcn has '%s', not a DCQCN "
					  "parameter nodrop knows", c->what, quotable(key, q));
		for (i = 0; i < p->n_dcqcn; i++)
			if (!strcmp(p->dcqcn[i].name, key))
				return nd_err_set(c->e, -EINVAL, "%s dcqcn has %s twice",
						  c->what, key);
		if (p->n_dcqcn >= ND_ECN_PARAM_MAX)
			return nd_err_set(c->e, -EINVAL, "%s dcqcn has over %d parameters",
					  c->what, ND_ECN_PARAM_MAX);
		ret = num_in(c, val, key, 0, UINT32_MAX, &x);
		if (ret)
			return ret;
		nd_strlcpy(p->dcqcn[p->n_dcqcn].name, key, sizeof(p->dcqcn[0].name));
		p->dcqcn[p->n_dcqcn++].value = (uint32_t)x;
	}
	return 0;
}

/* A port's state ("state" or "post"): every field, each in the range the port could hold. */
static int state_parse(const struct jctx *c, struct json_object *o, struct nd_profile *p)
{
	int64_t a[ND_DSCP_MAX], x;
	struct json_object *v;
	char q[33];
	size_t i;
	int ret;

	memset(p, 0, sizeof(*p));
#define U(key, field, min, max)						\
	do {								\
		ret = get_num(c, o, key, min, max, &x);			\
		if (ret)						\
			return ret;					\
		p->field = (__typeof__(p->field))x;			\
	} while (0)
#define A(key, field, n, min, max)					\
	do {								\
		ret = get_array(c, o, key, n, min, max, a);		\
		if (ret)						\
			return ret;					\
		for (i = 0; i < n; i++)					\
			p->field[i] = (__typeof__(p->field[0]))a[i];	\
	} while (0)
	U("set", set, 0, (1u << ND_F_COUNT) - 1);
	/* 68: IPv4's minimum (RFC 791), the kernel's ETH_MIN_MTU; the kernel keeps it in an int */
	U("mtu", mtu, 0, INT_MAX);
	if (p->mtu < 68)
		return nd_err_set(c->e, -EINVAL, "%s mtu %u is below 68, the smallest an IPv4 "
				  "link takes", c->what, p->mtu);
	U("dcbx", dcbx, 0, UINT8_MAX);
	U("trust", trust, ND_TRUST_PCP, ND_TRUST_DSCP);
	U("pfc_en", pfc_en, 0, UINT8_MAX);
	U("pfc_delay", pfc_delay, 0, UINT16_MAX);
	U("ecn_np", ecn_np, 0, UINT8_MAX);
	U("ecn_rp", ecn_rp, 0, UINT8_MAX);
	U("cnp_dscp", cnp_dscp, 0, ND_DSCP_MAX - 1);
	U("cnp_prio", cnp_prio, 0, ND_PRIO_MAX - 1);
	U("roce_tos", roce_tos, 0, UINT8_MAX);
	A("prio_tc", prio_tc, ND_PRIO_MAX, 0, ND_PRIO_MAX - 1);
	A("tc_tsa", tc_tsa, ND_PRIO_MAX, 0, UINT8_MAX);
	A("tc_bw", tc_bw, ND_PRIO_MAX, 0, 100);
	A("prio2buffer", prio2buffer, ND_PRIO_MAX, 0, ND_PRIO_MAX - 1);
	A("buffer_size", buffer_size, ND_PRIO_MAX, 0, UINT32_MAX);
	A("maxrate", maxrate, ND_PRIO_MAX, 0, INT64_MAX);
	A("dscp2prio", dscp2prio, ND_DSCP_MAX, -1, ND_PRIO_MAX - 1);
#undef U
#undef A
	if (get(o, "roce_mode", json_type_string, &v))
		return nd_err_set(c->e, -EBADMSG, "%s roce_mode is missing or not a string",
				  c->what);
	if (!roce_mode_ok(json_object_get_string(v), p->set & 1u << ND_F_ROCE_MODE))
		return nd_err_set(c->e, -EINVAL, "%s roce_mode '%s' is neither 'RoCE v2' nor "
				  "'IB/RoCE v1'", c->what, quotable(json_object_get_string(v), q));
	nd_strlcpy(p->roce_mode, json_object_get_string(v), sizeof(p->roce_mode));
	if (get(o, "roce_reset", json_type_boolean, &v))
		return nd_err_set(c->e, -EBADMSG, "%s roce_reset is missing or not true or false",
				  c->what);
	p->roce_reset = json_object_get_boolean(v);
	ret = dcqcn_parse(c, o, p);
	if (ret)
		return ret;
	snprintf(p->name, sizeof(p->name), "journalled %s", c->what);
	return 0;
}

/* Write @text to @path durably: a crash leaves the old journal or the new one, never a mix. */
static int write_durably(const char *path, const char *text, size_t len, struct nd_err *e)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	size_t off = 0;
	int fd, dfd, err = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return nd_err_set(e, -ENAMETOOLONG, "journal path too long: %s", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return nd_err_set(e, -errno, "cannot write the journal %s: %s", tmp,
				  strerror(errno));
	while (off < len && !err) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0 && errno != EINTR)
			err = -errno;
		else if (n > 0)
			off += (size_t)n;
	}
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		unlink(tmp);
		return nd_err_set(e, err, "cannot write the journal %s: %s", path, strerror(-err));
	}
	nd_path_dir(path, dir, sizeof(dir));
	if (!dir[0])
		nd_strlcpy(dir, ".", sizeof(dir));
	/* the rename is durable only once the directory entry is */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
}

int nd_journal_save(const char *path, const struct nd_journal *j, struct nd_err *e)
{
	struct json_object *o = json_object_new_object(), *ports = json_object_new_array();
	const char *text;
	size_t i;
	int ret;

	json_object_object_add(o, "version", json_object_new_int(JOURNAL_VERSION));
	json_object_object_add(o, "status", json_object_new_string(j->status));
	json_object_object_add(o, "profile", json_object_new_string(j->profile));
	json_object_object_add(o, "pid", json_object_new_int(j->pid ? j->pid : (int)getpid()));
	json_object_object_add(o, "time", json_object_new_int64((int64_t)j->time));
	for (i = 0; i < j->n; i++) {
		struct json_object *p = json_object_new_object();

		json_object_object_add(p, "ifname", json_object_new_string(j->ports[i].ifname));
		json_object_object_add(p, "state", state_json(&j->ports[i].pre));
		json_object_object_add(p, "post", state_json(&j->ports[i].post));
		json_object_array_add(ports, p);
	}
	json_object_object_add(o, "ports", ports);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY);
	ret = write_durably(path, text, strlen(text), e);
	json_object_put(o);
	return ret;
}

void nd_journal_free(struct nd_journal *j)
{
	free(j->ports);
	memset(j, 0, sizeof(*j));
}

/*
 * A name the kernel would take for a netdev (dev_valid_name), and no control characters, which
 * no tool names a port with: the journal names real ports, and messages print the name.
 */
static bool ifname_ok(const char *s)
{
	size_t i, len = strlen(s);

	if (!len || len >= ND_IFNAMSIZ || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f || s[i] == '/' || s[i] == ':')
			return false;
	return true;
}

/* Put the file in front of what is wrong with it, and what to do after. */
static int journal_refuse(struct nd_err *e, const char *name)
{
	char why[ND_ERR_MSG_MAX];

	if (e->code == -ENOMEM)
		return e->code;
	snprintf(why, sizeof(why), "%s", e->msg);
	return nd_err_set(e, e->code, "%s: %s; %s", name, why, e->code == -EINVAL ?
			  "the journal is damaged: restore the ports by hand or with nodrop apply" :
			  "the journal is damaged or from another version: restore the ports by "
			  "hand (see its pre-state) and remove it");
}

static bool live(const char *status)
{
	return !strcmp(status, "in-progress") || !strcmp(status, "applied");
}

static bool status_ok(const char *status)
{
	return live(status) || !strcmp(status, "started") || !strcmp(status, "rolled-back");
}

static int ports_parse(struct json_object *ports, struct nd_journal *j, struct nd_err *e)
{
	size_t i, k, n = json_object_array_length(ports);
	struct jctx pre = { "pre-state", e }, post = { "post-state", e };
	char port[32], q[33];
	int ret;

	if (n > JOURNAL_MAX_PORTS)
		return nd_err_set(e, -EINVAL, "%zu ports; an apply journals at most %d", n,
				  JOURNAL_MAX_PORTS);
	/* a live journal without ports would have rollback read every port (none means all) */
	if (!n && live(j->status))
		return nd_err_set(e, -EINVAL, "status %s but no port", j->status);
	j->ports = calloc(n ? n : 1, sizeof(*j->ports));
	if (!j->ports)
		return nd_err_set(e, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		struct json_object *p = json_object_array_get_idx(ports, i), *v, *s;
		struct nd_journal_port *jp = &j->ports[i];

		snprintf(port, sizeof(port), "ports[%zu]", i);
		if (!json_object_is_type(p, json_type_object) ||
		    get(p, "ifname", json_type_string, &v)) {
			nd_err_set(e, -EBADMSG, "not an object with an ifname");
			return nd_err_wrap(e, "%s", port);
		}
		if (!ifname_ok(json_object_get_string(v))) {
			nd_err_set(e, -EINVAL, "ifname '%s' is not a network device name",
				   quotable(json_object_get_string(v), q));
			return nd_err_wrap(e, "%s", port);
		}
		nd_strlcpy(jp->ifname, json_object_get_string(v), sizeof(jp->ifname));
		snprintf(port, sizeof(port), "port %s", jp->ifname);
		for (k = 0; k < i; k++)
			if (!strcmp(j->ports[k].ifname, jp->ifname))
				break;
		if (k < i) {
			nd_err_set(e, -EINVAL, "listed twice");
			return nd_err_wrap(e, "%s", port);
		}
		if (get(p, "state", json_type_object, &s))
			ret = nd_err_set(e, -EBADMSG, "no pre-state (\"state\")");
		else
			ret = state_parse(&pre, s, &jp->pre);
		if (!ret && get(p, "post", json_type_object, &s))
			ret = nd_err_set(e, -EBADMSG, "no post-state (\"post\")");
		else if (!ret)
			ret = state_parse(&post, s, &jp->post);
		if (ret)
			return nd_err_wrap(e, "%s", port);
		j->n++;
	}
	return 0;
}

static int journal_parse(struct json_object *o, struct nd_journal *j, struct nd_err *e)
{
	struct json_object *v, *ports;
	char q[33];

	if (!json_object_is_type(o, json_type_object))
		return nd_err_set(e, -EBADMSG, "not a JSON object");
	if (get(o, "version", json_type_int, &v))
		return nd_err_set(e, -EBADMSG, "no version");
	if (json_object_get_int64(v) != JOURNAL_VERSION)
		return nd_err_set(e, -EBADMSG, "version %s; this nodrop reads version %d",
				  json_object_to_json_string(v), JOURNAL_VERSION);
	if (get(o, "status", json_type_string, &v))
		return nd_err_set(e, -EBADMSG, "no status");
	if (!status_ok(json_object_get_string(v)))
		return nd_err_set(e, -EINVAL, "status '%s' is none of started, in-progress, "
				  "applied, rolled-back", quotable(json_object_get_string(v), q));
	nd_strlcpy(j->status, json_object_get_string(v), sizeof(j->status));
	if (get(o, "profile", json_type_string, &v))
		return nd_err_set(e, -EBADMSG, "no profile");
	nd_strlcpy(j->profile, json_object_get_string(v), sizeof(j->profile));
	if (get(o, "pid", json_type_int, &v))
		return nd_err_set(e, -EBADMSG, "no pid");
	j->pid = json_object_get_int(v);
	if (get(o, "time", json_type_int, &v))
		return nd_err_set(e, -EBADMSG, "no time");
	j->time = (time_t)json_object_get_int64(v);
	if (get(o, "ports", json_type_array, &ports))
		return nd_err_set(e, -EBADMSG, "no list of ports");
	return ports_parse(ports, j, e);
}

int nd_journal_parse(const char *text, size_t len, const char *name, struct nd_journal *j,
		     struct nd_err *e)
{
	struct json_tokener *tok;
	struct json_object *o;
	enum json_tokener_error err;
	size_t end;
	int ret;

	memset(j, 0, sizeof(*j));
	if (len > JOURNAL_MAX_BYTES) {
		nd_err_set(e, -EBADMSG, "over %d MiB, larger than any journal nodrop writes",
			   JOURNAL_MAX_BYTES >> 20);
		return journal_refuse(e, name);
	}
	tok = json_tokener_new();
	if (!tok)
		return nd_err_set(e, -ENOMEM, "out of memory");
	o = json_tokener_parse_ex(tok, text, (int)len);
	err = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	while (o && end < len && text[end] && strchr(" \t\n\r", text[end]))
		end++;
	if (!o || end < len) {
		json_object_put(o);
		nd_err_set(e, -EBADMSG, "not valid JSON: %s", !o && err == json_tokener_continue ?
			   "it ends too soon" : !o ? json_tokener_error_desc(err) :
			   "more follows the object");
		return journal_refuse(e, name);
	}
	ret = journal_parse(o, j, e);
	json_object_put(o);
	if (ret) {
		nd_journal_free(j);
		return journal_refuse(e, name);
	}
	return 0;
}

int nd_journal_load(const char *path, struct nd_journal *j, struct nd_err *e)
{
	char *text;
	size_t len;
	int ret;

	memset(j, 0, sizeof(*j));
	ret = nd_file_read(path, JOURNAL_MAX_BYTES, &text, &len, NULL);
	if (ret == -ENOENT)
		return nd_err_set(e, ret, "no journal at %s: nothing was applied with this state "
				  "directory (see --state-dir)", path);
	if (ret == -E2BIG) {
		nd_err_set(e, -EBADMSG, "over %d MiB, larger than any journal nodrop writes",
			   JOURNAL_MAX_BYTES >> 20);
		return journal_refuse(e, path);
	}
	if (ret)
		return nd_err_set(e, ret, "cannot read the journal %s: %s", path, strerror(-ret));
	ret = nd_journal_parse(text, len, path, j, e);
	free(text);
	return ret;
}

int nd_journal_begin(const char *path, const char *profile, struct nd_journal_prev *prev,
		     struct nd_err *e)
{
	struct nd_journal j = { .time = time(NULL) };
	int ret;

	memset(prev, 0, sizeof(*prev));
	ret = nd_file_read(path, JOURNAL_MAX_BYTES, &prev->text, &prev->len, NULL);
	if (ret == -ENOMEM)
		return nd_err_set(e, ret, "out of memory");
	if (ret == -E2BIG)
		return nd_err_set(e, -EFBIG, "cannot keep the journal %s: over %d MiB; move it away",
				  path, JOURNAL_MAX_BYTES >> 20);
	if (ret && ret != -ENOENT)
		return nd_err_set(e, ret, "cannot read the journal %s: %s", path, strerror(-ret));
	snprintf(j.status, sizeof(j.status), "started");
	snprintf(j.profile, sizeof(j.profile), "%s", profile);
	ret = nd_journal_save(path, &j, e);
	if (ret)
		nd_journal_prev_free(prev);
	return ret;
}

int nd_journal_abandon(const char *path, struct nd_journal_prev *prev, struct nd_err *e)
{
	int ret = 0;

	if (prev->text)
		ret = write_durably(path, prev->text, prev->len, e);
	else if (unlink(path) && errno != ENOENT)
		ret = nd_err_set(e, -errno, "cannot remove the journal %s: %s", path,
				 strerror(errno));
	nd_journal_prev_free(prev);
	return ret;
}

void nd_journal_prev_free(struct nd_journal_prev *prev)
{
	free(prev->text);
	memset(prev, 0, sizeof(*prev));
}
