#include "recall/tools/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <sstream>

namespace recall {

bool is_terminal(int fd) {
  const char* term = std::getenv("TERM");
  return ::isatty(fd) == 1 && !(term && std::strcmp(term, "dumb") == 0);
}

Progress::Progress(std::string what, double total_weight, std::ostream& os, bool tty)
    : what_(std::move(what)), total_(std::max(total_weight, 0.0)), os_(os), tty_(tty), t0_(std::chrono::steady_clock::now()) {}

Progress::~Progress() { finish(); }

std::string Progress::duration(double s) {
  std::ostringstream o;
  if (!(s >= 0) || !std::isfinite(s)) return "?";
  if (s < 10) {
    o << std::fixed;
    o.precision(1);
    o << s << " s";
  } else if (s < 60) {
    o << static_cast<int>(std::lround(s)) << " s";
  } else {
    const long t = std::lround(s);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%ld min %02ld s", t / 60, t % 60);
    o << buf;
  }
  return o.str();
}

void Progress::add_total(double weight) {
  std::lock_guard<std::mutex> lk(m_);
  total_ += std::max(weight, 0.0);
}

void Progress::done(const std::string& label, double weight) {
  std::lock_guard<std::mutex> lk(m_);
  done_ += std::max(weight, 0.0);
  ++steps_;
  draw(label);
}

void Progress::draw(const std::string& label) {
  const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  // (weights summed in another order than the total: within rounding of it counts as all)
  const double frac = total_ > 0 ? (done_ >= total_ * (1 - 1e-9) ? 1.0 : done_ / total_) : 1.0;
  // time left: elapsed x (weight left / weight done); unknown until some weight is done
  const std::string left = done_ > 0 ? duration(el * std::max(0.0, 1.0 - frac) * total_ / done_) : std::string("?");
  const int pct = static_cast<int>(std::floor(100 * frac));
  if (tty_) {
    constexpr int width = 28;
    const int fill = static_cast<int>(std::lround(width * frac));
    std::string bar(static_cast<std::size_t>(fill), '#');
    bar.resize(width, '.');
    std::string tail = label.size() > 48 ? label.substr(0, 45) + "..." : label;
    os_ << "\r\033[K" << what_ << " [" << bar << "] " << pct << "%  " << duration(el) << " elapsed, ~" << left << " left  " << tail
        << std::flush;
  } else {
    os_ << what_ << ": " << pct << "% (" << steps_ << " steps, " << duration(el) << " elapsed, ~" << left << " left) " << label << '\n'
        << std::flush;
  }
}

void Progress::finish() {
  std::lock_guard<std::mutex> lk(m_);
  if (finished_) return;
  finished_ = true;
  if (tty_ && steps_ > 0) os_ << '\n' << std::flush;
}

}  // namespace recall
