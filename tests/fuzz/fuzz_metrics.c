// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * serve's metrics writer on arbitrary cgroup names: the input is up to 16
 * names split at NUL bytes, each a cgroup path "/NAME" (those no kernel
 * could give, with "//" or a final '/', are left out); a name given twice
 * is one path in two incarnations (two ids). The text must be what
 * Prometheus accepts (valid UTF-8, label syntax, no series twice), and the
 * cgroup label values must decode back to exactly the paths given:
 * distinct cgroups distinct, one series per path.
 */
#include <stdlib.h>
#include <string.h>
#include "event/cgnames.h"
#include "fuzz.h"
#include "live/metrics.h"
#include "promcheck.h"

#define MAX_NAMES 16

struct paths {
	char *p[MAX_NAMES];
	int n; /* distinct */
	bool seen[MAX_NAMES];
	int labels;
};

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' :
	       c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A label value back to the path: the rule of promtext.h undone. */
static char *decode(const char *v, size_t len)
{
	char *out = malloc(len + 1);
	size_t o = 0;

	FUZZ_ASSERT(out);
	if (len > 1 && v[len - 1] == '/') {
		len--;
		for (size_t i = 0; i < len; i++) {
			int h, l;

			if (v[i] != '\\') {
				out[o++] = v[i];
				continue;
			}
			/* in an escaped path every backslash starts \xHH */
			FUZZ_ASSERT(i + 3 < len && v[i + 1] == 'x');
			h = hexval(v[i + 2]);
			l = hexval(v[i + 3]);
			FUZZ_ASSERT(h >= 0 && l >= 0);
			out[o++] = (char)(h << 4 | l);
			i += 3;
		}
	} else {
		memcpy(out, v, len);
		o = len;
	}
	out[o] = 0;
	return out;
}

static void on_label(void *ctx, const char *metric, const char *label,
		     const char *value, size_t len)
{
	struct paths *ps = ctx;
	char *path;
	int i;

	if (strcmp(metric, "abicap_cpu_seconds_total") || strcmp(label, "cgroup"))
		return;
	path = decode(value, len);
	for (i = 0; i < ps->n && strcmp(ps->p[i], path); i++)
		;
	FUZZ_ASSERT(i < ps->n); /* names a path given */
	FUZZ_ASSERT(!ps->seen[i]); /* one series per path */
	ps->seen[i] = true;
	ps->labels++;
	free(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* one table for all runs: ids 1..16, each set again before use */
	static struct cgnames *names;
	struct metrics_ctx m = { 0 };
	struct cg_sample v[MAX_NAMES] = { 0 };
	struct paths ps = { 0 };
	size_t nv = 0, len;
	char *text = NULL, why[256];
	FILE *f;

	if (!names)
		names = cgnames_table();
	m.names = names;
	FUZZ_ASSERT(m.names);
	for (size_t at = 0; at < size && nv < MAX_NAMES;) {
		const char *name = (const char *)data + at;
		size_t n = strnlen(name, size - at);
		char *path = malloc(n + 2);
		int i;

		FUZZ_ASSERT(path);
		path[0] = '/';
		memcpy(path + 1, name, n);
		path[n + 1] = 0;
		at += n + 1;
		if (strstr(path, "//") || (n && path[n] == '/')) {
			free(path);
			continue;
		}
		v[nv].id = nv + 1;
		v[nv].s.oncpu_ns = nv + 1;
		v[nv].s.rq_count = 1;
		v[nv].s.rq_bucket[nv % ABICAP_LAT_BUCKETS] = 1;
		FUZZ_ASSERT(!cgnames_set(m.names, v[nv].id, path));
		nv++;
		for (i = 0; i < ps.n && strcmp(ps.p[i], path); i++)
			;
		if (i < ps.n)
			free(path); /* another incarnation */
		else
			ps.p[ps.n++] = path;
	}
	f = open_memstream(&text, &len);
	FUZZ_ASSERT(f);
	FUZZ_ASSERT(!metrics_write_cgroups(f, &m, v, nv));
	FUZZ_ASSERT(!fclose(f));
	if (prom_check(text, len, on_label, &ps, why, sizeof(why))) {
		fprintf(stderr, "%s\n", why);
		FUZZ_ASSERT(!"valid exposition text");
	}
	FUZZ_ASSERT(ps.labels == ps.n); /* every path has its series */
	free(text);
	for (int i = 0; i < ps.n; i++)
		free(ps.p[i]);
	metrics_fini(&m);
	return 0;
}
