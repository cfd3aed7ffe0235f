// OA_KERNEL_HELPER marks a kernel's mid-level helpers (one segment, one chunk of a row):
// always inlined into their layout's kernel in optimized builds, out of line in the
// sanitizer builds (OPENACLNN_OUTLINE_KERNEL_HELPERS, set by src/CMakeLists.txt), where
// clang's ASan + UBSan at -O1 on one fully inlined kernel per layout took up to ten minutes
// per translation unit. The same code runs under the same checks either way.
#pragma once

#include <hwy/base.h>

#if defined(OPENACLNN_OUTLINE_KERNEL_HELPERS)
#define OA_KERNEL_HELPER HWY_NOINLINE
#else
#define OA_KERNEL_HELPER HWY_INLINE
#endif
