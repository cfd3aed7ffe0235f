// aclCreateTensor and the array constructors with fuzzed metadata: every call must either
// return null with a message, or a tensor whose view provably fits its storage.
#include <cstdlib>
#include <string>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "core/dtype.h"
#include "core/handles.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzInput input(data, size);
  const uint64_t rank = input.Below(10);
  std::vector<int64_t> dims(rank), strides(rank);
  for (auto& d : dims) d = input.Dim();
  for (auto& s : strides) {
    s = input.Dim();
    if (s > INT64_MIN + 2) s -= 2;  // reach negative strides too
  }
  const bool contiguous = input.Below(2) == 0;
  const int64_t offset = input.Dim();
  const auto dtype = static_cast<aclDataType>(static_cast<int>(input.Below(32)) - 2);
  const auto format = static_cast<aclFormat>(static_cast<int>(input.Below(50)) - 2);
  const uint64_t storage_rank = input.Below(4);
  std::vector<int64_t> storage(storage_rank);
  for (auto& d : storage) {
    d = input.Dim();
    if (input.Below(2) && d > -1000 && d < 1000) d *= 1000;  // room for offsets and strides
  }

  aclTensor* tensor = aclCreateTensor(rank ? dims.data() : nullptr, rank, dtype, contiguous ? nullptr : strides.data(),
                                      offset, format, storage_rank ? storage.data() : nullptr, storage_rank, nullptr);
  const std::string message = aclGetRecentErrMsg();
  if (tensor == nullptr) {
    if (message.empty()) std::abort();  // every rejection explains itself
  } else {
    // Accepted: the view must lie inside the storage.
    const oa::ByteSpan span = oa::ViewByteSpan(*tensor);
    const int64_t element = static_cast<int64_t>(oa::DataTypeSize(tensor->dtype));
    if (!tensor->IsEmpty() && element > 0 &&
        (span.first < 0 || span.last >= tensor->storage_elements * element)) {
      std::abort();
    }
    int64_t* values = nullptr;
    uint64_t count = 0;
    if (aclGetViewShape(tensor, &values, &count) != ACLNN_SUCCESS || count != rank) std::abort();
    delete[] values;
    aclDestroyTensor(tensor);
  }

  std::vector<int64_t> ints(input.Below(8), 7);
  aclDestroyIntArray(aclCreateIntArray(input.Below(4) ? ints.data() : nullptr, ints.size()));
  aclGetRecentErrMsg();
  return 0;
}
