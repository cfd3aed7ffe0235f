// The streaming-store threshold (core/stream_stores.h).
#include "core/stream_stores.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>

namespace oa {
namespace {

std::atomic<int64_t> g_stream_stores_above_for_testing{-1};

// The size of CPU 0's level-3 cache instance from sysfs ("32768K"), or 0. glibc's
// _SC_LEVEL3_CACHE_SIZE can report a whole socket's L3 (256 MiB on an 8-CCX EPYC, whose
// cores each see 32 MiB), which would keep much larger outputs out of the streamed kernels.
int64_t SysfsLevel3Bytes() {
  std::FILE* file = std::fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
  if (file == nullptr) return 0;
  long long value = 0;
  char unit = 0;
  const int fields = std::fscanf(file, "%lld%c", &value, &unit);
  std::fclose(file);
  if (fields < 1 || value <= 0) return 0;
  const int64_t scale = unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1;
  return static_cast<int64_t>(value) * scale;
}

}  // namespace

int64_t StreamStoresAboveBytes() {
  const int64_t forced = g_stream_stores_above_for_testing.load(std::memory_order_relaxed);
  if (forced >= 0) return forced;
  static const int64_t bytes = [] {
    if (const int64_t instance = SysfsLevel3Bytes(); instance > 0) return instance;
    const long reported = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return reported > 0 ? static_cast<int64_t>(reported) : int64_t{32} << 20;
  }();
  return bytes;
}

void SetStreamStoresAboveBytesForTesting(int64_t bytes) {
  g_stream_stores_above_for_testing.store(bytes, std::memory_order_relaxed);
}

}  // namespace oa
