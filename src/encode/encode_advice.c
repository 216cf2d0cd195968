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
