// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Listening for the switch's LLDP frames ourselves, when nothing on the host already knows
 * them: one AF_PACKET socket per port, bound to EtherType 0x88cc (the kernel's own filter, so
 * no other frame is copied to us) and joined to the nearest-bridge group 01:80:c2:00:00:0e,
 * all in one poll loop, each port done at its first frame that decodes, the whole wait bounded
 * by one deadline: eight ports cost one LLDP interval, not eight. Listening takes nothing from
 * an LLDP agent on the same port (each socket gets its own copy). A frame that does not decode
 * is kept as the port's answer only if no good one follows before the deadline.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "nodrop/peer.h"

static const uint8_t lldp_group[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e };

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One port's socket (its interface's index in *@ifindex), or -errno with @w's reason filled. */
static int open_port(struct nd_peer_wait *w, int *ifindex)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct packet_mreq mr = { .mr_type = PACKET_MR_MULTICAST, .mr_alen = 6 };
	int fd, err;

	sll.sll_protocol = htons(ND_LLDP_ETHERTYPE);
	sll.sll_ifindex = *ifindex = (int)if_nametoindex(w->ifname);
	if (!sll.sll_ifindex) {
		err = -errno;
		nd_err_set(&w->err, err, "%s: no such interface", w->ifname);
		return err;
	}
	/*
	 * Protocol 0 until bind: a packet socket opened for a protocol takes that protocol's
	 * frames from every interface until it is bound, and a frame another port received in
	 * that moment would be taken for this port's switch.
	 */
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err = -errno;
		if (err == -EPERM || err == -EACCES)
			nd_err_set(&w->err, err, "%s: listening for LLDP needs CAP_NET_RAW (run as "
				   "root, or give nodrop cap_net_raw)", w->ifname);
		else
			nd_err_set(&w->err, err, "%s: AF_PACKET socket: %s", w->ifname,
				   strerror(-err));
		return err;
	}
	mr.mr_ifindex = sll.sll_ifindex;
	memcpy(mr.mr_address, lldp_group, 6);
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0 ||
	    setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)) < 0) {
		err = -errno;
		nd_err_set(&w->err, err, "%s: listening for LLDP: %s", w->ifname, strerror(-err));
		close(fd);
		return err;
	}
	return fd;
}

/* Every frame waiting on @w's socket (bound to @ifindex); true once one decoded. */
static bool drain(struct nd_peer_wait *w, int fd, int ifindex, uint8_t *buf, size_t size)
{
	struct sockaddr_ll from;
	socklen_t fromlen = sizeof(from);
	struct nd_err e = { 0 };
	ssize_t n;

	while ((n = recvfrom(fd, buf, size, MSG_TRUNC, (struct sockaddr *)&from, &fromlen)) >= 0) {
		fromlen = sizeof(from);
		if (from.sll_ifindex != ifindex)
			continue;	/* not this port's: bound sockets never get one */
		if ((size_t)n > size) {
			nd_err_set(&w->err, -EMSGSIZE, "%s: an LLDP frame of %zd bytes, larger than "
				   "any frame nodrop reads (%zu)", w->ifname, n, size);
			continue;
		}
		if (!nd_lldp_decode(buf, (size_t)n, &w->peer, &e)) {
			w->heard = true;
			w->source = ND_PEER_SRC_LLDP;
			nd_err_clear(&w->err);
			return true;
		}
		/* a bad frame: say why, keep waiting for a good one */
		w->err = e;
		w->bad_frames++;
	}
	return false;
}

int nd_peer_listen(struct nd_peer_wait *w, size_t n, unsigned int wait_ms, struct nd_err *e)
{
	struct pollfd *pfd = calloc(n ? n : 1, sizeof(*pfd));
	int *ifindex = calloc(n ? n : 1, sizeof(*ifindex));
	uint8_t *buf = malloc(ND_LLDP_FRAME_MAX);
	int64_t start = now_ms(), deadline = start + wait_ms, left;
	size_t i, open = 0, pending;

	if (!pfd || !ifindex || !buf) {
		free(pfd);
		free(ifindex);
		free(buf);
		return nd_err_set(e, -ENOMEM, "out of memory to listen on %zu ports", n);
	}
	for (i = 0; i < n; i++) {
		memset(&w[i].peer, 0, sizeof(w[i].peer));
		nd_err_clear(&w[i].err);
		w[i].heard = false;
		w[i].bad_frames = 0;
		w[i].waited_ms = 0;
		pfd[i].fd = open_port(&w[i], &ifindex[i]);
		pfd[i].events = POLLIN;
		open += pfd[i].fd >= 0;
	}
	pending = open;
	while (pending && (left = deadline - now_ms()) > 0) {
		int r = poll(pfd, n, (int)left);

		if (r < 0 && errno != EINTR) {
			int err = -errno;

			for (i = 0; i < n; i++)
				if (pfd[i].fd >= 0)
					close(pfd[i].fd);
			free(pfd);
			free(ifindex);
			free(buf);
			return nd_err_set(e, err, "waiting for LLDP: poll: %s", strerror(-err));
		}
		for (i = 0; r > 0 && i < n; i++) {
			if (pfd[i].fd < 0 || !(pfd[i].revents & POLLIN))
				continue;
			if (drain(&w[i], pfd[i].fd, ifindex[i], buf, ND_LLDP_FRAME_MAX)) {
				w[i].waited_ms = (unsigned int)(now_ms() - start);
				close(pfd[i].fd);
				pfd[i].fd = -1;	/* poll skips it from now on */
				pending--;
			}
		}
	}
	for (i = 0; i < n; i++) {
		if (pfd[i].fd < 0)
			continue;
		close(pfd[i].fd);
		w[i].waited_ms = wait_ms;
		if (!w[i].err.code)
			nd_err_set(&w[i].err, -ETIMEDOUT, "%s: no LLDP frame in %u ms: the switch "
				   "sends none, or the NIC's firmware takes them before the host",
				   w[i].ifname, wait_ms);
	}
	free(pfd);
	free(ifindex);
	free(buf);
	return open ? 0 : nd_err_set(e, w[0].err.code ? w[0].err.code : -ENODEV,
				      "%s", n ? w[0].err.msg : "no port to listen on");
}
