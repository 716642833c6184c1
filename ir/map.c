/*
 * map.c — the two maps of libkir: a value map (the values of one function
 * to values, a dense array) and a string map (strings to numbers, open
 * addressing with linear probing).
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* ------------------------------------------------------------------ */
/* Value map                                                           */

void
vmset(ValMap *vm, Val from, Val to)
{
	if (from >= vm->cap) {
		uint32_t n = vm->cap ? vm->cap : 64;
		while (n <= from)
			n *= 2;
		vm->v = xrealloc(vm->v, n * sizeof *vm->v);
		memset(vm->v + vm->cap, 0, (n - vm->cap) * sizeof *vm->v);
		vm->cap = n;
	}
	vm->v[from] = to;
}

Val
vmchase(const ValMap *vm, Val v)
{
	while (v < vm->cap && vm->v[v])
		v = vm->v[v];
	return v;
}

void
vmfree(ValMap *vm)
{
	free(vm->v);
	vm->v = NULL;
	vm->cap = 0;
}

/* ------------------------------------------------------------------ */
/* String map                                                          */

static uint32_t
strhash(const char *s)
{
	return (uint32_t)hash64(s, strlen(s), 0);
}

/* The slot of k (hash h), or the free slot where it would go (cap > 0). */
static uint32_t
smslot(const StrMap *sm, const char *k, uint32_t h)
{
	uint32_t i;

	for (i = h & (sm->cap - 1); sm->key[i]; i = (i + 1) & (sm->cap - 1))
		if (sm->hash[i] == h && strcmp(sm->key[i], k) == 0)
			break;
	return i;
}

uint32_t *
smget(const StrMap *sm, const char *k)
{
	uint32_t i;

	if (!sm->cap)
		return NULL;
	i = smslot(sm, k, strhash(k));
	return sm->key[i] ? &sm->val[i] : NULL;
}

uint32_t *
smput(StrMap *sm, const char *k, bool *added)
{
	uint32_t i, h = strhash(k);

	if (2 * (sm->n + 1) > sm->cap) {
		uint32_t ocap = sm->cap, j;
		const char **okey = sm->key;
		uint32_t *oval = sm->val, *ohash = sm->hash;
		sm->cap = ocap ? 2 * ocap : 64;
		sm->key = xcalloc(sm->cap, sizeof *sm->key);
		sm->val = xmalloc(sm->cap * sizeof *sm->val);
		sm->hash = xmalloc(sm->cap * sizeof *sm->hash);
		/* the keys are distinct: each goes to the first free slot from
		 * its stored hash, no hashing nor comparing again */
		for (j = 0; j < ocap; j++) {
			if (!okey[j])
				continue;
			for (i = ohash[j] & (sm->cap - 1); sm->key[i]; i = (i + 1) & (sm->cap - 1))
				;
			sm->key[i] = okey[j];
			sm->val[i] = oval[j];
			sm->hash[i] = ohash[j];
		}
		free(okey);
		free(oval);
		free(ohash);
	}
	i = smslot(sm, k, h);
	if (added)
		*added = !sm->key[i];
	if (!sm->key[i]) {
		sm->key[i] = sm->keys ? astrdup(sm->keys, k) : sm->own ? xstrdup(k) : k;
		sm->val[i] = 0;
		sm->hash[i] = h;
		sm->n++;
	}
	return &sm->val[i];
}

void
smclear(StrMap *sm)
{
	uint32_t i;

	for (i = 0; i < sm->cap; i++) {
		if (sm->own && !sm->keys)
			free((char *)sm->key[i]);
		sm->key[i] = NULL;
	}
	sm->n = 0;
}

void
smfree(StrMap *sm)
{
	smclear(sm);
	free(sm->key);
	free(sm->val);
	free(sm->hash);
	sm->key = NULL;
	sm->val = NULL;
	sm->hash = NULL;
	sm->cap = 0;
}
