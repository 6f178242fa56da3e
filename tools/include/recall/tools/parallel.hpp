// Independent tasks of the report and `check` run in worker PROCESSES, not threads: the MP
// scalar's default precision (Boost.Multiprecision's mpfr_float) is one process-wide setting that
// each oracle evaluation sets for its duration, so two oracles on two threads would change each
// other's working precision. A forked worker has its own copy; tasks are handed out dynamically
// (a counter in shared memory), results come back over a pipe as bytes, in task order, and are
// identical whatever the number of workers (each task is seeded by itself).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace recall {

// Worker count: RECALL_JOBS if set (>= 1), else the number of hardware threads; 1 when a CUDA
// device is in use (a CUDA context does not survive fork).
unsigned default_jobs();

// Runs task(i) for i in [0, n) on `jobs` processes (1: in this process, no fork) and returns the
// results in task order. on_done(i) is called in this process as each result arrives (progress).
// A task that throws makes run_tasks throw std::runtime_error with the task's message (the first
// in task order); a worker that dies (signal, abort) names the task it was running.
std::vector<std::string> run_tasks(std::size_t n, const std::function<std::string(std::size_t)>& task, unsigned jobs,
                                   const std::function<void(std::size_t)>& on_done = {});

}  // namespace recall
