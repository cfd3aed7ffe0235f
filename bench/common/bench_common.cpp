#include "bench_common.h"

#include <benchmark/benchmark.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cerrno>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <new>
#include <stdexcept>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/simd.h"
#include "core/thread_pool.h"

#if OPENACLNN_BENCH_WITH_TORCH
#include "torch_oracle.h"
#endif

namespace bench {

// ---------------------------------------------------------------------------------------
// Buffers

void FreeDeleter::operator()(void* p) const { std::free(p); }

Buffer AllocateTouched(size_t bytes, uint8_t fill) {
  constexpr size_t kHugePage = size_t{2} << 20;
  const size_t rounded = std::max(kHugePage, (bytes + kHugePage - 1) / kHugePage * kHugePage);
  void* p = std::aligned_alloc(kHugePage, rounded);
  if (p == nullptr) throw std::bad_alloc();
  madvise(p, rounded, MADV_HUGEPAGE);  // a hint; failure is harmless
  std::memset(p, fill, rounded);       // first touch now, not inside a timed loop
  return Buffer(static_cast<uint8_t*>(p));
}

// ---------------------------------------------------------------------------------------
// (a) Probes

namespace {

using Clock = std::chrono::steady_clock;

struct Chunk {
  size_t begin;
  size_t end;
};

// Equal contiguous chunks, boundaries on 16 floats (64 bytes) so no cache line is shared.
Chunk ChunkOf(size_t n, int threads, int64_t task) {
  const size_t workers = static_cast<size_t>(threads);
  const size_t per_task = ((n + workers - 1) / workers + 15) / 16 * 16;
  const size_t begin = std::min(n, per_task * static_cast<size_t>(task));
  return {begin, std::min(n, begin + per_task)};
}

template <typename Pass>
double BestGbPerSecond(double bytes, int reps, const Pass& pass) {
  double best_seconds = 1e300;
  for (int rep = 0; rep < std::max(1, reps); ++rep) {
    const auto start = Clock::now();
    pass();
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    best_seconds = std::min(best_seconds, seconds);
  }
  return bytes / best_seconds * 1e-9;
}

std::atomic<uint32_t> g_read_sink{0};  // keeps the read probe's loads alive

uint32_t SumBits(const float* src, size_t begin, size_t end) {
  // Integer adds on the bit patterns: associative, so the compiler vectorises freely and the
  // loop is bound by loads, not by floating-point add latency.
  const uint32_t* words = reinterpret_cast<const uint32_t*>(src);
  uint32_t sum = 0;
  for (size_t i = begin; i < end; ++i) sum += words[i];
  return sum;
}

// dst[begin, end) = 1.0f. Chunk boundaries are multiples of 16 floats from a 2 MiB-aligned
// buffer, so every vector store is aligned. Whole 64-byte lines per store where the CPU has
// AVX-512 (16-byte streamed stores measured slower than the kernels' own on this guest).
#if defined(__x86_64__)
__attribute__((target("avx512f"))) void StreamFillAvx512(float* dst, size_t begin, size_t end) {
  const __m512 ones = _mm512_set1_ps(1.0f);
  size_t i = begin;
  for (; i + 16 <= end; i += 16) _mm512_stream_ps(dst + i, ones);
  for (; i < end; ++i) dst[i] = 1.0f;
}
__attribute__((target("avx"))) void StreamFillAvx(float* dst, size_t begin, size_t end) {
  const __m256 ones = _mm256_set1_ps(1.0f);
  size_t i = begin;
  for (; i + 8 <= end; i += 8) _mm256_stream_ps(dst + i, ones);
  for (; i < end; ++i) dst[i] = 1.0f;
}
#endif

void StreamFill(float* dst, size_t begin, size_t end) {
#if defined(__x86_64__)
  static const bool avx512 = __builtin_cpu_supports("avx512f"), avx = __builtin_cpu_supports("avx");
  if (avx512) return StreamFillAvx512(dst, begin, end);
  if (avx) return StreamFillAvx(dst, begin, end);
  const __m128 ones = _mm_set1_ps(1.0f);
  size_t i = begin;
  for (; i + 4 <= end; i += 4) _mm_stream_ps(dst + i, ones);
  for (; i < end; ++i) dst[i] = 1.0f;
#else
  std::fill(dst + begin, dst + end, 1.0f);
#endif
}

}  // namespace

void CopyOnce(const float* src, float* dst, size_t n, int threads) {
  threads = std::max(1, threads);
  oa::ParallelFor(threads, threads, [&](int64_t task) {
    const Chunk chunk = ChunkOf(n, threads, task);
    // memcpy: glibc's best copy for the size (it switches to non-temporal stores for
    // large chunks), i.e. the practical ceiling an operator is compared with.
    if (chunk.end > chunk.begin) std::memcpy(dst + chunk.begin, src + chunk.begin, (chunk.end - chunk.begin) * 4);
  });
}

void ReadWriteOnce(const float* src, size_t n_read, float* dst, size_t n_write, int threads) {
  threads = std::max(1, threads);
  oa::ParallelFor(threads, threads, [&](int64_t task) {
    const Chunk read = ChunkOf(n_read, threads, task), write = ChunkOf(n_write, threads, task);
    constexpr size_t kPieces = 4096;  // pieces (multiples of 16 floats) alternate reads and writes
    const size_t read_piece = ((read.end - read.begin) / kPieces + 15) / 16 * 16;
    const size_t write_piece = ((write.end - write.begin) / kPieces + 15) / 16 * 16;
    uint32_t sum = 0;
    size_t r = read.begin, w = write.begin;
    while (r < read.end || w < write.end) {
      const size_t r_end = std::min(read.end, r + std::max<size_t>(read_piece, 16));
      sum += SumBits(src, r, r_end);
      r = r_end;
      const size_t w_end = std::min(write.end, w + std::max<size_t>(write_piece, 16));
      StreamFill(dst, w, w_end);
      w = w_end;
    }
    g_read_sink.fetch_add(sum, std::memory_order_relaxed);
  });
#if defined(__x86_64__)
  _mm_sfence();  // the streamed stores are complete when the pass is
#endif
}

double ProbeCopy(const float* src, float* dst, size_t n, int threads, int reps) {
  CopyOnce(src, dst, n, threads);  // warm-up
  return BestGbPerSecond(2.0 * 4 * n, reps, [&] { CopyOnce(src, dst, n, threads); });
}

double ProbeRead(const float* src, size_t n, int threads, int reps) {
  threads = std::max(1, threads);
  const auto pass = [&] {
    oa::ParallelFor(threads, threads, [&](int64_t task) {
      const Chunk chunk = ChunkOf(n, threads, task);
      g_read_sink.fetch_add(SumBits(src, chunk.begin, chunk.end), std::memory_order_relaxed);
    });
  };
  pass();
  return BestGbPerSecond(4.0 * n, reps, pass);
}

void TriadOnce(const float* a, const float* b, float* c, size_t n, int threads) {
  threads = std::max(1, threads);
  oa::ParallelFor(threads, threads, [&](int64_t task) {
    const Chunk chunk = ChunkOf(n, threads, task);
    for (size_t i = chunk.begin; i < chunk.end; ++i) c[i] = a[i] + 3.0f * b[i];
  });
}

double ProbeTriad(const float* a, const float* b, float* c, size_t n, int threads, int reps) {
  const auto pass = [&] { TriadOnce(a, b, c, n, threads); };
  pass();
  return BestGbPerSecond(3.0 * 4 * n, reps, pass);
}

// ---------------------------------------------------------------------------------------
// (b) Shape files

std::vector<std::string> Tokenize(const std::string& line) {
  std::vector<std::string> tokens;
  std::string current;
  for (char ch : line) {
    if (ch == '#') break;
    if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n') {
      if (!current.empty()) tokens.push_back(std::move(current));
      current.clear();
    } else {
      current.push_back(ch);
    }
  }
  if (!current.empty()) tokens.push_back(std::move(current));
  return tokens;
}

std::vector<ShapeLine> ReadShapeFile(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error("cannot open shape file " + path);
  std::vector<ShapeLine> lines;
  std::string text;
  int number = 0;
  while (std::getline(file, text)) {
    ++number;
    std::vector<std::string> tokens = Tokenize(text);
    if (!tokens.empty()) lines.push_back({number, std::move(tokens)});
  }
  return lines;
}

std::vector<int64_t> ParseInts(const std::string& token) {
  std::vector<int64_t> values;
  const char* p = token.c_str();
  const auto is_separator = [](char ch) { return ch == 'x' || ch == 'X' || ch == ',' || ch == '[' || ch == ']'; };
  while (*p != '\0') {
    if (is_separator(*p)) {
      ++p;
      continue;
    }
    char* end = nullptr;
    const long long value = std::strtoll(p, &end, 10);
    if (end == p) throw std::invalid_argument("not a list of integers: '" + token + "'");
    values.push_back(value);
    p = end;
  }
  return values;
}

double ParseDouble(const std::string& token) {
  char* end = nullptr;
  const double value = std::strtod(token.c_str(), &end);
  if (token.empty() || *end != '\0') throw std::invalid_argument("not a number: '" + token + "'");
  return value;
}

// ---------------------------------------------------------------------------------------
// (c) Side-by-side cases

namespace {

enum Kind { kOurs = 0, kTorch = 1, kCopy = 2, kReadWrite = 3, kKinds = 4 };
const char* const kKindNames[kKinds] = {"ours", "torch", "copy", "read_write"};

struct Registry {
  std::vector<Case> cases;
  std::string filter;
  // Best seconds per call, per case and kind (< 0: not measured).
  std::vector<std::array<double, kKinds>> best;
  // Default copy probe buffers, shared by every case that brings none.
  Buffer copy_src;
  Buffer copy_dst;
  // Read-write probe buffers, sized for the largest split of the cases that ask for it.
  Buffer read_write_src;
  Buffer read_write_dst;
};

Registry& TheRegistry() {
  static Registry registry;
  return registry;
}

std::string TimedName(size_t case_index, int kind) {
  return TheRegistry().cases[case_index].name + "/" + kKindNames[kind];
}

// Passes runs to the console as usual and keeps the fastest repetition of each benchmark.
class TableReporter : public benchmark::ConsoleReporter {
 public:
  explicit TableReporter(std::map<std::string, std::pair<size_t, int>> names)
      : ConsoleReporter(isatty(STDOUT_FILENO) ? OO_ColorTabular : OO_Tabular), names_(std::move(names)) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    std::vector<Run> shown;
    for (const Run& run : runs) {
      if (run.run_type == Run::RT_Iteration && !run.error_occurred && run.iterations > 0) {
        const auto found = names_.find(run.run_name.function_name);
        if (found != names_.end()) {
          double& best = TheRegistry().best[found->second.first][found->second.second];
          const double seconds = run.real_accumulated_time / static_cast<double>(run.iterations);
          if (best < 0 || seconds < best) best = seconds;
        }
      }
      // With repetitions, show only the aggregates (the table has the minimum).
      if (run.repetitions <= 1 || run.run_type == Run::RT_Aggregate || run.error_occurred) shown.push_back(run);
    }
    if (!shown.empty()) ConsoleReporter::ReportRuns(shown);
  }

 private:
  std::map<std::string, std::pair<size_t, int>> names_;
};

bool ParseFlag(const char* arg, const char* name, std::string* value) {
  const size_t length = std::strlen(name);
  if (std::strncmp(arg, name, length) != 0 || arg[length] != '=') return false;
  *value = arg + length + 1;
  return true;
}

void PrintTable(const Options& options) {
  Registry& registry = TheRegistry();
  const bool read_write = std::any_of(registry.cases.begin(), registry.cases.end(),
                                      [](const Case& c) { return c.read_bytes > 0; });
  std::printf("\n%-44s %10s %9s %9s %9s %10s %9s %9s %5s%s\n", "case", "MB moved", "ours ms", "GB/s ours",
              "GB/s torch", "GB/s roof", "ours/torch", "ours/roof", "roof",
              read_write ? "  GB/s r+w  ours/r+w" : "");
  for (size_t i = 0; i < registry.cases.size(); ++i) {
    const Case& c = registry.cases[i];
    double rate[kKinds];
    for (int kind = 0; kind < kKinds; ++kind) {
      const double seconds = registry.best[i][kind];
      rate[kind] = seconds > 0 ? c.bytes / seconds * 1e-9 : -1;
    }
    const auto cell = [](double value, const char* format, char* out) {
      if (value < 0) {
        std::snprintf(out, 32, "-");
      } else {
        std::snprintf(out, 32, format, value);
      }
    };
    char ours_ms[32], ours[32], torch[32], copy[32], vs_torch[32], vs_copy[32];
    cell(registry.best[i][kOurs] > 0 ? registry.best[i][kOurs] * 1e3 : -1, "%.3f", ours_ms);
    cell(rate[kOurs], "%.2f", ours);
    cell(rate[kTorch], "%.2f", torch);
    cell(rate[kCopy], "%.2f", copy);
    cell(rate[kOurs] > 0 && rate[kTorch] > 0 ? rate[kOurs] / rate[kTorch] : -1, "%.2f", vs_torch);
    cell(rate[kOurs] > 0 && rate[kCopy] > 0 ? rate[kOurs] / rate[kCopy] : -1, "%.2f", vs_copy);
    std::printf("%-44s %10.2f %9s %9s %9s %10s %9s %9s %5s", c.name.c_str(), c.bytes * 1e-6, ours_ms, ours, torch,
                copy, vs_torch, vs_copy, c.roof.c_str());
    if (read_write) {
      char both[32], vs_both[32];
      cell(rate[kReadWrite], "%.2f", both);
      cell(rate[kOurs] > 0 && rate[kReadWrite] > 0 ? rate[kOurs] / rate[kReadWrite] : -1, "%.2f", vs_both);
      std::printf(" %10s %9s", both, vs_both);
    }
    std::printf("\n");
    AppendCsvRow({program_invocation_short_name, c.name, options.threads, c.bytes, registry.best[i][kOurs],
                  registry.best[i][kTorch], 0.0, rate[kCopy], c.roof});
  }
  std::printf("(GB/s = bytes an ideal kernel moves / best time; roof: the copy or triad probe moving the same bytes;\n"
              " ratios > 1: ours faster)\n");
  if (read_write) {
    std::printf("(r+w: the read-write probe reading and writing the case's own amounts in long runs, writes\n"
                " non-temporal)\n");
  }
}

}  // namespace

void AppendCsvRow(const CsvRow& row) {
  const char* path = std::getenv("OPENACLNN_BENCH_CSV");
  if (path == nullptr || *path == '\0') return;
  const bool fresh = !std::ifstream(path).good();
  std::ofstream out(path, std::ios::app);
  if (fresh) out << "benchmark,case,threads,bytes,ours_s,torch_s,onednn_s,roof_gbps,roof\n";
  const auto number = [](double v) {
    char text[32] = "";
    if (v > 0 && std::isfinite(v)) std::snprintf(text, sizeof text, "%.6g", v);
    return std::string(text);
  };
  out << row.benchmark << ',' << row.name << ',' << row.threads << ',' << static_cast<long long>(row.bytes) << ','
      << number(row.ours_s) << ',' << number(row.torch_s) << ',' << number(row.onednn_s) << ','
      << number(row.roof_gbps) << ',' << row.roof << '\n';
}

std::string TorchCapability() {
#if OPENACLNN_BENCH_WITH_TORCH
  return oracle::TorchCpuCapability();
#else
  return "torch not built in";
#endif
}

std::string TakeFlag(int* argc, char** argv, const char* name, const std::string& fallback) {
  std::string value = fallback;
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    if (!ParseFlag(argv[i], name, &value)) argv[kept++] = argv[i];
  }
  *argc = kept;
  return value;
}

Options ParseOptions(int* argc, char** argv) {
  Options options;
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    std::string value;
    if (ParseFlag(argv[i], "--threads", &value)) {
      options.threads = std::atoi(value.c_str());
    } else if (ParseFlag(argv[i], "--reps", &value)) {
      options.reps = std::max(1, std::atoi(value.c_str()));
    } else if (ParseFlag(argv[i], "--min_time_s", &value)) {
      options.min_time = std::max(1e-3, std::atof(value.c_str()));
    } else if (ParseFlag(argv[i], "--cases", &value)) {
      options.filter = value;
    } else {
      argv[kept++] = argv[i];
    }
  }
  *argc = kept;
  argv[kept] = nullptr;
  oa::SetNumThreads(options.threads);  // 0 keeps the default (all)
  options.threads = oa::NumThreads();
#if OPENACLNN_BENCH_WITH_TORCH
  oracle::SetTorchThreads(options.threads);
#endif
  TheRegistry().filter = options.filter;
  return options;
}

void RegisterCase(Case c) {
  Registry& registry = TheRegistry();
  if (!registry.filter.empty() && c.name.find(registry.filter) == std::string::npos) return;
  if (!c.ours) throw std::invalid_argument("bench case " + c.name + " has no 'ours' callable");
  // Names key the results, so make them unique.
  const std::string base = c.name;
  for (int suffix = 2;; ++suffix) {
    const bool taken = std::any_of(registry.cases.begin(), registry.cases.end(),
                                   [&](const Case& other) { return other.name == c.name; });
    if (!taken) break;
    c.name = base + "#" + std::to_string(suffix);
  }
  registry.cases.push_back(std::move(c));
}

int RunRegisteredCases(const Options& options, int argc, char** argv) {
  Registry& registry = TheRegistry();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  // The default copy probe moves bytes/2 -> bytes/2, like the case's own traffic.
  size_t copy_floats = 0;
  for (const Case& c : registry.cases) {
    if (!c.copy_probe) copy_floats = std::max(copy_floats, static_cast<size_t>(c.bytes / 2 / 4));
  }
  if (copy_floats > 0) {
    registry.copy_src = AllocateTouched(copy_floats * 4, 0x3C);
    registry.copy_dst = AllocateTouched(copy_floats * 4);
  }
  size_t read_floats = 0, write_floats = 0;
  for (const Case& c : registry.cases) {
    if (c.read_bytes <= 0) continue;
    read_floats = std::max(read_floats, static_cast<size_t>(c.read_bytes / 4));
    write_floats = std::max(write_floats, static_cast<size_t>((c.bytes - c.read_bytes) / 4));
  }
  if (read_floats > 0) {
    registry.read_write_src = AllocateTouched(read_floats * 4, 0x3C);
    registry.read_write_dst = AllocateTouched(std::max<size_t>(write_floats, 16) * 4);
  }

  std::printf("openaclnn side-by-side benchmark\n");
  std::printf("  threads: %d (ours, oa::SetNumThreads) | torch threads: %s\n", options.threads,
#if OPENACLNN_BENCH_WITH_TORCH
              std::to_string(oracle::SetTorchThreads(0)).c_str()
#else
              "-"
#endif
  );
  std::printf("  ours SIMD target: %s | torch CPU capability: %s (ATEN_CPU_CAPABILITY=%s)\n",
              oa::SimdTargetName().c_str(), TorchCapability().c_str(),
              std::getenv("ATEN_CPU_CAPABILITY") ? std::getenv("ATEN_CPU_CAPABILITY") : "unset");
  std::printf("  buffers: allocated once per case, pre-faulted, reused by every iteration and by all three\n"
              "  callables; torch writes through out= where torch has it, else into its own allocation\n"
              "  reps: %d x >= %.3f s each, table shows the fastest repetition\n\n",
              options.reps, options.min_time);

  registry.best.assign(registry.cases.size(), {-1.0, -1.0, -1.0, -1.0});
  std::map<std::string, std::pair<size_t, int>> names;
  for (size_t i = 0; i < registry.cases.size(); ++i) {
    Case& c = registry.cases[i];
    std::function<void()> callables[kKinds] = {c.ours, c.torch, c.copy_probe, nullptr};
    if (c.read_bytes > 0) {
      const size_t reads = static_cast<size_t>(c.read_bytes / 4), writes = static_cast<size_t>((c.bytes - c.read_bytes) / 4);
      const int threads = options.threads;
      callables[kReadWrite] = [reads, writes, threads, &registry] {
        ReadWriteOnce(As<float>(registry.read_write_src), reads, As<float>(registry.read_write_dst), writes, threads);
      };
    }
    if (!callables[kCopy]) {
      const size_t floats = static_cast<size_t>(c.bytes / 2 / 4);
      const int threads = options.threads;
      callables[kCopy] = [floats, threads, &registry] {
        CopyOnce(As<float>(registry.copy_src), As<float>(registry.copy_dst), floats, threads);
      };
    }
    for (int kind = 0; kind < kKinds; ++kind) {
      if (!callables[kind]) continue;
      const std::string name = TimedName(i, kind);
      names[name] = {i, kind};
      const double bytes = c.bytes;
      benchmark::RegisterBenchmark(name.c_str(),
                                   [fn = callables[kind], bytes](benchmark::State& state) {
                                     for (auto _ : state) fn();
                                     state.SetBytesProcessed(static_cast<int64_t>(bytes) * state.iterations());
                                   })
          ->Repetitions(options.reps)
          ->MinTime(options.min_time)
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
  std::fflush(stdout);  // the header before Google Benchmark's own output
  TableReporter reporter(std::move(names));
  benchmark::RunSpecifiedBenchmarks(&reporter);
  PrintTable(options);
  benchmark::Shutdown();
  return 0;
}

}  // namespace bench
