/* kcuda's main as kcuda_main, linked into mutate, which forks and calls it
 * for each mutated input (tests/fuzz/mutate.c, in-process runs). */
int kcuda_main(int argc, char **argv);
#define main kcuda_main
#include "../../backends/kcuda.c"
