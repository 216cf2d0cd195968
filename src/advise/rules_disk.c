// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Disk rules: frozen counters (iostats), saturated, slow (by await or by
 * its measured tail), a slow md/dm member; the queue settings suggested
 * for a saturated disk.
 */
#include "advise_int.h"

static int suggest_queue(struct ctx *c, const struct finding *f, const struct disk_metrics *d)
{
	const struct topo_block *b = topology_block(c->t, d->name);
	char id[ADV_ID_MAX], path[160], v[32], u[32];
	struct suggestion *s;

	/* a name that is not one the kernel gives (a recorded tree's
	 * "../../x") is never put in a path: no queue suggestion for it */
	if (!b || !kname_ok(KNAME_DISK, d->name))
		return 0;
	/* the queue is full: requests wait for a tag before the device sees them */
	if (b->nr_requests > 0 && b->rotational == 0 && d->aqu_sz >= 0.9 * (double)b->nr_requests &&
	    b->nr_requests < 2048) {
		fmt(id, sizeof(id), "nr-requests-%s", d->name);
		s = add_suggestion(c->a, id, ADV_INFO, f->id);
		if (!s)
			return -ENOMEM;
		if (!device_path(path, sizeof(path), "sys/block/", KNAME_DISK, d->name,
				 "/queue/nr_requests"))
			return -EINVAL; /* kname_ok() above */
		snprintf(v, sizeof(v), "%ld", b->nr_requests * 2);
		snprintf(u, sizeof(u), "%ld", b->nr_requests);
		if (!add_action(s, path, v, u))
			return -ENOMEM;
		snprintf(
		    s->reason, sizeof(s->reason),
		    "%s: aqu-sz %.1f is at its queue limit nr_requests=%ld on a non-rotational "
		    "device: requests wait for a tag",
		    d->name, d->aqu_sz, b->nr_requests);
		snprintf(s->effect, sizeof(s->effect),
			 "a deeper queue lets the SSD work on more requests at once: more IO/s "
			 "if the device has spare parallelism, else longer await");
		snprintf(s->notes, sizeof(s->notes),
			 "The kernel refuses values above the hardware queue depth (EINVAL) "
			 "without a scheduler. Not persistent: use a udev rule.");
	}
	/* a saturated spinning disk without a scheduler: no merging or deadline */
	if (b->rotational == 1 && strcmp(b->scheduler, "none") == 0 &&
	    strstr(b->schedulers, "mq-deadline")) {
		fmt(id, sizeof(id), "scheduler-%s", d->name);
		s = add_suggestion(c->a, id, ADV_INFO, f->id);
		if (!s)
			return -ENOMEM;
		if (!device_path(path, sizeof(path), "sys/block/", KNAME_DISK, d->name,
				 "/queue/scheduler"))
			return -EINVAL; /* kname_ok() above */
		if (!add_action(s, path, "mq-deadline", "none"))
			return -ENOMEM;
		snprintf(s->reason, sizeof(s->reason),
			 "%s: rotational disk saturated (util %.1f%%, aqu-sz %.1f) with scheduler "
			 "none: requests are neither sorted nor merged",
			 d->name, d->util, d->aqu_sz);
		snprintf(s->effect, sizeof(s->effect),
			 "mq-deadline sorts and merges requests for the disk head and bounds "
			 "read latency; expect more merges (rrqm/s, wrqm/s) and fewer seeks");
		snprintf(s->notes, sizeof(s->notes), "Not persistent: use a udev rule.");
	}
	return 0;
}

/* A saturated disk without a queue setting to change: why, and what helps. */
static void no_queue_fix(struct finding *f, const struct disk_metrics *d)
{
	str_cat(f->detail, sizeof(f->detail),
		"%sNo suggestion: %s already does all it can (util %.0f%%) and no queue setting "
		"of %s is known to be wrong (nr_requests and the scheduler are suggested only "
		"with evidence). What helps is less IO from the processes named in the culprit "
		"(throttle or move a neighbour: systemctl set-property UNIT IOWriteBandwidthMax=), "
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

int find_disks(struct ctx *c)
{
	const struct metrics *m = c->m;

	for (size_t i = 0; i < m->ndisks; i++) {
		const struct disk_metrics *d = &m->disks[i];
		const struct disk_raw *raw = raw_of(c, d);
		const struct topo_block *b = topology_block(c->t, d->name);
		double ios, aw, slow_ms;
		struct disk_tail tl = { 0 };
		bool has_tail, by_tail;
		struct finding *f;

		if (!d->whole)
			continue;
		/* zram, brd and loop turn accounting off by design (zram keeps its own
		 * io_stat): frozen counters there are not news */
		if (raw && raw->iostats == 0 && !kname_virtual_disk(d->name)) {
			struct suggestion *s;
			char path[160];

			f = add_finding(c->a, FIND_IOSTATS_OFF, ADV_INFO, d->name);
			if (!f)
				return -ENOMEM;
			snprintf(f->reason, sizeof(f->reason),
				 "%s: queue/iostats is 0: its counters are frozen, so no metric of "
				 "%s can be trusted (zeros here mean nothing)",
				 d->name, d->name);
			if (!device_path(path, sizeof(path), "sys/block/", KNAME_DISK, d->name,
					 "/queue/iostats")) {
				snprintf(f->detail, sizeof(f->detail),
					 "no suggestion: %s is not a name the kernel gives a disk, "
					 "so it is put in no path or command",
					 d->name);
				continue;
			}
			s = add_suggestion(c->a, "", ADV_INFO, f->id);
			if (!s)
				return -ENOMEM;
			fmt(s->id, sizeof(s->id), "iostats-%s", d->name);
			if (!add_action(s, path, "1", "0"))
				return -ENOMEM;
			snprintf(s->reason, sizeof(s->reason),
				 "%s does not account IO (queue/iostats = 0)", d->name);
			snprintf(
			    s->effect, sizeof(s->effect),
			    "iostat, iotriage and every monitor see %s's IO again; the cost is "
			    "a few counters per request",
			    d->name);
			continue;
		}
		if (!d->valid)
			continue;
		ios = d->r_s + d->w_s + d->d_s;
		if (ios < ADV_MIN_IOPS)
			continue;
		aw = disk_await(d);
		has_tail = disk_tail(c, d->name, &tl);
		/* an SSD/NVMe at 100% util with microsecond awaits is busy, not
		 * saturated: it serves many requests at once, so its queueing must
		 * also cost the application real time */
		if (d->util >= ADV_SAT_UTIL && d->aqu_sz >= ADV_SAT_AQU &&
		    aw >= ADV_SAT_WAIT_FACTOR * d->svctm &&
		    (!b || b->rotational != 0 || aw >= ADV_SAT_SSD_AWAIT)) {
			bool queueing =
			    d->util >= ADV_SAT_CRIT_UTIL && aw >= ADV_SAT_CRIT_FACTOR * d->svctm;
			char psi[64];

			f = add_finding(
			    c->a, FIND_DISK_SATURATED,
			    queueing || psi_hurts(c, PSI_IO) ? ADV_CRITICAL : ADV_WARNING, d->name);
			if (!f)
				return -ENOMEM;
			psi_text(c, PSI_IO, psi, sizeof(psi));
			f->harm =
			    200 + (psi_some(c, PSI_IO) > 0 ? psi_some(c, PSI_IO) : 0) + d->util;
			snprintf(f->reason, sizeof(f->reason),
				 "%s saturated: util %.2f%%, aqu-sz %.2f, await %.2f ms vs %.2f ms "
				 "of service per IO (%.2f r/s, %.2f w/s), %s: requests queue for "
				 "the device",
				 d->name, d->util, d->aqu_sz, aw, d->svctm, d->r_s, d->w_s, psi);
			io_culprits(c, f, d);
			if (b && b->rotational == 0)
				snprintf(
				    f->detail, sizeof(f->detail),
				    "util counts time with at least one IO in flight; an SSD/NVMe "
				    "serves many at once, so judge it by await and aqu-sz.");
			if (has_tail)
				tail_sentence(&tl, f);
			wb_sentence(c, f);
			{
				size_t fidx = c->a->nfindings - 1, nsugg = c->a->nsuggestions;

				if (suggest_queue(c, &c->a->findings[fidx], d) < 0)
					return -ENOMEM;
				if (c->a->nsuggestions == nsugg)
					no_queue_fix(&c->a->findings[fidx], d);
			}
			continue;
		}
		slow_ms = !b || b->rotational < 0 ? ADV_SLOW_AWAIT_UNKNOWN
			  : b->rotational	  ? ADV_SLOW_AWAIT_HDD
						  : ADV_SLOW_AWAIT_SSD;
		/* measured: a mean that looks fine over a tail that is not */
		by_tail = has_tail && aw < slow_ms && tl.mean_us > 0 &&
			  tl.p99_us / 1000 >= slow_ms && tl.p99_us >= ADV_TAIL_FACTOR * tl.mean_us;
		if (d->util < ADV_SLOW_UTIL && (aw >= slow_ms || by_tail)) {
			double ms = by_tail ? tl.p99_us / 1000 : aw;

			f = add_finding(c->a, FIND_DISK_SLOW,
					psi_hurts(c, PSI_IO) ? ADV_CRITICAL : ADV_WARNING, d->name);
			if (!f)
				return -ENOMEM;
			f->harm = 100 + (psi_some(c, PSI_IO) > 0 ? psi_some(c, PSI_IO) : 0) +
				  (ms < 100 ? ms : 100);
			io_culprits(c, f, d);
			if (by_tail)
				snprintf(
				    f->reason, sizeof(f->reason),
				    "%s slow by its tail: %s p99 %.2f ms at the device, %.1fx its "
				    "mean %.2f ms (measured, %" PRIu64 " IOs), while await is "
				    "%.2f ms at util %.2f%% (%.2f IO/s): one IO in a hundred is "
				    "very slow while the device is mostly idle",
				    d->name, trace_op_name(tl.op), tl.p99_us / 1000,
				    tl.p99_us / tl.mean_us, tl.mean_us / 1000, tl.n, aw, d->util,
				    ios);
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
			if (has_tail)
				tail_sentence(&tl, f);
			wb_sentence(c, f);
		}
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
		fmt(f->id, sizeof(f->id), "member-imbalance-%s-%s", raw->name, mem[worst]->name);
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
