// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * nodrop-ref: runs one nodrop scenario in the reference simulator's RDMA model (ns3-datacenter:
 * HPCC's QbbNetDevice, RdmaHw with DCQCN, the shared-buffer SwitchNode) and measures what
 * `nodrop sim` reports, so the two can be held against each other (tests/simref/ref.py).
 * tests/simref/build.sh builds it inside the reference tree as a scratch program; it is not
 * part of nodrop and links nothing of it.
 *
 * Input (argv[1]): one "KEY VALUE..." per line, '#' comments.
 *   hosts N, switches M            nodes 0..N-1 are hosts, N..N+M-1 switches
 *   link A B RATE DELAY            e.g. "link 0 8 100Gbps 1us"
 *   flow SRC DST BYTES START_S VIA a QP; VIA: the switch its data must cross where ECMP
 *                                  chooses (nodrop's choice), -1 for any
 *   mtu, buffer, alpha, ecn KMIN KMAX PMAX (bytes, bytes, 0..1), stop_s, epoch_s,
 *   series_s, sample_ns, ack_high_prio 0|1 (ACKs and NACKs ahead of data, at switches and
 *   NICs, as CNPs and PFC always are), and the RdmaHw attributes by name: "hw RPTimer 900"
 * Output (argv[2], a file): what was measured, a line each, times relative to epoch_s:
 *   fct I BYTES START_NS FCT_NS IDEAL_NS   a completed flow (the reference's own ideal)
 *   series I B0 B1 ...                     payload bytes each flow delivered per window
 *   queue NODE IF P50 P99 MAX SAMPLES      egress bytes of a switch port, sampled
 *   pfc NODE IF SENT RECEIVED PAUSED_NS    PAUSE frames the port sent, got, and how long it
 *                                          could not send (a PAUSE to the next RESUME)
 *   cnp NODE RECEIVED                      CNPs a host's NIC took in (ACKs flagged CNP)
 *   header BYTES NS                        the model's headers on each data packet, and how
 *                                          long a full one takes on a host's link: its clock
 *                                          counts whole ns, which sets the line's real rate
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/applications-module.h"
#include "ns3/qbb-helper.h"
#include <ns3/rdma-client-helper.h>
#include <ns3/rdma-driver.h>
#include <ns3/rdma-hw.h>
#include <ns3/switch-node.h>
#include <ns3/custom-header.h>
#include <ns3/qbb-header.h>

using namespace ns3;

namespace {

struct LinkSpec {
	uint32_t a, b;
	std::string rate, delay;
};

struct FlowSpec {
	uint32_t src, dst;
	uint64_t bytes;
	double start;
	int64_t via;
};

struct Config {
	uint32_t hosts = 0, switches = 0, mtu = 1000;
	uint64_t buffer = 32u << 20;
	double alpha = 1.0 / 8, pmax = 0.2, stop = 0.02, epoch = 0.01, series = 1e-4;
	uint64_t kmin = 400000, kmax = 1600000, sample_ns = 1000;
	uint32_t ack_high_prio = 0;
	std::vector<std::pair<std::string, std::string> > hw;
	std::vector<LinkSpec> links;
	std::vector<FlowSpec> flows;
};

/* Where a port leads: the node at its far end. */
struct Port {
	Ptr<QbbNetDevice> dev;
	uint32_t peer;
};

struct PortStats {
	uint64_t sent = 0, received = 0, paused_ns = 0;
	int64_t paused_at = -1;
};

Config cfg;
NodeContainer nodes;
std::vector<std::vector<Port> > ports;		/* by node, by ifindex - 1 */
std::vector<std::vector<PortStats> > pfc;
std::vector<std::vector<std::vector<uint32_t> > > qsamples;
std::vector<uint64_t> cnps;
std::vector<std::vector<uint64_t> > delivered;	/* by flow, by window */
std::map<uint64_t, uint32_t> flow_of;		/* (src, dst, sport) -> flow */
std::vector<uint16_t> next_sport;
std::vector<std::string> fct_lines;
size_t n_windows;

void fail(const std::string &why)
{
	std::fprintf(stderr, "nodrop-ref: %s\n", why.c_str());
	std::exit(2);
}

Ipv4Address host_ip(uint32_t id)
{
	return Ipv4Address(0x0b000001 + ((id / 256) << 16) + ((id % 256) << 8));
}

uint32_t ip_host(uint32_t ip)
{
	return (ip >> 8) & 0xffff;
}

uint64_t flow_key(uint32_t src, uint32_t dst, uint16_t sport)
{
	return ((uint64_t)src << 40) | ((uint64_t)dst << 16) | sport;
}

int64_t since_epoch_ns()
{
	return Simulator::Now().GetNanoSeconds() - (int64_t)(cfg.epoch * 1e9 + 0.5);
}

void read_config(const char *path)
{
	std::ifstream in(path);
	std::string line, key;
	unsigned int lineno = 0;

	if (!in)
		fail(std::string(path) + ": cannot open");
	while (std::getline(in, line)) {
		lineno++;
		if (line.empty() || line[0] == '#')
			continue;
		std::istringstream w(line);
		w >> key;
		if (key == "hosts")
			w >> cfg.hosts;
		else if (key == "switches")
			w >> cfg.switches;
		else if (key == "mtu")
			w >> cfg.mtu;
		else if (key == "buffer")
			w >> cfg.buffer;
		else if (key == "alpha")
			w >> cfg.alpha;
		else if (key == "ecn")
			w >> cfg.kmin >> cfg.kmax >> cfg.pmax;
		else if (key == "stop_s")
			w >> cfg.stop;
		else if (key == "epoch_s")
			w >> cfg.epoch;
		else if (key == "series_s")
			w >> cfg.series;
		else if (key == "sample_ns")
			w >> cfg.sample_ns;
		else if (key == "ack_high_prio")
			w >> cfg.ack_high_prio;
		else if (key == "hw") {
			std::string name, value;
			w >> name >> value;
			cfg.hw.push_back(std::make_pair(name, value));
		} else if (key == "link") {
			LinkSpec l;
			w >> l.a >> l.b >> l.rate >> l.delay;
			cfg.links.push_back(l);
		} else if (key == "flow") {
			FlowSpec f;
			w >> f.src >> f.dst >> f.bytes >> f.start >> f.via;
			cfg.flows.push_back(f);
		} else {
			fail(std::string(path) + ":" + std::to_string(lineno) + ": unknown key '" +
			     key + "'");
		}
		if (w.fail())
			fail(std::string(path) + ":" + std::to_string(lineno) + ": bad value for '" +
			     key + "'");
	}
}

/* A PAUSE a port sends (2) or gets (1), a RESUME it sends (3) or gets (0). */
void on_pfc(uint32_t node, uint32_t port, uint32_t type)
{
	PortStats &p = pfc[node][port];

	switch (type) {
	case 2:
		p.sent++;
		break;
	case 1:
		p.received++;
		if (p.paused_at < 0)
			p.paused_at = since_epoch_ns();
		break;
	case 0:
		if (p.paused_at >= 0) {
			p.paused_ns += since_epoch_ns() - p.paused_at;
			p.paused_at = -1;
		}
		break;
	}
}

/*
 * Every frame a host's NIC takes in: data counts for its flow's window, CNPs for the host. The
 * model's receivers send no CNP packet: an ACK (or NACK) with the CNP flag is one.
 */
uint32_t data_header;	/* bytes a data packet carries besides its payload, as seen */

void on_host_rx(uint32_t node, Ptr<const Packet> p)
{
	CustomHeader ch(CustomHeader::L2_Header | CustomHeader::L3_Header | CustomHeader::L4_Header);
	int64_t t;

	p->PeekHeader(ch);
	if (ch.l3Prot == 0xFC || ch.l3Prot == 0xFD) {
		cnps[node] += (ch.ack.flags >> qbbHeader::FLAG_CNP) & 1;
		return;
	}
	if (ch.l3Prot != 0x11)
		return;
	auto it = flow_of.find(flow_key(ip_host(ch.sip), ip_host(ch.dip), ch.udp.sport));
	data_header = ch.GetSerializedSize();
	t = since_epoch_ns();
	if (it == flow_of.end() || t < 0)
		return;
	size_t k = (size_t)(t / (int64_t)(cfg.series * 1e9 + 0.5));
	if (k < n_windows)
		delivered[it->second][k] += p->GetSize() - ch.GetSerializedSize();
}

/* Data at a switch between the two hosts' own: it must be where the flow was sent (VIA). */
uint64_t astray;

void on_switch_rx(uint32_t node, Ptr<const Packet> p)
{
	CustomHeader ch(CustomHeader::L2_Header | CustomHeader::L3_Header | CustomHeader::L4_Header);

	p->PeekHeader(ch);
	if (ch.l3Prot != 0x11)
		return;
	uint32_t src = ip_host(ch.sip), dst = ip_host(ch.dip);
	auto it = flow_of.find(flow_key(src, dst, ch.udp.sport));
	if (it == flow_of.end() || cfg.flows[it->second].via < 0)
		return;
	if (node != ports[src][0].peer && node != ports[dst][0].peer &&
	    (int64_t)node != cfg.flows[it->second].via)
		astray++;
}

void sample_queues()
{
	for (uint32_t i = cfg.hosts; i < nodes.GetN(); i++) {
		Ptr<SwitchNode> sw = DynamicCast<SwitchNode>(nodes.Get(i));
		for (size_t j = 0; j < ports[i].size(); j++) {
			uint64_t b = 0;
			for (uint32_t q = 0; q < SwitchMmu::qCnt; q++)
				b += sw->m_mmu->egress_bytes[j + 1][q];
			qsamples[i][j].push_back((uint32_t)b);
		}
	}
	if (Simulator::Now() + NanoSeconds(cfg.sample_ns) < Seconds(cfg.stop))
		Simulator::Schedule(NanoSeconds(cfg.sample_ns), &sample_queues);
}

/* Shortest paths by hops from every host; all equal-cost next hops (the switches hash). */
std::vector<std::vector<std::vector<uint32_t> > > next_hops()
{
	uint32_t n = nodes.GetN();
	std::vector<std::vector<std::vector<uint32_t> > > nh(n,
		std::vector<std::vector<uint32_t> >(cfg.hosts));

	for (uint32_t h = 0; h < cfg.hosts; h++) {
		std::vector<int> dist(n, -1);
		std::vector<uint32_t> fifo(1, h);
		dist[h] = 0;
		for (size_t i = 0; i < fifo.size(); i++) {
			uint32_t u = fifo[i];
			for (size_t j = 0; j < ports[u].size(); j++) {
				uint32_t v = ports[u][j].peer;
				if (dist[v] < 0) {
					dist[v] = dist[u] + 1;
					if (v >= cfg.hosts)	/* no path runs through a host */
						fifo.push_back(v);
				}
				/* v reaches h through u: v's port toward u is a next hop */
				if (dist[v] == dist[u] + 1)
					for (size_t k = 0; k < ports[v].size(); k++)
						if (ports[v][k].peer == u)
							nh[v][h].push_back((uint32_t)k);
			}
		}
	}
	return nh;
}

std::vector<std::vector<std::vector<uint32_t> > > routes;	/* next_hops() */

/*
 * The reference's own ideal FCT (its programs' qp_finish): the base RTT of the path (both
 * ways' propagation and one MTU's serialization per hop) plus the flow's bytes, headers
 * included, at the path's slowest link.
 */
uint64_t ideal_ns(uint32_t src, uint32_t dst, uint64_t bytes)
{
	uint64_t delay = 0, tx = 0, bw = UINT64_MAX;
	uint32_t at = src;

	while (at != dst) {
		if (routes[at][dst].empty())
			fail("no path from " + std::to_string(src) + " to " + std::to_string(dst));
		Ptr<QbbNetDevice> dev = ports[at][routes[at][dst][0]].dev;
		uint64_t rate = dev->GetDataRate().GetBitRate();
		delay += DynamicCast<QbbChannel>(dev->GetChannel())->GetDelay().GetNanoSeconds();
		tx += (uint64_t)cfg.mtu * 8 * 1000000000ULL / rate;
		bw = std::min(bw, rate);
		at = ports[at][routes[at][dst][0]].peer;
	}
	uint64_t hdr = CustomHeader::GetStaticWholeHeaderSize() - IntHeader::GetStaticSize();
	uint64_t wire = bytes + ((bytes - 1) / cfg.mtu + 1) * hdr;
	return 2 * delay + tx + wire * 8 * 1000000000ULL / bw;
}

void on_qp_done(Ptr<RdmaQueuePair> q)
{
	uint32_t src = ip_host(q->sip.Get()), dst = ip_host(q->dip.Get());
	auto it = flow_of.find(flow_key(src, dst, q->sport));
	char line[160];

	if (it == flow_of.end())
		return;
	std::snprintf(line, sizeof(line), "fct %u %lu %ld %ld %lu", it->second,
		      (unsigned long)q->m_size,
		      (long)(q->startTime.GetNanoSeconds() - (int64_t)(cfg.epoch * 1e9 + 0.5)),
		      (long)(Simulator::Now() - q->startTime).GetNanoSeconds(),
		      (unsigned long)ideal_ns(src, dst, q->m_size));
	fct_lines.push_back(line);
}

/*
 * MurmurHash3 (x86, 32 bits), the hash the model's switches spread flows with, over what they
 * hash: source and destination address, then source and destination port.
 */
uint32_t murmur3(const uint32_t *words, size_t n, uint32_t seed)
{
	uint32_t h = seed;

	for (size_t i = 0; i < n; i++) {
		uint32_t k = words[i] * 0xcc9e2d51;
		k = ((k << 15) | (k >> 17)) * 0x1b873593;
		h ^= k;
		h = (h << 13) | (h >> 19);
		h = h * 5 + 0xe6546b64;
	}
	h ^= (uint32_t)(n * 4);
	h ^= h >> 16;
	h *= 0x85ebca6b;
	h ^= h >> 13;
	h *= 0xc2b2ae35;
	return h ^ (h >> 16);
}

/*
 * The first free source port at or above @from whose hash sends flow @f through f.via at the
 * one switch on its path that chooses among equal next hops (the sender's leaf).
 */
uint16_t sport_via(const FlowSpec &f, uint16_t from)
{
	uint32_t leaf = ports[f.src][0].peer;
	const std::vector<uint32_t> &nh = routes[leaf][f.dst];
	size_t want = nh.size();

	for (size_t i = 0; i < nh.size(); i++)
		if ((int64_t)ports[leaf][nh[i]].peer == f.via)
			want = i;
	if (want == nh.size())
		fail("flow " + std::to_string(f.src) + "->" + std::to_string(f.dst) +
		     ": its sender's switch has no next hop to node " + std::to_string(f.via));
	for (uint32_t sport = from; sport < 65536; sport++) {
		uint32_t key[3] = { host_ip(f.src).Get(), host_ip(f.dst).Get(), sport | (100u << 16) };
		if (murmur3(key, 3, leaf) % nh.size() == want)
			return (uint16_t)sport;
	}
	fail("no source port sends the flow the way asked");
	return 0;
}

void start_flow(uint32_t i)
{
	const FlowSpec &f = cfg.flows[i];
	uint16_t sport = f.via < 0 ? next_sport[f.src] : sport_via(f, next_sport[f.src]);

	next_sport[f.src] = sport + 1;
	flow_of[flow_key(f.src, f.dst, sport)] = i;
	/* no window (HAS_WIN 0): DCQCN alone paces the flow, as in the scenarios */
	RdmaClientHelper app(3, host_ip(f.src), host_ip(f.dst), sport, 100, f.bytes, 0,
			     ideal_ns(f.src, f.dst, 1), Simulator::GetMaximumSimulationTime());
	ApplicationContainer a = app.Install(NodeContainer(nodes.Get(f.src)));
	a.Start(Seconds(0));
}

uint32_t percentile(std::vector<uint32_t> &v, double q)
{
	if (v.empty())
		return 0;
	size_t k = (size_t)(q * (double)v.size());
	if (k >= v.size())
		k = v.size() - 1;
	std::nth_element(v.begin(), v.begin() + k, v.end());
	return v[k];
}

void write_results(const char *path)
{
	FILE *f = std::fopen(path, "w");

	if (!f)
		fail(std::string(path) + ": cannot write");
	for (auto &l : fct_lines)
		std::fprintf(f, "%s\n", l.c_str());
	for (size_t i = 0; i < delivered.size(); i++) {
		std::fprintf(f, "series %zu", i);
		for (uint64_t b : delivered[i])
			std::fprintf(f, " %lu", (unsigned long)b);
		std::fprintf(f, "\n");
	}
	for (uint32_t i = cfg.hosts; i < nodes.GetN(); i++)
		for (size_t j = 0; j < qsamples[i].size(); j++) {
			std::vector<uint32_t> &v = qsamples[i][j];
			uint32_t mx = v.empty() ? 0 : *std::max_element(v.begin(), v.end());
			uint32_t p99 = percentile(v, 0.99), p50 = percentile(v, 0.50);
			std::fprintf(f, "queue %u %zu %u %u %u %zu\n", i, j + 1, p50, p99, mx,
				     v.size());
		}
	int64_t end = (int64_t)((cfg.stop - cfg.epoch) * 1e9 + 0.5);
	for (uint32_t i = 0; i < nodes.GetN(); i++)
		for (size_t j = 0; j < pfc[i].size(); j++) {
			PortStats &p = pfc[i][j];
			if (p.paused_at >= 0)
				p.paused_ns += end - p.paused_at;
			std::fprintf(f, "pfc %u %zu %lu %lu %lu\n", i, j + 1, (unsigned long)p.sent,
				     (unsigned long)p.received, (unsigned long)p.paused_ns);
		}
	for (uint32_t i = 0; i < cfg.hosts; i++)
		std::fprintf(f, "cnp %u %lu\n", i, (unsigned long)cnps[i]);
	std::fprintf(f, "header %u %ld\n", data_header,
		     (long)ports[0][0].dev->GetDataRate().CalculateBytesTxTime(cfg.mtu + data_header)
			     .GetNanoSeconds());
	std::fclose(f);
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 3)
		fail("usage: nodrop-ref CONFIG OUT");
	read_config(argv[1]);
	uint32_t n = cfg.hosts + cfg.switches;
	if (!cfg.hosts || !cfg.switches || cfg.links.empty())
		fail("the config needs hosts, switches and links");

	Config::SetDefault("ns3::QbbNetDevice::PauseTime", UintegerValue(5));
	Config::SetDefault("ns3::QbbNetDevice::QcnEnabled", BooleanValue(true));
	IntHeader::mode = IntHeader::NONE;	/* DCQCN carries no INT */

	/* ACKs in the data's queue, or in the highest priority's */
	RdmaEgressQueue::ack_q_idx = cfg.ack_high_prio ? 0 : 3;
	for (uint32_t i = 0; i < n; i++) {
		if (i < cfg.hosts) {
			nodes.Add(CreateObject<Node>());
		} else {
			Ptr<SwitchNode> sw = CreateObject<SwitchNode>();
			sw->SetAttribute("EcnEnabled", BooleanValue(true));
			sw->SetAttribute("AckHighPrio", UintegerValue(cfg.ack_high_prio));
			sw->SetNodeType(1);
			sw->SetEcmpSeed(i);	/* sport_via() hashes with it */
			nodes.Add(sw);
		}
	}
	InternetStackHelper internet;
	internet.Install(nodes);

	ports.resize(n);
	QbbHelper qbb;
	Ipv4AddressHelper subnet;
	for (size_t i = 0; i < cfg.links.size(); i++) {
		const LinkSpec &l = cfg.links[i];
		if (l.a >= n || l.b >= n)
			fail("link " + std::to_string(i) + ": no such node");
		qbb.SetDeviceAttribute("DataRate", StringValue(l.rate));
		qbb.SetChannelAttribute("Delay", StringValue(l.delay));
		NetDeviceContainer d = qbb.Install(nodes.Get(l.a), nodes.Get(l.b));
		/* a host's first interface carries its own address: RdmaHw sends from it */
		for (int side = 0; side < 2; side++) {
			uint32_t id = side ? l.b : l.a;
			if (id < cfg.hosts) {
				Ptr<Ipv4> ip = nodes.Get(id)->GetObject<Ipv4>();
				ip->AddInterface(d.Get(side));
				ip->AddAddress(1, Ipv4InterfaceAddress(host_ip(id), Ipv4Mask(0xff000000)));
			}
		}
		std::ostringstream net;
		net << "10." << i / 254 + 1 << "." << i % 254 + 1 << ".0";
		subnet.SetBase(net.str().c_str(), "255.255.255.0");
		subnet.Assign(d);
		ports[l.a].push_back(Port{ DynamicCast<QbbNetDevice>(d.Get(0)), l.b });
		ports[l.b].push_back(Port{ DynamicCast<QbbNetDevice>(d.Get(1)), l.a });
	}
	for (uint32_t i = 0; i < n; i++)
		for (size_t j = 0; j < ports[i].size(); j++)
			if (ports[i][j].dev->GetIfIndex() != j + 1)
				fail("node " + std::to_string(i) + ": interfaces out of order");

	/* the switches' buffer as the reference's programs set it: DT at alpha, headroom 3 x BDP */
	for (uint32_t i = cfg.hosts; i < n; i++) {
		Ptr<SwitchNode> sw = DynamicCast<SwitchNode>(nodes.Get(i));
		uint64_t headroom_total = 0;
		sw->m_mmu->SetAlphaIngress(cfg.alpha);
		sw->m_mmu->SetAlphaEgress(UINT16_MAX);
		for (size_t j = 0; j < ports[i].size(); j++) {
			Ptr<QbbNetDevice> dev = ports[i][j].dev;
			uint64_t rate = dev->GetDataRate().GetBitRate();
			uint64_t delay = DynamicCast<QbbChannel>(dev->GetChannel())->GetDelay()
				.GetTimeStep();
			uint64_t headroom = rate * delay / 8 / 1000000000 * 3;
			sw->m_mmu->ConfigEcn(j + 1, 0, 0, cfg.pmax);
			sw->m_mmu->kmin[j + 1] = cfg.kmin;
			sw->m_mmu->kmax[j + 1] = cfg.kmax;
			for (uint32_t q = 0; q < 8; q++) {
				sw->m_mmu->SetHeadroom(headroom, j + 1, q);
				headroom_total += headroom;
			}
		}
		sw->m_mmu->SetBufferPool(cfg.buffer + headroom_total);
		sw->m_mmu->SetIngressPool(cfg.buffer);
		sw->m_mmu->SetEgressLosslessPool(cfg.buffer);
		sw->m_mmu->node_id = sw->GetId();
		sw->SetAttribute("CcMode", UintegerValue(1));
		sw->SetAttribute("MaxRtt", UintegerValue(0));
	}

	for (uint32_t i = 0; i < cfg.hosts; i++) {
		Ptr<RdmaHw> hw = CreateObject<RdmaHw>();
		hw->SetAttribute("CcMode", UintegerValue(1));
		hw->SetAttribute("Mtu", UintegerValue(cfg.mtu));
		for (auto &a : cfg.hw)
			hw->SetAttribute(a.first, StringValue(a.second));
		Ptr<RdmaDriver> drv = CreateObject<RdmaDriver>();
		drv->SetNode(nodes.Get(i));
		drv->SetRdmaHw(hw);
		nodes.Get(i)->AggregateObject(drv);
		drv->Init();
		drv->TraceConnectWithoutContext("QpComplete", MakeCallback(&on_qp_done));
	}

	routes = next_hops();
	auto &nh = routes;
	for (uint32_t v = 0; v < n; v++)
		for (uint32_t h = 0; h < cfg.hosts; h++) {
			Ipv4Address dst = host_ip(h);
			for (uint32_t k : nh[v][h]) {
				if (v >= cfg.hosts)
					DynamicCast<SwitchNode>(nodes.Get(v))->AddTableEntry(dst, k + 1);
				else
					nodes.Get(v)->GetObject<RdmaDriver>()->m_rdma->AddTableEntry(dst,
												      k + 1);
			}
		}

	n_windows = (size_t)((cfg.stop - cfg.epoch) / cfg.series + 0.5);
	delivered.assign(cfg.flows.size(), std::vector<uint64_t>(n_windows, 0));
	pfc.resize(n);
	qsamples.resize(n);
	cnps.assign(cfg.hosts, 0);
	next_sport.assign(cfg.hosts, 10000);
	for (uint32_t i = 0; i < n; i++) {
		pfc[i].resize(ports[i].size());
		if (i >= cfg.hosts)
			qsamples[i].resize(ports[i].size());
		for (size_t j = 0; j < ports[i].size(); j++) {
			ports[i][j].dev->TraceConnectWithoutContext("QbbPfc",
				MakeBoundCallback(&on_pfc, i, (uint32_t)j));
			if (i < cfg.hosts)
				ports[i][j].dev->TraceConnectWithoutContext("MacRx",
					MakeBoundCallback(&on_host_rx, i));
			else
				ports[i][j].dev->TraceConnectWithoutContext("MacRx",
					MakeBoundCallback(&on_switch_rx, i));
		}
	}
	for (size_t i = 0; i < cfg.flows.size(); i++) {
		if (cfg.flows[i].src >= cfg.hosts || cfg.flows[i].dst >= cfg.hosts)
			fail("flow " + std::to_string(i) + ": not between hosts");
		Simulator::Schedule(Seconds(cfg.flows[i].start), &start_flow, (uint32_t)i);
	}
	Simulator::Schedule(Seconds(cfg.epoch), &sample_queues);
	Simulator::Stop(Seconds(cfg.stop));
	Simulator::Run();
	if (astray)
		fail(std::to_string(astray) + " data packets took another way than their VIA");
	write_results(argv[2]);
	Simulator::Destroy();
	return 0;
}
