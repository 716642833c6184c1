/*
 * adrules — unit checks of ops.def's `deriv` column (TAP):
 *   - every rule parses (adrulecheck);
 *   - every row that is differentiable (no F_NOAD) has a rule: one
 *     lacking a rule is a failure (the noise functions were the last).
 */
#include "autodiff.h"

int
main(void)
{
	int code, n = 0, bad, nmissing = 0;

	progname = "adrules";
	bad = adrulecheck(stdout);
	printf("%s %d - every derivative rule parses\n", bad ? "not ok" : "ok", ++n);
	for (code = 0; code < NOPS; code++) {
		const OpInfo *oi = &opinfo[code];
		if ((oi->flags & F_NOAD) || *oi->deriv)
			continue;
		nmissing++;
		printf("not ok %d - no derivative rule: %s\n", ++n, oi->name);
	}
	printf("%s %d - %d differentiable rows lack a rule\n", nmissing ? "not ok" : "ok", ++n, nmissing);
	printf("1..%d\n", n);
	return 0;
}
