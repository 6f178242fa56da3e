// Progress of long work (report, check --full, the slow campaigns): on a terminal one bar redrawn
// in place with the fraction done and an estimate of the time left; otherwise (CI logs, pipes)
// one plain line per finished step. The estimate weighs each step by its expected cost (the
// caller's cost model, e.g. T^2 d for attention, T d^2 for the linear recurrences) and scales
// the elapsed time by the weight still to do.
#pragma once

#include <chrono>
#include <iosfwd>
#include <mutex>
#include <string>

namespace recall {

// true when `fd` is a terminal and TERM is not "dumb"
bool is_terminal(int fd);

class Progress {
 public:
  // total_weight: the sum of the weights of every step; tty: draw a bar (else plain lines)
  Progress(std::string what, double total_weight, std::ostream& os, bool tty);
  ~Progress();
  // one step finished (thread-safe): its label (shown in the log line / beside the bar) and weight
  void done(const std::string& label, double weight);
  // grow the total (work discovered later)
  void add_total(double weight);
  // finish the bar with a newline (idempotent; the destructor calls it)
  void finish();
  // "1 min 05 s", "42 s", "3.2 s"
  static std::string duration(double seconds);

 private:
  std::string what_;
  double total_, done_ = 0;
  int steps_ = 0;
  std::ostream& os_;
  bool tty_, finished_ = false;
  std::chrono::steady_clock::time_point t0_;
  std::mutex m_;
  void draw(const std::string& label);
};

}  // namespace recall
