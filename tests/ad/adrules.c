/*
 * adrules — unit checks of ops.def's `deriv` column (TAP):
 *   - every rule parses (adrulecheck);
 *   - the rows that are differentiable (no F_NOAD) but have no rule are
 *     listed; a row of a family autodiff must cover (everything but the
 *     noise functions) lacking a rule is a failure.
 */
#include <string.h>

#include "autodiff.h"

int
main(void)
{
	/* rows that may lack a rule: documented in kopt(1) */
	static const char *const allowed[] = {"noise", "pnoise", "curlnoise"};
	int code, n = 0, bad, nmissing = 0;
	size_t i;

	progname = "adrules";
	bad = adrulecheck(stdout);
	printf("%s %d - every derivative rule parses\n", bad ? "not ok" : "ok", ++n);
	for (code = 0; code < NOPS; code++) {
		const OpInfo *oi = &opinfo[code];
		bool ok = false;
		if ((oi->flags & F_NOAD) || *oi->deriv)
			continue;
		nmissing++;
		for (i = 0; i < countof(allowed); i++)
			if (strcmp(oi->name, allowed[i]) == 0)
				ok = true;
		printf("%s %d - no derivative rule: %s%s\n", ok ? "ok" : "not ok", ++n, oi->name,
		       ok ? " (outside the required families: autodiff reports it)" : "");
	}
	printf("ok %d - %d differentiable rows lack a rule\n", ++n, nmissing);
	printf("1..%d\n", n);
	return 0;
}
