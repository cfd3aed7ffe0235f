// Streams: each is an in-order queue drained by its own worker thread.
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "acl/acl_rt.h"
#include "runtime/error.h"
#include "runtime/runtime.h"
#include "runtime/runtime_state.h"

namespace oa {
namespace {

class Stream {
 public:
  Stream() : worker_([this] { Drain(); }) {}
  ~Stream() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    work_cv_.notify_one();
    worker_.join();
  }

  void Push(StreamTask task) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(std::move(task));
    }
    work_cv_.notify_one();
  }

  // Waits until everything queued so far has run; returns and clears the first failure.
  std::string Synchronize() {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_cv_.wait(lock, [&] { return queue_.empty() && !busy_; });
    std::string failure;
    failure.swap(first_failure_);
    return failure;
  }

 private:
  void Drain() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      work_cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left to run
      StreamTask task = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
      lock.unlock();
      std::string failure = task();
      task = nullptr;  // release what the task holds (e.g. a single-use executor) before reporting idle
      lock.lock();
      busy_ = false;
      if (!failure.empty() && first_failure_.empty()) first_failure_ = std::move(failure);
      if (queue_.empty()) idle_cv_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable work_cv_;
  std::condition_variable idle_cv_;
  std::deque<StreamTask> queue_;
  bool busy_ = false;
  bool stopping_ = false;
  std::string first_failure_;
  std::thread worker_;  // last: starts after the members above exist
};

std::mutex g_streams_mutex;
std::unordered_map<void*, std::shared_ptr<Stream>>& Streams() {
  static auto* streams = new std::unordered_map<void*, std::shared_ptr<Stream>>;
  return *streams;
}
std::shared_ptr<Stream> g_default_stream;  // guarded by g_streams_mutex

// Looks a handle up (null = default stream, created on first use). Caller holds the mutex.
std::shared_ptr<Stream> FindLocked(aclrtStream handle) {
  if (handle == nullptr) {
    if (!g_default_stream) g_default_stream = std::make_shared<Stream>();
    return g_default_stream;
  }
  auto it = Streams().find(handle);
  return it == Streams().end() ? nullptr : it->second;
}

aclError UnknownStream(const char* api, aclrtStream handle) {
  return Fail(ACL_ERROR_INVALID_RESOURCE_HANDLE,
              "%s: stream %p is not a live stream (never created by aclrtCreateStream, or already destroyed)", api,
              handle);
}

aclError SynchronizeOne(const char* api, const std::shared_ptr<Stream>& stream) {
  std::string failure = stream->Synchronize();
  if (failure.empty()) return ACL_SUCCESS;
  return Fail(ACL_ERROR_RT_FAILURE, "%s: queued work failed: %s", api, failure.c_str());
}

}  // namespace

aclError EnqueueOnStream(aclrtStream handle, const char* api, StreamTask task) {
  if (!RuntimeInitialized()) return Fail(ACL_ERROR_UNINITIALIZE, "%s: the runtime is not initialized; call aclInit first", api);
  std::lock_guard<std::mutex> lock(g_streams_mutex);
  try {
    std::shared_ptr<Stream> stream = FindLocked(handle);
    if (!stream) return UnknownStream(api, handle);
    stream->Push(std::move(task));
  } catch (const std::exception& error) {  // no memory for the queue entry, or no thread for a stream
    return Fail(ACL_ERROR_BAD_ALLOC, "%s: cannot queue work: %s", api, error.what());
  }
  return ACL_SUCCESS;
}

aclError SynchronizeAllStreams(const char* api) {
  std::vector<std::shared_ptr<Stream>> all;
  {
    std::lock_guard<std::mutex> lock(g_streams_mutex);
    for (auto& entry : Streams()) all.push_back(entry.second);
    if (g_default_stream) all.push_back(g_default_stream);
  }
  aclError result = ACL_SUCCESS;
  for (auto& stream : all) {
    aclError status = SynchronizeOne(api, stream);
    if (result == ACL_SUCCESS) result = status;
  }
  return result;
}

void DestroyAllStreams() {
  std::unordered_map<void*, std::shared_ptr<Stream>> streams;
  std::shared_ptr<Stream> default_stream;
  {
    std::lock_guard<std::mutex> lock(g_streams_mutex);
    streams.swap(Streams());
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
  *stream = created.get();
  oa::Streams().emplace(created.get(), std::move(created));
  return ACL_SUCCESS;
}

extern "C" aclError aclrtDestroyStream(aclrtStream stream) {
  OA_REQUIRE_INIT("aclrtDestroyStream");
  if (stream == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream: stream must not be null");
  std::shared_ptr<oa::Stream> removed;
  {
    std::lock_guard<std::mutex> lock(oa::g_streams_mutex);
    auto it = oa::Streams().find(stream);
    if (it == oa::Streams().end()) return oa::UnknownStream("aclrtDestroyStream", stream);
    removed = std::move(it->second);
    oa::Streams().erase(it);
  }
  // Queued work still runs to completion (the destructor drains the queue), as in CANN.
  removed.reset();
  return ACL_SUCCESS;
}

extern "C" aclError aclrtSynchronizeStream(aclrtStream stream) {
  OA_REQUIRE_INIT("aclrtSynchronizeStream");
  std::shared_ptr<oa::Stream> found;
  {
    std::lock_guard<std::mutex> lock(oa::g_streams_mutex);
    found = oa::FindLocked(stream);
  }
  if (!found) return oa::UnknownStream("aclrtSynchronizeStream", stream);
  return oa::SynchronizeOne("aclrtSynchronizeStream", found);
}

extern "C" aclError aclrtSynchronizeDevice(void) {
  OA_REQUIRE_INIT("aclrtSynchronizeDevice");
  return oa::SynchronizeAllStreams("aclrtSynchronizeDevice");
}
