/* kcpu's main as kcpu_main, linked into mutate, which forks and calls it
 * for each mutated input (tests/fuzz/mutate.c, in-process runs). */
int kcpu_main(int argc, char **argv);
#define main kcpu_main
#include "../../backends/kcpu.c"
