/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* libnodrop: the link partner's DCB, as it advertises it over LLDP (IEEE 802.1AB). */
#ifndef NODROP_PEER_H
#define NODROP_PEER_H

#include <nodrop/base.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What the switch across the cable says about itself and its DCB: who it is (chassis and port
 * IDs, system name, port description), IEEE 802.1Qaz ETS configuration and recommendation, PFC
 * and application priorities (with 802.1Qcd's DSCP selector), CEE DCBX's PG, PFC and App for
 * switches that speak it, and 802.3's maximum frame size. Every part has a present flag: a
 * switch sends what it sends.
 */

#define ND_LLDP_ETHERTYPE 0x88cc
/* One TLV's information carries at most 511 bytes: (511 - 5) / 3 application entries. */
#define ND_PEER_APP_MAX 168
#define ND_PEER_ID_MAX 256	/* an ID or string TLV as text: 255 bytes, printable */

/* 802.1Qaz application selectors (802.1Qcd adds DSCP) */
enum nd_peer_app_sel {
	ND_APP_SEL_ETHERTYPE = 1,
	ND_APP_SEL_TCP = 2,		/* TCP or SCTP port */
	ND_APP_SEL_UDP = 3,		/* UDP or DCCP port: RoCE v2 is UDP 4791 */
	ND_APP_SEL_PORT = 4,		/* TCP, SCTP, UDP or DCCP port */
	ND_APP_SEL_DSCP = 5,
};

struct nd_peer_app {
	uint8_t prio;
	uint8_t sel;		/* IEEE: enum nd_peer_app_sel; CEE: 0 EtherType, 1 TCP/UDP port */
	uint16_t protocol;
};

/* ETS configuration (willing, CBS, max TCs) or recommendation (neither): 802.1Qaz D.2.9-10 */
struct nd_peer_ets {
	bool present;
	bool willing, cbs;
	uint8_t max_tcs;	/* 1..8 (the wire's 0 means 8) */
	uint8_t prio_tc[8];	/* TC of each priority */
	uint8_t tc_bw[8];	/* percent of each TC */
	uint8_t tsa[8];		/* 0 strict, 1 CBS, 2 ETS, 255 vendor; the rest reserved */
};

struct nd_peer_pfc {
	bool present;
	bool willing, mbc;	/* mbc: MACsec bypass capability */
	uint8_t cap;		/* priorities it can pause at once, 0..15 */
	uint8_t enable;		/* bit n: PFC on priority n */
};

/* A CEE DCBX feature's common header: versions and the enable/willing/error flags. */
struct nd_peer_cee_feat {
	bool present;
	uint8_t oper_version, max_version;
	bool enabled, willing, error;
};

struct nd_peer_cee {
	bool present;			/* the DCBX TLV (OUI 00-1B-21, subtype 2) came */
	bool control;			/* its control sub-TLV */
	uint8_t oper_version, max_version;
	uint32_t seq, ack;
	struct nd_peer_cee_feat pg_hdr, pfc_hdr, app_hdr;
	uint8_t pgid[8];		/* priority group of each priority (15: strict) */
	uint8_t pg_bw[8];		/* percent of each group */
	uint8_t pg_tcs, pfc_tcs;	/* traffic classes it supports for each */
	uint8_t pfc_enable;		/* bit n: PFC on priority n */
	struct nd_peer_app app[ND_PEER_APP_MAX];
	size_t n_app;
};

enum {
	ND_PEER_REP_ETS = 1,
	ND_PEER_REP_ETS_RECO = 2,
	ND_PEER_REP_PFC = 4,
	ND_PEER_REP_APP = 8,
	ND_PEER_REP_MAX_FRAME = 16,
	ND_PEER_REP_CEE = 32,
};

struct nd_peer {
	uint8_t src_mac[6];		/* who sent the frame */
	uint16_t vlan;			/* its 802.1Q tag, 0 when untagged */
	uint8_t chassis_subtype, port_subtype;
	char chassis_id[ND_PEER_ID_MAX];	/* a MAC as aa:bb:..., an address, else the text */
	char port_id[ND_PEER_ID_MAX];
	uint16_t ttl;			/* seconds; 0: the peer is leaving (shutdown LLDPDU) */
	char sys_name[ND_PEER_ID_MAX];
	char port_desc[ND_PEER_ID_MAX];
	struct nd_peer_ets ets, ets_reco;
	struct nd_peer_pfc pfc;
	bool app_present;
	struct nd_peer_app app[ND_PEER_APP_MAX];
	size_t n_app;
	bool max_frame_present;
	uint16_t max_frame;		/* 802.3 maximum frame size, bytes */
	struct nd_peer_cee cee;
	/*
	 * A DCB TLV the frame carried more than once is ambiguous: all of its copies are dropped
	 * (its present flag stays false) and its bit set here, so a peer that contradicts itself
	 * is reported, never half-believed. ND_PEER_REP_* bits.
	 */
	unsigned int repeated;
	unsigned int unknown_tlvs;	/* TLVs it skipped: other organisations, other subtypes */
};

/*
 * Decode one LLDP frame as it came off the wire (destination and source MAC, an optional
 * 802.1Q tag, EtherType 0x88cc, the LLDPDU). Untrusted input: every length is checked against
 * the frame. Returns 0 and fills @p; -EBADMSG (@p holds nothing to use) when the frame is not
 * an LLDPDU or breaks 802.1AB: the message names the TLV, its byte offset and what is wrong.
 * TLVs nodrop does not read are counted and skipped.
 */
int nd_lldp_decode(const uint8_t *frame, size_t len, struct nd_peer *p, struct nd_err *e);

/* The switch's PFC priorities: IEEE's where it sent them, else CEE's; false when neither came. */
bool nd_peer_pfc(const struct nd_peer *p, uint8_t *bits);
/* The switch port as findings name it: "leaf12 Ethernet1/3" (the chassis ID without a name). */
void nd_peer_name(const struct nd_peer *p, char *buf, size_t size);

/* LLDP's default transmit interval is 30 s: a wait of 31 hears every peer that sends. */
#define ND_PEER_WAIT_S 31

/* The largest frame nd_peer_listen() reads: a jumbo frame's worth. */
#define ND_LLDP_FRAME_MAX 9216

/* Where a link partner's DCB came from. */
enum nd_peer_source {
	ND_PEER_SRC_NONE,		/* nothing answered */
	ND_PEER_SRC_DCBNL,		/* the NIC's own DCBX engine, through dcbnl's peer attributes */
	ND_PEER_SRC_LLDP,		/* nodrop heard the switch's LLDP frame on the wire */
};

const char *nd_peer_source_name(enum nd_peer_source s);	/* "dcbnl", "lldp", "none" */

/* One port to listen on, and what came of it. */
struct nd_peer_wait {
	char ifname[16];		/* the caller fills this in */
	bool heard;			/* a frame decoded: @peer holds it */
	enum nd_peer_source source;
	struct nd_peer peer;
	unsigned int bad_frames;	/* frames that came and did not decode */
	unsigned int waited_ms;		/* until the frame, or the whole wait */
	/*
	 * Why not heard: -ETIMEDOUT (nothing came), -EBADMSG (only frames that did not decode:
	 * the last one's reason), -EPERM (no CAP_NET_RAW), -ENODEV and the like.
	 */
	struct nd_err err;
};

/*
 * Listen for LLDP on @n ports at once (AF_PACKET, EtherType 0x88cc, the nearest-bridge group
 * joined), each until its first frame that decodes, all within @wait_ms (LLDP's default
 * transmit interval is 30 s: wait a little longer). Needs CAP_NET_RAW. Returns 0 when it
 * could listen on at least one port, each port's outcome in its own struct; else the first
 * port's error.
 */
int nd_peer_listen(struct nd_peer_wait *w, size_t n, unsigned int wait_ms, struct nd_err *e);

/*
 * The link partner of @ifname as its NIC's DCBX engine reports it through dcbnl (IEEE_GET's and
 * CEE_GET's peer attributes; drivers such as qede and cxgb4 fill them, mlx5, ice and i40e do
 * not). Returns 1 with @p filled (no identity: dcbnl has none), 0 when the driver reports no
 * peer or has no DCB, or -errno.
 */
int nd_peer_from_dcbnl(const char *ifname, struct nd_peer *p, struct nd_err *e);

/*
 * The link partners of @n ports, each from the best source that answers: dcbnl first, then
 * nd_peer_listen() on the ports left, all in one wait. Each port's @source says which answered.
 * Returns 0, or -errno (a port's own failure stays in its struct, as nd_peer_listen()'s).
 */
int nd_peer_find(struct nd_peer_wait *w, size_t n, unsigned int wait_ms, struct nd_err *e);

/* The selector's name: "ethertype", "tcp", "udp", "port", "dscp" (CEE: @cee true). */
const char *nd_peer_app_sel_name(uint8_t sel, bool cee);

#ifdef __cplusplus
}
#endif

#endif
