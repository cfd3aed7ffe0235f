// Data types: element sizes, which types reduce, and their MPI types and operations
// (user-defined where MPI's own would be wrong or missing).
#include "core/half.h"
#include "hccl_internal.h"

namespace oa {
namespace hccl {

// Bytes per element of a defined type; 0 for a value HcclDataType does not define.
size_t ElementSize(int type) {
  switch (type) {
    case HCCL_DATA_TYPE_INT8: case HCCL_DATA_TYPE_UINT8: case HCCL_DATA_TYPE_HIF8:
    case HCCL_DATA_TYPE_FP8E4M3: case HCCL_DATA_TYPE_FP8E5M2: case HCCL_DATA_TYPE_FP8E8M0:
      return 1;
    case HCCL_DATA_TYPE_INT16: case HCCL_DATA_TYPE_UINT16: case HCCL_DATA_TYPE_FP16: case HCCL_DATA_TYPE_BFP16:
      return 2;
    case HCCL_DATA_TYPE_INT32: case HCCL_DATA_TYPE_UINT32: case HCCL_DATA_TYPE_FP32:
      return 4;
    case HCCL_DATA_TYPE_INT64: case HCCL_DATA_TYPE_UINT64: case HCCL_DATA_TYPE_FP64:
      return 8;
    case HCCL_DATA_TYPE_INT128:
      return 16;
    default:
      return 0;
  }
}

bool Reducible(int type) {
  switch (type) {
    case HCCL_DATA_TYPE_INT8: case HCCL_DATA_TYPE_INT16: case HCCL_DATA_TYPE_INT32: case HCCL_DATA_TYPE_INT64:
    case HCCL_DATA_TYPE_UINT64: case HCCL_DATA_TYPE_FP16: case HCCL_DATA_TYPE_FP32: case HCCL_DATA_TYPE_FP64:
    case HCCL_DATA_TYPE_BFP16:
      return true;
    default:
      return false;
  }
}

bool ProductAllowed(int type) {
  switch (type) {
    case HCCL_DATA_TYPE_INT8: case HCCL_DATA_TYPE_INT32: case HCCL_DATA_TYPE_INT64: case HCCL_DATA_TYPE_UINT64:
    case HCCL_DATA_TYPE_FP16: case HCCL_DATA_TYPE_FP32: case HCCL_DATA_TYPE_FP64:
      return true;
    default:
      return false;
  }
}

bool FloatingType(HcclDataType type) {
  return type == HCCL_DATA_TYPE_FP16 || type == HCCL_DATA_TYPE_BFP16 || type == HCCL_DATA_TYPE_FP32 ||
         type == HCCL_DATA_TYPE_FP64;
}

// ---------------------------------------------------------------------------------------
// User-defined reductions (commutative MPI operations):
// - fp16 / bf16: MPI has no half types, so they travel as MPI_UINT16_T and compute in fp32,
//   rounding every partial result;
// - MAX / MIN of every float type: MPI's built-in MAX / MIN of float and double drop a NaN
//   depending on which operand holds it (so on which rank), these propagate it always.

float HalfValue(uint16_t bits, bool bf16) { return bf16 ? Bf16ToFloat(bits) : HalfToFloat(bits); }
uint16_t HalfBits(float value, bool bf16) { return bf16 ? FloatToBf16(value) : FloatToHalf(value); }

namespace {

template <typename T>
T Combine(HcclReduceOp op, T a, T b) {
  switch (op) {
    case HCCL_REDUCE_SUM: return a + b;
    case HCCL_REDUCE_PROD: return a * b;
    // NaN propagates from either operand, as in torch's max/min.
    case HCCL_REDUCE_MAX: return (a != a || a > b) ? a : b;
    default: return (a != a || a < b) ? a : b;
  }
}

template <HcclReduceOp kOp, bool kBf16>
void HalfReduce(void* in, void* inout, int* length, MPI_Datatype*) {
  const auto* source = static_cast<const uint16_t*>(in);
  auto* target = static_cast<uint16_t*>(inout);
  for (int i = 0; i < *length; ++i) {
    target[i] = HalfBits(Combine(kOp, HalfValue(source[i], kBf16), HalfValue(target[i], kBf16)), kBf16);
  }
}

template <HcclReduceOp kOp, typename T>
void FloatReduce(void* in, void* inout, int* length, MPI_Datatype*) {
  const auto* source = static_cast<const T*>(in);
  auto* target = static_cast<T*>(inout);
  for (int i = 0; i < *length; ++i) target[i] = Combine(kOp, source[i], target[i]);
}

// Index: [fp16, bf16, fp32, fp64][op]; fp32 and fp64 only for MAX and MIN.
enum CustomType { kFp16 = 0, kBf16 = 1, kFp32 = 2, kFp64 = 3 };
MPI_Op g_custom_ops[4][4];

template <HcclReduceOp kOp>
void CreateCustomOpsFor() {
  MPI_Op_create(&HalfReduce<kOp, false>, 1, &g_custom_ops[kFp16][kOp]);
  MPI_Op_create(&HalfReduce<kOp, true>, 1, &g_custom_ops[kBf16][kOp]);
  if (kOp == HCCL_REDUCE_MAX || kOp == HCCL_REDUCE_MIN) {
    MPI_Op_create(&FloatReduce<kOp, float>, 1, &g_custom_ops[kFp32][kOp]);
    MPI_Op_create(&FloatReduce<kOp, double>, 1, &g_custom_ops[kFp64][kOp]);
  }
}

}  // namespace

void CreateCustomOps() {
  CreateCustomOpsFor<HCCL_REDUCE_SUM>();
  CreateCustomOpsFor<HCCL_REDUCE_PROD>();
  CreateCustomOpsFor<HCCL_REDUCE_MAX>();
  CreateCustomOpsFor<HCCL_REDUCE_MIN>();
}

void MpiTypeAndOp(HcclDataType type, HcclReduceOp op, MPI_Datatype* mpi_type, MPI_Op* mpi_op) {
  static const MPI_Op builtin[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN};
  *mpi_op = builtin[op];
  const bool max_or_min = op == HCCL_REDUCE_MAX || op == HCCL_REDUCE_MIN;
  switch (type) {
    case HCCL_DATA_TYPE_INT8: *mpi_type = MPI_INT8_T; break;
    case HCCL_DATA_TYPE_INT16: *mpi_type = MPI_INT16_T; break;
    case HCCL_DATA_TYPE_INT32: *mpi_type = MPI_INT32_T; break;
    case HCCL_DATA_TYPE_INT64: *mpi_type = MPI_INT64_T; break;
    case HCCL_DATA_TYPE_UINT64: *mpi_type = MPI_UINT64_T; break;
    case HCCL_DATA_TYPE_FP32:
      *mpi_type = MPI_FLOAT;
      if (max_or_min) *mpi_op = g_custom_ops[kFp32][op];
      break;
    case HCCL_DATA_TYPE_FP64:
      *mpi_type = MPI_DOUBLE;
      if (max_or_min) *mpi_op = g_custom_ops[kFp64][op];
      break;
    default:  // FP16, BFP16
      *mpi_type = MPI_UINT16_T;
      *mpi_op = g_custom_ops[type == HCCL_DATA_TYPE_BFP16 ? kBf16 : kFp16][op];
      break;
  }
}

}  // namespace hccl
}  // namespace oa
