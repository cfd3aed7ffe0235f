// fork(): a child process of a program that used the runtime can use it again (streams,
// events, the thread pool, executors). runtime/fork.cpp installs the pthread_atfork
// handlers; each module below takes its locks before fork() (so the child's copy of its
// state is consistent), releases them after, and in the child resets what belonged to
// threads that do not exist there.
#pragma once

namespace oa {

// Installs the handlers once per process (aclInit calls it).
void InstallForkHandlers();

// Each module's part, in lock order (the handlers call them in this order, and reverse).
void LockEventsForFork();  // events are locked before the streams (aclrtRecordEvent queues under it)
void UnlockEventsAfterFork();
void LockStreamsForFork();
void UnlockStreamsAfterFork(bool in_child);
void LockExecutorsForFork();
void UnlockExecutorsAfterFork(bool in_child);
void LockMemoryForFork();
void UnlockMemoryAfterFork();
void LockHandlesForFork();
void UnlockHandlesAfterFork();
void LockContextsForFork();
void UnlockContextsAfterFork();
// The child's thread pool: a fresh one (the parent's workers do not exist there).
void ResetThreadPoolInChild();

}  // namespace oa
