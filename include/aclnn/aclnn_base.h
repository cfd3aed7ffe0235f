/* openaclnn: CANN-compatible operator base API (aclnn/aclnn_base.h). */
#ifndef OPENACLNN_ACLNN_ACLNN_BASE_H_
#define OPENACLNN_ACLNN_ACLNN_BASE_H_

#include <stdbool.h>
#include <stdint.h>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ACLNN_API
#define ACLNN_API ACL_FUNC_VISIBILITY
#endif

typedef int32_t aclnnStatus;

static const aclnnStatus ACLNN_SUCCESS = 0;
static const aclnnStatus ACLNN_ERR_PARAM_NULLPTR = 161001;
static const aclnnStatus ACLNN_ERR_PARAM_INVALID = 161002;
static const aclnnStatus ACLNN_ERR_RUNTIME_ERROR = 361001;
static const aclnnStatus ACLNN_ERR_INNER = 561000;
static const aclnnStatus ACLNN_ERR_INNER_INFERSHAPE_ERROR = 561001;
static const aclnnStatus ACLNN_ERR_INNER_TILING_ERROR = 561002;
static const aclnnStatus ACLNN_ERR_INNER_FIND_KERNEL_ERROR = 561003;
static const aclnnStatus ACLNN_ERR_INNER_CREATE_EXECUTOR = 561101;
static const aclnnStatus ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR = 561102;
static const aclnnStatus ACLNN_ERR_INNER_NULLPTR = 561103;

typedef struct aclOpExecutor aclOpExecutor;
typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;
typedef struct aclIntArray aclIntArray;
typedef struct aclFloatArray aclFloatArray;
typedef struct aclBoolArray aclBoolArray;
typedef struct aclTensorList aclTensorList;

/* A strided view (stride and offset in elements) into tensorData, whose storage holds
 * prod(storageDims) elements. stride == NULL means contiguous. Returns NULL (and sets the
 * error message) for impossible metadata. */
ACLNN_API aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                                     const int64_t *stride, int64_t offset, aclFormat format,
                                     const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData);
ACLNN_API aclnnStatus aclDestroyTensor(const aclTensor *tensor);

ACLNN_API aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size);
ACLNN_API aclnnStatus aclDestroyIntArray(const aclIntArray *array);
ACLNN_API aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size);
ACLNN_API aclnnStatus aclDestroyBoolArray(const aclBoolArray *array);
ACLNN_API aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size);
ACLNN_API aclnnStatus aclDestroyFloatArray(const aclFloatArray *array);
ACLNN_API aclScalar *aclCreateScalar(void *value, aclDataType dataType);
ACLNN_API aclnnStatus aclDestroyScalar(const aclScalar *scalar);

/* Array getters allocate with new[]; the caller releases with delete[]. */
ACLNN_API aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum);
ACLNN_API aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue, uint64_t *stridesNum);
ACLNN_API aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset);
ACLNN_API aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims, uint64_t *storageDimsNum);
ACLNN_API aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format);
ACLNN_API aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType);
ACLNN_API aclnnStatus aclGetIntArraySize(const aclIntArray *array, uint64_t *size);
ACLNN_API aclnnStatus aclGetBoolArraySize(const aclBoolArray *array, uint64_t *size);

ACLNN_API aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor);
ACLNN_API aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor);

/* Address rebinding for a repeatable executor: the index-th input / output / tensor
 * (inputs then outputs) of the operator's signature now lives at addr, which also becomes
 * tensor's storage address. tensor must describe the view planned in phase 1 (same dtype,
 * shape, strides, offset, format, storage shape). Runs already queued keep the addresses
 * they were queued with. */
ACLNN_API aclnnStatus aclSetInputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor,
                                            void *addr);
ACLNN_API aclnnStatus aclSetOutputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor,
                                             void *addr);
ACLNN_API aclnnStatus aclSetTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr);
/* No operator of this library takes a tensor list: always ACLNN_ERR_PARAM_INVALID for a
 * live repeatable executor (irIndex out of range). */
ACLNN_API aclnnStatus aclSetDynamicInputTensorAddr(aclOpExecutor *executor, size_t irIndex,
                                                   const size_t relativeIndex, aclTensorList *tensors, void *addr);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNN_ACLNN_BASE_H_ */
