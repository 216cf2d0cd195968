/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgroup IO attribution: each cgroup v2's io.stat (bytes, IOs and discards
 * per device, hierarchical: a parent's lines include its children's) and
 * io.pressure, read every sample so "which service or container does the
 * IO" needs no per-process scan; where the io controller is on cgroup v1
 * (RHEL 8), the blkio hierarchy's throttle counters (each cgroup's own IO)
 * in the same rows. Collect and parse only; rates are in metrics_cgroup.c.
 */
#ifndef IOTRIAGE_CGROUP_H
#define IOTRIAGE_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iotriage/types.h"
#include "pressure.h"
#include "root.h"

#define CGROUP_MAX	 4096 /* cgroups read per sample; the rest are counted, not read */
#define CGROUP_DEPTH_MAX 32   /* directory levels below the hierarchy's top */
#define CGROUP_PATH_MAX	 256  /* a kubepods container's path is ~180 bytes */
#define CGROUP_DEVS_MAX	 256  /* io.stat lines of one cgroup */
#define CGROUP_FILE_MAX	 (64 * 1024)

/* cgroup v1: the blkio hierarchy and its two counter files */
#define CGROUP_BLKIO_TOP   "sys/fs/cgroup/blkio"
#define CGROUP_BLKIO_BYTES "blkio.throttle.io_service_bytes"
#define CGROUP_BLKIO_IOS   "blkio.throttle.io_serviced"

/* One io.stat line: "MAJ:MIN rbytes= wbytes= rios= wios= dbytes= dios=". */
struct cgroup_io {
	uint32_t major, minor;
	bool has_discard; /* dbytes/dios: since 4.19 */
	uint64_t rbytes, wbytes, rios, wios, dbytes, dios;
};

struct cgroup_raw {
	char path[CGROUP_PATH_MAX]; /* below the top: "" (the top), "system.slice/x.service" */
	bool has_stat;		    /* io.stat was read (the io controller is enabled here) */
	size_t io_off, nio;	    /* its lines in cgroup_table.io */
	bool has_psi;		    /* io.pressure was read */
	struct psi_line some, full;
	/* who waits (victims): cpu.pressure and memory.pressure of the cgroup
	 * v2 hierarchy, read even where io's counters come from v1 blkio
	 * (hybrid hosts: the v2 tree under psi_top) */
	bool has_cpu_psi, has_mem_psi;
	struct psi_line cpu_some, cpu_full, mem_some, mem_full;
};

struct cgroup_table {
	struct cgroup_raw *rows; /* ascending path (strcmp) */
	size_t n, cap;
	struct cgroup_io *io;
	size_t nio, io_cap;
	char top[32];	 /* "sys/fs/cgroup", "sys/fs/cgroup/unified" (hybrid) or
			     CGROUP_BLKIO_TOP (cgroup v1) */
	bool io_enabled; /* "io" in the top's cgroup.controllers; true for v1 blkio */
	/* the cgroup v2 hierarchy whose *.pressure files the rows carry: top
	 * itself, or (top is v1 blkio) "sys/fs/cgroup/unified"; "" none */
	char psi_top[32];
	unsigned skipped; /* cgroups beyond CGROUP_MAX/DEPTH/PATH, or unreadable files */
	struct src_status status;
};

/*
 * Parses io.stat. Lines of other keys (io.latency's, iocost's "cost.*")
 * are skipped key by key; rbytes, wbytes, rios and wios are required on
 * every line. Writes at most max lines to ret and their count to *ret_n.
 * 0, -EBADMSG (malformed), -E2BIG (more than max lines).
 */
int cgroup_iostat_parse(const char *buf, size_t len, struct cgroup_io *ret, size_t max,
			size_t *ret_n);

/*
 * Parses a cgroup v1 blkio cgroup's blkio.throttle.io_service_bytes (bytes)
 * and blkio.throttle.io_serviced (ios): "MAJ:MIN Read|Write|Sync|Async|
 * Discard|Total N" lines, then "Total N", into io.stat's rows (Read and
 * Write required for each device in both files, Discard in both or
 * neither; Sync, Async and Total, sums of them, skipped). At most max
 * (<= CGROUP_DEVS_MAX) rows to ret, their count to *ret_n. 0, -EBADMSG,
 * -E2BIG.
 */
int cgroup_blkio_parse(const char *bytes, size_t bytes_len, const char *ios, size_t ios_len,
		       struct cgroup_io *ret, size_t max, size_t *ret_n);

/* True when top is the cgroup v1 blkio hierarchy's (a table's top). */
bool cgroup_top_is_blkio(const char *top);

/*
 * Walks the cgroup v2 hierarchy under r (/sys/fs/cgroup, or the hybrid
 * layout's /sys/fs/cgroup/unified) and reads io.stat and io.pressure of
 * each cgroup into t (storage reused); where the io controller is not on
 * v2, the v1 blkio hierarchy's throttle counters. No hierarchy is
 * t->status. Never follows a symbolic link. 0 or -ENOMEM.
 */
int cgroup_collect(const struct root *r, struct cgroup_table *t);

/* What a caller sampling again and again keeps: the hierarchy's top, found
 * and opened every CGROUP_TOP_EVERY samples instead of each time. */
struct cgroup_collector {
	int top_fd; /* -1 (or 0 in a zeroed struct: not opened yet, opened > 0) */
	bool opened;
	unsigned samples;
	char top[32];
	bool io_enabled;
	int psi_fd;		  /* the v2 top when top is v1 blkio (hybrid), else -1 */
	char psi_top[32];	  /* its path, "" none */
	struct src_status status; /* no hierarchy: why */
};
#define CGROUP_TOP_EVERY 10

/* cgroup_collect() through cc (zeroed to start; cgroup_collector_free()). */
int cgroup_collect_cc(struct cgroup_collector *cc, const struct root *r, struct cgroup_table *t);
void cgroup_collector_free(struct cgroup_collector *cc);

void cgroup_table_free(struct cgroup_table *t);
int cgroup_table_copy(struct cgroup_table *dst, const struct cgroup_table *src);
/* Row of path or NULL (binary search). */
const struct cgroup_raw *cgroup_table_find(const struct cgroup_table *t, const char *path);

#endif
