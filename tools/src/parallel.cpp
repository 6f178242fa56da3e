#include "recall/tools/parallel.hpp"

#include "recall/properties/registry.hpp"

#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace recall {
namespace {

// frame: u64 task, u8 kind (0 result, 1 error, 2 started), u64 length, bytes
void write_all(int fd, const void* p, std::size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t w = ::write(fd, c, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      std::_Exit(3);
    }
    c += w;
    n -= static_cast<std::size_t>(w);
  }
}

void send(int fd, std::uint64_t task, std::uint8_t kind, const std::string& bytes) {
  const std::uint64_t len = bytes.size();
  std::string frame(sizeof task + 1 + sizeof len, '\0');
  std::memcpy(frame.data(), &task, sizeof task);
  frame[sizeof task] = static_cast<char>(kind);
  std::memcpy(frame.data() + sizeof task + 1, &len, sizeof len);
  frame += bytes;
  write_all(fd, frame.data(), frame.size());
}

struct Worker {
  pid_t pid = -1;
  int fd = -1;
  std::string buf;
  long running = -1;  // task announced as started, not yet finished
  bool open = true;
};

}  // namespace

unsigned default_jobs() {
  unsigned n = std::max(1u, std::thread::hardware_concurrency());
  if (const char* e = std::getenv("RECALL_JOBS")) {
    const int v = std::atoi(e);
    if (v >= 1) n = static_cast<unsigned>(v);
  }
  std::string why;
  if (gpu_available(&why)) return 1;
  return n;
}

std::vector<std::string> run_tasks(std::size_t n, const std::function<std::string(std::size_t)>& task, unsigned jobs,
                                   const std::function<void(std::size_t)>& on_done) {
  std::vector<std::string> results(n);
  if (n == 0) return results;
  jobs = static_cast<unsigned>(std::min<std::size_t>(std::max(1u, jobs), n));
  if (jobs == 1) {
    for (std::size_t i = 0; i < n; ++i) {
      results[i] = task(i);
      if (on_done) on_done(i);
    }
    return results;
  }
  // the next task to hand out, shared by the workers
  void* shm = ::mmap(nullptr, sizeof(std::atomic<std::uint64_t>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shm == MAP_FAILED) throw std::runtime_error(std::string("run_tasks: mmap: ") + std::strerror(errno));
  auto* next = new (shm) std::atomic<std::uint64_t>(0);
  std::vector<Worker> workers(jobs);
  for (auto& w : workers) {
    int p[2];
    if (::pipe(p) != 0) throw std::runtime_error(std::string("run_tasks: pipe: ") + std::strerror(errno));
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(std::string("run_tasks: fork: ") + std::strerror(errno));
    if (pid == 0) {
      ::close(p[0]);
      for (std::uint64_t i; (i = next->fetch_add(1)) < n;) {
        send(p[1], i, 2, "");
        try {
          send(p[1], i, 0, task(static_cast<std::size_t>(i)));
        } catch (const std::exception& e) {
          send(p[1], i, 1, e.what());
        } catch (...) {
          send(p[1], i, 1, "unknown exception");
        }
      }
      ::close(p[1]);
      std::_Exit(0);  // no static destructors, no atexit handlers of the parent's state
    }
    ::close(p[1]);
    w.pid = pid;
    w.fd = p[0];
  }
  std::vector<bool> have(n, false);
  std::vector<std::string> errors(n);
  std::string died;
  std::size_t open = workers.size();
  while (open > 0) {
    std::vector<pollfd> fds;
    std::vector<Worker*> who;
    for (auto& w : workers)
      if (w.open) {
        fds.push_back({w.fd, POLLIN, 0});
        who.push_back(&w);
      }
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("run_tasks: poll: ") + std::strerror(errno));
    }
    for (std::size_t k = 0; k < fds.size(); ++k) {
      if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Worker& w = *who[k];
      char chunk[1 << 16];
      const ssize_t r = ::read(w.fd, chunk, sizeof chunk);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        w.open = false;
        --open;
        ::close(w.fd);
        continue;
      }
      w.buf.append(chunk, static_cast<std::size_t>(r));
      constexpr std::size_t head = sizeof(std::uint64_t) + 1 + sizeof(std::uint64_t);
      while (w.buf.size() >= head) {
        std::uint64_t i = 0, len = 0;
        std::memcpy(&i, w.buf.data(), sizeof i);
        const auto kind = static_cast<std::uint8_t>(w.buf[sizeof i]);
        std::memcpy(&len, w.buf.data() + sizeof i + 1, sizeof len);
        if (w.buf.size() < head + len) break;
        std::string bytes = w.buf.substr(head, len);
        w.buf.erase(0, head + len);
        if (i >= n) continue;
        if (kind == 2) {
          w.running = static_cast<long>(i);
          continue;
        }
        w.running = -1;
        have[i] = true;
        if (kind == 0) results[i] = std::move(bytes);
        else errors[i] = bytes.empty() ? "failed" : bytes;
        if (on_done) on_done(static_cast<std::size_t>(i));
      }
    }
  }
  for (auto& w : workers) {
    int status = 0;
    ::waitpid(w.pid, &status, 0);
    if ((WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0)) && died.empty()) {
      died = "a worker process ";
      died += WIFSIGNALED(status) ? std::string("was killed by signal ") + std::to_string(WTERMSIG(status))
                                  : "exited with status " + std::to_string(WEXITSTATUS(status));
      if (w.running >= 0) died += " while running task " + std::to_string(w.running);
    }
  }
  ::munmap(shm, sizeof(std::atomic<std::uint64_t>));
  for (std::size_t i = 0; i < n; ++i)
    if (!errors[i].empty()) throw std::runtime_error(errors[i]);
  if (!died.empty()) throw std::runtime_error("run_tasks: " + died);
  for (std::size_t i = 0; i < n; ++i)
    if (!have[i]) throw std::runtime_error("run_tasks: task " + std::to_string(i) + " returned no result");
  return results;
}

}  // namespace recall
