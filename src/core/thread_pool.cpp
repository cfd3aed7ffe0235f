#include "core/thread_pool.h"

#include "core/environment.h"
#include "runtime/fork.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

namespace oa {
namespace {

constexpr int kMaxThreads = 1024;

// OMP_NUM_THREADS is OpenMP's (a list like "4,2" is valid there): its first number, else 0.
int OmpThreadCount() {
  const char* text = std::getenv("OMP_NUM_THREADS");
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || value <= 0) return 0;
  return static_cast<int>(std::min<long>(value, kMaxThreads));
}

int AffinityCpuCount() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

std::atomic<int> g_thread_override{0};

thread_local bool t_inside_task = false;

// Waiting threads first spin a while before they sleep (OPENACLNN_POOL_SPIN_US, 100 µs by
// default; 0: sleep at once): a condition variable's wake-up costs tens of microseconds on a
// virtual machine (an inter-processor interrupt through the hypervisor), as much as a
// mid-size call's whole work (LayerNorm [64, 4096]: about 80 µs), while back-to-back calls
// reach the next region within microseconds. OpenMP runtimes spin for the same reason. The
// spin yields the CPU now and then, so an oversubscribed machine still runs whoever else is
// ready.
int DefaultSpinMicroseconds() {
  static const int spin = static_cast<int>(
      IntegerVariable("OPENACLNN_POOL_SPIN_US", 0, kMaxSpinMicroseconds, 100, "100 microseconds"));
  return spin;
}

std::atomic<int> g_spin_override{-1};  // openaclnnSetPoolSpin; -1: the default

std::chrono::microseconds SpinBeforeSleep() { return std::chrono::microseconds(SpinBeforeSleepMicroseconds()); }

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Spins until done() or SpinBeforeSleep() has passed; returns done().
template <typename Done>
bool SpinUntil(const Done& done) {
  const auto deadline = std::chrono::steady_clock::now() + SpinBeforeSleep();
  for (int round = 1;; ++round) {
    for (int i = 0; i < 64; ++i) {
      if (done()) return true;
      CpuRelax();
    }
    if (std::chrono::steady_clock::now() >= deadline) return done();
    if (round % 8 == 0) std::this_thread::yield();  // about every 20 µs
  }
}

class Pool {
 public:
  void Run(int64_t num_tasks, int max_threads, TaskFunction fn, void* context) {
    std::lock_guard<std::mutex> region(region_mutex_);
    const int wanted = static_cast<int>(std::min<int64_t>(max_threads, num_tasks)) - 1;
    // With fewer threads than planned the same tasks run, so the results are the same.
    const int helpers = EnsureWorkers(wanted);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      fn_ = fn;
      context_ = context;
      num_tasks_ = num_tasks;
      next_task_.store(0, std::memory_order_relaxed);
      helpers_wanted_ = helpers;
      helpers_running_.store(helpers, std::memory_order_relaxed);
      generation_.store(generation_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    }
    work_cv_.notify_all();  // no system call while every helper is still spinning
    RunTasks();
    if (SpinUntil([&] { return helpers_running_.load(std::memory_order_acquire) == 0; })) return;
    std::unique_lock<std::mutex> lock(mutex_);
    done_cv_.wait(lock, [&] { return helpers_running_.load(std::memory_order_acquire) == 0; });
  }

 private:
  // Starts helpers up to `count` and returns how many exist (fewer if the OS refuses a
  // thread: address space, pids limit). Workers start on first need, usually on a stream's
  // thread in phase 2, where a failure could not be reported, so it must not be one.
  int EnsureWorkers(int count) {
    try {
      workers_.reserve(static_cast<size_t>(std::max(count, 0)));
      while (static_cast<int>(workers_.size()) < count) {
        const int index = static_cast<int>(workers_.size());
        std::thread worker([this, index] { WorkerLoop(index); });
        worker.detach();  // the pool lives for the whole process
        workers_.push_back(std::move(worker));
      }
    } catch (const std::exception&) {  // std::system_error (no thread) or std::bad_alloc
    }
    return std::min(count, static_cast<int>(workers_.size()));
  }

  void RunTasks() {
    t_inside_task = true;
    for (;;) {
      const int64_t task = next_task_.fetch_add(1, std::memory_order_relaxed);
      if (task >= num_tasks_) break;
      fn_(context_, task);
    }
    t_inside_task = false;
  }

  void WorkerLoop(int index) {
    uint64_t seen = 0;
    for (;;) {
      const auto published = [&] { return generation_.load(std::memory_order_acquire) != seen; };
      std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
      if (SpinUntil(published)) {
        lock.lock();
      } else {
        lock.lock();
        work_cv_.wait(lock, published);
      }
      seen = generation_.load(std::memory_order_relaxed);
      if (index >= helpers_wanted_) continue;
      lock.unlock();
      RunTasks();
      lock.lock();
      if (helpers_running_.fetch_sub(1, std::memory_order_acq_rel) == 1) done_cv_.notify_one();
    }
  }

  std::mutex region_mutex_;  // one parallel region at a time
  std::mutex mutex_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  std::vector<std::thread> workers_;
  // Written under mutex_; atomic so that spinning threads may read them without it.
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> helpers_running_{0};
  TaskFunction fn_ = nullptr;
  void* context_ = nullptr;
  int64_t num_tasks_ = 0;
  std::atomic<int64_t> next_task_{0};
  int helpers_wanted_ = 0;
};

// Never destroyed: detached workers may outlive main. Replaced in a forked child, whose
// copy names workers that do not exist there (and may hold locks they held).
std::atomic<Pool*> g_pool{nullptr};

Pool& ThePool() {
  Pool* pool = g_pool.load(std::memory_order_acquire);
  if (pool != nullptr) return *pool;
  static std::mutex creation;
  std::lock_guard<std::mutex> lock(creation);
  if (g_pool.load(std::memory_order_relaxed) == nullptr) g_pool.store(new Pool, std::memory_order_release);
  return *g_pool.load(std::memory_order_relaxed);
}

}  // namespace

namespace {

struct ThreadCountChoice {
  int count;
  const char* source;
};

const ThreadCountChoice& DefaultThreadChoice() {
  static const ThreadCountChoice choice = []() -> ThreadCountChoice {
    const int64_t requested = IntegerVariable("OPENACLNN_NUM_THREADS", 1, kMaxThreads, 0,
                                              "OMP_NUM_THREADS or the CPUs of the affinity mask");
    if (requested > 0) return {static_cast<int>(requested), "OPENACLNN_NUM_THREADS"};
    if (int n = OmpThreadCount()) return {n, "OMP_NUM_THREADS"};
    return {AffinityCpuCount(), "affinity"};
  }();
  return choice;
}

}  // namespace

int DefaultThreadCount() { return DefaultThreadChoice().count; }

const char* DefaultThreadCountSource() { return DefaultThreadChoice().source; }

const char* ThreadCountSource() {
  return g_thread_override.load(std::memory_order_relaxed) > 0 ? "openaclnnSetNumThreads" : DefaultThreadCountSource();
}

int NumThreads() {
  const int override_count = g_thread_override.load(std::memory_order_relaxed);
  return override_count > 0 ? override_count : DefaultThreadCount();
}

void SetNumThreads(int n) { g_thread_override.store(n > 0 ? n : 0, std::memory_order_relaxed); }

int SpinBeforeSleepMicroseconds() {
  const int override_spin = g_spin_override.load(std::memory_order_relaxed);
  return override_spin >= 0 ? override_spin : DefaultSpinMicroseconds();
}

void SetSpinBeforeSleep(int microseconds) {
  g_spin_override.store(microseconds >= 0 ? std::min(microseconds, kMaxSpinMicroseconds) : -1,
                        std::memory_order_relaxed);
}

namespace {

struct Host {
  HostParallelFor parallel_for;
  void* host;
};

// Every Host ever set stays alive (a region on another thread may still be using the one a
// later call replaced), reachable from here; setting one already there reuses it, so there
// are as many as distinct (parallel-for, host) pairs, however often a host toggles it.
std::mutex g_hosts_mutex;
std::deque<Host> g_hosts;               // guarded by g_hosts_mutex
std::atomic<const Host*> g_host{nullptr};

struct HostRegion {
  TaskFunction fn;
  void* context;
};

// One task on a host thread, marked as inside a task so that nested regions run inline.
void RunHostTask(void* region, int64_t task) {
  const HostRegion& r = *static_cast<const HostRegion*>(region);
  const bool outer = t_inside_task;
  t_inside_task = true;
  r.fn(r.context, task);
  t_inside_task = outer;
}

}  // namespace

void SetHostParallelFor(HostParallelFor parallel_for, void* host) {
  if (parallel_for == nullptr) {
    g_host.store(nullptr, std::memory_order_release);
    return;
  }
  std::lock_guard<std::mutex> lock(g_hosts_mutex);
  for (const Host& known : g_hosts) {
    if (known.parallel_for == parallel_for && known.host == host) {
      g_host.store(&known, std::memory_order_release);
      return;
    }
  }
  g_hosts.push_back({parallel_for, host});
  g_host.store(&g_hosts.back(), std::memory_order_release);
}

bool HostParallelForSet() { return g_host.load(std::memory_order_acquire) != nullptr; }

void ResetThreadPoolInChild() {
  // The parent's pool leaks in the child: its workers, mutexes and condition variables
  // belong to threads that are not there. The next parallel region starts new workers.
  if (g_pool.load(std::memory_order_relaxed) != nullptr) g_pool.store(new Pool, std::memory_order_release);
  // A host's threads are not there either (and an OpenMP runtime may hang starting a team
  // in a forked child): the child's regions run on the library's own pool until the host
  // sets its parallel-for again. A lock another thread held at the fork is held for ever.
  g_host.store(nullptr, std::memory_order_release);
  new (&g_hosts_mutex) std::mutex;
}

void ParallelForRaw(int64_t num_tasks, int max_threads, TaskFunction fn, void* context) {
  if (num_tasks <= 0) return;
  if (max_threads <= 1 || num_tasks == 1 || t_inside_task) {
    for (int64_t task = 0; task < num_tasks; ++task) fn(context, task);
    return;
  }
  if (const Host* host = g_host.load(std::memory_order_acquire)) {
    HostRegion region{fn, context};
    host->parallel_for(host->host, num_tasks, max_threads, RunHostTask, &region);
    return;
  }
  ThePool().Run(num_tasks, max_threads, fn, context);
}

}  // namespace oa
