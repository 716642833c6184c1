/*
 * emit_names.c — name sets of the C++ emitter: every generated identifier
 * sanitized and unique among the names already taken (see emit.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit_impl.h"

static uint32_t
strhash(const char *s)
{
	return (uint32_t)hash64(s, strlen(s), 11);
}

bool
nshas(const NameSet *ns, const char *s)
{
	uint32_t i, h = strhash(s);

	for (; ns; ns = ns->parent) {
		if (!ns->cap)
			continue;
		for (i = h & (ns->cap - 1); ns->slot[i]; i = (i + 1) & (ns->cap - 1))
			if (strcmp(ns->slot[i], s) == 0)
				return true;
	}
	return false;
}

void
nsadd(NameSet *ns, const char *s)
{
	uint32_t i, j;

	if (nshas(ns, s))
		return;
	if (2 * (ns->n + 1) > ns->cap) {
		uint32_t ncap = ns->cap ? 2 * ns->cap : 256;
		char **ns2 = xcalloc(ncap, sizeof *ns2);
		for (j = 0; j < ns->cap; j++) {
			if (!ns->slot[j])
				continue;
			for (i = strhash(ns->slot[j]) & (ncap - 1); ns2[i]; i = (i + 1) & (ncap - 1))
				;
			ns2[i] = ns->slot[j];
		}
		free(ns->slot);
		ns->slot = ns2;
		ns->cap = ncap;
	}
	for (i = strhash(s) & (ns->cap - 1); ns->slot[i]; i = (i + 1) & (ns->cap - 1))
		;
	ns->slot[i] = xstrdup(s);
	ns->n++;
}

/* uniqname's hint for base: its slot in the hint table (grown first). */
static uint32_t
nshint(NameSet *ns, const char *base)
{
	uint32_t i, j;

	if (2 * (ns->hn + 1) > ns->hcap) {
		uint32_t ncap = ns->hcap ? 2 * ns->hcap : 64;
		char **b2 = xcalloc(ncap, sizeof *b2);
		uint32_t *n2 = xcalloc(ncap, sizeof *n2);
		for (j = 0; j < ns->hcap; j++) {
			if (!ns->hbase[j])
				continue;
			for (i = strhash(ns->hbase[j]) & (ncap - 1); b2[i]; i = (i + 1) & (ncap - 1))
				;
			b2[i] = ns->hbase[j];
			n2[i] = ns->hnext[j];
		}
		free(ns->hbase);
		free(ns->hnext);
		ns->hbase = b2;
		ns->hnext = n2;
		ns->hcap = ncap;
	}
	for (i = strhash(base) & (ns->hcap - 1); ns->hbase[i]; i = (i + 1) & (ns->hcap - 1))
		if (strcmp(ns->hbase[i], base) == 0)
			return i;
	ns->hbase[i] = xstrdup(base);
	ns->hnext[i] = 0;
	ns->hn++;
	return i;
}

void
nsfree(NameSet *ns)
{
	uint32_t i;

	for (i = 0; i < ns->cap; i++)
		free(ns->slot[i]);
	for (i = 0; i < ns->hcap; i++)
		free(ns->hbase[i]);
	free(ns->slot);
	free(ns->hbase);
	free(ns->hnext);
	memset(ns, 0, sizeof *ns);
}


/* Is c a character of a C identifier? */
static bool
identc(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* A C identifier from a kir name: other characters become '_', a trailing
 * ".N" (the printer's dedup suffix) is dropped when drop is set. */
char *
sanitize(const char *name, bool drop)
{
	size_t n = strlen(name), i;
	char *s;

	if (drop) {
		size_t k = n;
		while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
			k--;
		if (k > 1 && k < n && name[k - 1] == '.')
			n = k - 1;
	}
	s = xmalloc(n + 2);
	for (i = 0; i < n; i++)
		s[i] = identc((unsigned char)name[i]) ? name[i] : '_';
	s[n] = 0;
	if (n == 0 || (s[0] >= '0' && s[0] <= '9')) {
		memmove(s + 1, s, n + 1);
		s[0] = '_';
	}
	return s;
}

/* The first of base, base_1, base_2 ... not in ns (ns unchanged but for
 * its hints).  A base
 * that is itself reserved gets a '_' first. */
char *
uniqname(NameSet *ns, const char *base, const char *const *also, int nalso)
{
	size_t n = strlen(base) + 32;
	char *s = xmalloc(n);
	uint32_t k = 0, h = 0;
	int j;
	bool clash;

	/* Names are only ever added, so the candidates before the one base
	 * got last time still clash: start there (a probe or two per name,
	 * not one per earlier namesake). */
	if (!nalso) {
		h = nshint(ns, base);
		k = ns->hnext[h];
	}
	for (;; k++) {
		if (k)
			snprintf(s, n, "%s_%" PRIu32, base, k);
		else
			snprintf(s, n, "%s", base);
		clash = nshas(ns, s);
		for (j = 0; j < nalso && !clash; j++) {
			char t[512];
			snprintf(t, sizeof t, also[j], s);
			clash = nshas(ns, t);
		}
		if (!clash)
			break;
	}
	if (!nalso)
		ns->hnext[h] = k;
	return s;
}
