/*
 * kpackfuzz.c — fuzz target for kpack's record validation (`kpack
 * validate`, samples/kpack.c, compiled in here with its main renamed).
 *
 * Property checked on every input: checkrecord never crashes, and every
 * record it rejects gets at least one located message (file:line: error:).
 *
 * Built with clang -fsanitize=fuzzer by `make fuzz`; otherwise linked with
 * replay.c, which feeds it the files of tests/fuzz/corpus/kpack (make check).
 */
#define main kpack_main
#include "../../samples/kpack.c"
#undef main

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *text = xmalloc(size + 1), *msg = NULL;
	size_t msglen = 0;
	FILE *saved = stderr, *mem;
	int bad;

	memcpy(text, data, size);
	text[size] = 0;
	/* checkrecord reports on stderr: catch it (sanitizers write to fd 2) */
	if (!(mem = open_memstream(&msg, &msglen)))
		die("open_memstream failed");
	stderr = mem;
	bad = checkrecord("fuzz.jsonl", 1, text);
	stderr = saved;
	fclose(mem);
	if (bad && !strstr(msg, "fuzz.jsonl:1: error: "))
		die("a rejected record got no located message");
	if (!bad && msglen)
		die("an accepted record got messages:\n%s", msg);
	free(msg);
	free(text);
	return 0;
}
