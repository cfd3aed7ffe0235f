#include "runtime/fork.h"

#include <pthread.h>

#include <mutex>

namespace oa {
namespace {

void Prepare() {
  LockEventsForFork();
  LockStreamsForFork();
  LockExecutorsForFork();
  LockMemoryForFork();
  LockHandlesForFork();
  LockContextsForFork();
}

void Resume(bool in_child) {
  UnlockContextsAfterFork();
  UnlockHandlesAfterFork();
  UnlockMemoryAfterFork();
  UnlockExecutorsAfterFork(in_child);
  UnlockStreamsAfterFork(in_child);
  UnlockEventsAfterFork();
  if (in_child) ResetThreadPoolInChild();
}

}  // namespace

void InstallForkHandlers() {
  static std::once_flag installed;
  std::call_once(installed, [] {
    pthread_atfork(&Prepare, [] { Resume(false); }, [] { Resume(true); });
  });
}

}  // namespace oa
