/*
 * replay.c — the main of a fuzz target in the plain build: feed each file
 * named on the command line to LLVMFuzzerTestOneInput once (make check
 * replays the regression corpus this way; a crash or a die() fails it).
 *
 *   TARGET-replay FILE...
 */
#include <stdio.h>
#include <stdlib.h>

#include "ir.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
main(int argc, char **argv)
{
	int i;

	progname = argv[0];
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		size_t n;
		char *text = readfile(argv[i], &n);
		if (!text)
			fatal("cannot read %s:", argv[i]);
		LLVMFuzzerTestOneInput((const unsigned char *)text, n);
		free(text);
	}
	printf("%s: %d inputs, no failure\n", progname, argc - 1);
	return 0;
}
