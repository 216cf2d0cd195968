// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Disk rules: frozen counters (iostats), saturated, slow (by await or by
 * its measured tail), a slow md/dm member; the queue settings suggested:
 * nr_requests and the scheduler for a saturated disk, rq_affinity=2 for the
 * disks behind a lone vector that loads a hot core (rules_irq.c).
 */
#include "advise_int.h"

/* What a queue setting suggestion writes and says besides its reason. */
struct queue_write {
	const char *id;	  /* "ID-DISK" */
	const char *file; /* sys/block/DISK/queue/FILE */
	const char *effect, *notes;
};

/* A suggestion answering f: value written to disk's queue file qw->file
 * (undo: what is there now), with qw's effect and notes. NULL: no memory,
 * or a disk name no path takes (the caller checked it with kname_ok()). */
static struct suggestion *queue_write(struct ctx *c, const struct finding *f,
				      const struct queue_write *qw, const char *disk,
				      const char *value, const char *undo)
{
	char sid[ADV_ID_MAX], path[160], tail[40];
	struct suggestion *s;

	str_fmt(sid, sizeof(sid), "%s-%s", qw->id, disk);
	s = add_suggestion(c->a, sid, ADV_INFO, f->id);
	if (!s)
		return NULL;
	str_fmt(tail, sizeof(tail), "/queue/%s", qw->file);
	if (!device_path(path, sizeof(path), "sys/block/", KNAME_DISK, disk, tail) ||
	    !add_action(s, path, value, undo))
		return NULL;
	str_copy(s->effect, sizeof(s->effect), qw->effect);
	str_copy(s->notes, sizeof(s->notes), qw->notes);
	return s;
}

/* The queue settings that answer f, a saturated disk d: a deeper queue for
 * an SSD at its tag limit, mq-deadline for a spinning disk without one. */
static int suggest_queue(struct ctx *c, const struct finding *f, const struct disk_metrics *d)
{
	static const struct queue_write deeper = {
		"nr-requests", "nr_requests",
		"a deeper queue lets the SSD work on more requests at once: more IO/s if the "
		"device has spare parallelism, else longer await",
		"The kernel refuses values above the hardware queue depth (EINVAL) without a "
		"scheduler. Not persistent: use a udev rule."
	};
	static const struct queue_write deadline = {
		"scheduler", "scheduler",
		"mq-deadline sorts and merges requests for the disk head and bounds read "
		"latency; expect more merges (rrqm/s, wrqm/s) and fewer seeks",
		"Not persistent: use a udev rule."
	};
	const struct topo_block *b = topology_block(c->t, d->name);
	char v[32], u[32];
	struct suggestion *s;

	/* a name that is not one the kernel gives (a recorded tree's
	 * "../../x") is never put in a path: no queue suggestion for it */
	if (!b || !kname_ok(KNAME_DISK, d->name))
		return 0;
	/* the queue is full: requests wait for a tag before the device sees them */
	if (b->nr_requests > 0 && b->rotational == 0 && d->aqu_sz >= 0.9 * (double)b->nr_requests &&
	    b->nr_requests < 2048) {
		snprintf(v, sizeof(v), "%ld", b->nr_requests * 2);
		snprintf(u, sizeof(u), "%ld", b->nr_requests);
		s = queue_write(c, f, &deeper, d->name, v, u);
		if (!s)
			return -ENOMEM;
		snprintf(
		    s->reason, sizeof(s->reason),
		    "%s: aqu-sz %.1f is at its queue limit nr_requests=%ld on a non-rotational "
		    "device: requests wait for a tag",
		    d->name, d->aqu_sz, b->nr_requests);
	}
	/* a saturated spinning disk without a scheduler: no merging or deadline */
	if (b->rotational == 1 && strcmp(b->scheduler, "none") == 0 &&
	    strstr(b->schedulers, "mq-deadline")) {
		s = queue_write(c, f, &deadline, d->name, "mq-deadline", "none");
		if (!s)
			return -ENOMEM;
		snprintf(s->reason, sizeof(s->reason),
			 "%s: rotational disk saturated (util %.1f%%, aqu-sz %.1f) with scheduler "
			 "none: requests are neither sorted nor merged",
			 d->name, d->util, d->aqu_sz);
	}
	return 0;
}

/* A saturated disk without a queue setting to change: why, and what helps. */
static void no_queue_fix(struct finding *f, const struct disk_metrics *d)
{
	str_cat(f->detail, sizeof(f->detail),
		"%sNo suggestion: %s already does all it can (util %.0f%%) and no queue setting "
		"of %s is known to be wrong (nr_requests and the scheduler are suggested only "
		"with evidence). What helps is less IO from the processes named in the culprit, "
		"or a faster device.",
		f->detail[0] ? " " : "", d->name, d->util, d->name);
}

/* --trace: the op whose time at the device (issue to completion) has the
 * highest p99 over ADV_TAIL_MIN_IOS IOs or more in the interval. */
struct disk_tail {
	unsigned op;
	uint64_t n;
	double p99_us, mean_us;
};

static bool disk_tail(const struct ctx *c, const char *name, struct disk_tail *ret)
{
	const struct trace_disk_metrics *td = trace_disk(c, name);
	bool found = false;

	for (unsigned op = 0; td && op < TRACE_OP__COUNT; op++) {
		const struct trace_lat_metrics *l = &td->lat[op][TRACE_LAT_DEVICE];

		if (!td->has[op][TRACE_LAT_DEVICE] || l->count < ADV_TAIL_MIN_IOS)
			continue;
		if (!found || l->p99_us > ret->p99_us) {
			ret->op = op;
			ret->n = l->count;
			ret->p99_us = l->p99_us;
			ret->mean_us = l->mean_us;
			found = true;
		}
	}
	return found;
}

static void tail_sentence(const struct disk_tail *tl, struct finding *f)
{
	str_cat(f->detail, sizeof(f->detail),
		"%sMeasured at the device: %s p99 %.2f ms, mean %.2f ms over %" PRIu64 " IOs.",
		f->detail[0] ? " " : "", trace_op_name(tl->op), tl->p99_us / 1000,
		tl->mean_us / 1000, tl->n);
}

/* Measured completion locality of disk b (--trace): true when enough of its
 * completions run away from the submitting CPU for rq_affinity=2 to move
 * them (named in remote), else false and named in local. */
static bool rq_runs_remote(const struct ctx *c, const struct topo_block *b, char *remote,
			   char *local, size_t size)
{
	const struct trace_disk_metrics *td = trace_disk(c, b->name);
	double pct = td && td->completed ? (double)td->remote / (double)td->completed * 100 : 0;

	if (!td || !td->completed) {
		str_cat(local, size, "%s%s (no completion measured)", local[0] ? ", " : "",
			b->name);
		return false;
	}
	if (pct < ADV_RQ_REMOTE_PCT) {
		str_cat(local, size, "%s%s %.0f%% remote", local[0] ? ", " : "", b->name, pct);
		return false;
	}
	str_cat(remote, size, "%s%s %.0f%% of %" PRIu64, remote[0] ? ", " : "", b->name, pct,
		td->completed);
	return true;
}

/* The rq_affinity suggestion's reason, effect and notes (nset disks). */
static void rq_affinity_text(struct suggestion *s, const struct hot_group *g,
			     const struct cpu_metrics *cm, const struct soft_shares *ss,
			     double block_pct, const char *remote, size_t nset)
{
	if (ss->timed)
		snprintf(s->reason, sizeof(s->reason),
			 "one vector of %s (IRQ %u) takes its completions to cpu%d: BLOCK is "
			 "%.0f%% of cpu%d's softirq time (%.1f ms/s, measured) and completions "
			 "run away from the submitting CPU (%s completions, measured); "
			 "rq_affinity=2 completes each request on the CPU that submitted it",
			 g->label, g->irq, cm->cpu, block_pct, cm->cpu, ss->block_us / 1000,
			 remote[0] ? remote : "not traced");
	else
		snprintf(s->reason, sizeof(s->reason),
			 "one vector of %s (IRQ %u) takes its completions to cpu%d: BLOCK softirqs "
			 "are %.0f%% of cpu%d's (%.0f/s); rq_affinity=2 completes each request "
			 "on the CPU that submitted it",
			 g->label, g->irq, cm->cpu, ss->block / ss->sum * 100, cm->cpu, ss->block);
	snprintf(s->effect, sizeof(s->effect),
		 "the BLOCK softirq work (%.1f%% of cpu%d in %%soft) moves to the "
		 "submitting CPUs; the hard interrupt stays on cpu%d",
		 cm->soft, cm->cpu, cm->cpu);
	snprintf(s->notes, sizeof(s->notes),
		 "%zu disk(s) behind %s. Not persistent: use a udev rule "
		 "(ATTR{queue/rq_affinity}=\"2\").",
		 nset, g->label);
}

/* rq_affinity=2 for the disks behind g's device when BLOCK softirqs are a
 * real share of the core's (and, measured, completions run away from their
 * submitter); else why not in *why. */
int suggest_rq_affinity(struct ctx *c, const struct finding *hot, const struct cpu_metrics *cm,
			const struct hot_group *g, const struct soft_shares *ss, char *why,
			size_t why_size)
{
	const struct topology *t = c->t;
	char id[ADV_ID_MAX], path[ADV_PATH_MAX], v[16];
	char remote[ADV_TEXT_MAX] = "", local[ADV_TEXT_MAX] = "";
	struct suggestion *s = NULL;
	size_t nblocks = 0, nset = 0;
	/* measured: BLOCK's share of the core's softirq time, else of its softirqs */
	double block_pct = 0;

	if (ss->timed && ss->sum_us > 0)
		block_pct = ss->block_us / ss->sum_us * 100;
	else if (!ss->timed && ss->sum > 0)
		block_pct = ss->block / ss->sum * 100;
	for (size_t i = 0; g->dev >= 0 && i < t->nblocks; i++) {
		const struct topo_block *b = &t->blocks[i];

		if (b->dev != g->dev)
			continue;
		nblocks++;
		if (b->rq_affinity < 0 || b->rq_affinity >= 2 ||
		    !device_path(path, sizeof(path), "sys/block/", KNAME_DISK, b->name,
				 "/queue/rq_affinity"))
			continue; /* a name the kernel does not give gets no command */
		if (block_pct < ADV_SINGLE_BLOCK_PCT)
			continue;
		/* measured locality: rq_affinity=2 moves only completions that run
		 * away from their submitter (here, on the hot core) */
		if (c->block_timed && !rq_runs_remote(c, b, remote, local, ADV_TEXT_MAX))
			continue;
		if (!s) {
			str_fmt(id, sizeof(id), "rq-affinity-%s", g->label);
			s = add_suggestion(c->a, id, hot->severity, hot->id);
			if (!s)
				return -ENOMEM;
		}
		snprintf(v, sizeof(v), "%ld", b->rq_affinity);
		if (!add_action(s, path, "2", v))
			return -ENOMEM;
		nset++;
	}
	if (s)
		rq_affinity_text(s, g, cm, ss, block_pct, remote, nset);
	if (local[0])
		str_cat(why, why_size,
			"no rq_affinity=2 for %s: measured, under %.0f%% of the completions ran "
			"away from the submitting CPU, so it would move nothing. ",
			local, ADV_RQ_REMOTE_PCT);
	if (s || local[0]) {
		/* suggested, or said why above */
	} else if (nblocks == 0) {
		str_cat(why, why_size,
			"no rq_affinity suggestion for %s: no disk is known behind it. ", g->label);
	} else {
		str_cat(why, why_size,
			"no rq_affinity suggestion for %s: its disks already complete on the "
			"submitting CPU (rq_affinity 2), or BLOCK is under %.0f%% of cpu%d's "
			"softirqs, or rq_affinity was not read. ",
			g->label, ADV_SINGLE_BLOCK_PCT, cm->cpu);
	}
	return 0;
}

/* queue/iostats 0: the disk's counters are frozen, and the write that turns
 * them on again (when d's name is one the kernel gives a disk). */
static int disk_iostats_off(struct ctx *c, const struct disk_metrics *d)
{
	struct suggestion *s;
	struct finding *f;
	char path[160];

	f = add_finding(c->a, FIND_IOSTATS_OFF, ADV_INFO, d->name);
	if (!f)
		return -ENOMEM;
	snprintf(f->reason, sizeof(f->reason),
		 "%s: queue/iostats is 0: its counters are frozen, so no metric of "
		 "%s can be trusted (zeros here mean nothing)",
		 d->name, d->name);
	if (!device_path(path, sizeof(path), "sys/block/", KNAME_DISK, d->name, "/queue/iostats")) {
		snprintf(f->detail, sizeof(f->detail),
			 "no suggestion: %s is not a name the kernel gives a disk, "
			 "so it is put in no path or command",
			 d->name);
		return 0;
	}
	s = add_suggestion(c->a, "", ADV_INFO, f->id);
	if (!s)
		return -ENOMEM;
	str_fmt(s->id, sizeof(s->id), "iostats-%s", d->name);
	if (!add_action(s, path, "1", "0"))
		return -ENOMEM;
	snprintf(s->reason, sizeof(s->reason), "%s does not account IO (queue/iostats = 0)",
		 d->name);
	snprintf(s->effect, sizeof(s->effect),
		 "iostat, iotriage and every monitor see %s's IO again; the cost is "
		 "a few counters per request",
		 d->name);
	return 0;
}

/* An SSD/NVMe at 100% util with microsecond awaits is busy, not saturated:
 * it serves many requests at once, so its queueing must also cost the
 * application real time. */
static bool disk_is_saturated(const struct disk_metrics *d, const struct topo_block *b, double aw)
{
	return d->util >= ADV_SAT_UTIL && d->aqu_sz >= ADV_SAT_AQU &&
	       aw >= ADV_SAT_WAIT_FACTOR * d->svctm &&
	       (!b || b->rotational != 0 || aw >= ADV_SAT_SSD_AWAIT);
}

/* Flushes slow beside writes (advise_flush_slow): every commit that waits
 * on one (fsync, fdatasync, O_DSYNC) waits at least that, however small
 * w_await reads. */
static void flush_sentence(const struct ctx *c, const struct disk_metrics *d, struct finding *f)
{
	const struct trace_disk_metrics *td = trace_disk(c, d->name);
	const struct trace_lat_metrics *l = td ? &td->lat[TRACE_OP_FLUSH][TRACE_LAT_DEVICE] : NULL;

	if (!d->has_flush || !advise_flush_slow(d->f_s, d->f_await, d->w_await))
		return;
	str_cat(f->detail, sizeof(f->detail),
		"%sFlushes wait %.0f ms each (%.1f f/s, w_await %.2f ms): every commit that "
		"waits on a flush (fsync, fdatasync, O_DSYNC) waits at least that.",
		f->detail[0] ? " " : "", d->f_await, d->f_s, d->w_await);
	if (l && td->has[TRACE_OP_FLUSH][TRACE_LAT_DEVICE] && l->count >= ADV_TAIL_MIN_IOS)
		str_cat(f->detail, sizeof(f->detail),
			" Measured at the device: flush p50 %.2f ms, p99 %.2f ms over %" PRIu64
			" flushes.",
			l->p50_us / 1000, l->p99_us / 1000, l->count);
}

/* d saturated (aw its await, tl its measured tail or NULL): the finding,
 * its culprits, and the queue settings that answer it, or why none. */
static int disk_saturated(struct ctx *c, const struct disk_metrics *d, const struct topo_block *b,
			  double aw, const struct disk_tail *tl)
{
	bool queueing = d->util >= ADV_SAT_CRIT_UTIL && aw >= ADV_SAT_CRIT_FACTOR * d->svctm;
	size_t fidx, nsugg;
	struct finding *f;
	char psi[64];

	f = add_finding(c->a, FIND_DISK_SATURATED,
			queueing || psi_hurts(c, PSI_IO) ? ADV_CRITICAL : ADV_WARNING, d->name);
	if (!f)
		return -ENOMEM;
	psi_text(c, PSI_IO, psi, sizeof(psi));
	f->harm = 200 + (psi_some(c, PSI_IO) > 0 ? psi_some(c, PSI_IO) : 0) + d->util;
	snprintf(f->reason, sizeof(f->reason),
		 "%s saturated: util %.2f%%, aqu-sz %.2f, await %.2f ms vs %.2f ms "
		 "of service per IO (%.2f r/s, %.2f w/s), %s: requests queue for "
		 "the device",
		 d->name, d->util, d->aqu_sz, aw, d->svctm, d->r_s, d->w_s, psi);
	io_culprits(c, f, d);
	if (b && b->rotational == 0)
		snprintf(f->detail, sizeof(f->detail),
			 "util counts time with at least one IO in flight; an SSD/NVMe "
			 "serves many at once, so judge it by await and aqu-sz.");
	flush_sentence(c, d, f);
	io_victims(c, f, d, first_cause(f));
	if (tl)
		tail_sentence(tl, f);
	wb_sentence(c, f);
	fidx = c->a->nfindings - 1;
	nsugg = c->a->nsuggestions;
	if (suggest_queue(c, &c->a->findings[fidx], d) < 0)
		return -ENOMEM;
	f = &c->a->findings[fidx];
	if (c->a->nsuggestions == nsugg)
		no_queue_fix(f, d);
	io_remedy(c, f, d, b);
	return 0;
}

/* d slow: high await at low util, or (measured) a mean that looks fine
 * over a tail that is not. Nothing when it is neither. */
static int disk_slow(struct ctx *c, const struct disk_metrics *d, const struct topo_block *b,
		     double aw, double ios, const struct disk_tail *tl)
{
	double slow_ms = !b || b->rotational < 0 ? ADV_SLOW_AWAIT_UNKNOWN
			 : b->rotational	 ? ADV_SLOW_AWAIT_HDD
						 : ADV_SLOW_AWAIT_SSD;
	bool by_tail = tl && aw < slow_ms && tl->mean_us > 0 && tl->p99_us / 1000 >= slow_ms &&
		       tl->p99_us >= ADV_TAIL_FACTOR * tl->mean_us;
	/* a write-back cache that is slow to flush: every commit waits */
	bool by_flush = !by_tail && aw < slow_ms && d->has_flush && d->f_await >= slow_ms &&
			advise_flush_slow(d->f_s, d->f_await, d->w_await);
	double ms = by_tail ? tl->p99_us / 1000 : by_flush ? d->f_await : aw;
	struct finding *f;

	if (!(d->util < ADV_SLOW_UTIL && (aw >= slow_ms || by_tail || by_flush)))
		return 0;
	f = add_finding(c->a, FIND_DISK_SLOW, psi_hurts(c, PSI_IO) ? ADV_CRITICAL : ADV_WARNING,
			d->name);
	if (!f)
		return -ENOMEM;
	f->harm = 100 + (psi_some(c, PSI_IO) > 0 ? psi_some(c, PSI_IO) : 0) + (ms < 100 ? ms : 100);
	io_culprits(c, f, d);
	if (by_tail)
		snprintf(f->reason, sizeof(f->reason),
			 "%s slow by its tail: %s p99 %.2f ms at the device, %.1fx its "
			 "mean %.2f ms (measured, %" PRIu64 " IOs), while await is "
			 "%.2f ms at util %.2f%% (%.2f IO/s): one IO in a hundred is "
			 "very slow while the device is mostly idle",
			 d->name, trace_op_name(tl->op), tl->p99_us / 1000,
			 tl->p99_us / tl->mean_us, tl->mean_us / 1000, tl->n, aw, d->util, ios);
	else if (by_flush)
		snprintf(f->reason, sizeof(f->reason),
			 "%s slow to flush: f_await %.2f ms (%.2f f/s) while w_await is %.2f ms "
			 "at util %.2f%%: each commit waits on a slow cache flush",
			 d->name, d->f_await, d->f_s, d->w_await, d->util);
	else
		snprintf(f->reason, sizeof(f->reason),
			 "%s slow: await %.2f ms at util %.2f%% (%.2f IO/s, aqu-sz "
			 "%.2f): each IO is slow while the device is mostly idle",
			 d->name, aw, d->util, ios, d->aqu_sz);
	snprintf(f->detail, sizeof(f->detail),
		 "Not a load problem: the device or what is behind it is slow "
		 "(%s threshold %.0f ms). Check a cloud volume's IOPS/throughput "
		 "limits and burst credits, a RAID controller's cache/battery, or "
		 "the disk's health (smartctl -a /dev/%s). No suggestion: no "
		 "setting of this host makes the device faster.",
		 !b || b->rotational < 0 ? "unknown media"
		 : b->rotational	 ? "rotational"
					 : "non-rotational",
		 slow_ms, d->name);
	flush_sentence(c, d, f);
	io_victims(c, f, d, first_cause(f));
	if (tl)
		tail_sentence(tl, f);
	wb_sentence(c, f);
	return 0;
}

/* Each whole disk: frozen counters, else saturated, else slow. */
int find_disks(struct ctx *c)
{
	const struct metrics *m = c->m;

	for (size_t i = 0; i < m->ndisks; i++) {
		const struct disk_metrics *d = &m->disks[i];
		const struct disk_raw *raw = raw_of(c, d);
		const struct topo_block *b = topology_block(c->t, d->name);
		struct disk_tail tl = { 0 };
		const struct disk_tail *tail;
		double ios, aw;
		int r;

		if (!d->whole)
			continue;
		/* zram, brd and loop turn accounting off by design (zram keeps its own
		 * io_stat): frozen counters there are not news */
		if (raw && raw->iostats == 0 && !kname_virtual_disk(d->name)) {
			if (disk_iostats_off(c, d) < 0)
				return -ENOMEM;
			continue;
		}
		if (!d->valid)
			continue;
		ios = d->r_s + d->w_s + d->d_s;
		if (ios < ADV_MIN_IOPS)
			continue;
		aw = disk_await(d);
		tail = disk_tail(c, d->name, &tl) ? &tl : NULL;
		if (disk_is_saturated(d, b, aw))
			r = disk_saturated(c, d, b, aw, tail);
		else
			r = disk_slow(c, d, b, aw, ios, tail);
		if (r < 0)
			return r;
	}
	return 0;
}

/* md/dm: one member much slower (await) or busier (util) than the others. */
int find_members(struct ctx *c)
{
	const struct metrics *m = c->m;

	for (size_t i = 0; i < c->cur->disks.n; i++) {
		const struct disk_raw *raw = &c->cur->disks.rows[i];
		const struct disk_metrics *mem[32];
		double aw[32], ut[32], tmp[32];
		size_t n = 0, worst = 0;
		char list[256], *save = NULL, *tok;
		struct finding *f;
		double med_aw, med_ut;

		if (!raw->slaves[0] || !strchr(raw->slaves, ','))
			continue;
		str_copy(list, sizeof(list), raw->slaves);
		for (tok = strtok_r(list, ",", &save); tok && n < 32;
		     tok = strtok_r(NULL, ",", &save)) {
			const struct disk_metrics *d = metrics_by_name(m, tok);

			if (!d || !d->valid || d->r_s + d->w_s < ADV_MIN_IOPS)
				continue;
			mem[n] = d;
			aw[n] = disk_await(d);
			ut[n] = d->util;
			if (aw[n] > aw[worst] || n == 0)
				worst = n;
			n++;
		}
		if (n < 2)
			continue;
		for (size_t k = 0, j = 0; k < n; k++)
			if (k != worst)
				tmp[j++] = aw[k];
		med_aw = median(tmp, n - 1);
		for (size_t k = 0, j = 0; k < n; k++)
			if (k != worst)
				tmp[j++] = ut[k];
		med_ut = median(tmp, n - 1);
		if (!((aw[worst] >= ADV_MEMBER_FACTOR * med_aw &&
		       aw[worst] - med_aw >= ADV_MEMBER_MIN_MS) ||
		      (ut[worst] >= med_ut + ADV_MEMBER_UTIL_GAP && ut[worst] >= 50)))
			continue;
		f = add_finding(c->a, FIND_MEMBER_IMBALANCE, ADV_WARNING, raw->name);
		if (!f)
			return -ENOMEM;
		str_fmt(f->id, sizeof(f->id), "member-imbalance-%s-%s", raw->name,
			mem[worst]->name);
		snprintf(f->reason, sizeof(f->reason),
			 "%s%s%s%s member %s: await %.2f ms vs %.2f ms median of the other %zu "
			 "members, util %.2f%% vs %.2f%%: one member holds back every stripe",
			 raw->name, raw->dm_name[0] ? " (" : "", raw->dm_name,
			 raw->dm_name[0] ? ")" : "", mem[worst]->name, aw[worst], med_aw, n - 1,
			 ut[worst], med_ut);
		str_cat(f->detail, sizeof(f->detail), "members:");
		for (size_t k = 0; k < n; k++)
			str_cat(f->detail, sizeof(f->detail), "%s %s await %.2f ms util %.2f%%",
				k ? "," : "", mem[k]->name, aw[k], ut[k]);
		str_cat(
		    f->detail, sizeof(f->detail),
		    ". Check %s's health (smartctl -a /dev/%s), its path (cable, HBA port) and, "
		    "on a cloud VM, that volume's own limits.",
		    mem[worst]->name, mem[worst]->name);
	}
	return 0;
}
