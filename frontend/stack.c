/*
 * stack.c — kpyc_compile runs the compiler on a thread with a large stack.
 *
 * The AST is walked recursively (sema, expr, constants); py.y bounds how
 * deep an expression nests (MAXNEST), and this stack bounds what that
 * depth may cost, with room to spare under the sanitizers (whose frames
 * are several times larger).  The stack is reserved, not committed: pages
 * are touched only as deep as the input nests.
 */
#include <pthread.h>

#include "ast.h"

enum { STACKSIZE = 512 << 20 };

typedef struct Job {
	Src *srcs;
	int nsrcs;
	Diag *d;
	const KpycOpts *o;
	Module *m;
} Job;

static void *
run(void *arg)
{
	Job *j = arg;

	j->m = kpyc_compile_here(j->srcs, j->nsrcs, j->d, j->o);
	return NULL;
}

Module *
kpyc_compile(Src *srcs, int nsrcs, Diag *d, const KpycOpts *o)
{
	Job j = {srcs, nsrcs, d, o, NULL};
	pthread_attr_t at;
	pthread_t t;
	int r;

	if (pthread_attr_init(&at) != 0)
		return kpyc_compile_here(srcs, nsrcs, d, o);
	r = pthread_attr_setstacksize(&at, STACKSIZE);
	if (r == 0)
		r = pthread_create(&t, &at, run, &j);
	pthread_attr_destroy(&at);
	if (r != 0) /* no thread (limits): the caller's stack it is */
		return kpyc_compile_here(srcs, nsrcs, d, o);
	pthread_join(t, NULL);
	return j.m;
}
