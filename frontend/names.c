/*
 * names.c — module-level names: the string hash maps of the frontend and a
 * file's globals (finding and binding a name, making GVal values) and
 * literal values (Lit).
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "py.tab.h"

/* ---- name maps ------------------------------------------------------ */

uint32_t
strhash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

uint32_t
nmget(const NameMap *m, const char *key)
{
	uint32_t i;

	if (!m->cap)
		return UINT32_MAX;
	for (i = strhash(key) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (strcmp(m->keys[i], key) == 0)
			return m->vals[i];
	return UINT32_MAX;
}

void
nmput(Arena *a, NameMap *m, const char *key, uint32_t val)
{
	uint32_t i;

	if (2 * (m->n + 1) > m->cap) {
		uint32_t ncap = m->cap ? 2 * m->cap : 64, j;
		const char **nk = aalloc(a, ncap * sizeof *nk);
		uint32_t *nv = aalloc(a, ncap * sizeof *nv);
		for (j = 0; j < m->cap; j++) {
			if (!m->keys[j])
				continue;
			for (i = strhash(m->keys[j]) & (ncap - 1); nk[i]; i = (i + 1) & (ncap - 1))
				;
			nk[i] = m->keys[j];
			nv[i] = m->vals[j];
		}
		m->keys = nk;
		m->vals = nv;
		m->cap = ncap;
	}
	for (i = strhash(key) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (strcmp(m->keys[i], key) == 0) {
			m->vals[i] = val;
			return;
		}
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
}

/* ---- globals ------------------------------------------------------- */

const Global *
gfind(const FileCtx *f, const char *name)
{
	uint32_t i = nmget(&f->gmap, name);
	return i == UINT32_MAX ? NULL : &f->g[i];
}

void
gbind(Kpyc *k, FileCtx *f, const char *name, GVal v, Loc loc)
{
	Global g;

	g.name = name;
	g.v = v;
	g.loc = loc;
	APUSH(k->a, f->g, f->ng, f->capg, g);
	nmput(k->a, &f->gmap, name, f->ng - 1);
}

GVal
gnone(void)
{
	GVal v;
	memset(&v, 0, sizeof v);
	return v;
}

GVal
gkind(int kind, const char *s)
{
	GVal v = gnone();
	v.kind = kind;
	v.s = s;
	return v;
}

/* A scalar constant of kind s from a Python value. */
GVal
gscalar(Kpyc *k, int s, Lit l)
{
	GVal v = gnone();

	v.kind = G_CONST;
	v.spec.ty = tscalar(s);
	v.c = aalloc(k->a, sizeof *v.c);
	v.c[0] = scalround(s, litscal(l, s));
	v.lit = l;
	return v;
}

Lit
litint(int64_t i)
{
	Lit l = {true, true, i, (double)i};
	return l;
}

Lit
litfloat(double f)
{
	Lit l = {true, false, 0, f};
	return l;
}

Scal
litscal(Lit l, int s)
{
	Scal c;

	if (scalarisfloat(s))
		c.f = l.isint ? (double)l.i : l.f;
	else if (s == S_BOOL)
		c.i = l.isint ? l.i != 0 : l.f != 0;
	else if (l.isint)
		c.i = l.i;
	else
		c.i = (int64_t)l.f;
	return c;
}
