/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * encode: one sample (current snapshot + its metrics) -> the JSON document of
 * doc/json.md, once. The daemon sends these same bytes to every subscriber.
 */
#ifndef IOTRIAGE_ENCODE_H
#define IOTRIAGE_ENCODE_H

#include "metrics.h"
#include "strbuf.h"

#define IOT_JSON_VERSION 1 /* bump on any incompatible change of doc/json.md */

struct advice;
struct topology;

/* interrupts[] lines given their affinity, the busiest first: a big host
 * fires hundreds of vectors a second, the live view shows a screenful */
#define ENCODE_AFFINITY_MAX 256

/* What an operator did through the daemon in a sample's interval. */
#define ENCODE_EVENTS_MAX 16
struct encode_event {
	char kind[8]; /* "apply", "undo" */
	char id[64];  /* the suggestion's id ("" undo of every one) */
	char by[64];  /* who asked: "uid 0", "root" */
};

struct encode_opts {
	const char *host; /* hostname shown in the document, may be NULL */
	const char *mode; /* "live", "compute", "daemon" */
	bool whole_only;  /* iostat -x list: whole disks that did IO; every device when false */
	const struct advice *advice;	   /* findings and suggestions (advise.h); NULL: none */
	const struct encode_event *events; /* "events": the interval's applies and undos */
	size_t nevents;
	/* interrupts[]' "affinity" and "effective": as this topology read
	 * them (/proc/irq/N, collect/topology.c); NULL: none */
	const struct topology *irq_topo;
};

/* Appends one JSON object (no trailing newline) to sb. m may be NULL when
 * there is no previous sample yet: then only sources and identity are written. */
void encode_sample(struct strbuf *sb, const struct snapshot *cur, const struct metrics *m,
		   const struct encode_opts *o);

/* The "sources" object of a sample ({"uptime":{"available":true},...}, every
 * source the snapshot tried, with reasons), alone: the daemon's status. */
void encode_sources_object(struct strbuf *sb, const struct snapshot *s);

/* The optional source's key under "cadence" ("processes", "turbostat",
 * "nics", "cgroups", "pressure"). */
const char *encode_cadence_name(enum cad_src k);

#endif
