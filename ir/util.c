/*
 * util.c — errors, allocation, arenas, buffers, files.
 *
 * Memory policy (stated once for every kpy program): IR lives in one arena
 * per module, freed at once with modfree().  Short-lived text goes in Buf
 * (malloc'd, freed by its owner).  Allocation failure is fatal (exit 2).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

const char *progname = "kpy";

void
die_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: internal error (%s:%d): ", progname, file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

void
fatal(const char *fmt, ...)
{
	va_list ap;
	int err = errno;
	size_t n = strlen(fmt);

	fflush(stdout);
	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (n > 0 && fmt[n - 1] == ':')
		fprintf(stderr, " %s", strerror(err));
	fputc('\n', stderr);
	exit(2);
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		fatal("out of memory");
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		fatal("out of memory");
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		fatal("out of memory");
	return p;
}

char *
xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

/* Arena: a list of chunks; big requests get a chunk of their own. */
typedef struct Chunk {
	struct Chunk *next;
	size_t used, size;
	size_t dirty; /* data[0..dirty) may hold old data; the rest is zero */
	_Alignas(16) unsigned char data[];
} Chunk;

struct Arena {
	Chunk *head;
};

enum { CHUNK = 64 * 1024 };

Arena *
arena_new(void)
{
	return xcalloc(1, sizeof(Arena));
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

void
arena_reset(Arena *a)
{
	Chunk *c, *next, *keep = NULL;

	/* keep one standard chunk (its pages are already mapped), free the rest */
	for (c = a->head; c; c = next) {
		next = c->next;
		if (!keep && c->size == CHUNK) {
			keep = c;
			continue;
		}
		free(c);
	}
	a->head = keep;
	if (keep) {
		keep->next = NULL;
		if (keep->used > keep->dirty)
			keep->dirty = keep->used;
		keep->used = 0;
	}
}

void *
aalloc(Arena *a, size_t n)
{
	Chunk *c = a->head;
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (!c || c->size - c->used < n) {
		size_t size = n > CHUNK / 4 ? n : CHUNK;
		/* calloc: memory fresh from the system is zero already (no
		 * memset here nor below) */
		c = xcalloc(1, sizeof(Chunk) + size);
		c->size = size;
		c->used = 0;
		c->dirty = 0;
		if (size == n && a->head) {
			/* keep the current chunk in front for small requests */
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
		}
	}
	p = c->data + c->used;
	if (c->used < c->dirty)
		memset(p, 0, n < c->dirty - c->used ? n : c->dirty - c->used);
	c->used += n;
	return p;
}

char *
astrndup(Arena *a, const char *s, size_t n)
{
	char *p = aalloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *
astrdup(Arena *a, const char *s)
{
	return astrndup(a, s, strlen(s));
}

char *
aprintf(Arena *a, const char *fmt, ...)
{
	va_list ap;
	Buf b = {0};
	char *s;

	va_start(ap, fmt);
	bufvprintf(&b, fmt, ap);
	va_end(ap);
	s = astrndup(a, b.s ? b.s : "", b.n);
	buffree(&b);
	return s;
}

void
agrow(Arena *a, void **p, uint32_t *cap, uint32_t n, size_t sz)
{
	uint32_t ncap;
	void *np;

	if (n <= *cap)
		return;
	ncap = *cap ? *cap : 4;
	while (ncap < n)
		ncap *= 2;
	np = aalloc(a, (size_t)ncap * sz);
	if (*p && *cap)
		memcpy(np, *p, (size_t)*cap * sz);
	*p = np;
	*cap = ncap;
}

static void
bufreserve(Buf *b, size_t extra)
{
	if (b->n + extra + 1 <= b->cap)
		return;
	size_t ncap = b->cap ? b->cap : 256;
	while (ncap < b->n + extra + 1)
		ncap *= 2;
	b->s = xrealloc(b->s, ncap);
	b->cap = ncap;
}

void
bufwrite(Buf *b, const char *s, size_t n)
{
	bufreserve(b, n);
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

void
bufputc(Buf *b, int c)
{
	char ch = (char)c;
	bufwrite(b, &ch, 1);
}

void
bufputs(Buf *b, const char *s)
{
	bufwrite(b, s, strlen(s));
}

void
bufputu(Buf *b, unsigned long long u)
{
	char t[24], *p = t + sizeof t;

	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	bufwrite(b, p, (size_t)(t + sizeof t - p));
}

void
bufputi(Buf *b, long long i)
{
	if (i < 0) {
		bufputc(b, '-');
		bufputu(b, 0ULL - (unsigned long long)i);
	} else {
		bufputu(b, (unsigned long long)i);
	}
}

/* Is fmt text and %s, %d, %u, %c and %% only (no flag, width, precision
 * nor length)?  bufvprintf formats those itself: glibc's vsnprintf costs
 * some 500 instructions a call before its first character. */
static bool
simplefmt(const char *fmt)
{
	for (; (fmt = strchr(fmt, '%')); fmt += 2)
		if (!fmt[1] || !strchr("sduc%", fmt[1]))
			return false;
	return true;
}

void
bufvprintf(Buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	size_t room;
	int n;

	if (simplefmt(fmt)) {
		const char *p = fmt, *q, *t;

		for (; (q = strchr(p, '%')); p = q + 2) {
			bufwrite(b, p, (size_t)(q - p));
			switch (q[1]) {
			case 's':
				t = va_arg(ap, const char *);
				bufputs(b, t ? t : "(null)"); /* as glibc prints it */
				break;
			case 'd':
				bufputi(b, va_arg(ap, int));
				break;
			case 'u':
				bufputu(b, va_arg(ap, unsigned));
				break;
			case 'c':
				bufputc(b, va_arg(ap, int));
				break;
			default:
				bufputc(b, '%');
				break;
			}
		}
		bufputs(b, p);
		return;
	}
	/* print into the free room first; only text that does not fit is
	 * printed twice (once to learn its length) */
	bufreserve(b, 64);
	room = b->cap - b->n;
	va_copy(aq, ap);
	n = vsnprintf(b->s + b->n, room, fmt, aq);
	va_end(aq);
	if (n < 0)
		die("vsnprintf failed");
	if ((size_t)n >= room) {
		bufreserve(b, (size_t)n);
		vsnprintf(b->s + b->n, (size_t)n + 1, fmt, ap);
	}
	b->n += (size_t)n;
}

void
bufprintf(Buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bufvprintf(b, fmt, ap);
	va_end(ap);
}

void
buffree(Buf *b)
{
	free(b->s);
	b->s = NULL;
	b->n = b->cap = 0;
}

char *
readfile(const char *path, size_t *len)
{
	FILE *f;
	Buf b = {0};
	char tmp[65536];
	size_t n;

	if (!path || strcmp(path, "-") == 0) {
		f = stdin;
	} else if (!(f = fopen(path, "rb"))) {
		return NULL;
	}
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
		bufwrite(&b, tmp, n);
	if (ferror(f)) {
		int err = errno;
		if (f != stdin)
			fclose(f);
		buffree(&b);
		errno = err ? err : EIO;
		return NULL;
	}
	if (f != stdin)
		fclose(f);
	bufreserve(&b, 0);
	b.s[b.n] = 0;
	if (len)
		*len = b.n;
	return b.s;
}

int
writefile(const char *path, const char *data, size_t n)
{
	char *tmp;
	FILE *f;
	size_t plen;

	if (!path || strcmp(path, "-") == 0) {
		if (fwrite(data, 1, n, stdout) != n || fflush(stdout) != 0)
			return -1;
		return 0;
	}
	plen = strlen(path);
	tmp = xmalloc(plen + 32);
	snprintf(tmp, plen + 32, "%s.tmp%ld", path, (long)getpid());
	if (!(f = fopen(tmp, "wb"))) {
		free(tmp);
		return -1;
	}
	if (fwrite(data, 1, n, f) != n || fflush(f) != 0) {
		int err = errno;
		fclose(f);
		remove(tmp);
		free(tmp);
		errno = err;
		return -1;
	}
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		int err = errno;
		remove(tmp);
		free(tmp);
		errno = err;
		return -1;
	}
	free(tmp);
	return 0;
}

uint64_t
hash64(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ull ^ seed;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static double
clockread(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double
clockwall(void)
{
	return clockread(CLOCK_MONOTONIC);
}

double
clockcpu(void)
{
	return clockread(CLOCK_PROCESS_CPUTIME_ID);
}
