/* kpyc's main as kpyc_main, linked into mutate, which forks and calls it
 * for each mutated input (tests/fuzz/mutate.c, in-process runs). */
int kpyc_main(int argc, char **argv);
#define main kpyc_main
#include "../../frontend/kpyc.c"
