#include "autodiff.h"
