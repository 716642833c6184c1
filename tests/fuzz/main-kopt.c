/* kopt's main as kopt_main, linked into mutate, which forks and calls it
 * for each mutated input (tests/fuzz/mutate.c, in-process runs). */
int kopt_main(int argc, char **argv);
#define main kopt_main
#include "../../passes/kopt.c"
