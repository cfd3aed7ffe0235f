// The library's one thread pool. Plans fix their partition (a task count and what each
// task covers) in phase 1; ParallelFor only hands those tasks to threads, so results never
// depend on which thread ran what.
#pragma once

#include <cstdint>

namespace oa {

// Threads the library uses: OPENACLNN_NUM_THREADS if set, else OMP_NUM_THREADS, else the
// CPUs in the process's affinity mask. Read once, at first use.
int DefaultThreadCount();
// Where DefaultThreadCount came from: "OPENACLNN_NUM_THREADS", "OMP_NUM_THREADS" or "affinity".
const char* DefaultThreadCountSource();
// Current thread count (>= 1), and where it came from: "openaclnnSetNumThreads" while an
// override holds, else DefaultThreadCountSource().
int NumThreads();
const char* ThreadCountSource();
// Overrides the thread count for plans made from now on (n <= 0 restores the default).
void SetNumThreads(int n);

// Microseconds a waiting pool thread spins before it sleeps: OPENACLNN_POOL_SPIN_US (0 to
// kMaxSpinMicroseconds, default 100) unless overridden; SetSpinBeforeSleep(n < 0) restores it.
constexpr int kMaxSpinMicroseconds = 100000;
int SpinBeforeSleepMicroseconds();
void SetSpinBeforeSleep(int microseconds);

using TaskFunction = void (*)(void* context, int64_t task);

// A host's parallel-for (openaclnnSetParallelFor): runs task(context, i) for every i in
// [0, num_tasks) on its own threads. While one is set, ParallelForRaw hands it the regions
// and the executor launches phase 2 in the calling thread whenever the stream is idle.
using HostParallelFor = void (*)(void* host, int64_t num_tasks, int32_t max_threads, TaskFunction task,
                                 void* context);
void SetHostParallelFor(HostParallelFor parallel_for, void* host);  // null: the pool again
bool HostParallelForSet();

// Runs fn(context, task) for every task in [0, num_tasks) on up to max_threads threads
// (the caller is one of them; the host's, when it set its parallel-for) and returns when all
// are done. Concurrent callers (several streams) take turns; a call from inside a task runs
// its tasks inline.
void ParallelForRaw(int64_t num_tasks, int max_threads, TaskFunction fn, void* context);

template <typename Body>
void ParallelFor(int64_t num_tasks, int max_threads, const Body& body) {
  ParallelForRaw(
      num_tasks, max_threads,
      [](void* context, int64_t task) { (*static_cast<const Body*>(context))(task); },
      const_cast<Body*>(&body));
}

}  // namespace oa
