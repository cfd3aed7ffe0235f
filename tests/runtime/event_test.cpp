// Events, stream queries, timeouts and asynchronous memset: semantics and every error path.
// Also run by the ThreadSanitizer build (label "threads"): events cross threads.
#include <gmock/gmock.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "gate.h"
#include "test_runtime.h"

using ::testing::HasSubstr;

namespace {

aclError Sleep(aclrtStream stream, int ms) {
  return oa::EnqueueOnStream(stream, "test", [ms] {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return std::string();
  });
}

aclrtEventRecordedStatus Status(aclrtEvent event) {
  aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_COMPLETE;
  EXPECT_EQ(aclrtQueryEventStatus(event, &status), ACL_SUCCESS) << LastError();
  return status;
}

class EventTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_EQ(aclrtCreateStream(&a_), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateStream(&b_), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateEvent(&event_), ACL_SUCCESS);
  }
  void TearDown() override {
    gate_.Open();
    EXPECT_EQ(aclrtDestroyEvent(event_), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(a_), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(b_), ACL_SUCCESS);
    RuntimeTest::TearDown();
  }
  aclrtStream a_ = nullptr, b_ = nullptr;
  aclrtEvent event_ = nullptr;
  Gate gate_;
};

}  // namespace

TEST_F(EventTest, StatusFollowsTheStreamNotTheCall) {
  EXPECT_EQ(Status(event_), ACL_EVENT_RECORDED_STATUS_NOT_READY);  // never recorded
  ASSERT_EQ(gate_.BlockStream(a_), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(event_, a_), ACL_SUCCESS);
  EXPECT_EQ(Status(event_), ACL_EVENT_RECORDED_STATUS_NOT_READY);  // recorded, not reached
  gate_.Open();
  ASSERT_EQ(aclrtSynchronizeEvent(event_), ACL_SUCCESS);
  EXPECT_EQ(Status(event_), ACL_EVENT_RECORDED_STATUS_COMPLETE);
  ASSERT_EQ(aclrtResetEvent(event_, a_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(a_), ACL_SUCCESS);
  EXPECT_EQ(Status(event_), ACL_EVENT_RECORDED_STATUS_NOT_READY);  // reset: as never recorded
  EXPECT_EQ(aclrtSynchronizeEvent(event_), ACL_SUCCESS);           // nothing captured: returns at once
}

TEST_F(EventTest, ElapsedTimeIsTakenWhenTheStreamReachesEachEvent) {
  aclrtEvent end = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&end), ACL_SUCCESS);
  float ms = -1;
  EXPECT_EQ(aclrtEventElapsedTime(&ms, event_, end), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(), HasSubstr("has not been recorded"));
  // Both recorded at once while the stream is held; 20 ms of work lie between them.
  ASSERT_EQ(gate_.BlockStream(a_), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(event_, a_), ACL_SUCCESS);
  ASSERT_EQ(Sleep(a_, 20), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(end, a_), ACL_SUCCESS);
  EXPECT_EQ(aclrtEventElapsedTime(&ms, event_, end), ACL_ERROR_RT_EVENT_NOT_COMPLETE);
  EXPECT_THAT(LastError(), HasSubstr("its stream has not reached it yet"));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // host time that must not count
  gate_.Open();
  ASSERT_EQ(aclrtSynchronizeEvent(end), ACL_SUCCESS);
  ASSERT_EQ(aclrtEventElapsedTime(&ms, event_, end), ACL_SUCCESS) << LastError();
  EXPECT_GE(ms, 19.0f);
  EXPECT_LT(ms, 90.0f);
  EXPECT_EQ(aclrtEventElapsedTime(nullptr, event_, end), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(), HasSubstr("ms must not be null"));
  EXPECT_EQ(aclrtDestroyEvent(end), ACL_SUCCESS);
  EXPECT_EQ(aclrtEventElapsedTime(&ms, event_, end), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_THAT(LastError(), HasSubstr("endEvent"));
}

TEST_F(EventTest, StreamWaitEventOrdersStreamsWithoutBlockingTheHost) {
  std::atomic<int> order{0};
  std::atomic<int> a_done_at{0}, b_done_at{0};
  ASSERT_EQ(gate_.BlockStream(a_), ACL_SUCCESS);
  ASSERT_EQ(oa::EnqueueOnStream(a_, "test", [&] { a_done_at = ++order; return std::string(); }), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(event_, a_), ACL_SUCCESS);
  const auto before = std::chrono::steady_clock::now();
  ASSERT_EQ(aclrtStreamWaitEvent(b_, event_), ACL_SUCCESS);  // returns although A is held
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::milliseconds(500));
  ASSERT_EQ(oa::EnqueueOnStream(b_, "test", [&] { b_done_at = ++order; return std::string(); }), ACL_SUCCESS);
  aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  ASSERT_EQ(aclrtStreamQuery(b_, &status), ACL_SUCCESS);
  EXPECT_EQ(status, ACL_STREAM_STATUS_NOT_READY);  // B waits on A's event
  EXPECT_EQ(b_done_at.load(), 0);
  gate_.Open();
  ASSERT_EQ(aclrtSynchronizeStream(b_), ACL_SUCCESS);
  EXPECT_EQ(a_done_at.load(), 1);
  EXPECT_EQ(b_done_at.load(), 2);
  ASSERT_EQ(aclrtStreamQuery(b_, &status), ACL_SUCCESS);
  EXPECT_EQ(status, ACL_STREAM_STATUS_COMPLETE);
}

TEST_F(EventTest, AWaitKeepsTheRecordItCapturedAcrossReRecordAndDestroy) {
  std::atomic<bool> b_ran{false};
  ASSERT_EQ(gate_.BlockStream(a_), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(event_, a_), ACL_SUCCESS);
  ASSERT_EQ(aclrtStreamWaitEvent(b_, event_), ACL_SUCCESS);
  ASSERT_EQ(oa::EnqueueOnStream(b_, "test", [&] { b_ran = true; return std::string(); }), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(event_, nullptr), ACL_SUCCESS);  // re-record on an idle stream
  ASSERT_EQ(aclrtSynchronizeEvent(event_), ACL_SUCCESS);     // waits for the new record only
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(b_ran.load());  // B still waits for the first record
  aclrtEvent pending = event_;
  ASSERT_EQ(aclrtDestroyEvent(pending), ACL_SUCCESS);  // destroying a pending event is allowed
  ASSERT_EQ(aclrtCreateEvent(&event_), ACL_SUCCESS);
  EXPECT_NE(event_, pending);  // handles are never reused
  gate_.Open();
  ASSERT_EQ(aclrtSynchronizeStream(b_), ACL_SUCCESS);
  EXPECT_TRUE(b_ran.load());
}

TEST_F(EventTest, WaitingOnANeverRecordedEventWaitsForNothing) {
  std::atomic<bool> ran{false};
  ASSERT_EQ(aclrtStreamWaitEvent(b_, event_), ACL_SUCCESS);
  ASSERT_EQ(oa::EnqueueOnStream(b_, "test", [&] { ran = true; return std::string(); }), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(b_), ACL_SUCCESS);
  EXPECT_TRUE(ran.load());
}

TEST_F(EventTest, BadHandlesAndFlags) {
  aclrtEvent made = nullptr;
  EXPECT_EQ(aclrtCreateEvent(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(), HasSubstr("aclrtCreateEvent: event must not be null"));
  EXPECT_EQ(aclrtCreateEventWithFlag(&made, ACL_EVENT_IPC), ACL_ERROR_FEATURE_UNSUPPORTED);
  EXPECT_THAT(LastError(), HasSubstr("ACL_EVENT_EXTERNAL or ACL_EVENT_IPC"));
  EXPECT_EQ(aclrtCreateEventWithFlag(&made, ACL_EVENT_EXTERNAL), ACL_ERROR_FEATURE_UNSUPPORTED);
  EXPECT_EQ(aclrtCreateEventWithFlag(&made, 0x100), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(), HasSubstr("unknown bits"));
  // Without ACL_EVENT_TIME_LINE an event synchronises but does not time.
  ASSERT_EQ(aclrtCreateEventWithFlag(&made, ACL_EVENT_SYNC), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(made, a_), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(event_, a_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(a_), ACL_SUCCESS);
  float ms = 0;
  EXPECT_EQ(aclrtEventElapsedTime(&ms, made, event_), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(), HasSubstr("without ACL_EVENT_TIME_LINE"));
  EXPECT_EQ(aclrtDestroyEvent(made), ACL_SUCCESS);

  // A destroyed, an unknown and a null event, in every call.
  int not_an_event = 0;
  aclrtEventRecordedStatus status;
  for (aclrtEvent bad : {made, static_cast<aclrtEvent>(&not_an_event), static_cast<aclrtEvent>(nullptr)}) {
    const aclError expected = bad == nullptr ? ACL_ERROR_INVALID_PARAM : ACL_ERROR_INVALID_RESOURCE_HANDLE;
    EXPECT_EQ(aclrtDestroyEvent(bad), expected);
    EXPECT_EQ(aclrtRecordEvent(bad, a_), expected);
    EXPECT_EQ(aclrtResetEvent(bad, a_), expected);
    EXPECT_EQ(aclrtQueryEventStatus(bad, &status), expected);
    EXPECT_EQ(aclrtSynchronizeEvent(bad), expected);
    EXPECT_EQ(aclrtStreamWaitEvent(b_, bad), expected);
    EXPECT_EQ(aclrtEventElapsedTime(&ms, bad, event_), expected);
    EXPECT_THAT(LastError(), HasSubstr(bad == nullptr ? "must not be null" : "is not a live event"));
  }
  EXPECT_EQ(aclrtQueryEventStatus(event_, nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(EventTest, RecordOnADestroyedStreamIsRejectedAndLeavesTheEventAlone) {
  aclrtStream doomed = nullptr;
  ASSERT_EQ(aclrtCreateStream(&doomed), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(doomed), ACL_SUCCESS);
  EXPECT_EQ(aclrtRecordEvent(event_, doomed), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_THAT(LastError(), HasSubstr("aclrtRecordEvent: stream"));
  EXPECT_EQ(Status(event_), ACL_EVENT_RECORDED_STATUS_NOT_READY);
  EXPECT_EQ(aclrtStreamWaitEvent(doomed, event_), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_EQ(aclrtResetEvent(event_, doomed), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  // A stream destroyed after the record still reaches it (destroy drains the queue).
  ASSERT_EQ(aclrtCreateStream(&doomed), ACL_SUCCESS);
  ASSERT_EQ(Sleep(doomed, 10), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(event_, doomed), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(doomed), ACL_SUCCESS);
  EXPECT_EQ(Status(event_), ACL_EVENT_RECORDED_STATUS_COMPLETE);
}

TEST_F(EventTest, SynchronizeWithTimeoutReportsExpiryAndTheQueueKeepsRunning) {
  std::atomic<bool> ran{false};
  ASSERT_EQ(gate_.BlockStream(a_), ACL_SUCCESS);
  ASSERT_EQ(oa::EnqueueOnStream(a_, "test", [&] { ran = true; return std::string(); }), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(a_, 30), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
  EXPECT_THAT(LastError(), HasSubstr("did not finish within 30 ms; it keeps running"));
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(a_, 0), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(a_, -2), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(), HasSubstr("timeout must be -1 (wait for ever) or >= 0 ms, got -2"));
  EXPECT_FALSE(ran.load());
  gate_.Open();
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(a_, -1), ACL_SUCCESS);
  EXPECT_TRUE(ran.load());
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(a_, 0), ACL_SUCCESS);  // nothing pending
  int not_a_stream = 0;
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(&not_a_stream, 10), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  aclrtStreamStatus status;
  EXPECT_EQ(aclrtStreamQuery(&not_a_stream, &status), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_EQ(aclrtStreamQuery(a_, nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(EventTest, MemsetAsyncRunsInStreamOrderAndChecksItsBounds) {
  unsigned char buffer[64];
  std::memset(buffer, 0, sizeof buffer);
  ASSERT_EQ(gate_.BlockStream(a_), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemsetAsync(buffer, sizeof buffer, 0x5A, 32, a_), ACL_SUCCESS);
  EXPECT_EQ(buffer[0], 0);  // queued, not run
  gate_.Open();
  ASSERT_EQ(aclrtSynchronizeStream(a_), ACL_SUCCESS);
  EXPECT_EQ(buffer[31], 0x5A);
  EXPECT_EQ(buffer[32], 0);
  EXPECT_EQ(aclrtMemsetAsync(buffer, 16, 0, 17, a_), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(), HasSubstr("aclrtMemsetAsync: count (17 bytes) exceeds maxCount (16 bytes)"));
  EXPECT_EQ(aclrtMemsetAsync(nullptr, 16, 0, 16, a_), ACL_ERROR_INVALID_PARAM);
  int not_a_stream = 0;
  EXPECT_EQ(aclrtMemsetAsync(buffer, 16, 0, 16, &not_a_stream), ACL_ERROR_INVALID_RESOURCE_HANDLE);
}

TEST_F(RuntimeTest, RunModeAndSocName) {
  aclrtRunMode mode = ACL_DEVICE;
  ASSERT_EQ(aclrtGetRunMode(&mode), ACL_SUCCESS);
  EXPECT_EQ(mode, ACL_HOST);
  EXPECT_EQ(aclrtGetRunMode(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_STREQ(aclrtGetSocName(), "openaclnn-cpu");
}

TEST(RuntimeStateTest, NewCallsBeforeInitFailWithUninitialize) {
  aclrtEvent event = nullptr;
  EXPECT_EQ(aclrtCreateEvent(&event), ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(nullptr, 1), ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(aclrtGetSocName(), nullptr);
  EXPECT_THAT(LastError(), HasSubstr("aclrtGetSocName: the runtime is not initialized"));
}

TEST_F(RuntimeTest, AnExceptionInQueuedWorkIsReportedBySynchronize) {
  ASSERT_EQ(oa::EnqueueOnStream(nullptr, "test", []() -> std::string { throw std::runtime_error("boom"); }),
            ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_ERROR_RT_FAILURE);
  EXPECT_THAT(LastError(), HasSubstr("a queued task threw an exception: boom"));
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);  // the stream still works
}
