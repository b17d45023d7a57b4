/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* libnodrop: rooted access to /sys, /proc, configfs and debugfs (NODROP_SYSROOT). */
#ifndef NODROP_SYSFS_H
#define NODROP_SYSFS_H

#include <nodrop/base.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The prefix every kernel file path gets; "" on a real system, a fixture tree in tests. */
const char *nd_sysroot(void);
/* Re-read NODROP_SYSROOT (tests change it between cases). */
void nd_sysroot_reset(void);
/* Build the rooted path of an absolute path such as "/sys/class/net/eth0/mtu". */
int nd_sys_path(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Read a small text file, strip the trailing newline; returns the length or -errno. */
int nd_sys_read(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Read a file holding one unsigned decimal (or 0x hex) number. */
int nd_sys_read_u64(uint64_t *val, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The last path component of a symlink's target (e.g. the driver of a device). */
int nd_sys_link_name(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A symlink's whole target, NUL-terminated; -ENAMETOOLONG when it does not fit in @len. */
int nd_sys_readlink(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Up to @len bytes of a binary file (PCI config space) from @off, short reads retried; returns the
 * count, below @len only at end of file, or -errno.
 */
ssize_t nd_sys_read_bin(void *buf, size_t len, off_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
bool nd_sys_exists(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Write a small text value (sysfs/debugfs attribute) with one write(); returns 0 or -errno. */
int nd_sys_write(const char *value, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Call @fn for each entry of a directory, in name order, skipping "." and "..".
 * Stops and returns @fn's value when it is non-zero; -errno when the directory cannot be read.
 */
typedef int (*nd_sys_dir_fn)(const char *name, void *data);
int nd_sys_dir(nd_sys_dir_fn fn, void *data, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif

#endif
