/* print_test.cpp — the values of gen_ref.py's PRINTS, printed with
 * kpy::print (ref/prints.inc); print.test compares with ref/print.txt. */
#include "kpy/kpy.h"

int main()
{
#include "ref/prints.inc"
	return 0;
}
