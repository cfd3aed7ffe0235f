// Benchmark harness shared by the operator benchmarks.
//
//  (a) Bandwidth probes (copy, read, triad) over given buffers, on a fixed partition run by
//      oa::ParallelFor, reported in GB/s (10^9 bytes/s), best of several repetitions.
//  (b) A shape-file reader: one case per line, '#' starts a comment; the tokens are left to
//      the operator benchmark (ParseInts turns "2x16x32x32x32" or "2,16,32" into numbers).
//  (c) A side-by-side runner: each case registers "ours", "torch" and (optionally) a "copy
//      probe" callable on the same pre-faulted buffers plus the bytes an ideal kernel moves;
//      Google Benchmark times all of them in one process run (min over repetitions), and a
//      table with GB/s and the ratios ours/torch and ours/copy is printed at the end.
//
// Typical operator benchmark main():
//
//   int main(int argc, char** argv) {
//     bench::Options options = bench::ParseOptions(&argc, argv);  // --threads=N, --reps=R, ...
//     for (const auto& line : bench::ReadShapeFile(path)) {
//       auto state = std::make_shared<MyCase>(line);  // allocates + pre-faults buffers once
//       bench::RegisterCase({name, state->bytes, [state] { state->RunOurs(); },
//                            [state] { state->RunTorch(); }, nullptr});
//     }
//     return bench::RunRegisteredCases(options, argc, argv);
//   }
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace bench {

// ---------------------------------------------------------------------------------------
// Buffers

// Heap memory aligned to 2 MiB (lets the kernel back it with huge pages), every page
// written once at allocation so timing never pays first-touch page faults.
struct FreeDeleter {
  void operator()(void* p) const;
};
using Buffer = std::unique_ptr<uint8_t[], FreeDeleter>;
Buffer AllocateTouched(size_t bytes, uint8_t fill = 0);

template <typename T>
T* As(const Buffer& buffer) {
  return reinterpret_cast<T*>(buffer.get());
}

// ---------------------------------------------------------------------------------------
// (a) Bandwidth probes. `threads` threads split the arrays into equal contiguous chunks
// (64-byte aligned boundaries), one task per thread. Returns GB/s of the best of `reps`
// runs. Bytes counted: copy 2·n·4 (read src, write dst), read n·4, triad 3·n·4
// (read a and b, write c = a + 3·b).

double ProbeCopy(const float* src, float* dst, size_t n, int threads, int reps = 5);
double ProbeRead(const float* src, size_t n, int threads, int reps = 5);
double ProbeTriad(const float* a, const float* b, float* c, size_t n, int threads, int reps = 5);

// One pass that reads n_read floats of src and writes n_write floats of dst, each split into
// the same equal chunks per thread, in long runs: a thread interleaves pieces of its read
// chunk (integer sums, as the read probe) with pieces of its write chunk (non-temporal
// stores where the target has them). It is the roof of an operator that reads and writes
// unequal amounts, as an upsample does: the copy probe reads and writes equal amounts, and on
// the project's guest it moved the nearest upsample cases' mixes at 0.64 to 1.2 times the
// copy probe's rate.
void ReadWriteOnce(const float* src, size_t n_read, float* dst, size_t n_write, int threads);

// One copy pass (the same partition as ProbeCopy): a case's "copy probe" callable.
void CopyOnce(const float* src, float* dst, size_t n, int threads);
// One triad pass (the same partition as ProbeTriad): a case's roof callable where the triad
// is the roof (Case::roof = "triad"; it moves 3·n·4 bytes).
void TriadOnce(const float* a, const float* b, float* c, size_t n, int threads);

// ---------------------------------------------------------------------------------------
// (b) Shape files

struct ShapeLine {
  int line_number = 0;              // 1-based, for error messages
  std::vector<std::string> tokens;  // whitespace-separated, comments removed
};

// Reads every non-empty, non-comment line. Throws std::runtime_error if the file is missing.
std::vector<ShapeLine> ReadShapeFile(const std::string& path);
// Splits on whitespace (a '#' ends the line).
std::vector<std::string> Tokenize(const std::string& line);
// "2x16x32" / "2,16,32" / "[2, 16, 32]" -> {2, 16, 32}; throws std::invalid_argument on junk.
std::vector<int64_t> ParseInts(const std::string& token);
// Floating-point token (e.g. a scale), throws std::invalid_argument on junk.
double ParseDouble(const std::string& token);

// ---------------------------------------------------------------------------------------
// (c) Side-by-side cases

struct Case {
  std::string name;
  double bytes = 0;                 // bytes an ideal kernel moves per call (the "roof" traffic)
  std::function<void()> ours;       // required
  std::function<void()> torch;      // may be empty: column shows "-"
  std::function<void()> copy_probe; // may be empty: the harness copies bytes/2 -> bytes/2
                                    // between its own pre-faulted buffers instead
  std::string roof = "copy";        // what copy_probe measures ("copy", or "triad": TriadOnce)
  double read_bytes = 0;            // > 0: of `bytes`, this many are read and the rest written;
                                    // the harness also times ReadWriteOnce over that split
                                    // (columns "GB/s r+w" and "ours/r+w")
};

struct Options {
  int threads = 0;         // --threads=N (0: oa::NumThreads(), i.e. all)
  int reps = 5;            // --reps=R: Google Benchmark repetitions, the table uses the min
  double min_time = 0.05;  // --min_time_s=S: seconds per repetition
  std::string filter;      // --cases=SUBSTRING: register only cases whose name contains it
};

// Removes the harness flags from argv (the rest goes to Google Benchmark), applies the
// thread count to openaclnn (oa::SetNumThreads) and to torch (oracle::SetTorchThreads).
Options ParseOptions(int* argc, char** argv);

// A benchmark's own --name=value flag: its value (fallback when absent), removed from argv
// so that the harness and Google Benchmark never see it.
std::string TakeFlag(int* argc, char** argv, const char* name, const std::string& fallback);

// Registers one case (skipped if it does not match Options::filter of the last ParseOptions).
void RegisterCase(Case c);

// Prints the header (threads, SIMD target, torch capability and threads, buffer policy),
// runs every registered case with Google Benchmark, prints the ratio table. Returns the
// process exit code.
int RunRegisteredCases(const Options& options, int argc, char** argv);

// The ATen CPU kernel set torch uses ("AVX2", ...) or "torch not built in".
std::string TorchCapability();

// ---------------------------------------------------------------------------------------
// (d) CSV rows for charts (scripts/bench-chart.py): when OPENACLNN_BENCH_CSV names a file,
// each timed row is appended to it (a header first if the file is new):
//   benchmark,case,threads,bytes,ours_s,torch_s,onednn_s,roof_gbps,roof
// bytes: what an ideal kernel moves per call; *_s: seconds per call (empty: not run);
// roof_gbps: the bandwidth the case is held to, measured in the same run, and `roof` names it
// ("copy": the copy probe over the same bytes; "triad": the triad probe).
struct CsvRow {
  std::string benchmark, name;
  int threads = 0;
  double bytes = 0, ours_s = 0, torch_s = 0, onednn_s = 0, roof_gbps = 0;
  std::string roof;
};
void AppendCsvRow(const CsvRow& row);

}  // namespace bench
