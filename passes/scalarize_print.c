/*
 * scalarize_print.c — the expansion of scalarize for print: printf calls
 * in the formats of kpy/print.h (see scalarize.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scalarize.h"

/* ------------------------------------------------------------------ */
/* print: printf in the formats of kpy/print.h                          */

static void
printfv(S *s, const char *fmt, const Val *args, int n)
{
	Val a[64];

	a[0] = cstr(s->m, s->f, fmt);
	if (n > 63)
		die("scalarize: printf of %d values", n);
	memcpy(a + 1, args, (size_t)n * sizeof(Val));
	emit(s, OP_PRINTF, a, n + 1, NULL, 0);
}

void
xprint(S *s, const Op *op, const L *in, L *out)
{
	Type t = AT(0);
	Val c[64];
	Buf b = {0};
	int k, i, j;

	(void)out;
	if (t.k == T_STRUCT) {
		scerror(s, "cannot print a struct");
		return;
	}
	if (t.k == T_SCALAR) {
		const char *f;
		Val x = in[0].v[0];
		if (t.s == S_BOOL) {
			Val a1 = cstr(s->m, s->f, "True\n"), a2 = cstr(s->m, s->f, "False\n");
			ifelse(s, x, OP_PRINTF, &a1, 1, OP_PRINTF, &a2, 1, NULL, 0);
			/* ifelse ended both regions with printf: give them terminators */
			{
				Op *ifop = s->r->ops[s->r->n - 1];
				Region *save = s->r;
				for (k = 0; k < 2; k++) {
					s->r = &ifop->regs[k];
					emit(s, OP_YIELD, NULL, 0, NULL, 0);
				}
				s->r = save;
			}
			return;
		}
		if (scalarisfloat(t.s)) {
			f = "%g\n";
			if (t.s == S_F16 || t.s == S_BF16)
				x = cast(s, x, S_F32);
		} else if (t.s == S_I64) {
			f = "%lld\n";
		} else if (t.s == S_U64) {
			f = "%llu\n";
		} else {
			f = t.s >= S_U8 ? "%u\n" : "%d\n";
		}
		printfv(s, f, &x, 1);
		return;
	}
	/* composites: components through f32 */
	for (k = 0; k < in[0].n && k < 64; k++)
		c[k] = cast(s, in[0].v[k], S_F32);
	switch (t.k) {
	case T_VEC:
		for (k = 0; k < t.n; k++)
			bufputs(&b, "%g ");
		bufputs(&b, "\n");
		printfv(s, b.s, c, t.n);
		break;
	case T_MAT:
		for (i = 0; i < t.n; i++) {
			buffree(&b);
			for (j = 0; j < t.m; j++)
				bufputs(&b, "%g ");
			bufputs(&b, "\n");
			printfv(s, b.s, c + i * t.m, t.m);
		}
		break;
	case T_QUAT:
		printfv(s, "%g %g %g %g\n", c, 4);
		break;
	default:
		printfv(s, "(%g %g %g) (%g %g %g %g)\n", c, 7);
	}
	buffree(&b);
}
