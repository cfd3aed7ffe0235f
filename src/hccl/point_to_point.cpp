// HcclSend and HcclRecv. MPI would match a send with any receive of the pair and truncate or
// overrun on a size mismatch, so the two sides first swap a header (kind, count, dataType,
// position in the pair's sequence) and move the payload only if they agree; on a
// disagreement both report the same failure and no data move.
//
// A Send whose peer never posts the matching Recv (or posts a Send too) waits in MPI for
// ever, like a collective with a missing rank: every wait is an MPI_Recv on the pair's
// header or answer, which a later execution timeout (HCCL_EXEC_TIMEOUT) can bound.
#include <algorithm>
#include <string>

#include "hccl_internal.h"

namespace oa {
namespace hccl {
namespace {

constexpr uint64_t kHeaderMagic = 0x6863636c70327068ull;

struct PairHeader {
  uint64_t magic;
  uint64_t kind;
  uint64_t count;
  uint64_t type;
  uint64_t index;  // the sender's sends to this peer / the receiver's receives from it, so far
};
constexpr int kHeaderWords = sizeof(PairHeader) / sizeof(uint64_t);

std::string DescribeSide(const PairHeader& header, uint32_t rank) {
  const char* type = DataTypeName(header.type);
  return std::string(KindName(header.kind)) + " #" + std::to_string(header.index) + " on rank " +
         std::to_string(rank) + " (count=" + std::to_string(header.count) +
         ", dataType=" + (type != nullptr ? type : std::to_string(header.type)) + ")";
}

// The same sentence on both sides of the pair, or "" when they match.
std::string ComparePair(const PairHeader& sender, uint32_t sender_rank, const PairHeader& receiver,
                        uint32_t receiver_rank) {
  if (sender.magic == kHeaderMagic && receiver.magic == kHeaderMagic && sender.kind == uint64_t(Kind::kSend) &&
      receiver.kind == uint64_t(Kind::kRecv) && sender.count == receiver.count && sender.type == receiver.type &&
      sender.index == receiver.index) {
    return "";
  }
  return "a point-to-point pair disagrees (a Send and its Recv must have the same count and dataType, and each "
         "pair of ranks must post its Sends and Recvs in the same order): " + DescribeSide(sender, sender_rank) +
         " met " + DescribeSide(receiver, receiver_rank) + "; no data were exchanged";
}

std::string MpiFailure(const char* call, int status) { return std::string(call) + " failed: " + MpiErrorText(status); }

std::string MovePayload(const Communicator& comm, const Collective& op) {
  const size_t element = ElementSize(op.type);
  const uint64_t chunk = ChunkElements(element);
  for (uint64_t offset = 0; offset < op.count; offset += chunk) {
    const int bytes = static_cast<int>(std::min(chunk, op.count - offset) * element);
    const int peer = static_cast<int>(op.peer);
    const int status = op.kind == Kind::kSend
                           ? MPI_Send(op.send + offset * element, bytes, MPI_BYTE, peer, kPairPayloadTag, comm.mpi)
                           : MPI_Recv(op.recv + offset * element, bytes, MPI_BYTE, peer, kPairPayloadTag, comm.mpi,
                                      MPI_STATUS_IGNORE);
    if (status != MPI_SUCCESS) return MpiFailure(op.kind == Kind::kSend ? "MPI_Send" : "MPI_Recv", status);
  }
  return "";
}

}  // namespace

std::string RunPointToPoint(Communicator& comm, const Collective& op) {
  const bool sending = op.kind == Kind::kSend;
  uint64_t& position = sending ? comm.sends_to[op.peer] : comm.receives_from[op.peer];
  const PairHeader mine{kHeaderMagic, static_cast<uint64_t>(op.kind), op.count, static_cast<uint64_t>(op.type),
                        position++};
  PairHeader theirs{};
  const int peer = static_cast<int>(op.peer);
  // The sender speaks first, the receiver answers: both then hold both headers.
  if (sending) {
    int status = MPI_Send(&mine, kHeaderWords, MPI_UINT64_T, peer, kPairHeaderTag, comm.mpi);
    if (status != MPI_SUCCESS) return MpiFailure("MPI_Send", status);
    status = MPI_Recv(&theirs, kHeaderWords, MPI_UINT64_T, peer, kPairAnswerTag, comm.mpi, MPI_STATUS_IGNORE);
    if (status != MPI_SUCCESS) return MpiFailure("MPI_Recv", status);
  } else {
    int status = MPI_Recv(&theirs, kHeaderWords, MPI_UINT64_T, peer, kPairHeaderTag, comm.mpi, MPI_STATUS_IGNORE);
    if (status != MPI_SUCCESS) return MpiFailure("MPI_Recv", status);
    status = MPI_Send(&mine, kHeaderWords, MPI_UINT64_T, peer, kPairAnswerTag, comm.mpi);
    if (status != MPI_SUCCESS) return MpiFailure("MPI_Send", status);
  }
  const std::string failure = sending ? ComparePair(mine, comm.rank, theirs, op.peer)
                                      : ComparePair(theirs, op.peer, mine, comm.rank);
  return failure.empty() ? MovePayload(comm, op) : failure;
}

}  // namespace hccl
}  // namespace oa

namespace {

// Upstream's checks of both: count 0 first, then comm, the buffer, count, dataType, and the
// peer (itself: HCCL_E_NOT_SUPPORT; beyond the rank size: HCCL_E_PARA). The stream, which
// upstream checks further in, is checked after the buffer here, as in HcclBroadcast.
HcclResult EnqueuePointToPoint(const char* api, oa::hccl::Kind kind, void* buf, const char* buf_name, uint64_t count,
                               HcclDataType dataType, uint32_t peer, const char* peer_name, HcclComm comm,
                               aclrtStream stream) {
  using namespace oa::hccl;
  if (count == 0) return HCCL_SUCCESS;
  if (HcclResult status = CheckPointer(api, "comm", comm)) return status;
  if (HcclResult status = CheckPointer(api, buf_name, buf)) return status;
  if (HcclResult status = CheckStream(api, stream)) return status;
  if (HcclResult status = CheckCount(api, "count", count)) return status;
  if (HcclResult status = CheckMovableType(api, dataType)) return status;
  std::shared_ptr<Communicator> found;
  if (HcclResult status = CheckCommunicator(api, comm, &found)) return status;
  if (peer == found->rank) {
    return Fail(HCCL_E_NOT_SUPPORT, "%s: %s %u is this rank itself; a rank cannot send to or receive from itself", api,
                peer_name, peer);
  }
  if (peer >= found->size) {
    return Fail(HCCL_E_PARA, "%s: %s %u must be below the rank size %u", api, peer_name, peer, found->size);
  }
  unsigned char* bytes = static_cast<unsigned char*>(buf);
  Collective operation{kind, kind == Kind::kSend ? bytes : nullptr, kind == Kind::kRecv ? bytes : nullptr, count,
                       dataType, HCCL_REDUCE_SUM, 0, false, 0};
  operation.peer = peer;
  return Enqueue(api, comm, stream, operation);
}

}  // namespace

HCCL_API HcclResult HcclSend(void* sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank, HcclComm comm,
                             aclrtStream stream) {
  return EnqueuePointToPoint("HcclSend", oa::hccl::Kind::kSend, sendBuf, "sendBuf", count, dataType, destRank,
                             "destRank", comm, stream);
}

HCCL_API HcclResult HcclRecv(void* recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank, HcclComm comm,
                             aclrtStream stream) {
  return EnqueuePointToPoint("HcclRecv", oa::hccl::Kind::kRecv, recvBuf, "recvBuf", count, dataType, srcRank,
                             "srcRank", comm, stream);
}
