// Streams: each is an in-order queue drained by its own worker thread. Small work launched
// on an idle stream runs in the launching thread instead (as oneDNN's CPU streams do): the
// order is the same, and the two thread hand-offs, tens of microseconds, are saved.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "acl/acl_rt.h"
#include "runtime/error.h"
#include "runtime/fork.h"
#include "runtime/handle_table.h"
#include "runtime/runtime.h"
#include "runtime/runtime_state.h"

namespace oa {
namespace {

// Tasks are numbered as they are queued (1, 2, ...); a synchronising caller takes the
// number of the last task queued before its call as a ticket and waits for that one only,
// so work other threads keep queueing cannot hold it up.
//
// fork(): the child inherits the stream but not its worker thread. The fork handlers
// (runtime/fork.cpp) hold every stream's lock across fork(), so the child's copy is
// consistent; in the child, ResetInChild forgets the worker and any task another thread
// was running (it fails, reported by the next synchronisation), and the next call that
// needs a worker starts one (StartWorkerLocked): queued work runs, nothing hangs.
class Stream {
 public:
  Stream() {
    std::lock_guard<std::mutex> lock(mutex_);
    StartWorkerLocked();
  }
  ~Stream() {
    std::unique_lock<std::mutex> lock(mutex_);
    stopping_ = true;
    if (!queue_.empty()) {
      try {
        StartWorkerLocked();  // a child process's stream: its queue still drains
      } catch (const std::exception&) {
        DrainInCaller(lock);
      }
    }
    lock.unlock();
    work_cv_.notify_one();
    if (worker_running_) worker_.join();
  }

  void Push(StreamTask task) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      StartWorkerLocked();
      queue_.push_back(std::move(task));
      ++queued_;
    }
    work_cv_.notify_one();
  }

  // Runs task in the calling thread if nothing is queued or running on the stream, as the
  // stream's next task (same numbering, same failure reporting); false if the stream is busy.
  // Work pushed meanwhile waits for it: the worker starts nothing while it runs.
  bool TryRunInline(StreamTask& task) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_ || inline_running_ || completed_ != queued_) return false;
      inline_running_ = true;
      ++queued_;
    }
    std::string failure = RunTask(task);
    task = nullptr;
    bool work_waiting;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      inline_running_ = false;
      Complete(std::move(failure));
      work_waiting = !queue_.empty();
    }
    done_cv_.notify_all();
    // Wake the worker only for work queued meanwhile: an idle worker woken for nothing
    // would cost two context switches per call.
    if (work_waiting) work_cv_.notify_one();
    return true;
  }

  uint64_t Ticket() {
    std::lock_guard<std::mutex> lock(mutex_);
    return queued_;
  }

  bool Done(uint64_t ticket) {
    std::lock_guard<std::mutex> lock(mutex_);
    return completed_ >= ticket;
  }

  // Waits until task `ticket` has run; timeout_ms < 0 waits for ever. False on timeout.
  bool Wait(uint64_t ticket, int32_t timeout_ms) {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto reached = [&] { return completed_ >= ticket; };
    if (!reached() && !queue_.empty()) {
      try {
        StartWorkerLocked();  // queued work inherited across fork() needs a worker
      } catch (const std::exception&) {
        DrainInCaller(lock);  // no thread to be had: run it here
      }
    }
    if (timeout_ms < 0) {
      done_cv_.wait(lock, reached);
      return true;
    }
    return done_cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), reached);
  }

  // The first failure among the tasks up to `ticket`, cleared once returned.
  std::string TakeFailure(uint64_t ticket) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::string failure;
    if (!first_failure_.empty() && failed_task_ <= ticket) failure.swap(first_failure_);
    return failure;
  }

  // fork(): the parent's handler takes the lock before fork() and releases it after (both
  // sides); the child's also resets what belonged to threads that do not exist there.
  void LockForFork() { mutex_.lock(); }
  void UnlockAfterFork() { mutex_.unlock(); }
  void ResetInChild() {
    // Condition variables may count the parent's waiters, which the child would wait for
    // in its next notify: fresh ones. The worker's std::thread names a thread that does
    // not exist here: forgotten, never joined.
    new (&work_cv_) std::condition_variable;
    new (&done_cv_) std::condition_variable;
    new (&worker_) std::thread;
    worker_running_ = false;
    // A task that another thread was running (the worker, or an inline launch) at the fork
    // ran only partly in the child's memory: it fails.
    for (bool* running : {&worker_task_running_, &inline_running_}) {
      if (!*running) continue;
      *running = false;
      Complete("the task was running in another thread when the process forked; in the child it did not complete");
    }
  }

 private:
  // A task that throws (out of memory, a thread the OS refused) is a failure of that task,
  // reported by the next synchronisation, never the end of the process.
  static std::string RunTask(const StreamTask& task) {
    try {
      return task();
    } catch (const std::exception& error) {
      return Format("a queued task threw an exception: %s", error.what());
    } catch (...) {
      return "a queued task threw an unknown exception";
    }
  }

  // One more task has run. Caller holds mutex_.
  void Complete(std::string failure) {
    ++completed_;
    if (!failure.empty() && first_failure_.empty()) {
      first_failure_ = std::move(failure);
      failed_task_ = completed_;
    }
  }

  // Starts the worker unless this process has one. Caller holds mutex_. Throws
  // std::system_error when the OS refuses a thread.
  void StartWorkerLocked() {
    if (worker_running_) return;
    worker_ = std::thread([this] { Drain(); });
    worker_running_ = true;
  }

  // Runs the queued tasks in the calling thread (no worker could be started). Caller holds
  // the lock, which this releases while each task runs.
  void DrainInCaller(std::unique_lock<std::mutex>& lock) {
    while (!queue_.empty() && !inline_running_) {
      StreamTask task = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      std::string failure = RunTask(task);
      task = nullptr;
      lock.lock();
      Complete(std::move(failure));
      done_cv_.notify_all();
    }
  }

  void Drain() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      work_cv_.wait(lock, [&] { return !inline_running_ && (stopping_ || !queue_.empty()); });
      if (queue_.empty()) return;  // stopping, and nothing left to run
      StreamTask task = std::move(queue_.front());
      queue_.pop_front();
      worker_task_running_ = true;
      lock.unlock();
      std::string failure = RunTask(task);
      task = nullptr;  // release what the task holds (e.g. a single-use executor) before reporting it done
      lock.lock();
      worker_task_running_ = false;
      Complete(std::move(failure));
      done_cv_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  std::deque<StreamTask> queue_;
  uint64_t queued_ = 0;
  uint64_t completed_ = 0;
  bool stopping_ = false;
  bool inline_running_ = false;       // a launching thread runs the stream's current task
  bool worker_task_running_ = false;  // the worker runs a task
  bool worker_running_ = false;       // this process has a worker thread for the stream
  std::string first_failure_;
  uint64_t failed_task_ = 0;
  std::thread worker_;
};

std::mutex g_streams_mutex;
HandleTable<Stream>& Streams() {
  static auto* streams = new HandleTable<Stream>;
  return *streams;
}
std::shared_ptr<Stream> g_default_stream;  // guarded by g_streams_mutex

// Looks a handle up (null = default stream, created on first use). Caller holds the mutex
// and has checked that the runtime is initialised, so aclFinalize cannot be past its
// teardown of the streams.
std::shared_ptr<Stream> FindLocked(aclrtStream handle) {
  if (handle == nullptr) {
    if (!g_default_stream) g_default_stream = std::make_shared<Stream>();
    return g_default_stream;
  }
  return Streams().Find(handle);
}

aclError UnknownStream(const char* api, aclrtStream handle) {
  return Fail(ACL_ERROR_INVALID_RESOURCE_HANDLE,
              "%s: stream %p is not a live stream (never created by aclrtCreateStream, or already destroyed)", api,
              handle);
}

aclError NotInitialized(const char* api) {
  return Fail(ACL_ERROR_UNINITIALIZE, "%s: the runtime is not initialized; call aclInit first", api);
}

// Finds a stream for a call that does not queue work.
aclError FindForCall(const char* api, aclrtStream handle, std::shared_ptr<Stream>* found) {
  std::lock_guard<std::mutex> lock(g_streams_mutex);
  if (!RuntimeInitialized()) return NotInitialized(api);
  try {
    *found = FindLocked(handle);
  } catch (const std::exception& error) {  // no thread for the default stream
    return Fail(ACL_ERROR_BAD_ALLOC, "%s: cannot create the default stream: %s", api, error.what());
  }
  return *found ? ACL_SUCCESS : UnknownStream(api, handle);
}

struct Ticketed {
  std::shared_ptr<Stream> stream;
  uint64_t ticket;
};

// Waits for each stream's ticket within one shared deadline (timeout_ms < 0: for ever).
aclError WaitForTickets(const char* api, const std::vector<Ticketed>& tickets, int32_t timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
  aclError result = ACL_SUCCESS;
  for (const Ticketed& entry : tickets) {
    int32_t left = -1;
    if (timeout_ms >= 0) {
      const auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      left = static_cast<int32_t>(std::max<int64_t>(0, remaining.count()));
    }
    if (!entry.stream->Wait(entry.ticket, left)) {
      return Fail(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                  "%s: the work queued before the call did not finish within %d ms; it keeps running", api, timeout_ms);
    }
    std::string failure = entry.stream->TakeFailure(entry.ticket);
    if (!failure.empty() && result == ACL_SUCCESS) {
      result = Fail(ACL_ERROR_RT_FAILURE, "%s: queued work failed: %s", api, failure.c_str());
    }
  }
  return result;
}

aclError SynchronizeOne(const char* api, aclrtStream handle, int32_t timeout_ms) {
  std::shared_ptr<Stream> stream;
  if (aclError status = FindForCall(api, handle, &stream)) return status;
  return WaitForTickets(api, {{stream, stream->Ticket()}}, timeout_ms);
}

}  // namespace

aclError EnqueueOnStream(aclrtStream handle, const char* api, StreamTask task, bool run_inline_when_idle) {
  std::shared_ptr<Stream> stream;
  {
    std::lock_guard<std::mutex> lock(g_streams_mutex);
    // Checked under the registry lock: aclFinalize clears the flag before it drains and
    // destroys the streams under this lock, so no task can slip in after the teardown.
    if (!RuntimeInitialized()) return NotInitialized(api);
    try {
      stream = FindLocked(handle);
      if (!stream) return UnknownStream(api, handle);
      if (!run_inline_when_idle) {
        stream->Push(std::move(task));
        return ACL_SUCCESS;
      }
    } catch (const std::exception& error) {  // no memory for the queue entry, or no thread for a stream
      return Fail(ACL_ERROR_BAD_ALLOC, "%s: cannot queue work: %s", api, error.what());
    }
  }
  // Outside the registry lock, so other streams' launches do not wait for this run; the
  // shared pointer keeps the stream alive through it.
  if (stream->TryRunInline(task)) return ACL_SUCCESS;
  try {
    stream->Push(std::move(task));
  } catch (const std::exception& error) {
    return Fail(ACL_ERROR_BAD_ALLOC, "%s: cannot queue work: %s", api, error.what());
  }
  return ACL_SUCCESS;
}

aclError SynchronizeAllStreams(const char* api) {
  std::vector<Ticketed> tickets;
  {
    std::lock_guard<std::mutex> lock(g_streams_mutex);
    for (auto& stream : Streams().All()) tickets.push_back({stream, stream->Ticket()});
    if (g_default_stream) tickets.push_back({g_default_stream, g_default_stream->Ticket()});
  }
  return WaitForTickets(api, tickets, -1);
}

// Every stream's lock, the registry's first, held across fork() (runtime/fork.cpp).
std::vector<std::shared_ptr<Stream>>& StreamsLockedForFork() {
  static auto* locked = new std::vector<std::shared_ptr<Stream>>;
  return *locked;
}

void LockStreamsForFork() {
  g_streams_mutex.lock();
  std::vector<std::shared_ptr<Stream>>& locked = StreamsLockedForFork();
  locked = Streams().All();
  if (g_default_stream) locked.push_back(g_default_stream);
  for (const auto& stream : locked) stream->LockForFork();
}

void UnlockStreamsAfterFork(bool in_child) {
  std::vector<std::shared_ptr<Stream>>& locked = StreamsLockedForFork();
  for (const auto& stream : locked) {
    if (in_child) stream->ResetInChild();
    stream->UnlockAfterFork();
  }
  locked.clear();
  g_streams_mutex.unlock();
}

void DestroyAllStreams() {
  std::vector<std::shared_ptr<Stream>> streams;
  std::shared_ptr<Stream> default_stream;
  {
    std::lock_guard<std::mutex> lock(g_streams_mutex);
    streams = Streams().TakeAll();
    default_stream.swap(g_default_stream);
  }
  // Destructors drain each queue and join its worker, outside the registry lock.
}

}  // namespace oa

using oa::Fail;

extern "C" aclError aclrtCreateStream(aclrtStream* stream) {
  OA_REQUIRE_INIT("aclrtCreateStream");
  if (stream == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream: stream must not be null");
  std::shared_ptr<oa::Stream> created;
  try {
    created = std::make_shared<oa::Stream>();
  } catch (const std::exception& error) {
    return Fail(ACL_ERROR_BAD_ALLOC, "aclrtCreateStream: cannot create a stream: %s", error.what());
  }
  std::lock_guard<std::mutex> lock(oa::g_streams_mutex);
  if (!oa::RuntimeInitialized()) return oa::NotInitialized("aclrtCreateStream");  // aclFinalize ran meanwhile
  *stream = oa::Streams().Insert(std::move(created));
  return ACL_SUCCESS;
}

extern "C" aclError aclrtDestroyStream(aclrtStream stream) {
  OA_REQUIRE_INIT("aclrtDestroyStream");
  if (stream == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream: stream must not be null");
  std::shared_ptr<oa::Stream> removed;
  {
    std::lock_guard<std::mutex> lock(oa::g_streams_mutex);
    removed = oa::Streams().Remove(stream);
  }
  if (!removed) return oa::UnknownStream("aclrtDestroyStream", stream);
  // Queued work still runs to completion (the destructor drains the queue), as in CANN.
  removed.reset();
  return ACL_SUCCESS;
}

extern "C" aclError aclrtSynchronizeStream(aclrtStream stream) {
  OA_REQUIRE_INIT("aclrtSynchronizeStream");
  return oa::SynchronizeOne("aclrtSynchronizeStream", stream, -1);
}

extern "C" aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout) {
  OA_REQUIRE_INIT("aclrtSynchronizeStreamWithTimeout");
  if (timeout < -1) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                "aclrtSynchronizeStreamWithTimeout: timeout must be -1 (wait for ever) or >= 0 ms, got %d", timeout);
  }
  return oa::SynchronizeOne("aclrtSynchronizeStreamWithTimeout", stream, timeout);
}

extern "C" aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus* status) {
  OA_REQUIRE_INIT("aclrtStreamQuery");
  if (status == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtStreamQuery: status must not be null");
  std::shared_ptr<oa::Stream> found;
  if (aclError failed = oa::FindForCall("aclrtStreamQuery", stream, &found)) return failed;
  *status = found->Done(found->Ticket()) ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
  return ACL_SUCCESS;
}

extern "C" aclError aclrtSynchronizeDevice(void) {
  OA_REQUIRE_INIT("aclrtSynchronizeDevice");
  return oa::SynchronizeAllStreams("aclrtSynchronizeDevice");
}
