#include "core/handles.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>

#include "runtime/fork.h"
#include <unordered_set>
#include <new>

#include "core/dtype.h"
#include "core/overlap.h"
#include "runtime/error.h"

namespace oa {
constexpr uint64_t kMaxRank = 64;
namespace {

// Live handles, so destroying one twice (or a pointer that never was one) is reported
// instead of freeing memory twice.
std::mutex g_handles_mutex;
std::unordered_set<const void*>& LiveHandles() {
  static auto* handles = new std::unordered_set<const void*>;
  return *handles;
}

template <typename Handle>
Handle* Register(Handle* handle) {
  if (handle == nullptr) return nullptr;
  try {
    std::lock_guard<std::mutex> lock(g_handles_mutex);
    LiveHandles().insert(handle);
  } catch (const std::bad_alloc&) {
    delete handle;
    return Fail<Handle*>(nullptr, "out of host memory while creating a handle");
  }
  return handle;
}

template <typename Handle>
aclnnStatus Unregister(const char* api, const Handle* handle) {
  if (handle == nullptr) return ACLNN_SUCCESS;
  {
    std::lock_guard<std::mutex> lock(g_handles_mutex);
    if (LiveHandles().erase(handle) == 0) {
      return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %p is not a live handle (already destroyed, or never created)", api,
                  static_cast<const void*>(handle));
    }
  }
  delete handle;
  return ACLNN_SUCCESS;
}

// Multiplies with an overflow check; false if the product leaves int64.
bool CheckedMul(int64_t a, int64_t b, int64_t* out) { return !__builtin_mul_overflow(a, b, out); }
bool CheckedAdd(int64_t a, int64_t b, int64_t* out) { return !__builtin_add_overflow(a, b, out); }

}  // namespace

void LockHandlesForFork() { g_handles_mutex.lock(); }
void UnlockHandlesAfterFork() { g_handles_mutex.unlock(); }

std::string DimsToString(const std::vector<int64_t>& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) text += ", ";
    text += std::to_string(dims[i]);
  }
  return text + "]";
}

ByteSpan ViewByteSpan(const aclTensor& tensor) {
  ByteSpan span;
  if (tensor.IsEmpty()) return span;
  int64_t low = tensor.offset, high = tensor.offset;
  for (size_t i = 0; i < tensor.view_dims.size(); ++i) {
    const int64_t reach = (tensor.view_dims[i] - 1) * tensor.strides[i];  // validated at creation
    (reach < 0 ? low : high) += reach;
  }
  const int64_t size = static_cast<int64_t>(DataTypeSize(tensor.dtype));
  span.first = low * size;
  span.last = (high + 1) * size - 1;
  return span;
}

bool ViewsMayOverlap(const aclTensor& a, const aclTensor& b) { return ViewsOverlap(a, b) != Overlap::kNo; }

aclTensor NhwcAsNchw(const aclTensor& tensor) {
  aclTensor view = tensor;
  view.view_dims = DimVector{tensor.view_dims[0], tensor.view_dims[3], tensor.view_dims[1], tensor.view_dims[2]};
  view.strides = DimVector{tensor.strides[0], tensor.strides[3], tensor.strides[1], tensor.strides[2]};
  return view;
}

}  // namespace oa

int64_t aclTensor::NumElements() const {
  int64_t count = 1;
  for (int64_t d : view_dims) count *= d;  // bounded at creation
  return count;
}

using oa::Fail;

extern "C" aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                                      const int64_t* stride, int64_t offset, aclFormat format,
                                      const int64_t* storageDims, uint64_t storageDimsNum, void* tensorData) {
  static const char* kApi = "aclCreateTensor";
  if (viewDimsNum > 0 && viewDims == nullptr) {
    return Fail<aclTensor*>(nullptr, "%s: viewDims is null but viewDimsNum is %llu", kApi,
                            static_cast<unsigned long long>(viewDimsNum));
  }
  if (viewDimsNum > oa::kMaxRank) {
    return Fail<aclTensor*>(nullptr, "%s: viewDimsNum must be at most %llu, got %llu", kApi,
                            static_cast<unsigned long long>(oa::kMaxRank), static_cast<unsigned long long>(viewDimsNum));
  }
  if (storageDimsNum > oa::kMaxRank || (storageDimsNum > 0 && storageDims == nullptr)) {
    return Fail<aclTensor*>(nullptr, "%s: storageDims must be a non-null array of at most %llu dims (got %s, %llu dims)",
                            kApi, static_cast<unsigned long long>(oa::kMaxRank), storageDims ? "an array" : "null",
                            static_cast<unsigned long long>(storageDimsNum));
  }
  if (!oa::IsKnownDataType(oa::EnumBits(dataType))) {
    return Fail<aclTensor*>(nullptr, "%s: dataType %d is not an aclDataType", kApi, oa::EnumBits(dataType));
  }
  if (!oa::IsKnownFormat(oa::EnumBits(format))) {
    return Fail<aclTensor*>(nullptr, "%s: format %d is not an aclFormat", kApi, oa::EnumBits(format));
  }
  if (offset < 0) {
    return Fail<aclTensor*>(nullptr, "%s: offset must be >= 0, got %lld", kApi, static_cast<long long>(offset));
  }

  std::unique_ptr<aclTensor> tensor(new (std::nothrow) aclTensor);
  if (!tensor) return Fail<aclTensor*>(nullptr, "%s: out of host memory", kApi);
  tensor->view_dims.assign(viewDims, viewDims + viewDimsNum);
  tensor->dtype = dataType;
  tensor->format = format;
  tensor->offset = offset;
  tensor->data = tensorData;

  int64_t view_elements = 1;
  for (uint64_t i = 0; i < viewDimsNum; ++i) {
    if (viewDims[i] < 0) {
      return Fail<aclTensor*>(nullptr, "%s: viewDims[%llu] must be >= 0, got %lld in %s", kApi,
                              static_cast<unsigned long long>(i), static_cast<long long>(viewDims[i]),
                              oa::DimsToString(std::vector<int64_t>(viewDims, viewDims + viewDimsNum)).c_str());
    }
    if (!oa::CheckedMul(view_elements, viewDims[i], &view_elements)) {
      return Fail<aclTensor*>(nullptr, "%s: the element count of viewDims %s overflows int64", kApi,
                              oa::DimsToString(tensor->view_dims).c_str());
    }
  }

  if (stride != nullptr) {
    tensor->strides.assign(stride, stride + viewDimsNum);
  } else {  // contiguous row-major
    tensor->strides.assign(viewDimsNum, 1);
    int64_t running = 1;
    for (uint64_t i = viewDimsNum; i-- > 0;) {
      tensor->strides[i] = running;
      // Only an empty view (some dim 0) can overflow here, and its strides are never used.
      if (viewDims[i] > 1 && !oa::CheckedMul(running, viewDims[i], &running)) running = 1;
    }
  }

  // Where the view reaches, in elements from the data pointer.
  int64_t low = offset, high = offset;
  if (view_elements > 0) {
    for (uint64_t i = 0; i < viewDimsNum; ++i) {
      int64_t reach = 0;
      if (!oa::CheckedMul(viewDims[i] - 1, tensor->strides[i], &reach) ||
          !oa::CheckedAdd(reach < 0 ? low : high, reach, reach < 0 ? &low : &high)) {
        const std::string strides = oa::DimsToString(tensor->strides);
        return Fail<aclTensor*>(nullptr, "%s: strides %s over viewDims %s overflow int64", kApi, strides.c_str(),
                                oa::DimsToString(std::vector<int64_t>(viewDims, viewDims + viewDimsNum)).c_str());
      }
    }
  }

  if (storageDimsNum > 0) {
    tensor->storage_dims.assign(storageDims, storageDims + storageDimsNum);
  } else {
    // No storage shape given: the storage is exactly what the view reaches.
    int64_t reach = offset;
    if (view_elements > 0 && !oa::CheckedAdd(high, 1, &reach)) {
      return Fail<aclTensor*>(nullptr, "%s: the view (viewDims %s, strides %s, offset %lld) reaches past the int64 range",
                              kApi, oa::DimsToString(tensor->view_dims).c_str(), oa::DimsToString(tensor->strides).c_str(),
                              static_cast<long long>(offset));
    }
    tensor->storage_dims.assign(1, reach);
  }
  int64_t storage_elements = 1;
  for (size_t i = 0; i < tensor->storage_dims.size(); ++i) {
    const int64_t d = tensor->storage_dims[i];
    if (d < 0 || !oa::CheckedMul(storage_elements, d, &storage_elements)) {
      std::string dims = oa::DimsToString(tensor->storage_dims);
      return Fail<aclTensor*>(nullptr, "%s: storageDims %s must be >= 0 with an element count that fits int64", kApi,
                              dims.c_str());
    }
  }
  tensor->storage_elements = storage_elements;
  const int64_t element_size = static_cast<int64_t>(std::max<size_t>(1, oa::DataTypeSize(dataType)));
  int64_t storage_bytes = 0;
  if (!oa::CheckedMul(storage_elements, element_size, &storage_bytes)) {
    std::string dims = oa::DimsToString(tensor->storage_dims);
    return Fail<aclTensor*>(nullptr, "%s: the byte size of storageDims %s overflows int64", kApi, dims.c_str());
  }
  if (view_elements > 0 && (low < 0 || high >= storage_elements)) {
    std::string message = oa::Format(
        "%s: the view (viewDims %s, strides %s, offset %lld) reaches elements [%lld, %lld] but the storage %s "
        "holds %lld elements",
        kApi, oa::DimsToString(tensor->view_dims).c_str(), oa::DimsToString(tensor->strides).c_str(),
        static_cast<long long>(offset), static_cast<long long>(low), static_cast<long long>(high),
        oa::DimsToString(tensor->storage_dims).c_str(), static_cast<long long>(storage_elements));
    return Fail<aclTensor*>(nullptr, "%s", message.c_str());
  }
  return oa::Register(tensor.release());
}

extern "C" aclnnStatus aclDestroyTensor(const aclTensor* tensor) {
  return oa::Unregister("aclDestroyTensor", tensor);
}

namespace {
template <typename Array, typename T>
Array* CreateArray(const char* api, const T* value, uint64_t size) {
  if (size > 0 && value == nullptr) {
    return Fail<Array*>(nullptr, "%s: value is null but size is %llu", api, static_cast<unsigned long long>(size));
  }
  if (size > (uint64_t{1} << 32)) {
    return Fail<Array*>(nullptr, "%s: size %llu is too large", api, static_cast<unsigned long long>(size));
  }
  auto* array = new (std::nothrow) Array;
  if (array == nullptr) return Fail<Array*>(nullptr, "%s: out of host memory", api);
  array->values.assign(value, value + size);
  return oa::Register(array);
}
}  // namespace

extern "C" aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size) {
  return CreateArray<aclIntArray>("aclCreateIntArray", value, size);
}
extern "C" aclnnStatus aclDestroyIntArray(const aclIntArray* array) {
  return oa::Unregister("aclDestroyIntArray", array);
}
extern "C" aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size) {
  return CreateArray<aclBoolArray>("aclCreateBoolArray", value, size);
}
extern "C" aclnnStatus aclDestroyBoolArray(const aclBoolArray* array) {
  return oa::Unregister("aclDestroyBoolArray", array);
}
extern "C" aclFloatArray* aclCreateFloatArray(const float* value, uint64_t size) {
  return CreateArray<aclFloatArray>("aclCreateFloatArray", value, size);
}
extern "C" aclnnStatus aclDestroyFloatArray(const aclFloatArray* array) {
  return oa::Unregister("aclDestroyFloatArray", array);
}

extern "C" aclScalar* aclCreateScalar(void* value, aclDataType dataType) {
  static const char* kApi = "aclCreateScalar";
  if (value == nullptr) return Fail<aclScalar*>(nullptr, "%s: value is null", kApi);
  if (!oa::IsKnownDataType(oa::EnumBits(dataType))) {
    return Fail<aclScalar*>(nullptr, "%s: dataType %d is not an aclDataType", kApi, oa::EnumBits(dataType));
  }
  const size_t size = oa::DataTypeSize(dataType);
  if (size == 0) {
    return Fail<aclScalar*>(nullptr, "%s: dataType %s (%d) has no scalar representation", kApi,
                            oa::DataTypeName(dataType), static_cast<int>(dataType));
  }
  auto* scalar = new (std::nothrow) aclScalar;
  if (scalar == nullptr) return Fail<aclScalar*>(nullptr, "%s: out of host memory", kApi);
  scalar->dtype = dataType;
  std::memcpy(scalar->bytes, value, size);
  return oa::Register(scalar);
}
extern "C" aclnnStatus aclDestroyScalar(const aclScalar* scalar) {
  return oa::Unregister("aclDestroyScalar", scalar);
}

namespace {
aclnnStatus CopyOut(const char* api, const char* what, const aclTensor* tensor, const oa::DimVector& source,
                    int64_t** values, uint64_t* count) {
  if (tensor == nullptr || values == nullptr || count == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, "%s: tensor, %s and its count must not be null", api, what);
  }
  *values = new (std::nothrow) int64_t[source.empty() ? 1 : source.size()];
  if (*values == nullptr) return Fail(ACLNN_ERR_INNER, "%s: out of host memory", api);
  std::copy(source.begin(), source.end(), *values);
  *count = source.size();
  return ACLNN_SUCCESS;
}
}  // namespace

extern "C" aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum) {
  return CopyOut("aclGetViewShape", "viewDims", tensor, tensor ? tensor->view_dims : oa::DimVector(),
                 viewDims, viewDimsNum);
}
extern "C" aclnnStatus aclGetViewStrides(const aclTensor* tensor, int64_t** stridesValue, uint64_t* stridesNum) {
  return CopyOut("aclGetViewStrides", "stridesValue", tensor, tensor ? tensor->strides : oa::DimVector(),
                 stridesValue, stridesNum);
}
extern "C" aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims, uint64_t* storageDimsNum) {
  return CopyOut("aclGetStorageShape", "storageDims", tensor,
                 tensor ? tensor->storage_dims : oa::DimVector(), storageDims, storageDimsNum);
}
extern "C" aclnnStatus aclGetViewOffset(const aclTensor* tensor, int64_t* offset) {
  if (tensor == nullptr || offset == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetViewOffset: tensor and offset must not be null");
  }
  *offset = tensor->offset;
  return ACLNN_SUCCESS;
}
extern "C" aclnnStatus aclGetFormat(const aclTensor* tensor, aclFormat* format) {
  if (tensor == nullptr || format == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetFormat: tensor and format must not be null");
  }
  *format = tensor->format;
  return ACLNN_SUCCESS;
}
extern "C" aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType) {
  if (tensor == nullptr || dataType == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetDataType: tensor and dataType must not be null");
  }
  *dataType = tensor->dtype;
  return ACLNN_SUCCESS;
}
extern "C" aclnnStatus aclGetIntArraySize(const aclIntArray* array, uint64_t* size) {
  if (array == nullptr || size == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetIntArraySize: array and size must not be null");
  }
  *size = array->values.size();
  return ACLNN_SUCCESS;
}
extern "C" aclnnStatus aclGetBoolArraySize(const aclBoolArray* array, uint64_t* size) {
  if (array == nullptr || size == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetBoolArraySize: array and size must not be null");
  }
  *size = array->values.size();
  return ACLNN_SUCCESS;
}
