/* HCCL collectives (CANN's hccl/hccl.h, shipped in libhccl). Includes the types and the
 * communicator management functions, as older CANN releases declared them here. */
#ifndef HCCL_H_
#define HCCL_H_

#include <stdint.h>

#include "acl/acl.h"
#include "hccl/hccl_comm.h"
#include "hccl/hccl_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueued on stream; recvBuf[i] = op over all ranks of sendBuf[i] for i < count, on every
 * rank. sendBuf == recvBuf (in place) is allowed. */
extern HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType, HcclReduceOp op,
                                HcclComm comm, aclrtStream stream);

/* Enqueued on stream; recvBuf holds sendCount elements of every rank, in rank order. */
extern HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType,
                                HcclComm comm, aclrtStream stream);

/* Enqueued on stream; every rank's buf ends up equal to the root's. */
extern HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root, HcclComm comm,
                                aclrtStream stream);

/* Enqueued on stream; sendBuf holds rankSize blocks of recvCount elements, and recvBuf
 * receives op over all ranks of their block number `rank`. sendBuf == recvBuf (in place)
 * is allowed: the result replaces the first recvCount elements. */
extern HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                    HcclReduceOp op, HcclComm comm, aclrtStream stream);

/* Enqueued on stream; completes once every rank of comm has reached its HcclBarrier. */
extern HcclResult HcclBarrier(HcclComm comm, aclrtStream stream);

/* Enqueued on stream; count elements to destRank, whose matching HcclRecv must name the
 * same count and dataType. */
extern HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank, HcclComm comm,
                           aclrtStream stream);

/* Enqueued on stream; count elements from srcRank's matching HcclSend. */
extern HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank, HcclComm comm,
                           aclrtStream stream);

/* Enqueued on stream; block j (sendCount elements) of sendBuf goes to rank j, and block r
 * of recvBuf comes from rank r. sendCount == recvCount and sendType == recvType; not in
 * place. */
extern HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType, const void *recvBuf,
                               uint64_t recvCount, HcclDataType recvType, HcclComm comm, aclrtStream stream);

/* Enqueued on stream; sendCounts[j] elements at sendBuf + sdispls[j] go to rank j, and
 * recvCounts[r] elements from rank r land at recvBuf + rdispls[r] (uint64_t arrays of
 * rankSize entries, in elements, read when the call is made). Not in place. */
extern HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls,
                                HcclDataType sendType, const void *recvBuf, const void *recvCounts,
                                const void *rdispls, HcclDataType recvType, HcclComm comm, aclrtStream stream);

/* Enqueued on stream; the root's recvBuf[i] = op over all ranks of sendBuf[i] for
 * i < count (other ranks' recvBuf is not written). sendBuf == recvBuf is allowed. */
extern HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType, HcclReduceOp op,
                             uint32_t root, HcclComm comm, aclrtStream stream);

/* Enqueued on stream; the root's sendBuf holds rankSize blocks of recvCount elements, and
 * rank r's recvBuf receives block r (sendBuf is read on the root only). */
extern HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType, uint32_t root,
                              HcclComm comm, aclrtStream stream);

/* Enqueued on stream; every rank's sendCount elements land in every rank's recvBuf at
 * recvDispls[rank], recvCounts[r] being rank r's sendCount (uint64_t arrays of rankSize
 * entries, in elements, read when the call is made). */
extern HcclResult HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf, const void *recvCounts,
                                 const void *recvDispls, HcclDataType dataType, HcclComm comm, aclrtStream stream);

/* Enqueued on stream; rank j's recvBuf receives op over all ranks of their sendCounts[j]
 * elements at sendBuf + sendDispls[j] (uint64_t arrays of rankSize entries, in elements,
 * read when the call is made); sendCounts[j] must be rank j's recvCount on every rank. */
extern HcclResult HcclReduceScatterV(void *sendBuf, const void *sendCounts, const void *sendDispls, void *recvBuf,
                                     uint64_t recvCount, HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                     aclrtStream stream);

/* Enqueued on stream; every transfer of the list at once (this rank's sends and receives
 * do not wait for each other). Each transfer pairs with the peer's counterpart (an HcclSend
 * or HcclRecv, or a batch item) of the same count and dataType, in order. */
extern HcclResult HcclBatchSendRecv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum, HcclComm comm,
                                    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* HCCL_H_ */
