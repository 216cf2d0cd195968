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

/* r, where -EBADMSG is said in c as item i's key */
static int named(struct ctx *c, const char *what, size_t i, const char *key, int r)
{
	return r == -EBADMSG ? bad(c, what, i, key) : r;
}

/* What a finding and a suggestion open with: an object, its non-empty
 * "id" (into id, size bytes). 0 or -EBADMSG (said). */
static int decode_id(struct json_object *o, size_t i, const char *what, char *id, size_t size,
		     struct ctx *c)
{
	if (!json_object_is_type(o, json_type_object))
		return bad(c, what, i, "not an object");
	if (jfixed(o, "id", id, size) < 0 || !id[0])
		return bad(c, what, i, "id");
	return 0;
}

/* "severity" into name (size bytes, as written) and *ret (what this
 * client makes of it). 0 or -EBADMSG (said). */
static int decode_severity(struct json_object *o, size_t i, const char *what, char *name,
			   size_t size, enum model_severity *ret, struct ctx *c)
{
	if (jfixed(o, "severity", name, size) < 0)
		return bad(c, what, i, "severity");
	*ret = severity_of(name);
	return 0;
}

/* The strings keys[k] as heap copies into *dst[k], in order, until one
 * fails: 0, -EBADMSG (not a string) or -ENOMEM. Absent is "". */
static int jdup_each(struct json_object *o, const char *const *keys, char **const *dst)
{
	int r = 0;

	for (size_t k = 0; keys[k] && r == 0; k++)
		r = jdup(o, keys[k], dst[k]);
	return r;
}

static int decode_finding(struct json_object *o, size_t i, struct model_finding *f, struct ctx *c)
{
	/* culprit, who and victim are absent in older daemons' documents: "" */
	static const char *const keys[] = { "reason", "detail", "culprit", "who", "victim", NULL };
	struct json_object *h;
	int r;

	r = decode_id(o, i, "findings", f->id, sizeof(f->id), c);
	if (r < 0)
		return r;
	if (jfixed(o, "kind", f->kind, sizeof(f->kind)) < 0)
		return bad(c, "findings", i, "kind");
	r = decode_severity(o, i, "findings", f->severity_name, sizeof(f->severity_name),
			    &f->severity, c);
	if (r < 0)
		return r;
	if (jfixed(o, "subject", f->subject, sizeof(f->subject)) < 0)
		return bad(c, "findings", i, "subject");
	r = jdup_each(o, keys,
		      (char **const[]){ &f->reason, &f->detail, &f->culprit, &f->who, &f->victim });
	if (r == -EBADMSG)
		return bad(c, "findings", i, "reason, detail, culprit, who or victim");
	h = mj_get(o, "held");
	f->held = h && json_object_is_type(h, json_type_int) && json_object_get_int64(h) > 0
		      ? (unsigned)json_object_get_int64(h)
		      : 0;
	return r;
}

/*
 * The array member key of o in *ret_a and its length in *ret_n, with room
 * for as many items of size bytes in *ret_v (calloc: zeroed). Absent or
 * empty: 0 with *ret_n 0 and *ret_v NULL. 0, -EBADMSG (not an array) or
 * -ENOMEM.
 */
static int jarray_alloc(struct json_object *o, const char *key, size_t size,
			struct json_object **ret_a, size_t *ret_n, void **ret_v)
{
	struct json_object *a = mj_get(o, key);

	*ret_n = 0;
	*ret_v = NULL;
	if (!a)
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return -EBADMSG;
	*ret_a = a;
	*ret_n = json_object_array_length(a);
	if (*ret_n == 0)
		return 0;
	*ret_v = calloc(*ret_n, size);
	return *ret_v ? 0 : -ENOMEM;
}

/* An array of strings ("commands", "undo"); absent is empty. */
static int decode_lines(struct json_object *o, const char *key, char ***ret, size_t *ret_n)
{
	struct json_object *a;
	size_t n;
	int r;

	*ret_n = 0;
	r = jarray_alloc(o, key, sizeof(**ret), &a, &n, (void **)ret);
	if (r < 0 || !*ret)
		return r;
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
	static const char *const keys[] = { "path", "value", "current", NULL };
	struct json_object *a;
	size_t n;
	int r;

	r = jarray_alloc(o, "writes", sizeof(*s->writes), &a, &n, (void **)&s->writes);
	if (r < 0 || !s->writes)
		return r;
	for (size_t i = 0; i < n; i++) {
		struct json_object *w = json_object_array_get_idx(a, i);
		struct model_write *mw = &s->writes[i];

		if (!json_object_is_type(w, json_type_object))
			return -EBADMSG;
		s->nwrites++; /* counted now: free() releases what was filled */
		r = jdup_each(w, keys, (char **const[]){ &mw->path, &mw->value, &mw->current });
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
	static const char *const keys[] = { "reason", "effect", "notes", NULL };
	int r;

	r = decode_id(o, i, "suggestions", s->id, sizeof(s->id), c);
	if (r == 0)
		r = decode_severity(o, i, "suggestions", s->severity_name, sizeof(s->severity_name),
				    &s->severity, c);
	if (r < 0)
		return r;
	if (jfixed(o, "finding", s->finding, sizeof(s->finding)) < 0)
		return bad(c, "suggestions", i, "finding");
	r = jdup_each(o, keys, (char **const[]){ &s->reason, &s->effect, &s->notes });
	r = named(c, "suggestions", i, "reason, effect or notes", r);
	if (r == 0)
		r = named(c, "suggestions", i, "commands",
			  decode_lines(o, "commands", &s->commands, &s->ncommands));
	if (r == 0)
		r = named(c, "suggestions", i, "undo",
			  decode_lines(o, "undo", &s->undo, &s->nundo));
	if (r == 0)
		r = named(c, "suggestions", i, "writes", decode_writes(o, s));
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
