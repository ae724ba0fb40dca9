/* SPDX-License-Identifier: BSD-3-Clause */
// Included only under a condition that never holds (t754), as MG-CFD's euler3d.cpp includes
// papi_funcs.h under #ifdef PAPI: the headers it includes must still be in the kernel's text
// where they are included next.
#include "const.h"
#error "never.h is never compiled"
