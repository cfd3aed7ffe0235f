/* HCCL types and values (CANN's hccl/hccl_types.h). Values and sizes match upstream
 * exactly; unlike upstream this header is C99 as well as C++ (HCCL_ROOT_INFO_BYTES is an
 * enum constant, not a file-scope const, so it can size an array in C and is never defined
 * twice). */
#ifndef HCCL_TYPES_H_
#define HCCL_TYPES_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  HCCL_SUCCESS = 0,
  HCCL_E_PARA = 1,
  HCCL_E_PTR = 2,
  HCCL_E_MEMORY = 3,
  HCCL_E_INTERNAL = 4,
  HCCL_E_NOT_SUPPORT = 5,
  HCCL_E_NOT_FOUND = 6,
  HCCL_E_UNAVAIL = 7,
  HCCL_E_SYSCALL = 8,
  HCCL_E_TIMEOUT = 9,
  HCCL_E_OPEN_FILE_FAILURE = 10,
  HCCL_E_TCP_CONNECT = 11,
  HCCL_E_ROCE_CONNECT = 12,
  HCCL_E_TCP_TRANSFER = 13,
  HCCL_E_ROCE_TRANSFER = 14,
  HCCL_E_RUNTIME = 15,
  HCCL_E_DRV = 16,
  HCCL_E_PROFILING = 17,
  HCCL_E_CCE = 18,
  HCCL_E_NETWORK = 19,
  HCCL_E_AGAIN = 20,
  HCCL_E_REMOTE = 21,
  HCCL_E_SUSPENDING = 22,
  HCCL_E_OPRETRY_FAIL = 23,
  HCCL_E_OOM = 24,
  HCCL_E_IN_STATUS = 1041,
  HCCL_E_RESERVED
} HcclResult;

typedef void *HcclComm;

typedef enum {
  HCCL_REDUCE_SUM = 0,
  HCCL_REDUCE_PROD = 1,
  HCCL_REDUCE_MAX = 2,
  HCCL_REDUCE_MIN = 3,
  HCCL_REDUCE_RESERVED = 255
} HcclReduceOp;

typedef enum {
  HCCL_DATA_TYPE_INT8 = 0,
  HCCL_DATA_TYPE_INT16 = 1,
  HCCL_DATA_TYPE_INT32 = 2,
  HCCL_DATA_TYPE_FP16 = 3,
  HCCL_DATA_TYPE_FP32 = 4,
  HCCL_DATA_TYPE_INT64 = 5,
  HCCL_DATA_TYPE_UINT64 = 6,
  HCCL_DATA_TYPE_UINT8 = 7,
  HCCL_DATA_TYPE_UINT16 = 8,
  HCCL_DATA_TYPE_UINT32 = 9,
  HCCL_DATA_TYPE_FP64 = 10,
  HCCL_DATA_TYPE_BFP16 = 11,
  HCCL_DATA_TYPE_INT128 = 12,
  HCCL_DATA_TYPE_HIF8 = 14,
  HCCL_DATA_TYPE_FP8E4M3 = 15,
  HCCL_DATA_TYPE_FP8E5M2 = 16,
  HCCL_DATA_TYPE_FP8E8M0 = 17,
  HCCL_DATA_TYPE_RESERVED = 255
} HcclDataType;

enum { HCCL_ROOT_INFO_BYTES = 4108 };

/* The identifier of a new communicator: filled by HcclGetRootInfo on the root rank and
 * shipped by the caller to every rank (CANN samples use MPI_Bcast). Opaque. */
typedef struct HcclRootInfoDef {
  char internal[HCCL_ROOT_INFO_BYTES];
} HcclRootInfo;

/* Communicator configuration (HcclCommInitRootInfoConfig, HcclCreateSubCommConfig), laid out
 * as upstream's hcomm include/hccl/hccl_types.h (config version 10). HcclCommConfigInit
 * (hccl_comm.h) must fill it first: its reserved bytes hold the size, magic word and version
 * the library checks. */
enum {
  COMM_NAME_MAX_LENGTH = 128,
  BUFFER_NAME_MAX_LENGTH = 128,
  UDI_MAX_LENGTH = 128,
  HCCL_COMM_ALGO_MAX_LENGTH = 1600,
  HCCL_COMM_RETRY_ENABLE_MAX_LENGTH = 50,
  HCCL_COMM_RETRY_PARAMS_MAX_LENGTH = 128,
  HCCL_COMM_CONFIG_INFO_BYTES = 24,
  HCCL_COMM_CONFIG_VERSION = 10,
  HCCL_COMM_DEFAULT_BUFFSIZE = 200,
  HCCL_COMM_DEFAULT_DETERMINISTIC = 0,
  HCCL_COMM_DEFAULT_OP_EXPANSION_MODE = 0
};
/* Values beyond an enum constant's int range. */
#define HCCL_COMM_CONFIG_MAGIC_WORD 0xf0f0f0f0u
#define HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET 0xffffffffu
#define HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET 0xffffffffu
#define HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET 0xffffffffu
#define HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET 0xffffffffu
#define HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET ((int32_t)-1)
#define HCCL_COMM_QOS_CONFIG_NOT_SET 0xffffffffu
#define HCCL_DEFAULT_SYMMETRIC_MEMORY_STRIDE 16ull

typedef struct HcclCommConfigDef {
  char reserved[HCCL_COMM_CONFIG_INFO_BYTES];
  uint32_t hcclBufferSize;
  uint32_t hcclDeterministic;
  char hcclCommName[COMM_NAME_MAX_LENGTH];
  char hcclUdi[UDI_MAX_LENGTH];
  uint32_t hcclOpExpansionMode;
  uint32_t hcclRdmaTrafficClass;
  uint32_t hcclRdmaServiceLevel;
  uint32_t hcclWorldRankID;
  uint64_t hcclJobID;
  uint8_t aclGraphZeroCopyEnable;
  int32_t hcclExecTimeOut;
  char hcclAlgo[HCCL_COMM_ALGO_MAX_LENGTH];
  char hcclRetryEnable[HCCL_COMM_RETRY_ENABLE_MAX_LENGTH];
  char hcclRetryParams[HCCL_COMM_RETRY_PARAMS_MAX_LENGTH];
  char hcclBufferName[BUFFER_NAME_MAX_LENGTH];
  uint32_t hcclQos;
  uint64_t hcclSymWinMaxMemSizePerRank;
} HcclCommConfig;

/* The direction of one HcclBatchSendRecv transfer. */
typedef enum {
  HCCL_SEND = 0,
  HCCL_RECV = 1,
  HCCL_SEND_RECV_RESERVED
} HcclSendRecvType;

/* One HcclBatchSendRecv transfer: count elements of dataType to or from remoteRank. */
typedef struct HcclSendRecvItemDef {
  HcclSendRecvType sendRecvType;
  void *buf;
  uint64_t count;
  HcclDataType dataType;
  uint32_t remoteRank;
} HcclSendRecvItem;

#ifdef __cplusplus
}
#endif

#endif /* HCCL_TYPES_H_ */
