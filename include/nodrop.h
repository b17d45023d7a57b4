/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libnodrop: the lossless state of RDMA ports, read from the kernel's own interfaces.
 *
 * Conventions: functions return 0 (or a count) on success and a negative errno on failure, and
 * fill the caller's struct nd_err with one human sentence that names the port, the operation, the
 * kernel's reason and, where there is one, the fix. The library never prints.
 */
#ifndef NODROP_H
#define NODROP_H

#include <nodrop/base.h>
#include <nodrop/sysfs.h>
#include <nodrop/dcb.h>
#include <nodrop/ecn.h>
#include <nodrop/port.h>
#include <nodrop/profile.h>
#include <nodrop/lint.h>
#include <nodrop/apply.h>
#include <nodrop/counters.h>
#include <nodrop/triage.h>
#include <nodrop/doctor.h>
#include <nodrop/headroom.h>
#include <nodrop/model.h>
#include <nodrop/sim.h>
#include <nodrop/stress.h>
#include <nodrop/runreport.h>
#include <nodrop/compare.h>
#include <nodrop/peer.h>
#include <nodrop/path.h>

#endif
