/*
 * bufprintf.c — bufprintf against the C library's snprintf (tests/ir/
 * bufprintf.test): the formats bufvprintf prints itself (%s %d %u %c %%
 * only) and ones it leaves to vsnprintf, on a fresh and a partly filled
 * buffer.  Prints "ok - NAME" / "not ok - NAME" lines; exits 0.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "ir.h"

static int nfail;

static void
check(const char *name, Buf *b, size_t from, const char *want)
{
	if (b->s && b->n == from + strlen(want) && memcmp(b->s + from, want, strlen(want) + 1) == 0) {
		printf("ok - %s\n", name);
		return;
	}
	printf("not ok - %s\n# want \"%s\"\n# got  \"%s\"\n", name, want, b->s ? b->s + from : "(no buffer)");
	nfail++;
}

/* bufprintf FMT ARGS on a fresh buffer and after 300 bytes of text (the
 * buffer grown once), each against snprintf */
#define CASE(name, ...)                                                      \
	do {                                                                 \
		char want[512];                                              \
		Buf b = {0};                                                 \
		snprintf(want, sizeof want, __VA_ARGS__);                    \
		bufprintf(&b, __VA_ARGS__);                                  \
		check(name, &b, 0, want);                                    \
		buffree(&b);                                                 \
		memset(want, 'x', 300);                                      \
		want[300] = 0;                                               \
		bufputs(&b, want);                                           \
		snprintf(want, sizeof want, __VA_ARGS__);                    \
		bufprintf(&b, __VA_ARGS__);                                  \
		check(name " (after 300 bytes)", &b, 300, want);             \
		buffree(&b);                                                 \
	} while (0)

int
main(void)
{
	const char *empty = "";

	CASE("no directive", "plain text");
	CASE("empty format", "%s", empty);
	CASE("%s", "a %s b %s", "first", "second");
	CASE("%s at both ends", "%s-%s", "x", "y");
	CASE("%d", "%d %d %d", 0, -42, 7);
	CASE("%d extremes", "%d %d", INT_MIN, INT_MAX);
	CASE("%u", "%u %u", 0u, 123456u);
	CASE("%u extreme", "%u", UINT_MAX);
	CASE("%c", "[%c%c]", 'a', '_');
	CASE("%%", "100%% of %s%%", "it");
	CASE("mixed", "kpy::%s(%s, %d) /* %u%% */ %c", "add", "x", -1, 99u, ';');
	CASE("long %s", "%s!", "a string longer than sixty-four bytes, the first room bufvprintf reserves");
	/* left to vsnprintf */
	CASE("%x", "%x %s", 255u, "hex");
	CASE("width", "[%5d] [%-3s]", 42, "a");
	CASE("precision", "%.3s %.2f", "abcdef", 3.14159);
	CASE("length", "%lu %lld %zu", 1ul, -2ll, (size_t)3);
	return nfail ? 1 : 0;
}
