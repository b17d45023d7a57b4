// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A program a user of libnodrop writes: built against the installed headers with pkg-config
 * (tests/api.sh), as C and as C++, linked shared and static. It uses the parts that need no
 * hardware: a profile parsed from memory and a headroom check value (fabric-models.md).
 */
#include <stdio.h>
#include <string.h>

#include <nodrop.h>

static const char profile[] = "name: api\nports: {drivers: [mlx5_core]}\nmtu: 9000\n"
			      "pfc:\n  priorities: [3]\n";

int main(void)
{
	struct nd_profile p;
	struct nd_headroom h;
	struct nd_err e;

	memset(&e, 0, sizeof(e));
	if (nd_profile_parse(profile, sizeof(profile) - 1, "api.yaml", NULL, &p, &e) < 0) {
		fprintf(stderr, "parse: %s\n", e.msg);
		return 1;
	}
	if (nd_headroom_required(100000, 40, 9216, ND_HDRM_BASIC, &h, &e) < 0) {
		fprintf(stderr, "headroom: %s\n", e.msg);
		return 1;
	}
	printf("%s mtu %u pfc 0x%02x headroom %llu %s\n", p.name, p.mtu, p.pfc_en,
	       (unsigned long long)h.size, nd_field_key(ND_F_MTU));
	nd_profile_free(&p);
	return 0;
}
