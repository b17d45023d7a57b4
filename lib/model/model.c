// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The datapath model: the payload rate each stage of a transfer allows (the NIC's and the GPU's
 * PCIe links with their packet overheads, the GPU <-> NIC path, host memory for staged copies,
 * the wire's per-packet headers) and the latency of one message, term by term as headroom shows
 * its sum. The smallest rate is the ceiling and names what limits it. What it leaves out is in
 * nodrop-model(8): DLLP traffic, SKP ordered sets, switch arbitration, congestion, software.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

/*
 * PCIe Base Specification 6.0: per-lane rates (GT/s) and line codes. 8b/10b for 2.5 and
 * 5 GT/s (4.2.1), 128b/130b for 8, 16 and 32 GT/s (4.2.2); 64 GT/s runs in Flit Mode only, PAM4
 * with no line code, in 256-byte flits of 236 TLP bytes, 6 DLP bytes, 8 CRC and 6 FEC bytes
 * (4.2.3.4.1). The kernel prints the same rates: PCIE_SPEED2STR, drivers/pci/pci.h.
 */
static const struct {
	double gts;
	double code;		/* payload bits per line bit */
} gens[] = {
	[1] = { 2.5, 8.0 / 10 },
	[2] = { 5.0, 8.0 / 10 },
	[3] = { 8.0, 128.0 / 130 },
	[4] = { 16.0, 128.0 / 130 },
	[5] = { 32.0, 128.0 / 130 },
	[6] = { 64.0, 236.0 / 256 },
};

#define PCIE_GEN_MAX 6
#define FLIT_GEN 6

/*
 * DLLPs and SKP ordered sets share the link with TLPs. An Ack and an UpdateFC DLLP are 8 bytes
 * each with their framing; the spec's recommended intervals between them, in bytes of link time,
 * by rate, width and MPS: PCIe Base 5.0 Tables 3-7 to 3-9 (Ack) and 2-46 to 2-48 (UpdateFC, the
 * same values), as the pcie-model of Neugebauer et al. (SIGCOMM 2018) uses them; 8 GT/s and up
 * share one table. A SKP ordered set: 4 symbols every 1538. In Flit Mode the flit's DLP bytes
 * carry both, so the 236/256 above is the whole cost.
 */
#define DLLP_BYTES 8
#define SKP_LEN 4.0
#define SKP_INTERVAL 1538.0

static const unsigned short dllp_interval[3][6][6] = {
	/* x1, x2, x4, x8, x16, x32; MPS 128, 256, 512, 1024, 2048, 4096 */
	{ /* 2.5 GT/s */
		{ 237, 416, 559, 1071, 2095, 4143 }, { 128, 217, 289, 545, 1057, 2081 },
		{ 73, 118, 154, 282, 538, 1050 }, { 67, 107, 86, 150, 278, 534 },
		{ 48, 72, 86, 150, 278, 534 }, { 33, 45, 52, 84, 148, 276 },
	},
	{ /* 5.0 GT/s */
		{ 288, 467, 610, 1122, 2146, 4194 }, { 179, 268, 340, 596, 1108, 2132 },
		{ 124, 169, 205, 333, 589, 1101 }, { 118, 158, 137, 201, 329, 585 },
		{ 99, 123, 137, 201, 329, 585 }, { 84, 96, 103, 135, 199, 237 },
	},
	{ /* 8.0 GT/s and up */
		{ 333, 512, 655, 1167, 2191, 4239 }, { 224, 313, 385, 641, 1153, 2177 },
		{ 169, 214, 250, 378, 634, 1146 }, { 163, 203, 182, 246, 374, 630 },
		{ 144, 168, 182, 246, 374, 630 }, { 129, 141, 148, 180, 244, 372 },
	},
};

/* log2 of @v over @base, or -1 when @v is not @base << 0..5 */
static int step_of(unsigned int v, unsigned int base)
{
	int i;

	for (i = 0; i < 6; i++)
		if (v == base << i)
			return i;
	return -1;
}

/* The share of the link DLLPs and SKP ordered sets take: 0 in Flit Mode, -1 for odd inputs. */
static double dllp_share(const struct nd_pcie_link *l)
{
	int w = step_of(l->width, 1), m = step_of(l->mps, 128);
	unsigned int iv;

	if (l->gen == FLIT_GEN)
		return 0;
	if (w < 0 || m < 0)
		return -1;
	iv = dllp_interval[l->gen >= 3 ? 2 : l->gen - 1][w][m];
	return 2.0 * DLLP_BYTES / iv + SKP_LEN / SKP_INTERVAL;
}

/*
 * Bytes a TLP costs besides its header and payload, outside Flit Mode. 2.5 and 5 GT/s: STP and
 * END symbols (1 + 1), the data link layer's sequence number (2) and LCRC (4); 8 GT/s and up: the
 * 4-byte STP token, which carries the sequence number, and the LCRC (4) (Base 6.0, 3.6.2 and
 * 4.2.2.3.2). Either way 8. In Flit Mode they live in the flit's DLP and CRC bytes instead.
 */
#define TLP_FRAMING 8
/* TLP headers (Base 6.0, 2.2.1): a memory write to a 64-bit address takes 4 DW, a completion 3. */
#define HDR_MWR64 16
#define HDR_CPLD 12
/*
 * Descriptors: a NIC fetches a 64-byte work queue entry per message and writes a 64-byte CQE
 * (mlx5: MLX5_SEND_WQE_BB and struct mlx5_cqe64, rdma-core providers/mlx5/mlx5dv.h).
 */
#define WQE_BYTES 64
#define CQE_BYTES 64

/*
 * The wire. Ethernet (IEEE 802.3-2022, 3.1.1 and 4.4.2): preamble and SFD 8 bytes, inter-frame gap
 * 12, MAC header 14, FCS 4, a 64-byte minimum frame; an 802.1Q tag 4 (IEEE 802.1Q, 9.3). IPv4 20
 * (RFC 791), IPv6 40 (RFC 8200), UDP 8 (RFC 768). InfiniBand Architecture Specification Vol. 1
 * (1.7), 9.2 - 9.3 and 7.8: LRH 8, GRH 40, BTH 12, RETH 16, ICRC 4, VCRC 2. RoCE v2 carries BTH
 * and ICRC over UDP (Annex A17).
 */
#define ETH_GAP_PREAMBLE 20
#define ETH_HDR 14
#define ETH_FCS 4
#define ETH_VLAN 4
#define ETH_MIN_FRAME 64
#define IPV4_HDR 20
#define IPV6_HDR 40
#define UDP_HDR 8
#define IB_LRH 8
#define IB_GRH 40
#define IB_BTH 12
#define IB_RETH 16
#define IB_ICRC 4
#define IB_VCRC 2

/* Light in fibre or copper, as the headroom model counts it (reference/fabric-models.md). */
#define NS_PER_M 5.0

static const char *const mem_names[ND_MM_COUNT] = {
	[ND_MM_HOST] = "host",
	[ND_MM_GPUDIRECT] = "gpudirect",
	[ND_MM_STAGED] = "staged",
	[ND_MM_TCP] = "tcp",
};

const char *nd_model_mem_name(enum nd_model_mem mem)
{
	return (unsigned int)mem < ND_MM_COUNT ? mem_names[mem] : "unknown";
}

int nd_model_mem_parse(const char *name, enum nd_model_mem *mem)
{
	int i = nd_name_index(mem_names, ND_MM_COUNT, name);

	if (i < 0)
		return i;
	*mem = (enum nd_model_mem)i;
	return 0;
}

const char *nd_model_fabric_name(enum nd_model_fabric fabric)
{
	return fabric == ND_MF_IB ? "ib" : "roce";
}

/*
 * Latency defaults, each overridable (nodrop-model(8) lists the sources): a DMA read's round trip
 * from a device to host memory is 300 - 400 ns on an unloaded host (Neugebauer et al.,
 * "Understanding PCIe performance for end host networking", SIGCOMM 2018; Novakovic et al.,
 * SYSTOR 2019): the upper end. A cut-through switch port to port: 250 ns (Mellanox SX1016; a
 * survey of data sheets lists 150 - 850 ns). The NIC's pipeline, a PCIe switch hop and the socket
 * link's crossing have no published figure the model can cite: 0, with a note, until given.
 */
#define DEF_PCIE_RTT_NS 400.0
#define DEF_SWITCH_NS 250.0
/*
 * The socket interconnect for SYS: one Intel UPI link at 10.4 GT/s, 16 data lanes of 20: 20.8 GB/s
 * each way (Intel Xeon Scalable platform). NCCL assumes less for peer traffic over it (10 GB/s
 * Skylake, 22 Sapphire Rapids: src/graph/topo.h): set --socket-bw to the platform's.
 */
#define DEF_SOCKET_GBS 20.8

void nd_model_params_init(struct nd_model_params *p)
{
	memset(p, 0, sizeof(*p));
	p->mem = ND_MM_HOST;
	p->fabric = ND_MF_ROCE;
	p->msg_size = 65536;
	p->write = true;
	p->path = ND_PATH_UNKNOWN;
	p->socket_gbs = DEF_SOCKET_GBS;
	p->pcie_rtt_ns = DEF_PCIE_RTT_NS;
	p->cable_m = 3;
	p->switches = 1;
	p->switch_ns = DEF_SWITCH_NS;
}

double nd_pcie_raw_gbps(const struct nd_pcie_link *l)
{
	if (!l->gen || l->gen > PCIE_GEN_MAX || !l->width)
		return 0;
	return gens[l->gen].gts * gens[l->gen].code * l->width;
}

double nd_pcie_tlp_gbps(const struct nd_pcie_link *l)
{
	double share = dllp_share(l);

	return share < 0 ? 0 : nd_pcie_raw_gbps(l) * (1 - share);
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/* The link's bytes for one message: payload TLPs of at most MPS, and a descriptor TLP. */
static double pcie_bytes(const struct nd_pcie_link *l, uint32_t msg, unsigned int hdr,
			 unsigned int desc)
{
	unsigned int per_tlp = hdr + (l->gen == FLIT_GEN ? 0 : TLP_FRAMING);
	uint64_t tlps = msg ? div_up(msg, l->mps) : 0;
	double bytes = (double)msg + (double)tlps * per_tlp;

	if (desc)
		bytes += desc + per_tlp;
	return bytes;
}

double nd_pcie_payload_gbps(const struct nd_pcie_link *l, uint32_t msg, unsigned int hdr,
			    unsigned int desc)
{
	double tlp = nd_pcie_tlp_gbps(l);

	if (!tlp || !msg)
		return 0;
	return tlp * msg / pcie_bytes(l, msg, hdr, desc);
}

unsigned int nd_wire_packet_overhead(const struct nd_model_params *p)
{
	if (p->fabric == ND_MF_IB)
		return IB_LRH + (p->grh ? IB_GRH : 0) + IB_BTH + IB_ICRC + IB_VCRC;
	return ETH_GAP_PREAMBLE + ETH_HDR + (p->vlan ? ETH_VLAN : 0) +
	       (p->ipv6 ? IPV6_HDR : IPV4_HDR) + UDP_HDR + IB_BTH + IB_ICRC + ETH_FCS;
}

/* Bytes on the wire for a message: its packets, RETH on a WRITE's first, short frames padded. */
static double wire_bytes(const struct nd_model_params *p)
{
	unsigned int ovh = nd_wire_packet_overhead(p), reth = p->write ? IB_RETH : 0;
	uint64_t packets = p->msg_size ? div_up(p->msg_size, p->mtu) : 1;
	uint64_t last = p->msg_size - (packets - 1) * p->mtu;
	double bytes = (double)p->msg_size + (double)packets * ovh + reth;

	if (p->fabric == ND_MF_ROCE) {
		/* the frame is everything but preamble and gap; the last packet is the shortest */
		unsigned int frame = ovh - ETH_GAP_PREAMBLE + (unsigned int)last +
				     (packets == 1 ? reth : 0);

		if (frame < ETH_MIN_FRAME)
			bytes += ETH_MIN_FRAME - frame;
	}
	return bytes;
}

double nd_wire_payload_gbps(const struct nd_model_params *p)
{
	if (p->line_gbps <= 0 || !p->mtu || !p->msg_size)
		return 0;
	return p->line_gbps * p->msg_size / wire_bytes(p);
}

static struct nd_model_term *term(struct nd_model *m, bool bw, const char *key)
{
	struct nd_model_term *t = bw ? &m->bw[m->n_bw++] : &m->lat[m->n_lat++];

	memset(t, 0, sizeof(*t));
	t->key = key;
	return t;
}

static void note(struct nd_model *m, const char *fmt, const char *a)
{
	if (m->n_notes < ND_ARRAY_SIZE(m->notes))
		snprintf(m->notes[m->n_notes++], sizeof(m->notes[0]), fmt, a);
}

static const char *gen_words(const struct nd_pcie_link *l, char *buf, size_t len)
{
	snprintf(buf, len, "Gen%u x%u (%g GT/s, %s), MPS %u%s", l->gen, l->width,
		 gens[l->gen].gts, l->gen == FLIT_GEN ? "flits 236/256" :
		 l->gen >= 3 ? "128b/130b" : "8b/10b", l->mps, l->mps_read ? "" : " assumed");
	return buf;
}

/*
 * A PCIe link's term. Sending, data crosses it as the completions of the reads (@tx_hdr);
 * receiving, as memory writes (@rx_hdr); descriptors as the NIC moves them (a WQE read per message sent, a CQE
 * written per message received where the receiver has one).
 */
static void pcie_term(struct nd_model *m, const char *key, const struct nd_pcie_link *l,
		      const struct nd_model_params *p, unsigned int tx_hdr, unsigned int rx_hdr,
		      bool descriptors)
{
	struct nd_model_term *t;
	char g[96];

	if (!nd_pcie_tlp_gbps(l)) {
		note(m, "%s: the PCIe link is unknown (not PCIe, or not readable): left out", key);
		return;
	}
	t = term(m, true, key);
	t->tx_gbps = nd_pcie_payload_gbps(l, p->msg_size, tx_hdr, descriptors ? WQE_BYTES : 0);
	t->rx_gbps = nd_pcie_payload_gbps(l, p->msg_size, rx_hdr,
					  descriptors && p->recv_cqe ? CQE_BYTES : 0);
	snprintf(t->how, sizeof(t->how), "%s: %.2f Gb/s raw, %.2f after DLLPs and SKPs; TLP "
		 "overhead %u B sending, %u B receiving%s", gen_words(l, g, sizeof(g)),
		 nd_pcie_raw_gbps(l), nd_pcie_tlp_gbps(l),
		 (l->gen == FLIT_GEN ? 0 : TLP_FRAMING) + tx_hdr,
		 (l->gen == FLIT_GEN ? 0 : TLP_FRAMING) + rx_hdr,
		 descriptors ? "; a 64 B WQE per message" : "");
}

static void wire_term(struct nd_model *m, const struct nd_model_params *p)
{
	struct nd_model_term *t = term(m, true, "wire");

	t->tx_gbps = t->rx_gbps = nd_wire_payload_gbps(p);
	snprintf(t->how, sizeof(t->how), "%g Gb/s %s, MTU %u: %u bytes per packet%s, %llu packets",
		 p->line_gbps, p->fabric == ND_MF_IB ? "InfiniBand" : "RoCE v2", p->mtu,
		 nd_wire_packet_overhead(p), p->write ? " and RETH 16 on the first" : "",
		 (unsigned long long)div_up(p->msg_size, p->mtu));
}

/* Host memory: each byte crosses it @crossings times (DMA in or out, copies read and write). */
static void memory_term(struct nd_model *m, const struct nd_model_params *p, unsigned int crossings)
{
	struct nd_model_term *t;

	if (p->mem_gbs <= 0) {
		note(m, "%s: host memory bandwidth unknown (--mem-bw): left out", "host_memory");
		return;
	}
	t = term(m, true, "host_memory");
	t->tx_gbps = t->rx_gbps = p->mem_gbs * 8 / crossings;
	snprintf(t->how, sizeof(t->how), "%g GB/s, each byte crosses it %u time%s", p->mem_gbs,
		 crossings, crossings == 1 ? "" : "s");
}

static void path_terms(struct nd_model *m, const struct nd_model_params *p)
{
	struct nd_model_term *t;

	switch (p->path) {
	case ND_PATH_PIX:
	case ND_PATH_PXB:
		return;	/* a PCIe switch forwards peer traffic at its links' rate */
	case ND_PATH_PHB:
	case ND_PATH_NODE:
		if (p->rc_p2p_gbs <= 0) {
			note(m, "%s: peer traffic through the root complex runs at a rate the CPU "
			     "sets (--rc-p2p): left out", nd_pci_path_name(p->path));
			return;
		}
		t = term(m, true, "root_complex");
		t->tx_gbps = t->rx_gbps = p->rc_p2p_gbs * 8;
		snprintf(t->how, sizeof(t->how), "%s: root complex peer-to-peer %g GB/s",
			 nd_pci_path_name(p->path), p->rc_p2p_gbs);
		return;
	case ND_PATH_SYS:
		t = term(m, true, "socket_link");
		t->tx_gbps = t->rx_gbps = p->socket_gbs * 8;
		snprintf(t->how, sizeof(t->how), "SYS: the socket interconnect, %g GB/s each way",
			 p->socket_gbs);
		return;
	default:
		note(m, "%s: the GPU <-> NIC path is unknown: no path term", "path");
	}
}

static int check(const struct nd_model_params *p, struct nd_err *e)
{
	if (!(p->line_gbps > 0) || p->line_gbps > 1e5)
		return nd_err_set(e, -EINVAL, "no line rate: give the port's speed (--speed 400G) "
				  "or a device to read it from (--dev)");
	if (p->mtu != 256 && p->mtu != 512 && p->mtu != 1024 && p->mtu != 2048 && p->mtu != 4096)
		return nd_err_set(e, -EINVAL, "RDMA MTU %u: it is 256, 512, 1024, 2048 or 4096",
				  p->mtu);
	if (!p->msg_size)
		return nd_err_set(e, -EINVAL, "message size 0: give one of 1 byte or more");
	if ((unsigned int)p->mem >= ND_MM_COUNT)
		return nd_err_set(e, -EINVAL, "unknown memory path %d", (int)p->mem);
	if (p->nic.gen > PCIE_GEN_MAX || p->gpu.gen > PCIE_GEN_MAX)
		return nd_err_set(e, -EINVAL, "PCIe Gen%u: the model knows Gen1 to Gen%d",
				  p->nic.gen > PCIE_GEN_MAX ? p->nic.gen : p->gpu.gen,
				  PCIE_GEN_MAX);
	return 0;
}

static void bw_terms(struct nd_model *m, const struct nd_model_params *p)
{
	struct nd_model_term *t;

	wire_term(m, p);
	pcie_term(m, "pcie_nic", &p->nic, p, HDR_CPLD, HDR_MWR64, true);
	switch (p->mem) {
	case ND_MM_HOST:
		memory_term(m, p, 1);
		break;
	case ND_MM_GPUDIRECT:
		/* the GPU completes the NIC's reads and takes its writes */
		pcie_term(m, "pcie_gpu", &p->gpu, p, HDR_CPLD, HDR_MWR64, false);
		path_terms(m, p);
		break;
	case ND_MM_STAGED:
	case ND_MM_TCP:
		/* the copy engine writes host memory to send, reads it to receive */
		pcie_term(m, "pcie_gpu", &p->gpu, p, HDR_MWR64, HDR_CPLD, false);
		memory_term(m, p, p->mem == ND_MM_TCP ? 4 : 2);
		if (p->mem == ND_MM_TCP) {
			if (p->copy_gbs <= 0) {
				note(m, "%s: one core's copy rate unknown (--copy-rate): left out",
				     "cpu_copy");
				break;
			}
			t = term(m, true, "cpu_copy");
			t->tx_gbps = t->rx_gbps = p->copy_gbs * 8;
			snprintf(t->how, sizeof(t->how), "the socket copy on one core, %g GB/s",
				 p->copy_gbs);
		}
		break;
	default:
		break;
	}
}

static void limits(struct nd_model *m)
{
	size_t i;

	m->tx_gbps = m->rx_gbps = INFINITY;
	for (i = 0; i < m->n_bw; i++) {
		if (m->bw[i].tx_gbps < m->tx_gbps) {
			m->tx_gbps = m->bw[i].tx_gbps;
			m->tx_limit = i;
		}
		if (m->bw[i].rx_gbps < m->rx_gbps) {
			m->rx_gbps = m->bw[i].rx_gbps;
			m->rx_limit = i;
		}
	}
}

/* @fmt takes @a and @b, or @a alone (a second argument past the format is ignored, as C says). */
static void lat_term(struct nd_model *m, const char *key, double ns, const char *fmt, double a,
		     double b)
{
	struct nd_model_term *t = term(m, false, key);

	t->ns = ns;
	snprintf(t->how, sizeof(t->how), fmt, a, b);
	m->latency_ns += ns;
}

/* The GPU's side of a peer access, one way: PCIe switch hops, or the socket link. */
static double gpu_path_ns(const struct nd_model_params *p)
{
	switch (p->path) {
	case ND_PATH_SYS:
		return p->socket_ns;
	case ND_PATH_PIX:
	case ND_PATH_PXB:
		return p->pcie_switch_ns;
	default:
		return 0;
	}
}

static void lat_terms(struct nd_model *m, const struct nd_model_params *p)
{
	double rtt = p->pcie_rtt_ns, ceiling = nd_fmin(m->tx_gbps, m->rx_gbps), gpu;
	unsigned int links = p->switches + 1;

	if (!p->nic_ns)
		note(m, "%s: the NIC's pipeline has no figure to cite: 0 until given "
		     "(--nic-latency)", "nic_tx, nic_rx");

	gpu = p->mem == ND_MM_GPUDIRECT ? gpu_path_ns(p) : 0;
	lat_term(m, "doorbell", rtt / 2, "the CPU's MMIO write reaches the NIC: half a PCIe round "
		 "trip (%.0f ns)", rtt, 0);
	lat_term(m, "wqe_fetch", rtt, "the NIC reads the work request: a PCIe round trip "
		 "(%.0f ns)", rtt, 0);
	lat_term(m, "payload_read", rtt + 2 * gpu, "the NIC reads the payload: a round trip "
		 "(%.0f ns) and the GPU path both ways (%.0f ns)", rtt, 2 * gpu);
	if (p->mem == ND_MM_STAGED || p->mem == ND_MM_TCP) {
		double copy = nd_pcie_payload_gbps(&p->gpu, p->msg_size, HDR_MWR64, 0);

		if (copy > 0)
			lat_term(m, "staging_copies", 2 * p->msg_size * 8 / copy,
				 "a copy to host memory and one from it over the GPU's link "
				 "(%.2f Gb/s), %.0f bytes each; launch cost left out", copy,
				 p->msg_size);
	}
	lat_term(m, "nic_tx", p->nic_ns, "the sending NIC's pipeline (%.0f ns)", p->nic_ns, 0);
	lat_term(m, "serialization", p->msg_size * 8 / ceiling + nd_wire_packet_overhead(p) * 8 /
		 p->line_gbps, "the message at the ceiling (%.2f Gb/s) and one packet's headers at "
		 "line rate (%.0f Gb/s)", ceiling, p->line_gbps);
	lat_term(m, "propagation", links * p->cable_m * NS_PER_M, "%.0f links of %.1f m at 5 ns/m",
		 links, p->cable_m);
	lat_term(m, "switches", p->switches * p->switch_ns, "%.0f cut-through hops of %.0f ns",
		 p->switches, p->switch_ns);
	lat_term(m, "nic_rx", p->nic_ns, "the receiving NIC's pipeline (%.0f ns)", p->nic_ns,
		 0);
	lat_term(m, "payload_write", rtt / 2 + gpu, "the NIC's posted write lands: half a round "
		 "trip (%.0f ns) and the GPU path (%.0f ns)", rtt / 2, gpu);
}

int nd_model_calc(const struct nd_model_params *p, struct nd_model *m, struct nd_err *e)
{
	int ret = check(p, e);

	memset(m, 0, sizeof(*m));
	if (ret)
		return ret;
	if (p->mem == ND_MM_GPUDIRECT && (p->path == ND_PATH_PHB || p->path == ND_PATH_NODE ||
					  p->path == ND_PATH_SYS))
		note(m, "%s: NCCL leaves GPUDirect RDMA off beyond PXB by default "
		     "(NCCL_NET_GDR_LEVEL)", nd_pci_path_name(p->path));
	bw_terms(m, p);
	limits(m);
	lat_terms(m, p);
	return 0;
}
