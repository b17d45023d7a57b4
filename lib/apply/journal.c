// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The apply journal: the pre-state of every port an apply touches, written durably (write,
 * fsync, rename, fsync the directory) before the first change, so that a run killed half way
 * can be undone by `nodrop rollback`. JSON, so a person can read it at 3 a.m.
 */
#include <errno.h>
#include <fcntl.h>
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

/* Strict readers: a journal that does not parse exactly is refused, never half-used. */
static int get(struct json_object *o, const char *key, json_type type, struct json_object **v)
{
	if (!json_object_object_get_ex(o, key, v) || !json_object_is_type(*v, type))
		return -EBADMSG;
	return 0;
}

static int get_u64(struct json_object *o, const char *key, uint64_t max, uint64_t *out)
{
	struct json_object *v;
	int64_t i;

	if (get(o, key, json_type_int, &v))
		return -EBADMSG;
	i = json_object_get_int64(v);
	if (i < 0 || (uint64_t)i > max)
		return -EBADMSG;
	*out = (uint64_t)i;
	return 0;
}

static int get_array(struct json_object *o, const char *key, size_t n, int64_t min, int64_t max,
		     int64_t *out)
{
	struct json_object *a, *v;
	size_t i;

	if (get(o, key, json_type_array, &a) || json_object_array_length(a) != n)
		return -EBADMSG;
	for (i = 0; i < n; i++) {
		v = json_object_array_get_idx(a, i);
		if (!json_object_is_type(v, json_type_int))
			return -EBADMSG;
		out[i] = json_object_get_int64(v);
		if (out[i] < min || out[i] > max)
			return -EBADMSG;
	}
	return 0;
}

static int state_parse(struct json_object *o, struct nd_profile *p)
{
	int64_t a[ND_DSCP_MAX];
	struct json_object *v;
	uint64_t u;
	size_t i;
	int ret = 0;

	memset(p, 0, sizeof(*p));
#define U(key, field, max) do { ret |= get_u64(o, key, max, &u); p->field = u; } while (0)
#define A8(key, field, max)						\
	do {								\
		ret |= get_array(o, key, ND_PRIO_MAX, 0, max, a);	\
		for (i = 0; i < ND_PRIO_MAX; i++)			\
			p->field[i] = (__typeof__(p->field[0]))a[i];	\
	} while (0)
	U("set", set, UINT32_MAX);
	U("mtu", mtu, UINT32_MAX);
	U("dcbx", dcbx, 255);
	U("trust", trust, ND_TRUST_DSCP);
	U("pfc_en", pfc_en, 255);
	U("pfc_delay", pfc_delay, 65535);
	U("ecn_np", ecn_np, 255);
	U("ecn_rp", ecn_rp, 255);
	U("cnp_dscp", cnp_dscp, 63);
	U("cnp_prio", cnp_prio, 7);
	U("roce_tos", roce_tos, 255);
	A8("prio_tc", prio_tc, 7);
	A8("tc_tsa", tc_tsa, 255);
	A8("tc_bw", tc_bw, 100);
	A8("prio2buffer", prio2buffer, 7);
	A8("buffer_size", buffer_size, UINT32_MAX);
	A8("maxrate", maxrate, INT64_MAX);
#undef U
#undef A8
	ret |= get_array(o, "dscp2prio", ND_DSCP_MAX, -1, 7, a);
	for (i = 0; i < ND_DSCP_MAX; i++)
		p->dscp2prio[i] = (int)a[i];
	if (ret || get(o, "roce_mode", json_type_string, &v))
		return -EBADMSG;
	snprintf(p->roce_mode, sizeof(p->roce_mode), "%s", json_object_get_string(v));
	if (get(o, "roce_reset", json_type_boolean, &v))
		return -EBADMSG;
	p->roce_reset = json_object_get_boolean(v);
	if (get(o, "dcqcn", json_type_object, &v))
		return -EBADMSG;
	json_object_object_foreach(v, key, val) {
		if (p->n_dcqcn >= ND_ECN_PARAM_MAX || !json_object_is_type(val, json_type_int) ||
		    json_object_get_int64(val) < 0 || json_object_get_int64(val) > UINT32_MAX)
			return -EBADMSG;
		snprintf(p->dcqcn[p->n_dcqcn].name, sizeof(p->dcqcn[0].name), "%s", key);
		p->dcqcn[p->n_dcqcn++].value = (uint32_t)json_object_get_int64(val);
	}
	snprintf(p->name, sizeof(p->name), "journalled pre-state");
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

int nd_journal_load(const char *path, struct nd_journal *j, struct nd_err *e)
{
	struct json_object *o, *v, *ports;
	size_t i, n;
	int ret = -EBADMSG;

	memset(j, 0, sizeof(*j));
	o = json_object_from_file(path);
	if (!o) {
		if (access(path, F_OK))
			return nd_err_set(e, -ENOENT, "no journal at %s: nothing was applied with this "
					  "state directory (see --state-dir)", path);
		return nd_err_set(e, -EBADMSG, "the journal %s is not valid JSON: %s", path,
				  json_util_get_last_err());
	}
	if (get(o, "version", json_type_int, &v) || json_object_get_int(v) != JOURNAL_VERSION ||
	    get(o, "status", json_type_string, &v))
		goto bad;
	snprintf(j->status, sizeof(j->status), "%s", json_object_get_string(v));
	if (get(o, "profile", json_type_string, &v))
		goto bad;
	snprintf(j->profile, sizeof(j->profile), "%s", json_object_get_string(v));
	if (get(o, "pid", json_type_int, &v))
		goto bad;
	j->pid = json_object_get_int(v);
	if (get(o, "time", json_type_int, &v))
		goto bad;
	j->time = (time_t)json_object_get_int64(v);
	if (get(o, "ports", json_type_array, &ports))
		goto bad;
	n = json_object_array_length(ports);
	j->ports = calloc(n ? n : 1, sizeof(*j->ports));
	if (!j->ports) {
		ret = -ENOMEM;
		goto bad;
	}
	for (i = 0; i < n; i++) {
		struct json_object *p = json_object_array_get_idx(ports, i), *s;

		if (!json_object_is_type(p, json_type_object) ||
		    get(p, "ifname", json_type_string, &v) ||
		    strlen(json_object_get_string(v)) >= ND_IFNAMSIZ ||
		    get(p, "state", json_type_object, &s) || state_parse(s, &j->ports[i].pre) ||
		    get(p, "post", json_type_object, &s) || state_parse(s, &j->ports[i].post))
			goto bad;
		snprintf(j->ports[i].ifname, sizeof(j->ports[i].ifname), "%s",
			 json_object_get_string(v));
		j->n++;
	}
	json_object_put(o);
	return 0;
bad:
	json_object_put(o);
	nd_journal_free(j);
	return nd_err_set(e, ret, "the journal %s is damaged or from another version; "
			  "restore the ports by hand (see its pre-state) and remove it", path);
}

int nd_journal_begin(const char *path, const char *profile, struct nd_journal_prev *prev,
		     struct nd_err *e)
{
	struct nd_journal j = { .time = time(NULL) };
	FILE *f;
	int ret;

	memset(prev, 0, sizeof(*prev));
	f = fopen(path, "re");
	if (f) {
		prev->text = malloc(JOURNAL_MAX_BYTES + 1);
		if (!prev->text) {
			fclose(f);
			return nd_err_set(e, -ENOMEM, "out of memory");
		}
		prev->len = fread(prev->text, 1, JOURNAL_MAX_BYTES + 1, f);
		ret = ferror(f) || prev->len > JOURNAL_MAX_BYTES ? -EFBIG : 0;
		fclose(f);
		if (ret) {
			nd_journal_prev_free(prev);
			return nd_err_set(e, ret, "cannot keep the journal %s: unreadable or over "
					  "%d MiB; move it away", path, JOURNAL_MAX_BYTES >> 20);
		}
		prev->text[prev->len] = '\0';
	} else if (errno != ENOENT) {
		return nd_err_set(e, -errno, "cannot read the journal %s: %s", path,
				  strerror(errno));
	}
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
