/* krun's main as krun_main, linked into mutate, which forks and calls it
 * for each mutated input (tests/fuzz/mutate.c, in-process runs). */
int krun_main(int argc, char **argv);
#define main krun_main
#include "../../runtime/krun.c"
