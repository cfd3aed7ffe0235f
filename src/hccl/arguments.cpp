// The argument checks the entry points share, in the words every API's message uses.
#include "core/dtype.h"
#include "hccl_internal.h"

namespace oa {
namespace hccl {

HcclResult CheckStream(const char* api, aclrtStream stream) {
  if (stream != nullptr) return HCCL_SUCCESS;
  return Fail(HCCL_E_PTR, "%s: stream must not be null (HCCL has no default stream)", api);
}

HcclResult CheckPointer(const char* api, const char* parameter, const void* pointer) {
  if (pointer != nullptr) return HCCL_SUCCESS;
  return Fail(HCCL_E_PTR, "%s: %s must not be null", api, parameter);
}

HcclResult CheckCount(const char* api, const char* parameter, uint64_t count) {
  if (count <= kMaxCount) return HCCL_SUCCESS;
  return Fail(HCCL_E_PARA, "%s: %s %llu exceeds the maximum 0x7FFFFFFFF", api, parameter,
              static_cast<unsigned long long>(count));
}

HcclResult CheckCommunicator(const char* api, HcclComm comm, std::shared_ptr<Communicator>* found) {
  std::shared_ptr<Communicator> communicator = FindCommunicator(comm);
  if (!communicator) return NotACommunicator(api, comm);
  if (found != nullptr) *found = std::move(communicator);
  return HCCL_SUCCESS;
}

HcclResult CheckMovableType(const char* api, HcclDataType type) {
  const int type_bits = oa::EnumBits(type);  // until validated (a caller may pass any int)
  if (ElementSize(type_bits) != 0 && type_bits != HCCL_DATA_TYPE_INT128) return HCCL_SUCCESS;
  const char* name = DataTypeName(static_cast<uint64_t>(type_bits));
  return Fail(HCCL_E_NOT_SUPPORT, "%s: dataType %s (%d) is not supported", api, name != nullptr ? name : "undefined",
              type_bits);
}

HcclResult CheckReduction(const char* api, HcclDataType type, HcclReduceOp op) {
  // The enums' int bits until validated (oa::EnumBits: a caller may pass any int).
  const int type_bits = oa::EnumBits(type), op_bits = oa::EnumBits(op);
  if (!Reducible(type_bits)) {
    const char* name = DataTypeName(static_cast<uint64_t>(type_bits));
    return Fail(HCCL_E_NOT_SUPPORT, "%s: dataType %s (%d) cannot be reduced; use INT8, INT16, INT32, INT64, UINT64, "
                "FP16, FP32, FP64 or BFP16", api, name != nullptr ? name : "undefined", type_bits);
  }
  if (op_bits == HCCL_REDUCE_PROD && !ProductAllowed(type_bits)) {
    return Fail(HCCL_E_NOT_SUPPORT, "%s: op PROD is not supported for dataType %s", api, DataTypeName(type));
  }
  if (static_cast<uint32_t>(op_bits) > static_cast<uint32_t>(HCCL_REDUCE_MIN)) {
    return Fail(HCCL_E_PARA, "%s: op %d is not SUM, PROD, MAX or MIN", api, op_bits);
  }
  return HCCL_SUCCESS;
}

HcclResult CheckRoot(const char* api, uint32_t root, uint32_t size) {
  if (root < size) return HCCL_SUCCESS;
  return Fail(HCCL_E_PARA, "%s: root %u must be below the rank size %u", api, root, size);
}

}  // namespace hccl
}  // namespace oa
