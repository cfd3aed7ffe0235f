// HcclSend, HcclRecv and HcclBatchSendRecv. MPI would match a send with any receive of the
// pair and truncate or overrun on a size mismatch, so both sides of every transfer first
// swap a header (direction, count, dataType, position in the pair's sequence) and move the
// payload only if they agree; on a disagreement both report the same failure and no data
// of that transfer move.
//
// A transfer whose peer never posts its counterpart (or posts the same direction) fails
// after HCCL_EXEC_TIMEOUT (WaitForPeers), like a collective with a missing rank.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/dtype.h"
#include "hccl_internal.h"

namespace oa {
namespace hccl {
namespace {

constexpr uint64_t kHeaderMagic = 0x6863636c70327068ull;

struct PairHeader {
  uint64_t magic;
  uint64_t kind;  // Kind::kSend or Kind::kRecv: the direction
  uint64_t count;
  uint64_t type;
  uint64_t index;  // the sender's sends to this peer / the receiver's receives from it, so far
};
constexpr int kHeaderWords = sizeof(PairHeader) / sizeof(uint64_t);

std::string DescribeSide(const PairHeader& header, uint32_t rank) {
  const char* type = DataTypeName(header.type);
  return std::string(header.kind == uint64_t(Kind::kSend) ? "send" : "receive") + " #" +
         std::to_string(header.index) + " on rank " + std::to_string(rank) + " (count=" +
         std::to_string(header.count) + ", dataType=" + (type != nullptr ? type : std::to_string(header.type)) + ")";
}

// The same sentence on both sides of the pair, or "" when they match.
std::string ComparePair(const PairHeader& sender, uint32_t sender_rank, const PairHeader& receiver,
                        uint32_t receiver_rank) {
  if (sender.magic == kHeaderMagic && receiver.magic == kHeaderMagic && sender.kind == uint64_t(Kind::kSend) &&
      receiver.kind == uint64_t(Kind::kRecv) && sender.count == receiver.count && sender.type == receiver.type &&
      sender.index == receiver.index) {
    return "";
  }
  return "a point-to-point pair disagrees (a send and its receive must have the same count and dataType, and each "
         "pair of ranks must post its sends and receives in the same order): the " + DescribeSide(sender, sender_rank) +
         " met the " + DescribeSide(receiver, receiver_rank) + "; no data were exchanged";
}

bool Sending(const HcclSendRecvItem& transfer) { return transfer.sendRecvType == HCCL_SEND; }

// One transfer as this rank sees it.
struct Transfer {
  const HcclSendRecvItem* item;
  PairHeader mine, theirs;
  std::string failure;
};

}  // namespace

// Every transfer is posted at once (sends and receives of one rank do not block each other,
// as upstream's BatchSendRecv promises): first all headers, then every agreed payload in
// chunks. Transfers to this rank itself pair up locally, in order, and are copies.
std::string RunPointToPoint(Communicator& comm, const Collective& op) {
  // Shared with WaitForPeers, which keeps the headers alive if it gives up on them.
  auto shared_transfers = std::make_shared<std::vector<Transfer>>(op.transfers.size());
  std::vector<Transfer>& transfers = *shared_transfers;
  std::vector<MPI_Request> requests;
  for (size_t i = 0; i < transfers.size(); ++i) {
    Transfer& t = transfers[i];
    t.item = &op.transfers[i];
    const bool sending = Sending(*t.item);
    const uint32_t peer = t.item->remoteRank;
    t.mine = {kHeaderMagic, static_cast<uint64_t>(sending ? Kind::kSend : Kind::kRecv), t.item->count,
              static_cast<uint64_t>(oa::EnumBits(t.item->dataType)), 0};
    // Transfers to itself pair within the batch (their position is set below), so they
    // leave the per-peer positions alone.
    if (peer == comm.rank) continue;
    t.mine.index = (sending ? comm.sends_to[peer] : comm.receives_from[peer])++;
    // The sender's header goes to the receiver, the receiver's comes back as the answer.
    requests.resize(requests.size() + 2);
    MPI_Isend(&t.mine, kHeaderWords, MPI_UINT64_T, static_cast<int>(peer),
              sending ? kPairHeaderTag : kPairAnswerTag, comm.mpi, &requests[requests.size() - 2]);
    MPI_Irecv(&t.theirs, kHeaderWords, MPI_UINT64_T, static_cast<int>(peer),
              sending ? kPairAnswerTag : kPairHeaderTag, comm.mpi, &requests.back());
  }
  // Transfers to this rank itself only: no request, no MPI call.
  std::string failure = WaitForPeers(comm, &requests, "the peers of the point-to-point transfers (their headers)",
                                     Requests::kPointToPoint, shared_transfers);
  if (!failure.empty()) return failure;
  // The k-th send to itself meets the k-th receive from itself.
  std::vector<Transfer*> own_sends, own_receives;
  for (Transfer& t : transfers) {
    if (t.item->remoteRank != comm.rank) continue;
    std::vector<Transfer*>& own = Sending(*t.item) ? own_sends : own_receives;
    t.mine.index = own.size();
    own.push_back(&t);
  }
  for (size_t k = 0; k < std::max(own_sends.size(), own_receives.size()); ++k) {
    if (k >= own_sends.size() || k >= own_receives.size()) {
      Transfer& alone = k < own_sends.size() ? *own_sends[k] : *own_receives[k];
      alone.failure = "rank " + std::to_string(comm.rank) + "'s " + DescribeSide(alone.mine, comm.rank) +
                      " to itself has no counterpart in the same HcclBatchSendRecv; no data were exchanged";
      continue;
    }
    own_sends[k]->theirs = own_receives[k]->mine;
    own_receives[k]->theirs = own_sends[k]->mine;
  }
  for (Transfer& t : transfers) {
    if (!t.failure.empty()) continue;
    t.failure = Sending(*t.item) ? ComparePair(t.mine, comm.rank, t.theirs, t.item->remoteRank)
                                 : ComparePair(t.theirs, t.item->remoteRank, t.mine, comm.rank);
  }
  // The payloads of the agreed transfers, in chunks of one MPI call each.
  for (size_t k = 0; k < own_sends.size() && k < own_receives.size(); ++k) {
    const HcclSendRecvItem& from = *own_sends[k]->item;
    if (own_sends[k]->failure.empty() && from.count != 0) {
      std::memmove(own_receives[k]->item->buf, from.buf, from.count * ElementSize(from.dataType));
    }
  }
  for (Transfer& t : transfers) {
    if (!t.failure.empty() || t.item->remoteRank == comm.rank) continue;
    const size_t element = ElementSize(t.item->dataType);
    const uint64_t chunk = ChunkElements(element);
    auto* bytes = static_cast<unsigned char*>(t.item->buf);
    for (uint64_t offset = 0; offset < t.item->count; offset += chunk) {
      const int length = static_cast<int>(std::min(chunk, t.item->count - offset) * element);
      requests.emplace_back();
      const int peer = static_cast<int>(t.item->remoteRank);
      if (Sending(*t.item)) {
        MPI_Isend(bytes + offset * element, length, MPI_BYTE, peer, kPairPayloadTag, comm.mpi, &requests.back());
      } else {
        MPI_Irecv(bytes + offset * element, length, MPI_BYTE, peer, kPairPayloadTag, comm.mpi, &requests.back());
      }
    }
  }
  failure = WaitForPeers(comm, &requests, "the point-to-point payloads", Requests::kPointToPoint, shared_transfers);
  if (!failure.empty()) return failure;
  for (const Transfer& t : transfers) {
    if (!t.failure.empty()) return t.failure;  // the first, after every agreed transfer is done
  }
  return "";
}

}  // namespace hccl
}  // namespace oa

namespace {

using oa::hccl::Fail;

HcclResult EnqueueTransfers(const char* api, std::vector<HcclSendRecvItem> transfers, oa::hccl::Kind kind,
                            HcclComm comm, aclrtStream stream) {
  using namespace oa::hccl;
  Collective operation{kind, nullptr, nullptr, 0, HCCL_DATA_TYPE_INT8, HCCL_REDUCE_SUM, 0, false, 0};
  operation.transfers = std::move(transfers);
  return Enqueue(api, comm, stream, operation);
}

// Upstream's checks of Send and Recv: count 0 first, then comm, the buffer, count, dataType,
// and the peer (itself: HCCL_E_NOT_SUPPORT; beyond the rank size: HCCL_E_PARA). The stream,
// which upstream checks further in, is checked after the buffer here, as in HcclBroadcast.
HcclResult EnqueuePointToPoint(const char* api, HcclSendRecvType direction, void* buf, const char* buf_name,
                               uint64_t count, HcclDataType dataType, uint32_t peer, const char* peer_name,
                               HcclComm comm, aclrtStream stream) {
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
  return EnqueueTransfers(api, {HcclSendRecvItem{direction, buf, count, dataType, peer}},
                          direction == HCCL_SEND ? Kind::kSend : Kind::kRecv, comm, stream);
}

}  // namespace

HCCL_API HcclResult HcclSend(void* sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank, HcclComm comm,
                             aclrtStream stream) {
  return EnqueuePointToPoint("HcclSend", HCCL_SEND, sendBuf, "sendBuf", count, dataType, destRank, "destRank", comm,
                             stream);
}

HCCL_API HcclResult HcclRecv(void* recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank, HcclComm comm,
                             aclrtStream stream) {
  return EnqueuePointToPoint("HcclRecv", HCCL_RECV, recvBuf, "recvBuf", count, dataType, srcRank, "srcRank", comm,
                             stream);
}

// Upstream's order: itemNum 0 first, then stream, comm, sendRecvInfo, each item's count and
// dataType, the communicator, each item's remoteRank. Ours, after those: each item's
// direction (upstream refuses another value when it runs the batch) and its buffer.
HCCL_API HcclResult HcclBatchSendRecv(HcclSendRecvItem* sendRecvInfo, uint32_t itemNum, HcclComm comm,
                                      aclrtStream stream) {
  using namespace oa::hccl;
  static const char* const api = "HcclBatchSendRecv";
  if (itemNum == 0) return HCCL_SUCCESS;
  if (HcclResult status = CheckStream(api, stream)) return status;
  if (HcclResult status = CheckPointer(api, "comm", comm)) return status;
  if (HcclResult status = CheckPointer(api, "sendRecvInfo", sendRecvInfo)) return status;
  char parameter[64];
  for (uint32_t i = 0; i < itemNum; ++i) {
    std::snprintf(parameter, sizeof parameter, "sendRecvInfo[%u].count", i);
    if (HcclResult status = CheckCount(api, parameter, sendRecvInfo[i].count)) return status;
    if (HcclResult status = CheckMovableType(api, sendRecvInfo[i].dataType)) return status;
  }
  std::shared_ptr<Communicator> found;
  if (HcclResult status = CheckCommunicator(api, comm, &found)) return status;
  for (uint32_t i = 0; i < itemNum; ++i) {
    if (sendRecvInfo[i].remoteRank >= found->size) {
      return Fail(HCCL_E_PARA, "%s: sendRecvInfo[%u].remoteRank %u must be below the rank size %u", api, i,
                  sendRecvInfo[i].remoteRank, found->size);
    }
  }
  for (uint32_t i = 0; i < itemNum; ++i) {
    const int direction = oa::EnumBits(sendRecvInfo[i].sendRecvType);
    if (direction != HCCL_SEND && direction != HCCL_RECV) {
      return Fail(HCCL_E_PARA, "%s: sendRecvInfo[%u].sendRecvType %d is neither HCCL_SEND nor HCCL_RECV", api, i,
                  direction);
    }
    if (sendRecvInfo[i].count != 0 && sendRecvInfo[i].buf == nullptr) {
      return Fail(HCCL_E_PTR, "%s: sendRecvInfo[%u].buf must not be null", api, i);
    }
  }
  return EnqueueTransfers(api, std::vector<HcclSendRecvItem>(sendRecvInfo, sendRecvInfo + itemNum),
                          Kind::kBatchSendRecv, comm, stream);
}
