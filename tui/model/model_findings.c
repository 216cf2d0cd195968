// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * model_findings: the "findings" and "suggestions" arrays of a sample
 * document (written by src/encode/encode_advice.c) decoded for the findings panel.
 * Keys and meanings are doc/json.md's. Malformed advice is reported, not
 * fatal: the sample's tables do not depend on the advisor. No I/O.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_get.h"
#include "model_findings.h"

/* A string member: absent is "" ; present but not a string is an error. */
static int jtext(struct json_object *o, const char *key, const char **ret)
{
	struct json_object *v = mj_get(o, key);

	if (!v) {
		*ret = "";
		return 0;
	}
	if (!json_object_is_type(v, json_type_string))
		return -EBADMSG;
	*ret = json_object_get_string(v);
	if (!*ret)
		*ret = "";
	return 0;
}

/* Into a fixed buffer; -EBADMSG if not a string or too long to keep whole
 * (an id cut short would name another suggestion). */
static int jfixed(struct json_object *o, const char *key, char *buf, size_t size)
{
	const char *s;
	int r = jtext(o, key, &s);

	if (r < 0 || strlen(s) >= size)
		return -EBADMSG;
	memcpy(buf, s, strlen(s) + 1);
	return 0;
}

/* A heap copy; -EBADMSG (not a string) or -ENOMEM. */
static int jdup(struct json_object *o, const char *key, char **ret)
{
	const char *s;
	int r = jtext(o, key, &s);

	if (r < 0)
		return r;
	*ret = strdup(s);
	return *ret ? 0 : -ENOMEM;
}

static enum model_severity severity_of(const char *name)
{
	if (strcmp(name, "critical") == 0)
		return MODEL_SEV_CRITICAL;
	if (strcmp(name, "warning") == 0)
		return MODEL_SEV_WARNING;
	return MODEL_SEV_INFO;
}

static void free_lines(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void finding_free(struct model_finding *f)
{
	free(f->reason);
	free(f->detail);
	free(f->culprit);
	free(f->who);
	free(f->victim);
}

void model_findings_free_suggestion(struct model_suggestion *s)
{
	if (!s)
		return;
	free(s->reason);
	free(s->effect);
	free(s->notes);
	free_lines(s->commands, s->ncommands);
	free_lines(s->undo, s->nundo);
	for (size_t i = 0; i < s->nwrites; i++) {
		free(s->writes[i].path);
		free(s->writes[i].value);
		free(s->writes[i].current);
	}
	free(s->writes);
	memset(s, 0, sizeof(*s));
}

void model_findings_free(struct model_advice *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nfindings; i++)
		finding_free(&a->findings[i]);
	for (size_t i = 0; i < a->nsuggestions; i++)
		model_findings_free_suggestion(&a->suggestions[i]);
	free(a->findings);
	free(a->suggestions);
	memset(a, 0, sizeof(*a));
}

/* Where decoding stopped, for the panel: "suggestions[1]: commands". */
struct ctx {
	char *bad;
	size_t size;
};

static int bad(struct ctx *c, const char *what, size_t i, const char *key)
{
	snprintf(c->bad, c->size, "%s[%zu]: %s", what, i, key);
	return -EBADMSG;
}

static int decode_finding(struct json_object *o, size_t i, struct model_finding *f, struct ctx *c)
{
	int r;

	if (!json_object_is_type(o, json_type_object))
		return bad(c, "findings", i, "not an object");
	if (jfixed(o, "id", f->id, sizeof(f->id)) < 0 || !f->id[0])
		return bad(c, "findings", i, "id");
	if (jfixed(o, "kind", f->kind, sizeof(f->kind)) < 0)
		return bad(c, "findings", i, "kind");
	if (jfixed(o, "severity", f->severity_name, sizeof(f->severity_name)) < 0)
		return bad(c, "findings", i, "severity");
	f->severity = severity_of(f->severity_name);
	if (jfixed(o, "subject", f->subject, sizeof(f->subject)) < 0)
		return bad(c, "findings", i, "subject");
	r = jdup(o, "reason", &f->reason);
	if (r == 0)
		r = jdup(o, "detail", &f->detail);
	if (r == 0)
		r = jdup(o, "culprit", &f->culprit); /* absent (older daemons): "" */
	if (r == 0)
		r = jdup(o, "who", &f->who); /* absent (older daemons): "" */
	if (r == 0)
		r = jdup(o, "victim", &f->victim); /* absent (older daemons): "" */
	if (r == -EBADMSG)
		return bad(c, "findings", i, "reason, detail, culprit, who or victim");
	{
		struct json_object *h = mj_get(o, "held");

		f->held = h && json_object_is_type(h, json_type_int) && json_object_get_int64(h) > 0
			      ? (unsigned)json_object_get_int64(h)
			      : 0;
	}
	return r;
}

/* An array of strings ("commands", "undo"); absent is empty. */
static int decode_lines(struct json_object *o, const char *key, char ***ret, size_t *ret_n)
{
	struct json_object *a = mj_get(o, key);
	size_t n;

	*ret = NULL;
	*ret_n = 0;
	if (!a)
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return -EBADMSG;
	n = json_object_array_length(a);
	if (n == 0)
		return 0;
	*ret = calloc(n, sizeof(**ret));
	if (!*ret)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(a, i);
		const char *s;

		if (!json_object_is_type(v, json_type_string))
			return -EBADMSG;
		s = json_object_get_string(v);
		(*ret)[i] = strdup(s ? s : "");
		if (!(*ret)[i])
			return -ENOMEM;
		(*ret_n)++;
	}
	return 0;
}

static int decode_writes(struct json_object *o, struct model_suggestion *s)
{
	struct json_object *a = mj_get(o, "writes");
	size_t n;

	if (!a)
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return -EBADMSG;
	n = json_object_array_length(a);
	if (n == 0)
		return 0;
	s->writes = calloc(n, sizeof(*s->writes));
	if (!s->writes)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *w = json_object_array_get_idx(a, i);
		struct model_write *mw = &s->writes[i];
		int r;

		if (!json_object_is_type(w, json_type_object))
			return -EBADMSG;
		s->nwrites++; /* counted now: free() releases what was filled */
		r = jdup(w, "path", &mw->path);
		if (r == 0)
			r = jdup(w, "value", &mw->value);
		if (r == 0)
			r = jdup(w, "current", &mw->current);
		if (r < 0)
			return r;
		if (mw->path[0] != '/')
			return -EBADMSG;
	}
	return 0;
}

static int decode_suggestion(struct json_object *o, size_t i, struct model_suggestion *s,
			     struct ctx *c)
{
	int r;

	if (!json_object_is_type(o, json_type_object))
		return bad(c, "suggestions", i, "not an object");
	if (jfixed(o, "id", s->id, sizeof(s->id)) < 0 || !s->id[0])
		return bad(c, "suggestions", i, "id");
	if (jfixed(o, "severity", s->severity_name, sizeof(s->severity_name)) < 0)
		return bad(c, "suggestions", i, "severity");
	s->severity = severity_of(s->severity_name);
	if (jfixed(o, "finding", s->finding, sizeof(s->finding)) < 0)
		return bad(c, "suggestions", i, "finding");
	r = jdup(o, "reason", &s->reason);
	if (r == 0)
		r = jdup(o, "effect", &s->effect);
	if (r == 0)
		r = jdup(o, "notes", &s->notes);
	if (r == -EBADMSG)
		return bad(c, "suggestions", i, "reason, effect or notes");
	if (r < 0)
		return r;
	r = decode_lines(o, "commands", &s->commands, &s->ncommands);
	if (r == -EBADMSG)
		return bad(c, "suggestions", i, "commands");
	if (r < 0)
		return r;
	r = decode_lines(o, "undo", &s->undo, &s->nundo);
	if (r == -EBADMSG)
		return bad(c, "suggestions", i, "undo");
	if (r < 0)
		return r;
	r = decode_writes(o, s);
	if (r == -EBADMSG)
		return bad(c, "suggestions", i, "writes");
	return r;
}

int model_findings_decode(struct json_object *doc, struct model_advice *ret)
{
	struct model_advice a = { 0 };
	struct json_object *fa = mj_get(doc, "findings"), *sa = mj_get(doc, "suggestions");
	struct ctx c = { a.bad, sizeof(a.bad) };
	size_t nf, ns;
	int r = 0;

	if (!fa && !sa)
		goto done; /* no advisor behind this document: nothing known */
	if (!fa || !sa || !json_object_is_type(fa, json_type_array) ||
	    !json_object_is_type(sa, json_type_array)) {
		snprintf(a.bad, sizeof(a.bad), "findings and suggestions are not both arrays");
		goto done;
	}
	nf = json_object_array_length(fa);
	ns = json_object_array_length(sa);
	if (nf) {
		a.findings = calloc(nf, sizeof(*a.findings));
		if (!a.findings) {
			r = -ENOMEM;
			goto fail;
		}
	}
	if (ns) {
		a.suggestions = calloc(ns, sizeof(*a.suggestions));
		if (!a.suggestions) {
			r = -ENOMEM;
			goto fail;
		}
	}
	for (size_t i = 0; i < nf && r == 0; i++) {
		a.nfindings++; /* counted first: the free below releases partial entries */
		r = decode_finding(json_object_array_get_idx(fa, i), i, &a.findings[i], &c);
	}
	for (size_t i = 0; i < ns && r == 0; i++) {
		a.nsuggestions++;
		r = decode_suggestion(json_object_array_get_idx(sa, i), i, &a.suggestions[i], &c);
	}
	if (r == -ENOMEM)
		goto fail;
	if (r < 0) {
		char why[sizeof(a.bad)];

		memcpy(why, a.bad, sizeof(why));
		model_findings_free(&a);
		memcpy(a.bad, why, sizeof(why));
		goto done;
	}
	a.present = true;
	{
		struct json_object *rv = mj_get(doc, "findings_rising");

		if (rv && json_object_is_type(rv, json_type_int) && json_object_get_int64(rv) > 0 &&
		    json_object_get_int64(rv) < 1000000)
			a.rising = (unsigned)json_object_get_int64(rv);
	}
done:
	*ret = a;
	return 0;
fail:
	model_findings_free(&a);
	return r;
}

const struct model_finding *model_findings_finding(const struct model_advice *a, const char *id)
{
	for (size_t i = 0; i < a->nfindings; i++)
		if (strcmp(a->findings[i].id, id) == 0)
			return &a->findings[i];
	return NULL;
}

const struct model_suggestion *model_findings_suggestion(const struct model_advice *a,
							 const char *id)
{
	for (size_t i = 0; i < a->nsuggestions; i++)
		if (strcmp(a->suggestions[i].id, id) == 0)
			return &a->suggestions[i];
	return NULL;
}

static int copy_lines(char *const *v, size_t n, char ***ret, size_t *ret_n)
{
	*ret = NULL;
	*ret_n = 0;
	if (n == 0)
		return 0;
	*ret = calloc(n, sizeof(**ret));
	if (!*ret)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		(*ret)[i] = strdup(v[i]);
		if (!(*ret)[i])
			return -ENOMEM;
		(*ret_n)++;
	}
	return 0;
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

int model_findings_copy_suggestion(const struct model_suggestion *s, struct model_suggestion *ret)
{
	struct model_suggestion c = { 0 };
	int r = -ENOMEM;

	memcpy(c.id, s->id, sizeof(c.id));
	memcpy(c.severity_name, s->severity_name, sizeof(c.severity_name));
	c.severity = s->severity;
	memcpy(c.finding, s->finding, sizeof(c.finding));
	c.reason = dup_or_empty(s->reason);
	c.effect = dup_or_empty(s->effect);
	c.notes = dup_or_empty(s->notes);
	if (!c.reason || !c.effect || !c.notes)
		goto fail;
	if (copy_lines(s->commands, s->ncommands, &c.commands, &c.ncommands) < 0 ||
	    copy_lines(s->undo, s->nundo, &c.undo, &c.nundo) < 0)
		goto fail;
	if (s->nwrites) {
		c.writes = calloc(s->nwrites, sizeof(*c.writes));
		if (!c.writes)
			goto fail;
		for (size_t i = 0; i < s->nwrites; i++) {
			struct model_write *w = &c.writes[c.nwrites++];

			w->path = dup_or_empty(s->writes[i].path);
			w->value = dup_or_empty(s->writes[i].value);
			w->current = dup_or_empty(s->writes[i].current);
			if (!w->path || !w->value || !w->current)
				goto fail;
		}
	}
	*ret = c;
	return 0;
fail:
	model_findings_free_suggestion(&c);
	return r;
}
