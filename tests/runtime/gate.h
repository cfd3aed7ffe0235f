// A task that holds a stream until the test opens the gate, to make "queued but not run"
// states deterministic.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>

#include "runtime/runtime.h"

class Gate {
 public:
  ~Gate() { Open(); }  // never leave a stream blocked behind a failed assertion
  void Open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    cv_.notify_all();
  }
  // Queues a task that waits for the gate on `stream`.
  aclError BlockStream(aclrtStream stream) {
    return oa::EnqueueOnStream(stream, "test", [this] {
      std::unique_lock<std::mutex> lock(mutex_);
      blocked_ = true;
      cv_.notify_all();
      cv_.wait(lock, [&] { return open_; });
      return std::string();
    });
  }
  // Returns once the stream has reached the gate (its task is running).
  void WaitUntilBlocked() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return blocked_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool open_ = false;
  bool blocked_ = false;
};
