// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The profile's DCB sections: pfc (the lossless priorities and the cable length their
 * headroom is for), ets (priority to TC, each TC's TSA and bandwidth) and buffer (priority to
 * buffer, buffer sizes). Each is a key table over the generic key parsers (profile_keys.c).
 */
#include <stddef.h>

#include "core/internal.h"
#include "profile_int.h"

static const struct pnum num_cable = { "cable length", 0, 65535, "give metres, 0..65535" };

static const struct pmap map_prio_tc = { &pv_num_prio, "priorities", false, pv_tc };
static const struct pmap map_tsa = { &pv_num_tc, "TCs", false, pv_tsa };
static const struct pmap map_bw = { &pv_num_tc, "TCs", false, pv_percent };
static const struct pmap map_prio_buf = { &pv_num_prio, "priorities", false, pv_buffer };
static const struct pmap map_buf_size = { &pv_num_buffer, "buffers", false, pv_size };

const struct pkey pk_pfc_keys[] = {
	{ "priorities", ND_F_PFC_EN, pk_prios, PK_AT(pfc_en), .example = "priorities: [3]" },
	{ "cable-length", ND_F_PFC_DELAY, pk_num, .num = &num_cable, PK_AT(pfc_delay),
	  .example = "cable-length: 30" },
	{ .name = NULL },
};

const struct pkey pk_ets_keys[] = {
	{ "prio-tc", ND_F_ETS_PRIO_TC, pk_map, .map = &map_prio_tc, PK_AT_EACH(prio_tc),
	  .example = "prio-tc: {all: 0, 3: 3}" },
	{ "tsa", ND_F_ETS_TSA, pk_map, .map = &map_tsa, PK_AT_EACH(tc_tsa),
	  .example = "tsa: {all: strict, 0: ets, 3: ets}" },
	{ "bandwidth", ND_F_ETS_BW, pk_map, .map = &map_bw, PK_AT_EACH(tc_bw),
	  .example = "bandwidth: {all: 0, 0: 50, 3: 50}" },
	{ .name = NULL },
};

const struct pkey pk_buffer_keys[] = {
	{ "prio-buffer", ND_F_BUF_PRIO, pk_map, .map = &map_prio_buf, PK_AT_EACH(prio2buffer),
	  .example = "prio-buffer: {all: 0, 3: 1}" },
	{ "size", ND_F_BUF_SIZE, pk_map, .map = &map_buf_size, PK_AT_EACH(buffer_size),
	  .example = "size: {all: 0, 0: 128K, 1: 96K}" },
	{ .name = NULL },
};
