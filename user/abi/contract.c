// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "abi/contract.h"
#include "lib/array.h"
#include "lib/strfit.h"
#include "event/events.h"

/* bpf/contract.json, embedded by user/abi/contract_data.S */
extern const char abicap_default_contract[];
extern const char abicap_default_contract_end[];

struct parser {
	const char *origin;
	char *err;
	size_t errlen;
	bool failed;
};

static void fail(struct parser *p, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail(struct parser *p, const char *path, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	if (p->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->errlen, "contract %s: %s%s%s", p->origin, path,
		 *path ? ": " : "", msg);
	p->failed = true;
}

/* Reject keys outside `known` (a NULL-terminated list). */
static void check_keys(struct parser *p, json_t *obj, const char *path,
		       const char *const *known)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v) {
		const char *const *k;
		char list[256] = "";

		for (k = known; *k && strcmp(*k, key); k++)
			;
		if (*k)
			continue;
		for (k = known; *k; k++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list),
				 "%s%s", k == known ? "" : ", ", *k);
		fail(p, path, "unknown key '%s' (known: %s)", key, list);
		return;
	}
}

static json_t *want(struct parser *p, json_t *obj, const char *path,
		    const char *key, json_type type, bool required)
{
	static const char *names[] = {
		[JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array",
		[JSON_STRING] = "a string", [JSON_INTEGER] = "an integer",
		[JSON_REAL] = "a number", [JSON_TRUE] = "true or false",
		[JSON_FALSE] = "true or false", [JSON_NULL] = "null",
	};
	json_t *v = json_object_get(obj, key);

	if (!v) {
		if (required)
			fail(p, path, "'%s' is missing", key);
		return NULL;
	}
	if (json_typeof(v) == type ||
	    (type == JSON_TRUE && json_is_boolean(v)))
		return v;
	fail(p, path, "'%s' must be %s", key, names[type]);
	return NULL;
}

static const char *want_str(struct parser *p, json_t *obj, const char *path,
			    const char *key, bool required)
{
	json_t *v = want(p, obj, path, key, JSON_STRING, required);

	if (v && !*json_string_value(v)) {
		fail(p, path, "'%s' is empty", key);
		return NULL;
	}
	return v ? json_string_value(v) : NULL;
}

static bool want_bool(struct parser *p, json_t *obj, const char *path,
		      const char *key, bool dflt)
{
	json_t *v = want(p, obj, path, key, JSON_TRUE, false);

	return v ? json_is_true(v) : dflt;
}

static void want_type(struct parser *p, json_t *obj, const char *path,
		      char *out)
{
	const char *t = want_str(p, obj, path, "type", true);

	if (t && !type_canonical(t, out, TYPE_STR_MAX))
		fail(p, path, "type '%s' is not one of bool, u8..u64, s8..s64, "
		     "char[N], 'struct NAME', 'union NAME', 'enum NAME', 'T *' "
		     "('function *': a pointer to a function)", t);
}

static bool is_ident(const char *s, bool dots)
{
	if (!*s || isdigit((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' &&
		    !(dots && *s == '.'))
			return false;
	return true;
}

static void parse_arg(struct parser *p, json_t *o, const char *path,
		      struct c_arg *a)
{
	static const char *const keys[] = { "name", "type", "required", "since",
					    "feeds", "fallback", NULL };

	check_keys(p, o, path, keys);
	a->name = want_str(p, o, path, "name", true);
	want_type(p, o, path, a->type);
	a->required = want_bool(p, o, path, "required", true);
	a->since = want_str(p, o, path, "since", false);
	a->feeds = want_str(p, o, path, "feeds", true);
	a->fallback = want_str(p, o, path, "fallback", false);
}

static void parse_record(struct parser *p, json_t *o, const char *path,
			 struct c_record *r)
{
	static const char *const keys[] = { "struct", "required", "feeds",
					    "fields", NULL };
	static const char *const fkeys[] = { "name", "type", NULL };
	json_t *fields, *f;
	size_t i;
	char fp[160];

	check_keys(p, o, path, keys);
	r->struct_name = want_str(p, o, path, "struct", true);
	if (r->struct_name && !is_ident(r->struct_name, false))
		fail(p, path, "struct '%s' is not a C identifier", r->struct_name);
	r->required = want_bool(p, o, path, "required", true);
	r->feeds = want_str(p, o, path, "feeds", true);
	fields = want(p, o, path, "fields", JSON_ARRAY, true);
	if (!fields || p->failed)
		return;
	r->nfields = json_array_size(fields);
	r->fields = calloc(r->nfields + 1, sizeof(*r->fields));
	json_array_foreach(fields, i, f) {
		strfit(fp, sizeof(fp), "%s.fields[%zu]", path, i);
		if (!json_is_object(f)) {
			fail(p, fp, "must be an object");
			return;
		}
		check_keys(p, f, fp, fkeys);
		r->fields[i].name = want_str(p, f, fp, "name", true);
		want_type(p, f, fp, r->fields[i].type);
		for (size_t j = 0; j < i && !p->failed; j++)
			if (r->fields[i].name &&
			    !strcmp(r->fields[j].name, r->fields[i].name))
				fail(p, fp, "duplicate field '%s'",
				     r->fields[i].name);
	}
}

/* An array of objects: calls each(i, obj, path) for every element. */
#define FOR_OBJECTS(p, arr, basepath, name, i, o, ep)                         \
	for (i = 0; !(p)->failed && i < json_array_size(arr) &&               \
		    (o = json_array_get(arr, i)) &&                           \
		    (snprintf(ep, sizeof(ep), "%s%s[%zu]", basepath, name, i), \
		     json_is_object(o) || (fail(p, ep, "must be an object"), 0)); \
	     i++)

static void parse_event(struct parser *p, json_t *o, const char *path,
			struct c_event *e)
{
	static const char *const keys[] = { "name", "group", "required",
					    "since", "fallback", "args",
					    "record", "notes", NULL };
	json_t *args, *rec, *notes, *a;
	char ap[160];
	size_t i;

	check_keys(p, o, path, keys);
	e->name = want_str(p, o, path, "name", true);
	if (e->name && !is_ident(e->name, false))
		fail(p, path, "event name '%s' is not a C identifier", e->name);
	e->group = want_str(p, o, path, "group", true);
	e->ev = e->name ? event_by_name(e->name, strlen(e->name)) : -1;
	e->required = want_bool(p, o, path, "required", true);
	e->since = want_str(p, o, path, "since", false);
	e->fallback = want_str(p, o, path, "fallback", false);
	if (!e->required && !e->fallback)
		fail(p, path, "an optional event needs a \"fallback\": what "
		     "abicap does without it");
	args = want(p, o, path, "args", JSON_ARRAY, true);
	if (args && !p->failed) {
		e->nargs = json_array_size(args);
		e->args = calloc(e->nargs + 1, sizeof(*e->args));
		FOR_OBJECTS(p, args, path, ".args", i, a, ap)
			parse_arg(p, a, ap, &e->args[i]);
	}
	rec = want(p, o, path, "record", JSON_OBJECT, false);
	if (rec && !p->failed) {
		char rp[160];

		snprintf(rp, sizeof(rp), "%s.record", path);
		e->has_record = true;
		parse_record(p, rec, rp, &e->record);
	}
	notes = want(p, o, path, "notes", JSON_ARRAY, false);
	if (notes && !p->failed) {
		e->nnotes = json_array_size(notes);
		e->notes = calloc(e->nnotes + 1, sizeof(*e->notes));
		json_array_foreach(notes, i, a) {
			if (!json_is_string(a)) {
				fail(p, path, "notes[%zu] must be a string", i);
				return;
			}
			e->notes[i] = json_string_value(a);
		}
	}
}

static void parse_field(struct parser *p, json_t *o, const char *path,
			struct c_field *f, const struct contract *c)
{
	static const char *const keys[] = { "struct", "field", "type", "required",
					    "since", "alternatives", "events",
					    "feeds", "fallback", "core", NULL };
	static const char *const akeys[] = { "field", "type", "until", "requires",
					     "equivalent", NULL };
	json_t *alts, *evs, *a;
	char ap[160];
	size_t i;

	check_keys(p, o, path, keys);
	f->struct_name = want_str(p, o, path, "struct", true);
	f->field = want_str(p, o, path, "field", true);
	if (f->field && !is_ident(f->field, true))
		fail(p, path, "field '%s' is not a member path (a.b.c)", f->field);
	want_type(p, o, path, f->type);
	f->required = want_bool(p, o, path, "required", true);
	f->since = want_str(p, o, path, "since", false);
	f->feeds = want_str(p, o, path, "feeds", true);
	f->fallback = want_str(p, o, path, "fallback", false);
	f->core = want_bool(p, o, path, "core", true);
	alts = want(p, o, path, "alternatives", JSON_ARRAY, false);
	if (alts && !p->failed) {
		f->nalts = json_array_size(alts);
		f->alts = calloc(f->nalts + 1, sizeof(*f->alts));
		FOR_OBJECTS(p, alts, path, ".alternatives", i, a, ap) {
			check_keys(p, a, ap, akeys);
			f->alts[i].field = want_str(p, a, ap, "field", true);
			want_type(p, a, ap, f->alts[i].type);
			f->alts[i].until = want_str(p, a, ap, "until", false);
			f->alts[i].requires = want_str(p, a, ap, "requires", false);
			if (f->alts[i].requires &&
			    (!strchr(f->alts[i].requires, '.') ||
			     !is_ident(f->alts[i].requires, true)))
				fail(p, ap, "requires '%s' is not STRUCT.MEMBER",
				     f->alts[i].requires);
			f->alts[i].equivalent = want_bool(p, a, ap, "equivalent",
							  false);
		}
	}
	evs = want(p, o, path, "events", JSON_ARRAY, true);
	if (!evs || p->failed)
		return;
	f->nevent_names = json_array_size(evs);
	f->event_names = calloc(f->nevent_names + 1, sizeof(*f->event_names));
	json_array_foreach(evs, i, a) {
		const char *name = json_string_value(a);

		if (!name) {
			fail(p, path, "events[%zu] must be a string", i);
			return;
		}
		if (!contract_event(c, name)) {
			fail(p, path, "events[%zu]: '%s' is not an event of this "
			     "contract", i, name);
			return;
		}
		f->event_names[i] = name;
		if (event_by_name(name, strlen(name)) >= 0)
			f->events |= 1u << event_by_name(name, strlen(name));
	}
}

/* An entry's identity (an event's name; a field's struct and member). */
struct ident {
	const char *a, *b;
	size_t i;
};

static int ident_cmp(const void *x, const void *y)
{
	const struct ident *u = x, *v = y;
	int d = strcmp(u->a, v->a);

	if (!d)
		d = strcmp(u->b, v->b);
	return d ? d : (u->i > v->i) - (u->i < v->i);
}

/*
 * The first entry (in the file's order) equal to an earlier one: its
 * index in *dup, the earlier one's in *first. Sorted, not compared pair by
 * pair: a contract of 100,000 entries costs milliseconds. n entries of id
 * (reordered). false if all differ.
 */
static bool find_duplicate(struct ident *id, size_t n, size_t *dup,
			   size_t *first)
{
	bool found = false;

	qsort(id, n, sizeof(*id), ident_cmp);
	for (size_t k = 1; k < n; k++) {
		if (strcmp(id[k].a, id[k - 1].a) || strcmp(id[k].b, id[k - 1].b) ||
		    (found && id[k].i >= *dup))
			continue;
		*dup = id[k].i;
		found = true;
	}
	if (found)
		for (size_t k = 1; k < n; k++)
			if (id[k].i == *dup)
				*first = id[k - 1].i;
	return found;
}

/* Events and fields are each named once (a second would be ignored). */
static void check_unique(struct parser *p, struct contract *c)
{
	size_t n = c->nevents > c->nfields ? c->nevents : c->nfields, dup = 0,
	       first = 0, k = 0;
	struct ident *id = calloc(n + 1, sizeof(*id));

	if (!id) {
		fail(p, "", "out of memory");
		return;
	}
	for (int i = 0; i < c->nevents; i++)
		id[k++] = (struct ident){ c->events[i].name, "", (size_t)i };
	if (find_duplicate(id, k, &dup, &first)) {
		char ep[64];

		snprintf(ep, sizeof(ep), "events[%zu]", dup);
		fail(p, ep, "duplicate event '%s' (also events[%zu]): name "
		     "each event once", c->events[dup].name, first);
	}
	for (k = 0; k < (size_t)c->nfields; k++)
		id[k] = (struct ident){ c->fields[k].struct_name,
					c->fields[k].field, k };
	if (find_duplicate(id, k, &dup, &first)) {
		char fp[64];

		snprintf(fp, sizeof(fp), "fields[%zu]", dup);
		fail(p, fp, "duplicate field '%s.%s' (also fields[%zu]): give "
		     "each struct member once, its alternatives in "
		     "'alternatives'", c->fields[dup].struct_name,
		     c->fields[dup].field, first);
	}
	free(id);
}

static void parse_top(struct parser *p, json_t *root, struct contract *c)
{
	static const char *const keys[] = { "abicap_contract", "name",
					    "description", "describes",
					    "events", "fields", NULL };
	json_t *v, *events, *fields, *o;
	char ep[64];
	size_t i;

	if (!json_is_object(root)) {
		fail(p, "", "the top level must be an object");
		return;
	}
	check_keys(p, root, "", keys);
	v = want(p, root, "", "abicap_contract", JSON_INTEGER, true);
	if (p->failed)
		return;
	c->version = (int)json_integer_value(v);
	if (c->version != CONTRACT_VERSION) {
		fail(p, "", "format version %d; this abicap reads version %d",
		     c->version, CONTRACT_VERSION);
		return;
	}
	c->name = want_str(p, root, "", "name", true);
	c->description = want_str(p, root, "", "description", false);
	c->describes = want_str(p, root, "", "describes", false);
	events = want(p, root, "", "events", JSON_ARRAY, true);
	if (p->failed)
		return;
	if (!json_array_size(events)) {
		fail(p, "", "'events' is empty");
		return;
	}
	c->nevents = json_array_size(events);
	c->events = calloc(c->nevents + 1, sizeof(*c->events));
	FOR_OBJECTS(p, events, "", "events", i, o, ep)
		parse_event(p, o, ep, &c->events[i]);
	fields = want(p, root, "", "fields", JSON_ARRAY, false);
	if (fields && !p->failed) {
		c->nfields = json_array_size(fields);
		c->fields = calloc(c->nfields + 1, sizeof(*c->fields));
		FOR_OBJECTS(p, fields, "", "fields", i, o, ep)
			parse_field(p, o, ep, &c->fields[i], c);
	}
	if (!p->failed)
		check_unique(p, c);
}

struct contract *contract_parse(const char *buf, size_t len, const char *origin,
				char *err, size_t errlen)
{
	struct parser p = { .origin = origin, .err = err, .errlen = errlen };
	struct contract *c;
	json_error_t je;
	json_t *root;

	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		snprintf(err, errlen, "contract %s:%d:%d: %s", origin, je.line,
			 je.column, je.text);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		json_decref(root);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->doc = root;
	parse_top(&p, root, c);
	if (p.failed) {
		contract_free(c);
		return NULL;
	}
	return c;
}

struct contract *contract_load(const char *path, char *err, size_t errlen)
{
	struct contract *c;
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		snprintf(err, errlen, "cannot open contract '%s': %s", path,
			 strerror(errno));
		return NULL;
	}
	do {
		if (len == cap) {
			char *nb;

			cap = array_grown(cap, cap + 1, 65536, 64u << 20);
			nb = cap ? realloc(buf, cap) : NULL;
			if (!nb) {
				free(buf);
				fclose(f);
				snprintf(err, errlen, "contract '%s' is too "
					 "large (64 MiB at most)", path);
				return NULL;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	if (ferror(f)) {
		snprintf(err, errlen, "cannot read contract '%s': %s", path,
			 strerror(errno));
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	c = contract_parse(buf, len, path, err, errlen);
	free(buf);
	return c;
}

const char *contract_default_text(size_t *len)
{
	*len = abicap_default_contract_end - abicap_default_contract;
	return abicap_default_contract;
}

struct contract *contract_default(char *err, size_t errlen)
{
	size_t len;
	const char *text = contract_default_text(&len);

	return contract_parse(text, len, "(built in)", err, errlen);
}

void contract_free(struct contract *c)
{
	if (!c)
		return;
	for (int i = 0; c->events && i < c->nevents; i++) {
		free(c->events[i].args);
		free(c->events[i].record.fields);
		free(c->events[i].notes);
	}
	for (int i = 0; c->fields && i < c->nfields; i++) {
		free(c->fields[i].alts);
		free(c->fields[i].event_names);
	}
	free(c->events);
	free(c->fields);
	json_decref(c->doc);
	free(c);
}

const struct c_event *contract_event(const struct contract *c, const char *name)
{
	for (int i = 0; i < c->nevents; i++)
		if (c->events[i].name && !strcmp(c->events[i].name, name))
			return &c->events[i];
	return NULL;
}

static const char *skip_ws(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* A type name without trailing '*': scalar, char[N], or tagged aggregate. */
static bool base_canonical(const char *s, size_t n, char *out, size_t outlen)
{
	static const char *const scalars[] = { "bool", "u8", "u16", "u32", "u64",
					       "s8", "s16", "s32", "s64", "void",
					       "function", NULL };
	static const char *const tags[] = { "struct", "union", "enum", NULL };
	char buf[TYPE_STR_MAX];
	unsigned long len;
	int used = 0;

	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (!n || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	for (const char *const *k = scalars; *k; k++)
		if (!strcmp(buf, *k))
			return (size_t)snprintf(out, outlen, "%s", buf) < outlen;
	if (sscanf(buf, "char[%lu]%n", &len, &used) == 1 && !buf[used] &&
	    len > 0 && len < 1u << 20)
		return (size_t)snprintf(out, outlen, "char[%lu]", len) < outlen;
	for (const char *const *k = tags; *k; k++) {
		size_t tl = strlen(*k);
		const char *name;

		if (strncmp(buf, *k, tl) || !isspace((unsigned char)buf[tl]))
			continue;
		name = skip_ws(buf + tl);
		if (!is_ident(name, false))
			return false;
		return (size_t)snprintf(out, outlen, "%s %s", *k, name) < outlen;
	}
	return false;
}

bool type_canonical(const char *s, char *out, size_t outlen)
{
	const char *star;
	char base[TYPE_STR_MAX];
	int ptrs = 0;

	s = skip_ws(s);
	star = strchr(s, '*');
	if (!star)
		return base_canonical(s, strlen(s), out, outlen) &&
		       strcmp(out, "void") && strcmp(out, "function");
	for (const char *q = star; *q; q++) {
		if (*q == '*')
			ptrs++;
		else if (!isspace((unsigned char)*q))
			return false;
	}
	if (!base_canonical(s, star - s, base, sizeof(base)))
		return false;
	if ((size_t)snprintf(out, outlen, "%s %.*s", base, ptrs,
			     "********") >= outlen || ptrs > 8)
		return false;
	return true;
}

struct contract *load_contract_arg(const char *path, char *err, size_t errlen)
{
	return path ? contract_load(path, err, errlen) :
		      contract_default(err, errlen);
}

json_t *contract_json(const char *name, const char *desc, json_t *events,
		      json_t *fields)
{
	return json_pack("{s:i, s:s, s:s, s:o, s:o}", "abicap_contract",
			 CONTRACT_VERSION, "name", name, "description", desc,
			 "events", events, "fields", fields);
}
