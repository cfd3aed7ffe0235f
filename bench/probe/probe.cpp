// Prints copy / read / triad bandwidth at 1 thread and at all threads, for a working set
// that stays in L3 and one that goes to DRAM. The sizes are the total bytes a probe's
// arrays occupy (copy: 2 arrays, read: 1, triad: 3), so the three see the same footprint.
//
//   openaclnn_bench_probe [--l3_mib=32] [--dram_mib=1024] [--reps=5]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench_common.h"
#include "core/simd.h"
#include "core/thread_pool.h"

namespace {

long FlagValue(int argc, char** argv, const char* name, long fallback) {
  const size_t length = std::strlen(name);
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], name, length) == 0 && argv[i][length] == '=') return std::atol(argv[i] + length + 1);
  }
  return fallback;
}

void ProbeFootprint(const char* label, size_t footprint_bytes, int all_threads, int reps) {
  const size_t floats = footprint_bytes / 4;
  // One allocation per array, pre-faulted; each probe uses the first footprint/arrays bytes.
  bench::Buffer a = bench::AllocateTouched(floats * 4, 0x3C);
  bench::Buffer b = bench::AllocateTouched(floats * 4 / 2, 0x3D);
  bench::Buffer c = bench::AllocateTouched(floats * 4 / 3);
  const float* pa = bench::As<float>(a);
  const float* pb = bench::As<float>(b);
  for (int threads : {1, all_threads}) {
    const double copy = bench::ProbeCopy(pa, bench::As<float>(b), floats / 2, threads, reps);
    const double read = bench::ProbeRead(pa, floats, threads, reps);
    const double triad = bench::ProbeTriad(pa, pb, bench::As<float>(c), floats / 3, threads, reps);
    std::printf("%-5s %8.0f MiB %7d %10.1f %10.1f %10.1f\n", label, footprint_bytes / 1048576.0, threads, copy, read,
                triad);
    if (all_threads == 1) break;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const long l3_mib = FlagValue(argc, argv, "--l3_mib", 32);
  const long dram_mib = FlagValue(argc, argv, "--dram_mib", 1024);
  const int reps = static_cast<int>(FlagValue(argc, argv, "--reps", 5));
  const int all_threads = oa::NumThreads();
  std::printf("bandwidth probe, GB/s (10^9 B/s), best of %d; SIMD target %s; buffers pre-faulted\n", reps,
              oa::SimdTargetName().c_str());
  std::printf("copy = memcpy per thread chunk (read+write), read = integer sum, triad = c = a + 3b\n");
  std::printf("%-5s %12s %7s %10s %10s %10s\n", "level", "footprint", "threads", "copy", "read", "triad");
  ProbeFootprint("L3", static_cast<size_t>(l3_mib) << 20, all_threads, reps);
  ProbeFootprint("DRAM", static_cast<size_t>(dram_mib) << 20, all_threads, reps);
  return 0;
}
