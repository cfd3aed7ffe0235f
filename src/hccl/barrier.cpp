// HcclBarrier: a collective without data, so that it takes its turn among the others.
#include "hccl_internal.h"

HCCL_API HcclResult HcclBarrier(HcclComm comm, aclrtStream stream) {
  using namespace oa::hccl;
  static const char* const api = "HcclBarrier";
  if (HcclResult status = CheckStream(api, stream)) return status;
  if (HcclResult status = CheckPointer(api, "comm", comm)) return status;
  if (HcclResult status = CheckCommunicator(api, comm)) return status;
  // A descriptor like any collective's (count 0, type INT8), so that a rank that issues a
  // Barrier where the others issue something else is reported, not left waiting.
  Collective collective{Kind::kBarrier, nullptr, nullptr, 0, HCCL_DATA_TYPE_INT8, HCCL_REDUCE_SUM, 0, false, 0};
  return Enqueue(api, comm, stream, collective);
}
