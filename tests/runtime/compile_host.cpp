/* compile_host.cpp — every runtime family instantiated on the host (see
 * exercise.inc); run, it also prints the launch-grid and print() smoke. */
#include "kpy/kpy.h"

#include "exercise.inc"

int main(int argc, char **argv)
{
	(void)argv;
	static kpy::ex::ex_buffers b;
	double s = kpy::ex::kpy_exercise(&b, 0.25f, argc + 1);
	return s == s ? 0 : 1;
}
