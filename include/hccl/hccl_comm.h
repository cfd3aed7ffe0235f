/* HCCL communicator management (CANN's hccl/hccl_comm.h, shipped in libhcomm). */
#ifndef HCCL_COMM_H_
#define HCCL_COMM_H_

#include <stdint.h>

#include "hccl/hccl_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Root rank only: fills rootInfo with the identifier of a new communicator. */
extern HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo);

/* Collective over the MPI job: every process calls it with the same rootInfo and nRanks
 * and its own rank in [0, nRanks). */
extern HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                       HcclComm *comm);

/* Rank-table initialisation: not supported here (HCCL_E_NOT_SUPPORT). */
extern HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm);

extern HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize);
extern HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank);

/* The communicator's first asynchronous error (an HCCL_EXEC_TIMEOUT timeout:
 * HCCL_E_TIMEOUT), HCCL_SUCCESS when none. */
extern HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError);

/* HCCL_E_AGAIN (communicator still valid) while collectives on it are pending. */
extern HcclResult HcclCommDestroy(HcclComm comm);

/* Group calls: operations issued between HcclGroupStart and the matching HcclGroupEnd are
 * issued together at the outermost HcclGroupEnd (point-to-point ones as one batch per
 * communicator); HcclGroupEnd without a group: HCCL_E_NOT_SUPPORT. */
extern HcclResult HcclGroupStart(void);
extern HcclResult HcclGroupEnd(void);

/* A static English name for code ("HCCL_E_PARA", ...); never null. */
extern const char *HcclGetErrorString(HcclResult code);

#ifdef __cplusplus
}
#endif

#endif /* HCCL_COMM_H_ */
