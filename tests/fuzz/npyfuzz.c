/*
 * npyfuzz.c — fuzz target for the .npy reader (runtime/npy.c).
 *
 * Property checked on every input: npy_parse never crashes and either
 * fails with a message or returns an array whose count is the product of
 * its shape, with every element readable; a parsed array written back
 * and read again is the same array.
 *
 * Built with clang -fsanitize=fuzzer by `make fuzz`; otherwise linked with
 * replay.c, which feeds it the files of tests/fuzz/corpus/npy (make check).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ir.h"
#include "npy.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	NpyArray a = {0}, b = {0};
	char err[256], path[64], shape[128];
	int64_t n = 1, i;
	double sum = 0;
	int d;

	if (npy_parse((const char *)data, size, &a, err, sizeof err) != 0) {
		if (!err[0])
			die("npy_parse failed without a message");
		return 0;
	}
	for (d = 0; d < a.ndim; d++)
		n *= a.shape[d];
	if (a.ndim < 0 || a.ndim > NPY_MAXDIM || n != a.count)
		die("npy_parse: count %" PRId64 " is not the product of the shape", a.count);
	for (i = 0; i < a.count; i++)
		sum += kpy_get(a.data, a.dtype, i);
	npy_shapestr(&a, shape, sizeof shape);
	snprintf(path, sizeof path, "/tmp/npyfuzz-%ld.npy", (long)getpid());
	if (npy_write(path, &a, err, sizeof err) == 0) {
		if (npy_read(path, &b, err, sizeof err) != 0)
			die("npy_read of a written array failed: %s", err);
		if (b.dtype != a.dtype || b.ndim != a.ndim || b.count != a.count ||
		    memcmp(b.data, a.data, (size_t)a.count * (size_t)npy_dtype_size(a.dtype)) != 0)
			die("an array written and read back differs");
		npy_free(&b);
	}
	unlink(path);
	npy_free(&a);
	return sum != sum; /* keep the reads */
}
