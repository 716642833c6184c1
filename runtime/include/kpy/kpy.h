/*
 * kpy/kpy.h — the whole kpy runtime.  Kernels that care about compile time
 * include only the family headers they use (see docs/runtime.md).
 */
#ifndef KPY_KPY_H
#define KPY_KPY_H

#include "core.h"
#include "vec.h"
#include "mat.h"
#include "quat.h"
#include "transform.h"
#include "spatial.h"
#include "decomp.h"
#include "array.h"
#include "atomic.h"
#include "rand.h"
#include "noise.h"
#include "print.h"

#endif /* KPY_KPY_H */
