// aclOpExecutor: what phase 1 produces and phase 2 runs. An operator derives from it,
// keeps its plan inside, and implements Execute with kernels only: no allocation, no checks.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "core/handles.h"

namespace oa {

// One input or output of an operator call, for address rebinding (aclSetInputTensorAddr
// and friends): the tensor as planned, and the plan field that holds its element address.
struct TensorSlot {
  const char* name = "";         // the parameter's name in the signature (for the verbose log)
  bool given = false;            // a tensor was passed in phase 1
  aclTensor planned;             // its metadata; data follows rebinding
  void* plan_field = nullptr;    // where the plan keeps the element address; null: the plan does not read it
  void (*store)(void* plan_field, char* address) = nullptr;
};

// The element address of a view: storage address + offset elements (null without data).
char* ElementAddress(const aclTensor& tensor);

}  // namespace oa

struct aclOpExecutor {
  virtual ~aclOpExecutor() = default;
  // Runs the plan to completion on the calling (stream) thread. Returns an empty string,
  // or a failure message for aclrtSynchronizeStream.
  virtual std::string Execute(void* workspace) = 0;

  // For the verbose log (core/verbose.h), asked in phase 1 only while it is on: what the
  // plan chose, as '/'-separated words ("rows_along_w/window/tasks=8"), and its threads.
  virtual std::string PlanSummary() const = 0;
  virtual int PlanThreads() const = 0;

  const char* api = "";         // the phase-2 function that may run it
  uint64_t workspace_size = 0;  // bytes booked in phase 1
  uint64_t tensor_bytes = 0;    // bytes of every given tensor's view: how much a run moves, roughly
  bool repeatable = false;
  // "<simd>,<threads>,<kernel>,<tensors>,<workspace>": made by PublishExecutor while the
  // verbose log is on, so phase 2 only adds the time.
  std::string verbose_fields;

  // Phase 1, after the plan is final: the operator's tensor arguments in signature order
  // (inputs, then outputs, by parameter name), each with the plan field holding its element
  // address if the plan reads it. A field is wired only when the plan set it (non-null), so
  // rebinding never switches on something the plan left off (e.g. an output not requested).
  void DeclareTensors(const std::vector<const char*>& input_names, const std::vector<const char*>& output_names) {
    if (input_names.size() + output_names.size() > 64) {
      throw std::length_error("an executor tracks at most 64 tensors");  // overlap masks
    }
    inputs.resize(input_names.size());
    outputs.resize(output_names.size());
    for (size_t i = 0; i < inputs.size(); ++i) inputs[i].name = input_names[i];
    for (size_t o = 0; o < outputs.size(); ++o) outputs[o].name = output_names[o];
  }
  template <typename T>
  void BindInput(size_t index, const aclTensor* tensor, T** plan_field) {
    Bind(&inputs.at(index), tensor, plan_field);
  }
  template <typename T>
  void BindOutput(size_t index, const aclTensor* tensor, T** plan_field) {
    Bind(&outputs.at(index), tensor, plan_field);
  }
  void BindInput(size_t index, const aclTensor* tensor) { Bind<char>(&inputs.at(index), tensor, nullptr); }
  void BindOutput(size_t index, const aclTensor* tensor) { Bind<char>(&outputs.at(index), tensor, nullptr); }

  // Guarded by the executor registry's lock (core/executor.cpp).
  std::vector<oa::TensorSlot> inputs;
  std::vector<oa::TensorSlot> outputs;
  bool rebound = false;          // some address changed since phase 1
  std::vector<uint64_t> planned_overlaps;  // per output: bit s set if it overlapped slot s in phase 1
  // Runs take turns: each writes the addresses captured at its launch into the plan.
  std::mutex run_mutex;

 private:
  template <typename T>
  static void Bind(oa::TensorSlot* slot, const aclTensor* tensor, T** plan_field) {
    if (tensor == nullptr) return;
    slot->given = true;
    slot->planned = *tensor;
    if (plan_field == nullptr || *plan_field == nullptr) return;
    slot->plan_field = plan_field;
    slot->store = [](void* field, char* address) { *static_cast<T**>(field) = reinterpret_cast<T*>(address); };
  }
};

namespace oa {

// Ends phase 1: registers the executor, stores it and its workspace size in the caller's
// out-parameters.
aclnnStatus PublishExecutor(std::unique_ptr<aclOpExecutor> executor, uint64_t* workspace_size,
                            aclOpExecutor** out);

// PublishExecutor for an executor type that holds its operator's plan (a `plan` member with
// `workspace_bytes`): the plan copied in, `bind` declaring and wiring its tensors in
// signature order.
template <class ExecutorT, class PlanT, class BindFn>
aclnnStatus PublishPlanExecutor(const char* run_api, const PlanT& plan, BindFn bind, uint64_t* workspace_size,
                                aclOpExecutor** executor) {
  auto exec = std::make_unique<ExecutorT>();
  exec->plan = plan;
  exec->api = run_api;
  exec->workspace_size = plan.workspace_bytes;
  bind(exec.get());
  return PublishExecutor(std::move(exec), workspace_size, executor);
}

// The whole of every operator's phase 2: checks the executor, workspace and stream, then
// queues the executor on the stream with the tensor addresses bound at this moment (a
// later rebinding does not change a run already queued). A single-use executor is
// released once it has run.
aclnnStatus LaunchExecutor(const char* api, void* workspace, uint64_t workspace_size, aclOpExecutor* executor,
                           aclrtStream stream);

}  // namespace oa
