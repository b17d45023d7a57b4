// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Who may join a stress job: the coordinator's challenge and each rank's proof, with what
 * clusters already run. MUNGE (libmunge, loaded on first use), whose credential over the
 * coordinator's nonce and the job's token says which uid made it; munged itself refuses a
 * credential decoded twice. Else a shared key: HMAC-SHA-256 over both sides' nonces and the
 * whole hello, from OpenSSL's libcrypto (loaded on first use: it is on every host that has an
 * SSH or TLS client, its SHA-256 is the one FIPS builds certify, and a one-shot HMAC() is all
 * this needs), so the key never crosses the wire and a recorded exchange answers no later
 * challenge. The coordinator proves itself back with the same key.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coord.h"

/* ---- libcrypto: HMAC() and EVP_sha256(), as OpenSSL 1.1 and 3 export them ---- */

struct evp_md;
static const struct evp_md *(*sha256)(void);
static unsigned char *(*hmac)(const struct evp_md *md, const void *key, int key_len,
			      const unsigned char *data, size_t len, unsigned char *out,
			      unsigned int *out_len);
static pthread_once_t crypto_once = PTHREAD_ONCE_INIT;

static void crypto_load(void)
{
	static const char *const names[] = { "libcrypto.so.3", "libcrypto.so.1.1" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !hmac; i++) {
		void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);

		if (!h)
			continue;
		*(void **)&sha256 = dlsym(h, "EVP_sha256");
		*(void **)&hmac = dlsym(h, "HMAC");
		if (!sha256 || !hmac) {
			sha256 = NULL;
			hmac = NULL;
			dlclose(h);
		}
	}
}

int nd_rv_hmac(const uint8_t key[ND_RV_KEY], const char *label, const struct nd_wbuf *msg,
	       uint8_t mac[ND_RV_MAC], struct nd_err *e)
{
	struct nd_wbuf all = { 0 };
	unsigned int n = 0;
	bool ok;

	pthread_once(&crypto_once, crypto_load);
	if (!hmac)
		return nd_err_set(e, -ENOPKG, "a key needs OpenSSL's libcrypto (libcrypto.so.3: "
				  "apt-get install libssl3)");
	/* a label per use, so a MAC made for one message is no MAC of another */
	nd_w_str(&all, label);
	nd_w_bytes(&all, msg->p, msg->len);
	ok = !all.oom && hmac(sha256(), key, ND_RV_KEY, all.p, all.len, mac, &n) &&
	     n == ND_RV_MAC;
	nd_wbuf_free(&all);
	return ok ? 0 : nd_err_set(e, -EIO, "HMAC-SHA-256 failed");
}

bool nd_rv_mac_equal(const uint8_t a[ND_RV_MAC], const uint8_t b[ND_RV_MAC])
{
	uint8_t d = 0;

	/* every byte, whatever the first difference: the time says nothing of the MAC */
	for (size_t i = 0; i < ND_RV_MAC; i++)
		d |= a[i] ^ b[i];
	return !d;
}

int nd_rv_nonce(uint8_t n[ND_RV_NONCE], struct nd_err *e)
{
	if (getrandom(n, ND_RV_NONCE, 0) != ND_RV_NONCE)
		return nd_err_set(e, -errno ? -errno : -EIO, "no random nonce: %s",
				  strerror(errno));
	return 0;
}

/* ---- the key file: 64 hex digits (32 bytes), a newline, mode 0600 ---- */

int nd_rv_key_load(const char *path, uint8_t key[ND_RV_KEY], struct nd_err *e)
{
	char buf[160];
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return nd_err_set(e, -errno, "--key-file %s: %s", path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return nd_err_set(e, -EINVAL, "--key-file %s: not a regular file", path);
	}
	if (st.st_mode & 077) {
		close(fd);
		return nd_err_set(e, -EPERM, "--key-file %s: mode %03o lets others read the key: "
				  "chmod 600 %s (and make a new key: this one may be known)",
				  path, (unsigned int)(st.st_mode & 0777), path);
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return nd_err_set(e, -errno, "--key-file %s: %s", path, strerror(errno));
	buf[n] = '\0';
	if (strspn(buf, "0123456789abcdefABCDEF") != 2 * ND_RV_KEY ||
	    strspn(buf + 2 * ND_RV_KEY, " \t\r\n") != (size_t)n - 2 * ND_RV_KEY)
		return nd_err_set(e, -EINVAL, "--key-file %s: expected %d hex digits and a "
				  "newline (make one: openssl rand -hex %d > %s; chmod 600 %s)",
				  path, 2 * ND_RV_KEY, ND_RV_KEY, path, path);
	for (size_t i = 0; i < ND_RV_KEY; i++) {
		unsigned int b;

		sscanf(buf + 2 * i, "%2x", &b);
		key[i] = (uint8_t)b;
	}
	return 0;
}

/* ---- MUNGE: munge_encode()/munge_decode() of libmunge.so.2, with the default context ---- */

static int (*m_encode)(char **cred, void *ctx, const void *buf, int len);
static int (*m_decode)(const char *cred, void *ctx, void **buf, int *len, uid_t *uid,
		       gid_t *gid);
static const char *(*m_strerror)(int err);
static pthread_once_t munge_once = PTHREAD_ONCE_INIT;

static void munge_load(void)
{
	void *h = dlopen("libmunge.so.2", RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return;
	*(void **)&m_encode = dlsym(h, "munge_encode");
	*(void **)&m_decode = dlsym(h, "munge_decode");
	*(void **)&m_strerror = dlsym(h, "munge_strerror");
	if (!m_encode || !m_decode || !m_strerror) {
		m_encode = NULL;
		dlclose(h);
	}
}

static const char *munge_socket(void)
{
	const char *s = getenv("NODROP_MUNGE_SOCKET");

	return s && *s ? s : "/run/munge/munge.socket.2";
}

bool nd_rv_munge_usable(void)
{
	pthread_once(&munge_once, munge_load);
	return m_encode && access(munge_socket(), F_OK) == 0;
}

int nd_rv_munge_encode(const void *p, size_t n, char **cred, struct nd_err *e)
{
	int err;

	pthread_once(&munge_once, munge_load);
	if (!m_encode)
		return nd_err_set(e, -ENOPKG, "MUNGE needs libmunge.so.2 (apt-get install munge)");
	err = m_encode(cred, NULL, p, (int)n);
	if (err)
		return nd_err_set(e, -EACCES, "munge_encode: %s (is munged running?)",
				  m_strerror(err));
	return 0;
}

int nd_rv_munge_decode(const char *cred, void **p, size_t *n, uid_t *uid, gid_t *gid,
		       struct nd_err *e)
{
	int err, len = 0;

	pthread_once(&munge_once, munge_load);
	if (!m_decode)
		return nd_err_set(e, -ENOPKG, "MUNGE needs libmunge.so.2 (apt-get install munge)");
	*p = NULL;
	err = m_decode(cred, NULL, p, &len, uid, gid);
	if (err) {
		free(*p);
		*p = NULL;
		return nd_err_set(e, -EACCES, "its MUNGE credential: %s", m_strerror(err));
	}
	*n = (size_t)len;
	return 0;
}

const char *nd_rv_auth_name(enum nd_rv_auth a)
{
	static const char *const names[] = {
		[ND_RV_AUTH_AUTO] = "auto",
		[ND_RV_AUTH_NONE] = "none",
		[ND_RV_AUTH_MUNGE] = "munge",
		[ND_RV_AUTH_KEY] = "key",
	};

	return (unsigned int)a < sizeof(names) / sizeof(names[0]) ? names[a] : "?";
}
