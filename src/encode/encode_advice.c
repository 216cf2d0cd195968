// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Findings and suggestions as JSON. Commands are given as the exact shell
 * lines a person would type, and as structured writes for scripts (each
 * with its kind: a file, or an ethtool setting).
 */
#include <string.h>

#include "encode_advice.h"

static void kv_str(struct strbuf *sb, const char *key, const char *v, bool comma)
{
	sb_json_key(sb, key);
	sb_json_str(sb, v);
	if (comma)
		sb_putc(sb, ',');
}

static void kv_num(struct strbuf *sb, const char *key, double v)
{
	sb_json_key(sb, key);
	sb_fixed2(sb, v);
	sb_putc(sb, ',');
}

/* One culprit: the kernel's word on who it is, then its own words. */
static void encode_culprit(struct strbuf *sb, const struct culprit *u)
{
	sb_putc(sb, '{');
	kv_str(sb, "kind", advise_culprit_kind_name(u->kind), true);
	if (u->kind != CULPRIT_CGROUP) {
		sb_printf(sb, "\"pid\":%d,\"count\":%u,", u->pid, u->count);
		kv_str(sb, "comm", u->comm, true);
	}
	if (u->has_who) {
		kv_str(sb, "user", u->user, true);
		if (u->users_differ)
			sb_puts(sb, "\"users_differ\":true,");
	}
	if (u->has_who || u->kind == CULPRIT_CGROUP)
		kv_str(sb, "unit", u->unit, true);
	if (u->units_differ)
		sb_puts(sb, "\"units_differ\":true,");
	if (u->db && u->role[0]) {
		kv_str(sb, "db", dbrole_db_name(u->db), true);
		kv_str(sb, "role", u->role, true);
		if (u->state[0])
			kv_str(sb, "state", u->state, true);
	}
	if (u->role_claimed)
		sb_puts(sb, "\"role_claimed\":true,");
	if (u->has_who && u->cmdline[0])
		kv_str(sb, "own_words", u->cmdline, true);
	if (u->threads[0])
		kv_str(sb, "threads", u->threads, true);
	kv_num(sb, "kB_rd/s", u->rkb_s);
	kv_num(sb, "kB_wr/s", u->wkb_s);
	if (u->kind != CULPRIT_CGROUP) {
		kv_num(sb, "cpu_pct", u->cpu_pct);
		kv_num(sb, "io_delay%", u->io_delay);
	}
	sb_json_close(sb, '}');
}

static void encode_finding(struct strbuf *sb, const struct finding *f)
{
	sb_putc(sb, '{');
	kv_str(sb, "id", f->id, true);
	kv_str(sb, "kind", advise_kind_name(f->kind), true);
	kv_str(sb, "severity", advise_severity_name(f->severity), true);
	kv_str(sb, "subject", f->subject, true);
	kv_str(sb, "reason", f->reason, true);
	kv_str(sb, "detail", f->detail, true);
	kv_str(sb, "culprit", f->culprit, true);
	kv_str(sb, "who", f->who, true);
	kv_str(sb, "victim", f->victim, true);
	sb_puts(sb, "\"culprits\":[");
	for (unsigned i = 0; i < f->nculprits; i++) {
		if (i)
			sb_putc(sb, ',');
		encode_culprit(sb, &f->culprits[i]);
	}
	sb_puts(sb, "],");
	if (f->culprit_window_s > 0) {
		kv_num(sb, "culprit_window_s", f->culprit_window_s);
		kv_num(sb, "culprit_age_s", f->culprit_age_s);
	}
	if (f->culprit_dirtied)
		sb_puts(sb, "\"culprit_dirtied\":true,");
	sb_printf(sb, "\"rank\":%u,\"held\":%u", f->rank, f->held);
	sb_putc(sb, '}');
}

static void encode_lines(struct strbuf *sb, const char *key, const struct suggestion *s, bool undo)
{
	struct strbuf line = { 0 };

	sb_json_key(sb, key);
	sb_putc(sb, '[');
	for (size_t i = 0; i < s->nactions; i++) {
		size_t k = undo ? s->nactions - 1 - i : i;

		sb_reset(&line);
		advise_command(&s->actions[k], undo, &line);
		if (i)
			sb_putc(sb, ',');
		sb_json_str(sb, line.err ? "" : sb_cstr(&line));
	}
	if (line.err)
		sb->err = line.err;
	sb_free(&line);
	sb_putc(sb, ']');
}

static void encode_suggestion(struct strbuf *sb, const struct suggestion *s)
{
	sb_putc(sb, '{');
	kv_str(sb, "id", s->id, true);
	kv_str(sb, "severity", advise_severity_name(s->severity), true);
	kv_str(sb, "finding", s->finding, true);
	kv_str(sb, "reason", s->reason, true);
	encode_lines(sb, "commands", s, false);
	sb_putc(sb, ',');
	kv_str(sb, "effect", s->effect, true);
	encode_lines(sb, "undo", s, true);
	sb_putc(sb, ',');
	kv_str(sb, "notes", s->notes, true);
	sb_json_key(sb, "writes");
	sb_putc(sb, '[');
	for (size_t i = 0; i < s->nactions; i++) {
		const struct advise_action *a = &s->actions[i];

		if (i)
			sb_putc(sb, ',');
		char path[sizeof(a->path) + 1] = "/";

		memcpy(path + 1, a->path, sizeof(a->path));
		sb_putc(sb, '{');
		/* "path" of an ethtool setting is a pseudo path (advise.h), not a file */
		kv_str(sb, "kind", advise_ethtool_path(a->path, NULL, 0) ? "ethtool" : "file",
		       true);
		kv_str(sb, "path", path, true);
		kv_str(sb, "value", a->value, true);
		kv_str(sb, "current", a->undo, false);
		sb_putc(sb, '}');
	}
	sb_puts(sb, "]}");
}

void encode_advice(struct strbuf *sb, const struct advice *a)
{
	sb_json_key(sb, "findings");
	sb_putc(sb, '[');
	for (size_t i = 0; i < a->nfindings; i++) {
		if (i)
			sb_putc(sb, ',');
		encode_finding(sb, &a->findings[i]);
	}
	sb_puts(sb, "],");
	sb_json_key(sb, "suggestions");
	sb_putc(sb, '[');
	for (size_t i = 0; i < a->nsuggestions; i++) {
		if (i)
			sb_putc(sb, ',');
		encode_suggestion(sb, &a->suggestions[i]);
	}
	sb_puts(sb, "],");
	/* findings measured but not shown yet (doc/advise.md "Stable"): an
	 * empty findings array then means "judging", not "healthy" */
	if (a->nrising)
		sb_printf(sb, "\"findings_rising\":%zu,", a->nrising);
}
