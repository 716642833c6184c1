/* Allocation, arenas and text buffers.
 *
 * Memory policy: each kernel's AST lives in one Arena (a list of large chunks), freed
 * at once after the module text is emitted.  Allocation failure is an internal error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgen.h"

_Noreturn void
die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("kgen: internal error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("util.c: out of memory (%zu bytes)", n);
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("util.c: out of memory (%zu bytes)", n);
	return p;
}

enum { CHUNK = 64 * 1024 };

typedef struct Chunk {
	struct Chunk *next;
	size_t used, cap;
	max_align_t data[]; /* cap bytes follow */
} Chunk;

struct Arena {
	Chunk *head; /* current chunk first */
};

Arena *
arena_new(void)
{
	Arena *a = xmalloc(sizeof *a);

	a->head = NULL;
	return a;
}

void
arena_free(Arena *a)
{
	Chunk *c, *next;

	if (!a)
		return;
	for (c = a->head; c; c = next) {
		next = c->next;
		free(c);
	}
	free(a);
}

void *
arena_alloc(Arena *a, size_t n)
{
	Chunk *c = a->head;
	size_t al = sizeof(max_align_t);
	void *p;

	n = (n + al - 1) / al * al;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > CHUNK ? n : CHUNK;

		c = xmalloc(sizeof *c + cap);
		c->used = 0;
		c->cap = cap;
		c->next = a->head;
		a->head = c;
	}
	p = (char *)c->data + c->used;
	c->used += n;
	memset(p, 0, n);
	return p;
}

char *
arena_strdup(Arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = arena_alloc(a, n);

	memcpy(p, s, n);
	return p;
}

char *
arena_printf(Arena *a, const char *fmt, ...)
{
	va_list ap;
	char small[256], *p;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("util.c: bad format");
	p = arena_alloc(a, (size_t)n + 1);
	if ((size_t)n < sizeof small) {
		memcpy(p, small, (size_t)n + 1);
	} else {
		va_start(ap, fmt);
		vsnprintf(p, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	return p;
}

static void
buf_reserve(Buf *b, size_t extra)
{
	if (b->n + extra + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (b->n + extra + 1 > cap)
			cap *= 2;
		b->s = xrealloc(b->s, cap);
		b->cap = cap;
	}
}

void
buf_puts(Buf *b, const char *s)
{
	size_t n = strlen(s);

	buf_reserve(b, n);
	memcpy(b->s + b->n, s, n + 1);
	b->n += n;
}

void
buf_vprintf(Buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		die("util.c: bad format");
	buf_reserve(b, (size_t)n);
	vsnprintf(b->s + b->n, (size_t)n + 1, fmt, ap);
	b->n += (size_t)n;
}

void
buf_printf(Buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void
buf_free(Buf *b)
{
	free(b->s);
	b->s = NULL;
	b->n = b->cap = 0;
}
