/*
 * emit_names.c — name sets of the C++ emitter: every generated identifier
 * sanitized and unique among the names already taken (see emit.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit_impl.h"

/* A zero NameSet is an empty one: its maps own their keys from the first
 * add on. */

void
nsinit(NameSet *ns, const NameSet *parent, Arena *a)
{
	memset(ns, 0, sizeof *ns);
	ns->parent = parent;
	ns->set.keys = a;
	ns->hint.keys = a;
}

bool
nshas(const NameSet *ns, const char *s)
{
	for (; ns; ns = ns->parent)
		if (smget(&ns->set, s))
			return true;
	return false;
}

void
nsadd(NameSet *ns, const char *s)
{
	if (nshas(ns->parent, s))
		return;
	ns->set.own = true;
	smput(&ns->set, s, NULL);  /* a no-op where s is in ns already */
}

/* uniqname's hint for base: the first of its candidates that may be free
 * (valid until the next nshint). */
static uint32_t *
nshint(NameSet *ns, const char *base)
{
	ns->hint.own = true;
	return smput(&ns->hint, base, NULL);
}

void
nsfree(NameSet *ns)
{
	smfree(&ns->set);
	smfree(&ns->hint);
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
	uint32_t k = 0, *hint = NULL;
	int j;
	bool clash;

	/* Names are only ever added, so the candidates before the one base
	 * got last time still clash: start there (a probe or two per name,
	 * not one per earlier namesake). */
	if (!nalso) {
		hint = nshint(ns, base);
		k = *hint;
	}
	memcpy(s, base, n - 31);
	for (;; k++) {
		if (k) { /* base_K, without snprintf's set-up per candidate */
			char d[12], *q = d + sizeof d;
			uint32_t u = k;
			*--q = 0;
			do
				*--q = (char)('0' + u % 10);
			while (u /= 10);
			s[n - 32] = '_';
			memcpy(s + n - 31, q, (size_t)(d + sizeof d - q));
		}
		clash = nshas(ns, s);
		for (j = 0; j < nalso && !clash; j++) {
			char t[512];
			snprintf(t, sizeof t, also[j], s);
			clash = nshas(ns, t);
		}
		if (!clash)
			break;
	}
	if (hint)
		*hint = k;
	return s;
}
