/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* dcbnl requests and reply parsing (internal to libnodrop). */
#ifndef ND_DCBNL_H
#define ND_DCBNL_H

#include "nl.h"

/* More than every DSCP, PCP and a few ethertypes and ports: a sane kernel stays far below. */
#define ND_DCB_APPS_MAX 1024

/* What follows a dcbnl request's header: the family header for @cmd and @ifname's name. */
void nd_dcb_put_body(struct nlmsghdr *nlh, uint8_t cmd, const char *ifname);
/* Put a dcbnl request for @cmd on @ifname into @buf (ND_NL_REQ_MAX bytes, zeroed; with ACK). */
struct nlmsghdr *nd_dcb_put_request(void *buf, uint8_t cmd, const char *ifname, uint32_t seq);
/* Parse one IEEE_GET reply into @dcb (which the caller zeroed); checks every length. */
int nd_dcb_parse(const struct nlmsghdr *nlh, const char *ifname, struct nd_dcb *dcb,
		 struct nd_err *e);
/* Read the DCB state of @ifname; -EOPNOTSUPP when the driver has no DCB. */
int nd_dcb_read(struct nd_nl *nl, const char *ifname, struct nd_dcb *dcb, struct nd_err *e);
/*
 * The same for @n ports at once, the requests batched (nd_nl_talk_each): port i's outcome is
 * @ret[i] with its sentence in @errs[i]; returns nonzero (in @e) only when the exchange failed.
 */
int nd_dcb_read_many(struct nd_nl *nl, const char *const *names, size_t n, struct nd_dcb *dcbs,
		     int *ret, struct nd_err *errs, struct nd_err *e);

/* Write one IEEE attribute (ETS, PFC, MAXRATE, DCB_BUFFER): the whole struct, read-modify-write. */
int nd_dcb_set_attr(struct nd_nl *nl, const char *ifname, int attr, const void *data,
		    size_t len, struct nd_err *e);
/* Add or delete one APP entry. */
int nd_dcb_app(struct nd_nl *nl, const char *ifname, bool add, const struct dcb_app *app,
	       struct nd_err *e);
/* Set the DCBX mode (DCB_CAP_DCBX_* flags). */
int nd_dcb_set_dcbx(struct nd_nl *nl, const char *ifname, uint8_t mode, struct nd_err *e);

#endif
