// When kernels write their outputs with non-temporal (streaming) stores: outputs past the
// last-level cache would not stay cached anyway, and streaming saves the read for ownership
// of every line. Shared by the upsample, normalization and batch-norm planners.
#pragma once

#include <cstdint>

namespace oa {

// Three quarters of the last-level cache instance this CPU shares (CPU 0's level-3 instance
// from sysfs, else from CPUID's cache parameters, else 32 MiB); what
// SetStreamStoresAboveBytesForTesting forced, while forced.
int64_t StreamStoresAboveBytes();

// A family whose own measurements set its threshold (batch norm: a fixed 8 MiB): that, or
// what SetStreamStoresAboveBytesForTesting forced, while forced.
int64_t StreamStoresAboveBytes(int64_t family_bytes);

// Where the unforced size came from, for the system report.
const char* StreamStoresAboveSource();

// Tests force the streamed paths on small problems (0) or restore the default (-1).
void SetStreamStoresAboveBytesForTesting(int64_t bytes);

}  // namespace oa
