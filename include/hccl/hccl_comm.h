/* HCCL communicator management (CANN's hccl/hccl_comm.h, shipped in libhcomm). */
#ifndef HCCL_COMM_H_
#define HCCL_COMM_H_

#include <stddef.h>
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

/* HcclCommInitRootInfo with a configuration made by HcclCommConfigInit: hcclDeterministic and
 * hcclExecTimeOut are honoured, the other fields accepted and ignored (docs/hccl.md). */
extern HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                             const HcclCommConfig *config, HcclComm *comm);

/* Collective over every rank of *comm: the ranks in rankIds (ascending ranks of *comm; this
 * rank at index subCommRankId) form a new communicator in *subComm; a rank that joins none
 * passes rankIds = NULL and subCommId = 0xFFFFFFFF and gets *subComm = NULL. */
extern HcclResult HcclCreateSubCommConfig(HcclComm *comm, uint32_t rankNum, uint32_t *rankIds, uint64_t subCommId,
                                          uint32_t subCommRankId, HcclCommConfig *config, HcclComm *subComm);

/* Fills config with upstream's defaults and the size, magic word and version the library
 * checks (an inline function, as upstream's). */
static inline void HcclCommConfigInit(HcclCommConfig *config) {
  typedef struct {
    size_t size;
    uint32_t magicWord;
    uint32_t version;
    uint64_t reserved;
  } HcclCommConfigInfo;
  HcclCommConfigInfo *info;
  if (config == NULL) return;
  info = (HcclCommConfigInfo *)(void *)config;
  info->size = sizeof(HcclCommConfig);
  info->magicWord = HCCL_COMM_CONFIG_MAGIC_WORD;
  info->version = HCCL_COMM_CONFIG_VERSION;
  info->reserved = 0;
  config->hcclBufferSize = HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET;
  config->hcclDeterministic = HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET;
  config->hcclCommName[0] = '\0';
  config->hcclUdi[0] = '\0';
  config->hcclOpExpansionMode = HCCL_COMM_DEFAULT_OP_EXPANSION_MODE;
  config->hcclRdmaTrafficClass = HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET;
  config->hcclRdmaServiceLevel = HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET;
  config->hcclWorldRankID = 0;
  config->hcclJobID = 0;
  config->aclGraphZeroCopyEnable = 0;
  config->hcclExecTimeOut = HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET;
  config->hcclAlgo[0] = '\0';
  config->hcclRetryEnable[0] = '\0';
  config->hcclRetryParams[0] = '\0';
  config->hcclBufferName[0] = '\0';
  config->hcclQos = HCCL_COMM_QOS_CONFIG_NOT_SET;
  config->hcclSymWinMaxMemSizePerRank = HCCL_DEFAULT_SYMMETRIC_MEMORY_STRIDE;
}

/* ndev ranks in this process, one per device in devices (distinct ids), comms[i] for
 * devices[i]. Each process here has one device (0), so one rank: ndev = 1 with device 0
 * makes a communicator of one rank; another device id fails with HCCL_E_INTERNAL (run the
 * other ranks as processes of an MPI job, HcclCommInitRootInfo). */
extern HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms);

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
