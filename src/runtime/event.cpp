// Events: markers queued on a stream. Each aclrtRecordEvent makes a new Marker that its
// stream completes (and time-stamps) when it reaches it; the event points at its latest
// marker. Waits capture the marker current at the call, as CANN documents ("the tasks the
// event captured"), so re-recording never changes what an earlier wait waits for, and a
// wait can only depend on work queued before it: no wait cycle can form.
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <memory>
#include <mutex>

#include "acl/acl_rt.h"
#include "runtime/error.h"
#include "runtime/fork.h"
#include "runtime/handle_table.h"
#include "runtime/runtime.h"
#include "runtime/runtime_state.h"

namespace oa {
namespace {

using Clock = std::chrono::steady_clock;

// The wait is a futex on `state_`, not a condition variable: a condition variable counts
// its waiters, and a child process forked while another thread waited would wait for that
// thread (which does not exist there) on its next notify. A futex wake waits for nobody.
class Marker {
 public:
  // Runs on the recording stream's worker, in queue order.
  void Complete() {
    reached_at_ = Clock::now();  // published by the release store below
    state_.store(kDone, std::memory_order_release);
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&state_), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
  }
  void Wait() {
    while (state_.load(std::memory_order_acquire) != kDone) {
      syscall(SYS_futex, reinterpret_cast<uint32_t*>(&state_), FUTEX_WAIT_PRIVATE, kPending, nullptr, nullptr, 0);
    }
  }
  bool Done(Clock::time_point* reached_at = nullptr) {
    const bool done = state_.load(std::memory_order_acquire) == kDone;
    if (done && reached_at != nullptr) *reached_at = reached_at_;
    return done;
  }

 private:
  static constexpr uint32_t kPending = 0, kDone = 1;
  std::atomic<uint32_t> state_{kPending};
  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t), "the futex word is the atomic itself");
  Clock::time_point reached_at_;
};

struct Event {
  bool timed = true;               // aclrtEventElapsedTime allowed
  std::shared_ptr<Marker> latest;  // null: never recorded, or reset
};

constexpr uint32_t kSupportedFlags = ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE;

std::mutex g_events_mutex;  // guards the table and every Event's fields; taken before the streams' lock
HandleTable<Event>& Events() {
  static auto* events = new HandleTable<Event>;
  return *events;
}

aclError UnknownEvent(const char* api, const char* name, aclrtEvent handle) {
  if (handle == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "%s: %s must not be null", api, name);
  return Fail(ACL_ERROR_INVALID_RESOURCE_HANDLE,
              "%s: %s %p is not a live event (never created by aclrtCreateEvent, or already destroyed)", api, name,
              handle);
}

// Looks an event up for `api`. Caller holds g_events_mutex.
aclError FindEventLocked(const char* api, const char* name, aclrtEvent handle, std::shared_ptr<Event>* event) {
  *event = Events().Find(handle);
  return *event ? ACL_SUCCESS : UnknownEvent(api, name, handle);
}

// The event's latest marker (null if none) after checking the handle.
aclError LatestMarker(const char* api, const char* name, aclrtEvent handle, std::shared_ptr<Marker>* latest,
                      bool* timed = nullptr) {
  std::lock_guard<std::mutex> lock(g_events_mutex);
  std::shared_ptr<Event> event;
  if (aclError status = FindEventLocked(api, name, handle, &event)) return status;
  *latest = event->latest;
  if (timed != nullptr) *timed = event->timed;
  return ACL_SUCCESS;
}

aclError CreateEvent(const char* api, aclrtEvent* handle, bool timed) {
  if (handle == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "%s: event must not be null", api);
  auto event = std::make_shared<Event>();
  event->timed = timed;
  std::lock_guard<std::mutex> lock(g_events_mutex);
  if (!RuntimeInitialized()) return Fail(ACL_ERROR_UNINITIALIZE, "%s: the runtime is not initialized; call aclInit first", api);
  *handle = Events().Insert(std::move(event));
  return ACL_SUCCESS;
}

// Elapsed-time endpoint: the moment the event's latest marker was reached by its stream.
aclError ReachedAt(const char* name, aclrtEvent handle, Clock::time_point* at) {
  static const char* kApi = "aclrtEventElapsedTime";
  std::shared_ptr<Marker> latest;
  bool timed = true;
  if (aclError status = LatestMarker(kApi, name, handle, &latest, &timed)) return status;
  if (!timed) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                "%s: %s %p was created without ACL_EVENT_TIME_LINE, so it records no time", kApi, name, handle);
  }
  if (!latest) {
    return Fail(ACL_ERROR_INVALID_PARAM, "%s: %s %p has not been recorded (call aclrtRecordEvent first)", kApi, name,
                handle);
  }
  if (!latest->Done(at)) {
    return Fail(ACL_ERROR_RT_EVENT_NOT_COMPLETE,
                "%s: %s %p is recorded but its stream has not reached it yet; synchronize it first", kApi, name, handle);
  }
  return ACL_SUCCESS;
}

}  // namespace

void LockEventsForFork() { g_events_mutex.lock(); }
void UnlockEventsAfterFork() { g_events_mutex.unlock(); }

void DestroyAllEvents() {
  std::vector<std::shared_ptr<Event>> events;
  std::lock_guard<std::mutex> lock(g_events_mutex);
  events = Events().TakeAll();
}

}  // namespace oa

using oa::Fail;

extern "C" aclError aclrtCreateEvent(aclrtEvent* event) {
  OA_REQUIRE_INIT("aclrtCreateEvent");
  return oa::CreateEvent("aclrtCreateEvent", event, true);
}

extern "C" aclError aclrtCreateEventWithFlag(aclrtEvent* event, uint32_t flag) {
  static const char* kApi = "aclrtCreateEventWithFlag";
  OA_REQUIRE_INIT(kApi);
  if ((flag & (ACL_EVENT_EXTERNAL | ACL_EVENT_IPC)) != 0) {
    return Fail(ACL_ERROR_FEATURE_UNSUPPORTED,
                "%s: flag 0x%x asks for ACL_EVENT_EXTERNAL or ACL_EVENT_IPC, which a single-process CPU runtime does "
                "not offer", kApi, flag);
  }
  if ((flag & ~oa::kSupportedFlags) != 0) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                "%s: flag 0x%x has unknown bits; expected a combination of ACL_EVENT_SYNC, "
                "ACL_EVENT_CAPTURE_STREAM_PROGRESS and ACL_EVENT_TIME_LINE", kApi, flag);
  }
  return oa::CreateEvent(kApi, event, (flag & ACL_EVENT_TIME_LINE) != 0);
}

extern "C" aclError aclrtDestroyEvent(aclrtEvent event) {
  OA_REQUIRE_INIT("aclrtDestroyEvent");
  std::shared_ptr<oa::Event> removed;
  std::lock_guard<std::mutex> lock(oa::g_events_mutex);
  removed = oa::Events().Remove(event);
  // Markers still queued or waited on are owned by their tasks, so they complete normally.
  if (!removed) return oa::UnknownEvent("aclrtDestroyEvent", "event", event);
  return ACL_SUCCESS;
}

extern "C" aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  static const char* kApi = "aclrtRecordEvent";
  OA_REQUIRE_INIT(kApi);
  std::lock_guard<std::mutex> lock(oa::g_events_mutex);
  std::shared_ptr<oa::Event> found;
  if (aclError status = oa::FindEventLocked(kApi, "event", event, &found)) return status;
  auto marker = std::make_shared<oa::Marker>();
  if (aclError status = oa::EnqueueOnStream(stream, kApi, [marker] {
        marker->Complete();
        return std::string();
      })) {
    return status;  // the event keeps its previous marker
  }
  found->latest = std::move(marker);
  return ACL_SUCCESS;
}

extern "C" aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream) {
  static const char* kApi = "aclrtResetEvent";
  OA_REQUIRE_INIT(kApi);
  std::lock_guard<std::mutex> lock(oa::g_events_mutex);
  std::shared_ptr<oa::Event> found;
  if (aclError status = oa::FindEventLocked(kApi, "event", event, &found)) return status;
  // When the stream reaches the reset, the event forgets the marker it had at the call
  // (unless it was recorded again since).
  std::weak_ptr<oa::Event> target = found;
  std::shared_ptr<oa::Marker> expected = found->latest;
  return oa::EnqueueOnStream(stream, kApi, [target, expected] {
    std::lock_guard<std::mutex> reset_lock(oa::g_events_mutex);
    std::shared_ptr<oa::Event> alive = target.lock();
    if (alive && alive->latest == expected) alive->latest.reset();
    return std::string();
  });
}

extern "C" aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus* status) {
  static const char* kApi = "aclrtQueryEventStatus";
  OA_REQUIRE_INIT(kApi);
  if (status == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "%s: status must not be null", kApi);
  std::shared_ptr<oa::Marker> latest;
  if (aclError failed = oa::LatestMarker(kApi, "event", event, &latest)) return failed;
  *status = latest && latest->Done() ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
  return ACL_SUCCESS;
}

extern "C" aclError aclrtSynchronizeEvent(aclrtEvent event) {
  static const char* kApi = "aclrtSynchronizeEvent";
  OA_REQUIRE_INIT(kApi);
  std::shared_ptr<oa::Marker> latest;
  if (aclError status = oa::LatestMarker(kApi, "event", event, &latest)) return status;
  if (latest) latest->Wait();  // never recorded: nothing captured, nothing to wait for
  return ACL_SUCCESS;
}

extern "C" aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  static const char* kApi = "aclrtStreamWaitEvent";
  OA_REQUIRE_INIT(kApi);
  std::lock_guard<std::mutex> lock(oa::g_events_mutex);
  std::shared_ptr<oa::Event> found;
  if (aclError status = oa::FindEventLocked(kApi, "event", event, &found)) return status;
  std::shared_ptr<oa::Marker> captured = found->latest;
  // The stream's worker blocks, not the caller. A never-recorded event captures nothing,
  // but the wait is still queued so an unknown stream is reported.
  return oa::EnqueueOnStream(stream, kApi, [captured] {
    if (captured) captured->Wait();
    return std::string();
  });
}

extern "C" aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent) {
  static const char* kApi = "aclrtEventElapsedTime";
  OA_REQUIRE_INIT(kApi);
  if (ms == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "%s: ms must not be null", kApi);
  oa::Clock::time_point start, end;
  if (aclError status = oa::ReachedAt("startEvent", startEvent, &start)) return status;
  if (aclError status = oa::ReachedAt("endEvent", endEvent, &end)) return status;
  *ms = std::chrono::duration<float, std::milli>(end - start).count();
  return ACL_SUCCESS;
}
