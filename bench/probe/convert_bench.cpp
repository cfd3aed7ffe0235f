// Side-by-side demo of the harness on a real kernel: fp32 -> fp16 and fp32 -> bf16 rows
// with the library's SIMD converters (LoadAsFloat / StoreFromFloat) against torch's cast
// and a copy of the same bytes. Sizes come from a shape file (convert_shapes.txt).
//
//   openaclnn_bench_convert [--shapes=FILE] [--threads=N] [--reps=R] [--cases=SUBSTRING]
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "convert_bench.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "core/simd_convert-inl.h"

HWY_BEFORE_NAMESPACE();
namespace oa {
namespace HWY_NAMESPACE {

template <typename To>
void NarrowRow(const float* HWY_RESTRICT src, To* HWY_RESTRICT dst, size_t n) {
  const hn::ScalableTag<float> df;
  const size_t lanes = hn::Lanes(df);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) StoreFromFloat(LoadAsFloat(df, src + i), df, dst + i);
  for (; i < n; ++i) FromFloat(src[i], dst + i);
}
void BenchFloatToHalfRow(const float* src, Half16* dst, size_t n) { NarrowRow(src, dst, n); }
void BenchFloatToBf16Row(const float* src, BFloat16* dst, size_t n) { NarrowRow(src, dst, n); }

}  // namespace HWY_NAMESPACE
}  // namespace oa
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "bench_common.h"
#include "core/thread_pool.h"
#if OPENACLNN_BENCH_WITH_TORCH
#include "torch_oracle.h"
#endif

namespace oa {
HWY_EXPORT(BenchFloatToHalfRow);
HWY_EXPORT(BenchFloatToBf16Row);
}  // namespace oa

namespace {

struct ConvertCase {
  size_t n;
  int threads;
  bench::Buffer src, dst;

  ConvertCase(size_t elements, int thread_count)
      : n(elements),
        threads(thread_count),
        src(bench::AllocateTouched(elements * 4, 0x3E)),
        dst(bench::AllocateTouched(elements * 2)) {}

  // Fixed partition: one contiguous chunk per thread, boundaries on 64 elements.
  template <typename Row>
  void Run(const Row& row) const {
    const size_t per_task = ((n + threads - 1) / threads + 63) / 64 * 64;
    oa::ParallelFor(threads, threads, [&](int64_t task) {
      const size_t begin = std::min(n, per_task * static_cast<size_t>(task));
      const size_t end = std::min(n, begin + per_task);
      row(bench::As<float>(src) + begin, begin, end - begin);
    });
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::string shapes = OPENACLNN_CONVERT_SHAPES;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--shapes=", 9) == 0) {
      shapes = argv[i] + 9;
      std::memmove(argv + i, argv + i + 1, sizeof(char*) * static_cast<size_t>(argc - i));
      --argc;
      break;
    }
  }
  const bench::Options options = bench::ParseOptions(&argc, argv);
  for (const bench::ShapeLine& line : bench::ReadShapeFile(shapes)) {
    if (line.tokens.size() != 2) {
      std::fprintf(stderr, "%s:%d: expected 'name elements'\n", shapes.c_str(), line.line_number);
      return 1;
    }
    const size_t n = static_cast<size_t>(bench::ParseInts(line.tokens[1]).at(0));
    auto state = std::make_shared<ConvertCase>(n, options.threads);
    const double bytes = 6.0 * static_cast<double>(n);  // read 4, write 2 per element
    bench::Case to_half{"fp32->fp16/" + line.tokens[0], bytes, nullptr, nullptr, nullptr};
    to_half.ours = [state] {
      state->Run([&](const float* src, size_t begin, size_t count) {
        HWY_DYNAMIC_DISPATCH(oa::BenchFloatToHalfRow)(src, bench::As<oa::Half16>(state->dst) + begin, count);
      });
    };
    bench::Case to_bf16{"fp32->bf16/" + line.tokens[0], bytes, nullptr, nullptr, nullptr};
    to_bf16.ours = [state] {
      state->Run([&](const float* src, size_t begin, size_t count) {
        HWY_DYNAMIC_DISPATCH(oa::BenchFloatToBf16Row)(src, bench::As<oa::BFloat16>(state->dst) + begin, count);
      });
    };
#if OPENACLNN_BENCH_WITH_TORCH
    to_half.torch = [state] {
      oracle::FloatToHalf(bench::As<float>(state->src), bench::As<uint16_t>(state->dst), static_cast<int64_t>(state->n));
    };
    to_bf16.torch = [state] {
      oracle::FloatToBf16(bench::As<float>(state->src), bench::As<uint16_t>(state->dst), static_cast<int64_t>(state->n));
    };
#endif
    bench::RegisterCase(std::move(to_half));
    bench::RegisterCase(std::move(to_bf16));
  }
  return bench::RunRegisteredCases(options, argc, argv);
}
#endif  // HWY_ONCE
