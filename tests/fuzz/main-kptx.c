/* kptx's main as kptx_main, linked into mutate, which forks and calls it
 * for each mutated input (tests/fuzz/mutate.c, in-process runs). */
int kptx_main(int argc, char **argv);
#define main kptx_main
#include "../../backends/kptx.c"
