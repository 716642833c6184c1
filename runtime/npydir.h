/*
 * npydir.h — folders of .npy arrays (npydir.c).  Not part of the host
 * source the standalone CUDA program carries (npy.h is).
 */
#ifndef KPY_NPYDIR_H
#define KPY_NPYDIR_H

#include "npy.h"

/* Compare every .npy file of folder a with the one of the same name in b
 * (kpy_compare, want = a's); messages on stderr, prefixed "who: ".  0 when
 * all match, else 1. */
int kpy_comparedirs(const char *who, const char *a, const char *b, double rtol, double atol);

#endif /* KPY_NPYDIR_H */
