/*
 * util.h — libkir's utilities: errors, allocation, arenas, buffers, files.
 *
 * The part of libkir that knows nothing of the IR, so that a program that
 * builds no IR (kgen) can use it alone; ir.h includes it.  Implemented in
 * util.c.
 */
#ifndef KPY_UTIL_H
#define KPY_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__GNUC__)
#define KPY_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define KPY_NORETURN __attribute__((noreturn))
#else
#define KPY_PRINTF(a, b)
#define KPY_NORETURN
#endif

#define countof(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------ */
/* util.c — errors, allocation, arenas, growable vectors, strings      */

/* Internal error (a bug in kpy): message naming the C file, exit 2. */
#define die(...) die_at(__FILE__, __LINE__, __VA_ARGS__)
KPY_NORETURN void die_at(const char *file, int line, const char *fmt, ...) KPY_PRINTF(3, 4);
/* Fatal environment error (I/O, out of memory): exit 2.  A message ending
 * in ':' gets strerror(errno) appended. */
KPY_NORETURN void fatal(const char *fmt, ...) KPY_PRINTF(1, 2);
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* The program name used in messages (set once by each main). */
extern const char *progname;

typedef struct Arena Arena;
Arena *arena_new(void);
void arena_free(Arena *a);
void arena_reset(Arena *a);            /* free everything allocated, keep one chunk for reuse */
void *aalloc(Arena *a, size_t n);      /* zeroed, 16-byte aligned */
char *astrdup(Arena *a, const char *s);
char *astrndup(Arena *a, const char *s, size_t n);
char *aprintf(Arena *a, const char *fmt, ...) KPY_PRINTF(2, 3);
/* Grow the arena array *p (of *cap elements of size sz) to hold at least n. */
void agrow(Arena *a, void **p, uint32_t *cap, uint32_t n, size_t sz);
#define APUSH(a, arr, n, cap, x) \
	(agrow((a), (void **)&(arr), &(cap), (n) + 1, sizeof *(arr)), (arr)[(n)++] = (x))

/* A malloc'd growable byte buffer (output text, file contents). */
typedef struct Buf {
	char *s;    /* NUL-terminated contents */
	size_t n;   /* length, excluding the NUL */
	size_t cap; /* allocated bytes */
} Buf;
void bufputc(Buf *b, int c);
void bufputs(Buf *b, const char *s);
void bufwrite(Buf *b, const char *s, size_t n);
/* Decimal integers, as %llu and %lld print them, without printf. */
void bufputu(Buf *b, unsigned long long u);
void bufputi(Buf *b, long long i);
void bufprintf(Buf *b, const char *fmt, ...) KPY_PRINTF(2, 3);
void bufvprintf(Buf *b, const char *fmt, va_list ap);
void buffree(Buf *b);

/* Read a whole file ("-" is stdin) into a NUL-terminated buffer; NULL and
 * errno on failure. */
char *readfile(const char *path, size_t *len);
/* Write `n` bytes to `path` atomically (temp file + rename); "-" or NULL is
 * stdout.  Returns 0, or -1 with errno set; never leaves a partial file. */
int writefile(const char *path, const char *data, size_t n);

uint64_t hash64(const void *p, size_t n, uint64_t seed); /* FNV-1a 64 */
/* Hashing words, not bytes (intern and CSE tables): hmix folds w into h,
 * hfinal spreads the bits to the low ones a table's mask keeps. */
static inline uint64_t
hmix(uint64_t h, uint64_t w)
{
	return (h ^ w) * 0x9e3779b97f4a7c15ull;
}
static inline uint64_t
hfinal(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

/* Seconds on the monotonic wall clock, and this process's CPU time (user +
 * system: the figure that does not depend on what else the machine runs). */
double clockwall(void);
double clockcpu(void);

#endif
