// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * peer: the link partner's DCB. This file decodes one LLDP frame (IEEE 802.1AB) into struct
 * nd_peer: the mandatory chassis ID, port ID and TTL (first, in that order, once each), port
 * description and system name, and the organisationally specific TLVs DCB lives in: 802.1Qaz
 * ETS configuration and recommendation, PFC configuration and application priority (OUI
 * 00-80-C2), 802.3's maximum frame size (00-12-0F), and CEE DCBX's control, PG, PFC and App
 * sub-TLVs (00-1B-21, subtype 2). The frame comes from the network: every length is checked
 * against what is left of it before a byte is read, and a TLV the decoder knows must have the
 * length the standard gives it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nodrop/peer.h"
#include "peer_int.h"

#define TLV_END 0
#define TLV_CHASSIS 1
#define TLV_PORT 2
#define TLV_TTL 3
#define TLV_PORT_DESC 4
#define TLV_SYS_NAME 5
#define TLV_ORG 127

#define OUI_8021 0x0080c2
#define OUI_8023 0x00120f
#define OUI_CEE 0x001b21

/* ID subtypes that carry a MAC or a network address rather than text */
#define CHASSIS_MAC 4
#define CHASSIS_ADDR 5
#define PORT_MAC 3
#define PORT_ADDR 4

static const char *const tlv_names[] = {
	[TLV_END] = "end", [TLV_CHASSIS] = "chassis ID", [TLV_PORT] = "port ID",
	[TLV_TTL] = "TTL", [TLV_PORT_DESC] = "port description", [TLV_SYS_NAME] = "system name",
};

static const char *tlv_name(unsigned int type)
{
	if (type < sizeof(tlv_names) / sizeof(tlv_names[0]) && tlv_names[type])
		return tlv_names[type];
	return type == TLV_ORG ? "organisationally specific" : "other";
}

/* "LLDP frame: TLV 3 (TTL) at byte 30: ..." */
static int bad(struct nd_err *e, unsigned int type, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int bad(struct nd_err *e, unsigned int type, size_t off, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return nd_err_set(e, -EBADMSG, "LLDP frame: TLV %u (%s) at byte %zu: %s", type,
			  tlv_name(type), off, what);
}

static uint16_t be16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static uint32_t be32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* @n bytes as text, anything not printable ASCII as \xNN, cut to fit @size */
static void text(char *out, size_t size, const uint8_t *b, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = b[i];
		int w = c >= 0x20 && c < 0x7f && c != '\\' ?
			snprintf(out + o, size - o, "%c", c) :
			snprintf(out + o, size - o, "\\x%02x", c);

		if (w < 0 || (size_t)w >= size - o)
			break;
		o += (size_t)w;
	}
	out[o] = '\0';
}

static void mac_text(char *out, size_t size, const uint8_t *m)
{
	snprintf(out, size, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

/* A chassis or port ID: its subtype, then a MAC, an address (IANA family first) or text. */
static void id_text(char *out, size_t size, bool mac, bool addr, const uint8_t *b, size_t n)
{
	char ip[INET6_ADDRSTRLEN];

	if (mac && n == 6) {
		mac_text(out, size, b);
		return;
	}
	if (addr && n == 5 && b[0] == 1 && inet_ntop(AF_INET, b + 1, ip, sizeof(ip))) {
		snprintf(out, size, "%s", ip);
		return;
	}
	if (addr && n == 17 && b[0] == 2 && inet_ntop(AF_INET6, b + 1, ip, sizeof(ip))) {
		snprintf(out, size, "%s", ip);
		return;
	}
	text(out, size, b, n);
}

/* The three tables an ETS TLV carries after its first byte: priorities' TCs, TC shares, TSAs. */
static void ets_tables(struct nd_peer_ets *ets, const uint8_t *b)
{
	for (int i = 0; i < 8; i++) {
		ets->prio_tc[i] = (uint8_t)(i % 2 ? b[i / 2] & 0x0f : b[i / 2] >> 4);
		ets->tc_bw[i] = b[4 + i];
		ets->tsa[i] = b[12 + i];
	}
}

/* 802.1Qaz application entries: priority in the top 3 bits, selector in the low 3 */
static void app_entries(struct nd_peer_app *app, size_t *n, const uint8_t *b, size_t len)
{
	for (size_t i = 0; i + 3 <= len && *n < ND_PEER_APP_MAX; i += 3, (*n)++) {
		app[*n].prio = b[i] >> 5;
		app[*n].sel = b[i] & 0x07;
		app[*n].protocol = be16(b + i + 1);
	}
}

/*
 * A feature seen a second time: drop what the first copy set and remember why. Returns true
 * when it is the first.
 */
static bool first_copy(struct nd_peer *p, unsigned int bit, bool *present)
{
	if (p->repeated & bit)
		return false;
	if (*present) {
		*present = false;
		p->repeated |= bit;
		return false;
	}
	return true;
}

/* 802.1 (00-80-C2) subtypes 9-12: @b is the TLV's information after OUI and subtype */
static int org_8021(struct nd_peer *p, uint8_t sub, const uint8_t *b, size_t n, size_t off,
		    struct nd_err *e)
{
	struct nd_peer_ets *ets;

	switch (sub) {
	case 9:
	case 10:
		if (n != 21)
			return bad(e, TLV_ORG, off, "802.1Qaz ETS %s: %zu bytes after the subtype, "
				   "must be 21", sub == 9 ? "configuration" : "recommendation", n);
		ets = sub == 9 ? &p->ets : &p->ets_reco;
		if (!first_copy(p, sub == 9 ? ND_PEER_REP_ETS : ND_PEER_REP_ETS_RECO,
				&ets->present))
			return 0;
		memset(ets, 0, sizeof(*ets));
		ets->present = true;
		if (sub == 9) {
			ets->willing = b[0] & 0x80;
			ets->cbs = b[0] & 0x40;
			ets->max_tcs = b[0] & 0x07 ? b[0] & 0x07 : 8;
		}
		ets_tables(ets, b + 1);
		return 0;
	case 11:
		if (n != 2)
			return bad(e, TLV_ORG, off, "802.1Qaz PFC configuration: %zu bytes after the "
				   "subtype, must be 2", n);
		if (!first_copy(p, ND_PEER_REP_PFC, &p->pfc.present))
			return 0;
		p->pfc.present = true;
		p->pfc.willing = b[0] & 0x80;
		p->pfc.mbc = b[0] & 0x40;
		p->pfc.cap = b[0] & 0x0f;
		p->pfc.enable = b[1];
		return 0;
	case 12:
		if (n < 1 || (n - 1) % 3)
			return bad(e, TLV_ORG, off, "802.1Qaz application priority: %zu bytes after "
				   "the subtype, must be 1 and 3 per entry", n);
		if (!first_copy(p, ND_PEER_REP_APP, &p->app_present)) {
			p->n_app = 0;
			return 0;
		}
		p->app_present = true;
		p->n_app = 0;
		app_entries(p->app, &p->n_app, b + 1, n - 1);
		return 0;
	}
	p->unknown_tlvs++;
	return 0;
}

static void cee_header(struct nd_peer_cee_feat *f, const uint8_t *b)
{
	f->present = true;
	f->oper_version = b[0];
	f->max_version = b[1];
	f->enabled = b[2] & 0x80;
	f->willing = b[2] & 0x40;
	f->error = b[2] & 0x20;
}

/* CEE's PG, PFC and App features: the 4-byte header, then their own fields */
static int cee_feature(struct nd_peer *p, unsigned int type, const uint8_t *b, size_t n,
		       size_t off, struct nd_err *e)
{
	struct nd_peer_cee *c = &p->cee;
	static const size_t want[] = { [2] = 17, [3] = 6 };

	if (type <= 3 && n != want[type])
		return bad(e, TLV_ORG, off, "CEE DCBX %s sub-TLV: %zu bytes, must be %zu",
			   type == 2 ? "PG" : "PFC", n, want[type]);
	if (type == 4 && (n < 4 || (n - 4) % 6))
		return bad(e, TLV_ORG, off, "CEE DCBX App sub-TLV: %zu bytes, must be 4 and 6 per "
			   "entry", n);
	switch (type) {
	case 2:
		cee_header(&c->pg_hdr, b);
		for (int i = 0; i < 8; i++) {
			c->pgid[i] = (uint8_t)(i % 2 ? b[4 + i / 2] & 0x0f : b[4 + i / 2] >> 4);
			c->pg_bw[i] = b[8 + i];
		}
		c->pg_tcs = b[16];
		break;
	case 3:
		cee_header(&c->pfc_hdr, b);
		c->pfc_enable = b[4];
		c->pfc_tcs = b[5];
		break;
	case 4:
		cee_header(&c->app_hdr, b);
		for (size_t i = 4; i + 6 <= n && c->n_app < ND_PEER_APP_MAX; i += 6) {
			struct nd_peer_app *a = &c->app[c->n_app++];

			a->protocol = be16(b + i);
			a->sel = b[i + 2] & 0x03;
			a->prio = peer_cee_prio(b[i + 5]);
		}
		break;
	}
	return 0;
}

/* The CEE DCBX TLV: sub-TLVs with the LLDP header layout, each known one at most once */
static int org_cee(struct nd_peer *p, const uint8_t *b, size_t n, size_t off, struct nd_err *e)
{
	unsigned int seen = 0;
	size_t i = 0;
	int ret;

	if (!first_copy(p, ND_PEER_REP_CEE, &p->cee.present)) {
		memset(&p->cee, 0, sizeof(p->cee));
		return 0;
	}
	memset(&p->cee, 0, sizeof(p->cee));
	p->cee.present = true;
	while (i < n) {
		unsigned int type, len;

		if (n - i < 2)
			return bad(e, TLV_ORG, off, "CEE DCBX: a sub-TLV header cut off after %zu of "
				   "%zu bytes", i, n);
		type = b[i] >> 1;
		len = (unsigned int)(b[i] & 1) << 8 | b[i + 1];
		if (len > n - i - 2)
			return bad(e, TLV_ORG, off, "CEE DCBX: sub-TLV %u of %u bytes runs past the "
				   "TLV's end", type, len);
		if (type >= 1 && type <= 4) {
			if (seen & 1u << type) {
				memset(&p->cee, 0, sizeof(p->cee));
				p->repeated |= ND_PEER_REP_CEE;
				return 0;
			}
			seen |= 1u << type;
		}
		if (type == 1) {
			if (len != 10)
				return bad(e, TLV_ORG, off, "CEE DCBX control sub-TLV: %u bytes, must "
					   "be 10", len);
			p->cee.control = true;
			p->cee.oper_version = b[i + 2];
			p->cee.max_version = b[i + 3];
			p->cee.seq = be32(b + i + 4);
			p->cee.ack = be32(b + i + 8);
		} else if (type >= 2 && type <= 4) {
			ret = cee_feature(p, type, b + i + 2, len, off, e);
			if (ret)
				return ret;
		} else {
			p->unknown_tlvs++;
		}
		i += 2 + len;
	}
	return 0;
}

static int org_tlv(struct nd_peer *p, const uint8_t *b, size_t n, size_t off, struct nd_err *e)
{
	uint32_t oui;

	if (n < 4)
		return bad(e, TLV_ORG, off, "%zu bytes: shorter than its OUI and subtype", n);
	oui = (uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2];
	if (oui == OUI_8021)
		return org_8021(p, b[3], b + 4, n - 4, off, e);
	if (oui == OUI_8023 && b[3] == 4) {
		if (n != 6)
			return bad(e, TLV_ORG, off, "802.3 maximum frame size: %zu bytes, must be 6",
				   n);
		if (first_copy(p, ND_PEER_REP_MAX_FRAME, &p->max_frame_present)) {
			p->max_frame_present = true;
			p->max_frame = be16(b + 4);
		}
		return 0;
	}
	if (oui == OUI_CEE && b[3] == 2)
		return org_cee(p, b + 4, n - 4, off, e);
	p->unknown_tlvs++;
	return 0;
}

/* One TLV at @off of type @type and @n bytes of information @b; @k counts TLVs from 0. */
static int tlv(struct nd_peer *p, unsigned int type, const uint8_t *b, size_t n, size_t off,
	       unsigned int k, struct nd_err *e)
{
	/* chassis ID, port ID and TTL open the LLDPDU, in this order, and never come again */
	if (k < 3 && type != k + 1)
		return bad(e, type, off, "LLDPDU's TLV %u must be the %s", k + 1,
			   tlv_name(k + 1));
	if (k >= 3 && type >= TLV_CHASSIS && type <= TLV_TTL)
		return bad(e, type, off, "a second %s", tlv_name(type));
	switch (type) {
	case TLV_CHASSIS:
	case TLV_PORT:
		if (n < 2)
			return bad(e, type, off, "%zu bytes, needs a subtype and 1 to 255 of ID", n);
		if (type == TLV_CHASSIS) {
			p->chassis_subtype = b[0];
			id_text(p->chassis_id, sizeof(p->chassis_id), b[0] == CHASSIS_MAC,
				b[0] == CHASSIS_ADDR, b + 1, n - 1);
		} else {
			p->port_subtype = b[0];
			id_text(p->port_id, sizeof(p->port_id), b[0] == PORT_MAC, b[0] == PORT_ADDR,
				b + 1, n - 1);
		}
		return 0;
	case TLV_TTL:
		if (n != 2)
			return bad(e, type, off, "%zu bytes, must be 2", n);
		p->ttl = be16(b);
		return 0;
	case TLV_PORT_DESC:
		text(p->port_desc, sizeof(p->port_desc), b, n);
		return 0;
	case TLV_SYS_NAME:
		text(p->sys_name, sizeof(p->sys_name), b, n);
		return 0;
	case TLV_ORG:
		return org_tlv(p, b, n, off, e);
	}
	p->unknown_tlvs++;
	return 0;
}

/* The TLVs from @off on, to the end TLV or the frame's end. */
static int walk(const uint8_t *frame, size_t len, size_t off, struct nd_peer *p,
		struct nd_err *e)
{
	unsigned int k = 0;
	int ret;

	while (off < len) {
		unsigned int t, n;

		if (len - off < 2)
			return nd_err_set(e, -EBADMSG, "LLDP frame: a TLV header cut off at byte %zu",
					  off);
		t = frame[off] >> 1;
		n = (unsigned int)(frame[off] & 1) << 8 | frame[off + 1];
		if (n > len - off - 2)
			return bad(e, t, off, "%u bytes run past the frame's end (%zu bytes left)", n,
				   len - off - 2);
		if (t == TLV_END) {
			if (n)
				return bad(e, t, off, "%u bytes, must be none", n);
			break;
		}
		ret = tlv(p, t, frame + off + 2, n, off, k++, e);
		if (ret)
			return ret;
		off += 2 + n;
	}
	if (k < 3)
		return nd_err_set(e, -EBADMSG, "LLDP frame: %u TLVs before its end; chassis ID, "
				  "port ID and TTL are mandatory", k);
	return 0;
}

int nd_lldp_decode(const uint8_t *frame, size_t len, struct nd_peer *p, struct nd_err *e)
{
	size_t off = 14;
	uint16_t type;
	int ret;

	memset(p, 0, sizeof(*p));
	if (len < 14)
		return nd_err_set(e, -EBADMSG, "LLDP frame: %zu bytes, shorter than an Ethernet "
				  "header", len);
	type = be16(frame + 12);
	if (type == 0x8100 && len >= 18) {
		p->vlan = be16(frame + 14) & 0x0fff;
		type = be16(frame + 16);
		off = 18;
	}
	if (type != ND_LLDP_ETHERTYPE) {
		memset(p, 0, sizeof(*p));
		return nd_err_set(e, -EBADMSG, "not an LLDP frame: EtherType 0x%04x, not 0x%04x",
				  type, ND_LLDP_ETHERTYPE);
	}
	memcpy(p->src_mac, frame + 6, 6);
	ret = walk(frame, len, off, p, e);
	if (ret)
		memset(p, 0, sizeof(*p));	/* nothing half-read */
	return ret;
}

const char *nd_peer_app_sel_name(uint8_t sel, bool cee)
{
	static const char *const ieee[] = { "reserved", "ethertype", "tcp", "udp", "port",
					    "dscp", "reserved", "reserved" };

	if (cee)
		return sel == 0 ? "ethertype" : sel == 1 ? "port" : "reserved";
	return ieee[sel & 7];
}

bool nd_peer_pfc(const struct nd_peer *p, uint8_t *bits)
{
	if (p->pfc.present) {
		*bits = p->pfc.enable;
		return true;
	}
	if (p->cee.pfc_hdr.present) {
		*bits = p->cee.pfc_hdr.enabled ? p->cee.pfc_enable : 0;
		return true;
	}
	return false;
}

void nd_peer_name(const struct nd_peer *p, char *buf, size_t size)
{
	if (!p->sys_name[0] && !p->chassis_id[0] && !p->port_id[0]) {
		snprintf(buf, size, "the link partner");	/* dcbnl knows no identity */
		return;
	}
	snprintf(buf, size, "%.80s %.80s", p->sys_name[0] ? p->sys_name : p->chassis_id,
		 p->port_id);
}
