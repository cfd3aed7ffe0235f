// HcclGroupStart and HcclGroupEnd: operations issued between them are recorded (after their
// argument checks) and issued together at the outermost HcclGroupEnd, as upstream's
// hccl_group does: per communicator, in the order the communicators were first used, every
// Send and Recv (and BatchSendRecv item) as one batch on the stream of the first of them
// (events keep the other streams' order around it), then the collectives in the order they
// were called. Every transfer of a batch is posted at once, so a ring of Sends and Recvs
// inside a group cannot deadlock.
#include <algorithm>
#include <string>
#include <vector>

#include "hccl_internal.h"

namespace oa {
namespace hccl {
namespace {

struct Deferred {
  const char* api;
  HcclComm comm;
  aclrtStream stream;
  Collective op;
};

// Process-wide, as upstream's group depth is: a group gathers the operations of every thread.
std::mutex g_group_mutex;
int g_group_depth = 0;              // guarded by g_group_mutex
std::vector<Deferred> g_deferred;   // guarded by g_group_mutex

// Makes `waiting` wait for what `recorded` has queued so far (an event recorded on one,
// waited for on the other; destroying it at once is safe: the queued tasks own its marker).
HcclResult OrderStreams(aclrtStream recorded, aclrtStream waiting) {
  aclrtEvent event = nullptr;
  if (aclrtCreateEvent(&event) != ACL_SUCCESS) {
    return Fail(HCCL_E_RUNTIME, "HcclGroupEnd: could not order the point-to-point batch across streams: %s",
                aclGetRecentErrMsg());
  }
  const bool ordered =
      aclrtRecordEvent(event, recorded) == ACL_SUCCESS && aclrtStreamWaitEvent(waiting, event) == ACL_SUCCESS;
  const std::string failure = ordered ? "" : aclGetRecentErrMsg();
  aclrtDestroyEvent(event);
  if (!ordered) {
    return Fail(HCCL_E_RUNTIME, "HcclGroupEnd: could not order the point-to-point batch across streams: %s",
                failure.c_str());
  }
  return HCCL_SUCCESS;
}

}  // namespace

bool DeferToGroup(const char* api, HcclComm comm, aclrtStream stream, const Collective& op) {
  std::lock_guard<std::mutex> lock(g_group_mutex);
  if (g_group_depth == 0) return false;
  g_deferred.push_back({api, comm, stream, op});
  return true;
}

}  // namespace hccl
}  // namespace oa

using oa::hccl::Fail;

HCCL_API HcclResult HcclGroupStart(void) {
  std::lock_guard<std::mutex> lock(oa::hccl::g_group_mutex);
  ++oa::hccl::g_group_depth;
  return HCCL_SUCCESS;
}

HCCL_API HcclResult HcclGroupEnd(void) {
  using namespace oa::hccl;
  std::vector<Deferred> deferred;
  {
    std::lock_guard<std::mutex> lock(g_group_mutex);
    if (g_group_depth == 0) {
      return Fail(HCCL_E_NOT_SUPPORT, "HcclGroupEnd: no group is open (every HcclGroupEnd needs an HcclGroupStart "
                  "before it)");
    }
    if (--g_group_depth > 0) return HCCL_SUCCESS;  // only the outermost end issues the group
    deferred.swap(g_deferred);
  }
  std::vector<HcclComm> communicators;  // in the order of first use
  for (const Deferred& d : deferred) {
    if (std::find(communicators.begin(), communicators.end(), d.comm) == communicators.end()) {
      communicators.push_back(d.comm);
    }
  }
  std::vector<aclrtStream> collective_streams;
  for (HcclComm comm : communicators) {
    Collective batch{Kind::kBatchSendRecv, nullptr, nullptr, 0, HCCL_DATA_TYPE_INT8, HCCL_REDUCE_SUM, 0, false, 0};
    std::vector<aclrtStream> batch_streams;  // the first one runs the batch
    for (const Deferred& d : deferred) {
      if (d.comm != comm || !PointToPoint(d.op.kind)) continue;
      if (std::find(batch_streams.begin(), batch_streams.end(), d.stream) == batch_streams.end()) {
        batch_streams.push_back(d.stream);
      }
      batch.transfers.insert(batch.transfers.end(), d.op.transfers.begin(), d.op.transfers.end());
    }
    if (!batch_streams.empty()) {
      // Each transfer keeps its own stream's order: the batch starts after what the other
      // streams queued before the group ended, and their later work waits for the batch.
      const aclrtStream batch_stream = batch_streams.front();
      for (size_t i = 1; i < batch_streams.size(); ++i) {
        if (HcclResult status = OrderStreams(batch_streams[i], batch_stream)) return status;
      }
      if (HcclResult status = Enqueue("HcclGroupEnd", comm, batch_stream, batch)) return status;
      for (size_t i = 1; i < batch_streams.size(); ++i) {
        if (HcclResult status = OrderStreams(batch_stream, batch_streams[i])) return status;
      }
    }
    for (const Deferred& d : deferred) {
      if (d.comm != comm || PointToPoint(d.op.kind)) continue;
      if (HcclResult status = Enqueue(d.api, d.comm, d.stream, d.op)) return status;
      if (std::find(collective_streams.begin(), collective_streams.end(), d.stream) == collective_streams.end()) {
        collective_streams.push_back(d.stream);
      }
    }
  }
  // Upstream's group end waits for the streams of the grouped collectives.
  for (aclrtStream stream : collective_streams) {
    if (aclrtSynchronizeStream(stream) != ACL_SUCCESS) {
      const std::string failure = aclGetRecentErrMsg();  // before Fail replaces it
      return Fail(HCCL_E_RUNTIME, "HcclGroupEnd: a grouped collective failed on stream %p: %s", stream,
                  failure.c_str());
    }
  }
  return HCCL_SUCCESS;
}
