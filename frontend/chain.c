/*
 * chain.c — kpyc, kopt's passes and kcpu/kcuda's emitter in one process
 * (chain.h): what the three tools' main functions do, less the kir text
 * between them.
 */
#include "ast.h"
#include "chain.h"

int
kchain(Src *srcs, int n, const ChainOpts *o, Diag *d, Buf *out)
{
	KpycOpts ko = {o->max_unroll, false};
	PassOpts po = {0};
	EmitOpts eo = {0};
	Module *m;
	int i, rc = 1;

	if (!(m = kpyc_compile(srcs, n, d, &ko)))
		return 1;
	po.d = d;
	po.src = NULL; /* no kir text: a pass's message carries no kir position */
	po.max_unroll = o->max_unroll;
	/* kopt verifies the module it parsed.  Here kpyc's module, fresh
	 * from our own frontend, is verified once: after the passes (below),
	 * where a frontend bug shows too, or here when no pass runs or the
	 * output is kir. */
	if ((!o->npipe || o->emit == CHAIN_KIR) && verify(m, NULL, d))
		goto done;
	modrename(m); /* the names kopt reads in the pipe */
	for (i = 0; i < o->npipe; i++)
		if (o->pipe[i]->fn(m, &po) || d->nerr)
			goto done;
	/* and kcuda (kcpu) verifies the one kopt printed */
	if (o->npipe && o->emit != CHAIN_KIR) {
		if (verify(m, NULL, d))
			goto done;
		modrename(m); /* and those kcuda reads */
	}
	switch (o->emit) {
	case CHAIN_KIR:
		printmod(out, m);
		break;
	case CHAIN_CUDA:
		if (emitcudacheck(m, o->co) < 0) {
			if (o->co->kernel)
				diagerr(d, NULL, (Loc){0}, "no kernel named '%s'", o->co->kernel);
			else
				diagerr(d, NULL, (Loc){0}, "no kernel for the standalone program");
			goto done;
		}
		eo.tool = "kcuda";
		eo.cuda = true;
		eo.linedirs = o->linedirs;
		emitcuda(m, &eo, o->co, out);
		break;
	case CHAIN_CPP:
		eo.tool = "kcpu";
		eo.linedirs = o->linedirs;
		emitcpu(m, &eo, out);
		break;
	}
	rc = 0;
done:
	modfree(m);
	return rc;
}
