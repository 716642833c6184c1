/* kpack's main as kpack_main, linked into mutate, which forks and calls it
 * for each mutated input (tests/fuzz/mutate.c, in-process runs). */
int kpack_main(int argc, char **argv);
#define main kpack_main
#include "../../samples/kpack.c"
