/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The advisor's part of the sample document ("findings" and "suggestions",
 * doc/json.md and doc/advise.md) as the findings panel draws it. A document
 * without those keys (iotriaged --core-only, an older daemon) carries no
 * advice: that means "not known", never "healthy". Decodes only: no I/O.
 */
#ifndef IOTRIAGE_TUI_MODEL_FINDINGS_H
#define IOTRIAGE_TUI_MODEL_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;

#define MODEL_ADV_ID_MAX 64 /* as ADV_ID_MAX in src/advise/advise.h: ids longer are refused */

/* In rising order, so a comparison sorts by gravity. */
enum model_severity {
	MODEL_SEV_INFO,
	MODEL_SEV_WARNING,
	MODEL_SEV_CRITICAL,
};

struct model_finding {
	char id[MODEL_ADV_ID_MAX];    /* "hot-cpu-cpu1", stable across samples */
	char kind[32];		      /* "hot_cpu", "disk_saturated", ... */
	char severity_name[16];	      /* as written: "info", "warning", "critical" */
	enum model_severity severity; /* a name this client does not know counts as info */
	char subject[64];	      /* "cpu1", "sda", "md0" */
	char *reason;		      /* one line with the measured numbers; never NULL */
	char *detail;		      /* shares, why no suggestion; "" when empty */
	char *culprit;		      /* who causes it (processes, cgroups); "" unknown */
	char *who;		      /* the culprit in a few words ("fio pid 812 40 MB/s") */
	/* who suffers in a few words ("postgresql@15-main.service io 61%"), "" none */
	char *victim;
	unsigned held; /* samples since last measured (hysteresis), 0 now */
};

/* One write of a suggestion: a host path ("/proc/irq/107/smp_affinity_list"),
 * the value apply writes and the value read when the advice was made. */
struct model_write {
	char *path;
	char *value;
	char *current;
};

struct model_suggestion {
	char id[MODEL_ADV_ID_MAX]; /* what apply takes: "irq-spread-host0" */
	char severity_name[16];
	enum model_severity severity;
	char finding[MODEL_ADV_ID_MAX]; /* the finding it answers */
	char *reason, *effect, *notes;	/* never NULL; notes may be "" */
	char **commands;		/* exact shell lines, in order */
	size_t ncommands;
	char **undo; /* exact shell lines restoring the values read, in order */
	size_t nundo;
	struct model_write *writes;
	size_t nwrites;
};

struct model_advice {
	/* the document carried both arrays, well formed; false: no advice known */
	bool present;
	/* the arrays were there but could not be read: what was wrong, else "" */
	char bad[128];
	struct model_finding *findings;
	size_t nfindings;
	struct model_suggestion *suggestions;
	size_t nsuggestions;
	unsigned rising; /* findings_rising: measured, not shown yet (hysteresis) */
};

/*
 * Decodes doc's "findings" and "suggestions" into *ret (which is overwritten,
 * not freed). Both absent: present false. Present but malformed (not arrays,
 * an entry without an id, a command that is not a string): present false and
 * ret->bad says what, so the tables of the same sample still show. Returns 0,
 * or -ENOMEM (*ret untouched).
 */
int model_findings_decode(struct json_object *doc, struct model_advice *ret);

/* Frees what decode allocated and empties a; accepts NULL. */
void model_findings_free(struct model_advice *a);

/* The finding / suggestion with this id, NULL if none. */
const struct model_finding *model_findings_finding(const struct model_advice *a, const char *id);
const struct model_suggestion *model_findings_suggestion(const struct model_advice *a,
							 const char *id);

/* A deep copy of s into *ret (kept after the sample it came from is gone).
 * Returns 0 or -ENOMEM (*ret untouched). */
int model_findings_copy_suggestion(const struct model_suggestion *s, struct model_suggestion *ret);
/* Frees one suggestion's strings; accepts NULL. */
void model_findings_free_suggestion(struct model_suggestion *s);

#endif
