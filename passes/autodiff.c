#include "autodiff.h"
int autodiff(Module *m, PassOpts *o) { (void)m; (void)o; return 0; }
