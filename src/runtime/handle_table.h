// Live runtime objects (contexts, streams, events) by opaque handle.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace oa {

// Handles are serial numbers shared by every table and never reused within a process, so
// a handle to a destroyed object stays stale forever; an address would be handed to the
// next object allocated in its place and silently alias it. Not locked: each owner guards
// its table with its own mutex.
template <typename T>
class HandleTable {
 public:
  void* Insert(std::shared_ptr<T> object) {
    static_assert(sizeof(uintptr_t) == sizeof(void*), "handles are pointer-sized serial numbers");
    void* handle = reinterpret_cast<void*>(NextSerial());
    objects_.emplace(handle, std::move(object));
    return handle;
  }
  std::shared_ptr<T> Find(void* handle) const {
    auto it = objects_.find(handle);
    return it == objects_.end() ? nullptr : it->second;
  }
  std::shared_ptr<T> Remove(void* handle) {
    auto it = objects_.find(handle);
    if (it == objects_.end()) return nullptr;
    std::shared_ptr<T> removed = std::move(it->second);
    objects_.erase(it);
    return removed;
  }
  std::vector<std::shared_ptr<T>> All() const {
    std::vector<std::shared_ptr<T>> all;
    for (const auto& entry : objects_) all.push_back(entry.second);
    return all;
  }
  // Empties the table; the caller releases the objects (outside its lock).
  std::vector<std::shared_ptr<T>> TakeAll() {
    std::vector<std::shared_ptr<T>> all = All();
    objects_.clear();
    return all;
  }

 private:
  static uintptr_t NextSerial() {
    // Starts past the first page so a serial never looks like a small integer constant.
    static std::atomic<uintptr_t> next{0x1000};
    return next.fetch_add(0x10, std::memory_order_relaxed);
  }
  std::unordered_map<void*, std::shared_ptr<T>> objects_;
};

}  // namespace oa
