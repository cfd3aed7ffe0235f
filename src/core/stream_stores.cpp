// The streaming-store threshold (core/stream_stores.h).
#include "core/stream_stores.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <atomic>
#include <cstdio>
#include <cstring>

namespace oa {
namespace {

std::atomic<int64_t> g_stream_stores_above_for_testing{-1};

constexpr int64_t kDefaultLevel3Bytes = int64_t{32} << 20;

// The size of CPU 0's level-3 cache instance from sysfs ("32768K"), or 0.
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

// The level-3 instance from the CPU's deterministic cache parameters (Intel's leaf 4, AMD's
// and Hygon's leaf 0x8000001D: ways x partitions x line x sets of one instance), or 0 where
// the CPU (or the hypervisor) does not report them.
int64_t CpuidLevel3Bytes() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d) == 0) return 0;
  char vendor[13] = {};
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &c, 4);
  const bool amd_leaf = std::strcmp(vendor, "AuthenticAMD") == 0 || std::strcmp(vendor, "HygonGenuine") == 0;
  unsigned leaf = 4;
  if (amd_leaf) {
    leaf = 0x8000001D;
    // The leaf exists only with the topology extensions (leaf 0x80000001, ECX bit 22).
    if (__get_cpuid(0x80000000, &a, &b, &c, &d) == 0 || a < leaf) return 0;
    if (__get_cpuid(0x80000001, &a, &b, &c, &d) == 0 || (c & (1u << 22)) == 0) return 0;
  } else if (a < leaf) {
    return 0;
  }
  for (unsigned subleaf = 0; subleaf < 16; ++subleaf) {
    if (__get_cpuid_count(leaf, subleaf, &a, &b, &c, &d) == 0) return 0;
    const unsigned type = a & 31;  // 0: no more caches; 1 data, 2 instruction, 3 unified
    if (type == 0) return 0;
    if (((a >> 5) & 7) != 3 || type == 2) continue;
    const int64_t line = (b & 0xfff) + 1, partitions = ((b >> 12) & 0x3ff) + 1, ways = ((b >> 22) & 0x3ff) + 1;
    const int64_t sets = static_cast<int64_t>(c) + 1;
    return line * partitions * ways * sets;
  }
#endif
  return 0;
}

struct Level3 {
  int64_t bytes;
  const char* source;
};

// sysconf(_SC_LEVEL3_CACHE_SIZE) is not consulted: glibc takes it on AMD from leaf
// 0x80000006, which reports the whole package's L3 (256 MiB on an 8-CCX EPYC whose cores
// each see 32 MiB; 508 MiB on this project's KVM guest, which exposes neither sysfs caches
// nor the topology leaf), and an inflated size keeps large outputs out of the streamed kernels.
Level3 FindLevel3() {
  if (const int64_t bytes = SysfsLevel3Bytes(); bytes > 0) return {bytes, "3/4 of the L3 instance in sysfs"};
  if (const int64_t bytes = CpuidLevel3Bytes(); bytes > 0) return {bytes, "3/4 of the L3 instance from CPUID"};
  return {kDefaultLevel3Bytes, "3/4 of 32 MiB: no L3 instance size reported"};
}

const Level3& DetectedLevel3() {
  static const Level3 level3 = FindLevel3();
  return level3;
}

}  // namespace

// Three quarters of the instance, as glibc's memcpy chooses its non-temporal threshold: an
// output that nearly fills the cache evicts its own input and lines of itself before the
// call ends. Measured here (2026-12-06, 1 thread): channels-last bilinear x2.5 with a
// 25 MiB output, 19-24 GB/s with plain stores and 28-32 GB/s streamed; a 14 MiB output
// (nearest-exact x2.4) is faster with plain stores.
int64_t StreamStoresAboveBytes() {
  const int64_t forced = g_stream_stores_above_for_testing.load(std::memory_order_relaxed);
  if (forced >= 0) return forced;
  return DetectedLevel3().bytes / 4 * 3;
}

int64_t StreamStoresAboveBytes(int64_t family_bytes) {
  const int64_t forced = g_stream_stores_above_for_testing.load(std::memory_order_relaxed);
  return forced >= 0 ? forced : family_bytes;
}

const char* StreamStoresAboveSource() { return DetectedLevel3().source; }

void SetStreamStoresAboveBytesForTesting(int64_t bytes) {
  g_stream_stores_above_for_testing.store(bytes, std::memory_order_relaxed);
}

}  // namespace oa
