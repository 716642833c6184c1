/*
 * load.c — reading the module a back end translates.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

Module *
loadkir(const char *path, char **text)
{
	Src src = {0};
	Diag d;
	Module *m;

	*text = NULL;
	if (!(src.text = *text = readfile(path, &src.len))) {
		fprintf(stderr, "%s: cannot read %s: %s\n", progname, path, strerror(errno));
		return NULL;
	}
	src.name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	diaginit(&d);
	if (!(m = parsekir(&src, &d)))
		return NULL;
	if (verify(m, &src, &d)) {
		modfree(m);
		return NULL;
	}
	return m;
}
