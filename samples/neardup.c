/*
 * neardup.c — near-duplicate records by MinHash (kpack merge).
 *
 * A text is cut into tokens (identifiers and numbers, or one punctuation
 * character; blanks and # comments dropped), and its shingles are the runs
 * of SHINGLE consecutive tokens.  Its signature keeps, for NPERM hash
 * functions, the least hash of any shingle: two signatures agree in a
 * position with probability equal to the Jaccard similarity of the two
 * shingle sets.  Locality-sensitive hashing finds the candidates: the
 * signature is cut into NBAND bands of NPERM/NBAND rows, and two texts that
 * agree on a whole band are compared; a pair whose signatures agree in at
 * least `threshold` of the positions is joined (union-find), so a cluster is
 * closed under near-duplication.  Each record's representative is the first
 * record of its cluster (in the order added), so the result does not depend
 * on anything but that order.  Time and memory are linear in the total text.
 *
 * The same tokens serve decontamination: the 13-token n-grams of a reference
 * corpus (Warp's own tests and examples) in a hash set, and the share of a
 * record's n-grams found there.
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "neardup.h"

enum { SHINGLE = 5, NPERM = 64, NBAND = 16, ROWS = NPERM / NBAND };

struct NearDup {
	uint32_t *sig;      /* n signatures of NPERM values */
	uint32_t n, cap;
	uint64_t *bkey;     /* band buckets: key (0: empty) and the first record */
	uint32_t *bval;
	uint32_t nb, capb;
	uint32_t *parent;   /* union-find over records */
};

static uint64_t
mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

NearDup *
nd_new(void)
{
	return xcalloc(1, sizeof(NearDup));
}

void
nd_free(NearDup *nd)
{
	if (!nd)
		return;
	free(nd->sig);
	free(nd->bkey);
	free(nd->bval);
	free(nd->parent);
	free(nd);
}

/* The next token of *p: its hash, or 0 at the end of the text; '#' starts
 * a comment when pycomments. */
static uint64_t
tokenof(const char **p, bool pycomments)
{
	const char *s = *p, *t;

	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			s++;
		if (*s != '#' || !pycomments)
			break;
		while (*s && *s != '\n')
			s++;
	}
	if (!*s) {
		*p = s;
		return 0;
	}
	t = s;
	if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == '.') {
		while ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == '.')
			s++;
	} else {
		s++;
	}
	*p = s;
	return hash64(t, (size_t)(s - t), 0) | 1;
}

static uint64_t
token(const char **p)
{
	return tokenof(p, true);
}

uint32_t
nd_ntokens(const char *text, bool pycomments)
{
	uint32_t n = 0;

	while (text && tokenof(&text, pycomments))
		n++;
	return n;
}

uint32_t
nd_add(NearDup *nd, const char *text)
{
	uint64_t win[SHINGLE], h;
	uint32_t *sig;
	int i, k = 0;
	bool any = false;

	if (nd->n == nd->cap) {
		nd->cap = nd->cap ? 2 * nd->cap : 256;
		nd->sig = xrealloc(nd->sig, (size_t)nd->cap * NPERM * sizeof(uint32_t));
	}
	sig = nd->sig + (size_t)nd->n * NPERM;
	for (i = 0; i < NPERM; i++)
		sig[i] = UINT32_MAX;
	while ((h = token(&text)) != 0) {
		uint64_t sh = 0;

		win[k % SHINGLE] = h;
		if (++k < SHINGLE)
			continue;
		for (i = 0; i < SHINGLE; i++)
			sh = mix(sh ^ win[(k + i) % SHINGLE]);
		for (i = 0; i < NPERM; i++) {
			uint32_t v = (uint32_t)(mix(sh ^ (0x5851f42d4c957f2dull * (uint64_t)(i + 1))) >> 32);
			if (v < sig[i])
				sig[i] = v;
		}
		any = true;
	}
	/* a text shorter than one shingle: its tokens, as one shingle */
	if (!any && k > 0) {
		uint64_t sh = 0;

		for (i = 0; i < k; i++)
			sh = mix(sh ^ win[i]);
		for (i = 0; i < NPERM; i++)
			sig[i] = (uint32_t)(mix(sh ^ (0x5851f42d4c957f2dull * (uint64_t)(i + 1))) >> 32);
	}
	return nd->n++;
}

static uint32_t
find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

/* Join a and b; the root is the smaller index, the cluster's first record. */
static void
join(uint32_t *parent, uint32_t a, uint32_t b)
{
	a = find(parent, a);
	b = find(parent, b);
	if (a < b)
		parent[b] = a;
	else if (b < a)
		parent[a] = b;
}

static double
similar(const NearDup *nd, uint32_t a, uint32_t b)
{
	const uint32_t *x = nd->sig + (size_t)a * NPERM, *y = nd->sig + (size_t)b * NPERM;
	int i, same = 0;

	for (i = 0; i < NPERM; i++)
		same += x[i] == y[i];
	return (double)same / NPERM;
}

uint32_t
nd_cluster(NearDup *nd, double threshold, uint32_t *rep)
{
	uint32_t i, j, moved = 0;
	int b;

	free(nd->parent);
	nd->parent = xmalloc((size_t)(nd->n ? nd->n : 1) * sizeof(uint32_t));
	for (i = 0; i < nd->n; i++)
		nd->parent[i] = i;
	nd->capb = 16;
	while (nd->capb < 2 * (uint64_t)nd->n * NBAND)
		nd->capb *= 2;
	free(nd->bkey);
	free(nd->bval);
	nd->bkey = xcalloc(nd->capb, sizeof(uint64_t));
	nd->bval = xcalloc(nd->capb, sizeof(uint32_t));
	for (i = 0; i < nd->n; i++) {
		const uint32_t *sig = nd->sig + (size_t)i * NPERM;

		for (b = 0; b < NBAND; b++) {
			uint64_t key = mix((uint64_t)b + 1);

			for (j = 0; j < ROWS; j++)
				key = mix(key ^ sig[b * ROWS + j]);
			key |= 1;
			for (j = (uint32_t)key & (nd->capb - 1); nd->bkey[j] && nd->bkey[j] != key; j = (j + 1) & (nd->capb - 1))
				;
			if (!nd->bkey[j]) {
				nd->bkey[j] = key;
				nd->bval[j] = i;
			} else if (similar(nd, nd->bval[j], i) >= threshold) {
				join(nd->parent, nd->bval[j], i);
			}
		}
	}
	for (i = 0; i < nd->n; i++) {
		rep[i] = find(nd->parent, i);
		moved += rep[i] != i;
	}
	return moved;
}

/* ---- decontamination: n-grams shared with a reference corpus ---------- */

enum { NGRAM = 13 };

struct NGrams {
	uint64_t *k;   /* open addressing; 0: empty */
	uint32_t n, cap;
};

NGrams *
ng_new(void)
{
	NGrams *g = xcalloc(1, sizeof *g);

	g->cap = 1024;
	g->k = xcalloc(g->cap, sizeof *g->k);
	return g;
}

void
ng_free(NGrams *g)
{
	if (g) {
		free(g->k);
		free(g);
	}
}

static bool
ng_has(const NGrams *g, uint64_t h)
{
	uint32_t i;

	for (i = (uint32_t)h & (g->cap - 1); g->k[i]; i = (i + 1) & (g->cap - 1))
		if (g->k[i] == h)
			return true;
	return false;
}

static void
ng_put(NGrams *g, uint64_t h)
{
	uint32_t i;

	if (2 * (g->n + 1) > g->cap) {
		uint64_t *old = g->k;
		uint32_t oc = g->cap, j;

		g->cap *= 2;
		g->k = xcalloc(g->cap, sizeof *g->k);
		g->n = 0;
		for (j = 0; j < oc; j++)
			if (old[j])
				ng_put(g, old[j]);
		free(old);
	}
	for (i = (uint32_t)h & (g->cap - 1); g->k[i]; i = (i + 1) & (g->cap - 1))
		if (g->k[i] == h)
			return;
	g->k[i] = h;
	g->n++;
}

/* Call fn on the hash of every run of NGRAM tokens of text. */
static void
ngrams(const char *text, void (*fn)(void *, uint64_t), void *ctx)
{
	uint64_t win[NGRAM], h;
	int i, k = 0;

	while ((h = token(&text)) != 0) {
		uint64_t g = 0;

		win[k % NGRAM] = h;
		if (++k < NGRAM)
			continue;
		for (i = 0; i < NGRAM; i++)
			g = mix(g ^ win[(k + i) % NGRAM]);
		fn(ctx, g | 1);
	}
}

static void
put1(void *g, uint64_t h)
{
	ng_put(g, h);
}

void
ng_addtext(NGrams *g, const char *text)
{
	ngrams(text, put1, g);
}

typedef struct Hits {
	const NGrams *g;
	uint32_t hit, total;
} Hits;

static void
hit1(void *ctx, uint64_t h)
{
	Hits *x = ctx;

	x->total++;
	x->hit += ng_has(x->g, h);
}

void
ng_overlap(const NGrams *g, const char *text, uint32_t *hit, uint32_t *total)
{
	Hits x = {g, 0, 0};

	ngrams(text, hit1, &x);
	*hit = x.hit;
	*total = x.total;
}
