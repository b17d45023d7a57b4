// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The canonical counter model: one name per meaning, whatever the driver calls it. The table is
 * code because triage rules and the man page depend on it; which raw name means what is data
 * (the driver maps). Order here is display order: flow control, drops, RoCE congestion control,
 * transport, traffic, InfiniBand.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"

#define PRIO true
#define PORT false
#define LOSS true
#define INFO false

static const struct nd_counter_info infos[] = {
	{ "pfc_rx_frames", PRIO, "frames", INFO,
	  "PFC pause frames received for the priority: the link partner asked this port to stop "
	  "sending it" },
	{ "pfc_tx_frames", PRIO, "frames", INFO,
	  "PFC pause frames sent for the priority: this port's receive buffer for it filled up" },
	{ "pfc_rx_duration_us", PRIO, "us", INFO,
	  "Time the priority's transmission was held off by received PFC pause" },
	{ "pfc_tx_duration_us", PRIO, "us", INFO,
	  "Time this port held the link partner paused on the priority" },
	{ "pfc_rx_transitions", PRIO, "events", INFO,
	  "XOFF to XON transitions of received PFC on the priority (pause periods that ended)" },
	{ "pfc_tx_transitions", PRIO, "events", INFO,
	  "XOFF to XON transitions of sent PFC on the priority" },
	{ "pause_rx_frames", PORT, "frames", INFO,
	  "IEEE 802.3x (global) pause frames received" },
	{ "pause_tx_frames", PORT, "frames", INFO, "IEEE 802.3x (global) pause frames sent" },
	{ "pause_rx_duration_us", PORT, "us", INFO,
	  "Time transmission was held off by received 802.3x pause" },
	{ "pause_tx_duration_us", PORT, "us", INFO,
	  "Time this port held the link partner paused with 802.3x pause" },
	{ "pause_rx_transitions", PORT, "events", INFO,
	  "XOFF to XON transitions of received 802.3x pause" },
	{ "pause_storm_warnings", PORT, "events", INFO,
	  "Times the NIC kept sending pause for most of its storm-prevention timeout (a pause "
	  "storm building up)" },
	{ "pause_storm_errors", PORT, "events", INFO,
	  "Times the NIC sent pause longer than its storm-prevention timeout and stopped sending "
	  "pause (PFC storm prevention fired)" },
	{ "rx_nobuf_discards", PORT, "packets", LOSS,
	  "Packets the port dropped on receive for lack of buffer" },
	{ "rx_prio_discards", PRIO, "packets", LOSS,
	  "Packets of the priority the port dropped on receive for lack of buffer" },
	{ "rx_buf_discards", PRIO, "packets", LOSS,
	  "Packets of the priority discarded for lack of per-host receive buffer" },
	{ "rx_cong_discards", PRIO, "packets", LOSS,
	  "Packets of the priority discarded by receive congestion control (WRED)" },
	{ "rx_ecn_marked", PRIO, "packets", INFO,
	  "Packets of the priority the NIC marked ECN CE for congestion" },
	{ "rx_no_wqe_discards", PORT, "packets", LOSS,
	  "Packets dropped because the receive queue had no posted buffer (receive WQE "
	  "exhaustion, out_of_buffer)" },
	{ "roce_rx_ecn_marked", PORT, "packets", INFO,
	  "RoCE packets received with ECN CE set (this port acts as notification point)" },
	{ "cnp_sent", PORT, "packets", INFO,
	  "Congestion notification packets (CNP) sent for received CE-marked RoCE packets" },
	{ "cnp_handled", PORT, "packets", INFO,
	  "CNPs received and acted on: a sender lowered its rate (DCQCN reaction point)" },
	{ "cnp_ignored", PORT, "packets", INFO, "CNPs received and ignored" },
	{ "seq_err_naks", PORT, "packets", LOSS,
	  "NAK sequence-error packets received: the responder saw a PSN gap (a packet was lost) "
	  "and the requester resends from there" },
	{ "transport_retries", PORT, "events", LOSS,
	  "Transport retries: ACK timeouts after which the requester retransmitted" },
	{ "retry_exceeded", PORT, "events", LOSS,
	  "Times a QP used up its transport retries and went to the error state" },
	{ "out_of_sequence", PORT, "packets", LOSS,
	  "Out-of-sequence packets the responder received and dropped (an earlier one was lost)" },
	{ "duplicate_requests", PORT, "packets", LOSS,
	  "Duplicate requests the responder received (retransmissions of packets it had)" },
	{ "rnr_naks_rcvd", PORT, "packets", INFO,
	  "RNR NAKs received: the remote receiver had no receive WQE posted" },
	{ "rnr_naks_sent", PORT, "packets", INFO,
	  "RNR NAKs sent: a local receive queue had no WQE posted for an incoming send" },
	{ "rnr_retry_exceeded", PORT, "events", INFO,
	  "Times a QP used up its RNR retries and went to the error state" },
	{ "send_errors", PORT, "packets", LOSS,
	  "Packets the RDMA device failed to transmit (soft-RoCE: refused by the IP stack)" },
	{ "acks_deferred", PORT, "events", INFO,
	  "Responses the requester queued behind others instead of completing at once "
	  "(soft-RoCE)" },
	{ "send_ops", PORT, "operations", INFO, "Send work requests completed" },
	{ "recv_ops", PORT, "operations", INFO,
	  "Receive work requests consumed by incoming sends" },
	{ "rx_packets", PORT, "packets", INFO, "Packets the port received" },
	{ "tx_packets", PORT, "packets", INFO, "Packets the port sent" },
	{ "rx_bytes", PORT, "bytes", INFO, "Bytes the port received" },
	{ "tx_bytes", PORT, "bytes", INFO, "Bytes the port sent" },
	{ "rx_prio_packets", PRIO, "packets", INFO, "Packets of the priority received" },
	{ "tx_prio_packets", PRIO, "packets", INFO, "Packets of the priority sent" },
	{ "rx_prio_bytes", PRIO, "bytes", INFO, "Bytes of the priority received" },
	{ "tx_prio_bytes", PRIO, "bytes", INFO, "Bytes of the priority sent" },
	{ "rdma_rx_packets", PORT, "packets", INFO, "Packets the RDMA device received" },
	{ "rdma_tx_packets", PORT, "packets", INFO, "Packets the RDMA device sent" },
	{ "rdma_rx_bytes", PORT, "bytes", INFO, "Bytes the RDMA device received" },
	{ "rdma_tx_bytes", PORT, "bytes", INFO, "Bytes the RDMA device sent" },
	{ "ib_xmit_wait", PORT, "ticks", INFO,
	  "Ticks the IB port had data to send but sent none (no credits or lost arbitration): "
	  "InfiniBand's pause time" },
	{ "ib_xmit_bytes", PORT, "bytes", INFO,
	  "Bytes the IB port sent (the PMA counts 4-octet words; converted to bytes)" },
	{ "ib_rcv_bytes", PORT, "bytes", INFO,
	  "Bytes the IB port received (the PMA counts 4-octet words; converted to bytes)" },
	{ "ib_xmit_packets", PORT, "packets", INFO, "Packets the IB port sent" },
	{ "ib_rcv_packets", PORT, "packets", INFO, "Packets the IB port received" },
	{ "ib_symbol_errors", PORT, "events", LOSS,
	  "Minor link errors (symbol errors) on the IB link" },
	{ "ib_link_error_recovery", PORT, "events", LOSS,
	  "Times the IB link error-recovery procedure completed" },
	{ "ib_link_downed", PORT, "events", LOSS,
	  "Times the link failed its error recovery and went down" },
	{ "ib_rcv_errors", PORT, "packets", LOSS, "Packets with errors the IB port received" },
	{ "ib_rcv_remote_physical_errors", PORT, "packets", LOSS,
	  "Packets received marked with the EBP delimiter (a remote physical error)" },
	{ "ib_rcv_switch_relay_errors", PORT, "packets", LOSS,
	  "Packets the switch port could not relay and discarded" },
	{ "ib_xmit_discards", PORT, "packets", LOSS,
	  "Outbound packets the IB port discarded (port down or congestion timeouts)" },
	{ "ib_xmit_constraint_errors", PORT, "packets", LOSS,
	  "Packets not sent because of partition or raw-packet constraints" },
	{ "ib_rcv_constraint_errors", PORT, "packets", LOSS,
	  "Packets received and discarded because of partition or raw-packet constraints" },
	{ "ib_local_link_integrity_errors", PORT, "events", LOSS,
	  "Times the local physical errors exceeded the link's integrity threshold" },
	{ "ib_excessive_buffer_overrun_errors", PORT, "events", LOSS,
	  "Times consecutive receive buffer overruns exceeded the threshold (flow control "
	  "broken)" },
	{ "ib_vl15_dropped", PORT, "packets", LOSS,
	  "Subnet management (VL15) packets dropped for lack of buffer" },
	{ NULL, false, NULL, false, NULL },
};

static const char *const source_names[ND_CTR_SOURCES] = {
	[ND_CTR_ETHTOOL] = "ethtool",
	[ND_CTR_PAUSE] = "pause",
	[ND_CTR_RDMA] = "rdma",
	[ND_CTR_PMA] = "pma",
};

const struct nd_counter_info *nd_counter_infos(size_t *n)
{
	if (n)
		*n = ND_ARRAY_SIZE(infos) - 1;
	return infos;
}

const struct nd_counter_info *nd_counter_info(const char *name)
{
	size_t i;

	/* the first letter first: most names differ there, and a call costs more than a load */
	for (i = 0; infos[i].name; i++)
		if (infos[i].name[0] == name[0] && !strcmp(infos[i].name, name))
			return &infos[i];
	return NULL;
}

size_t nd_ctr_info_index(const struct nd_counter_info *info)
{
	return (size_t)(info - infos);
}

const char *nd_ctr_source_name(enum nd_ctr_source src)
{
	return (unsigned int)src < ND_CTR_SOURCES ? source_names[src] : "unknown";
}

int nd_ctr_source_parse(const char *name, enum nd_ctr_source *src)
{
	int i = nd_name_index(source_names, ND_CTR_SOURCES, name);

	if (i < 0)
		return i;
	*src = (enum nd_ctr_source)i;
	return 0;
}

void nd_sample_free(struct nd_sample *smp)
{
	if (!smp)
		return;
	free(smp->c);
	smp->c = NULL;
	smp->n = 0;
}

const struct nd_counter *nd_sample_find(const struct nd_sample *smp, const char *name, int prio)
{
	size_t i;
	int pass;

	/* canonical names first: a raw counter may carry the same name as a canonical one */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < smp->n; i++)
			if (smp->c[i].mapped == !pass && smp->c[i].prio == prio &&
			    !strcmp(smp->c[i].name, name))
				return &smp->c[i];
	return NULL;
}
