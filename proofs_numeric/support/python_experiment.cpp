// See python_experiment.hpp. RECALL_SOURCE_DIR and RECALL_PYTHON come from CMake as compile definitions
// of this file only (set_source_files_properties), so the other claim files' flags do not change.
#include "python_experiment.hpp"

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

#ifndef RECALL_SOURCE_DIR
#define RECALL_SOURCE_DIR "."
#endif
#ifndef RECALL_PYTHON
#define RECALL_PYTHON "python3"
#endif

namespace recall::pyexp {
namespace {

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string interpreter() {
  if (const char* e = std::getenv("RECALL_PYTHON"); e && *e) return e;
  return RECALL_PYTHON;
}

std::string tail(const std::string& s, std::size_t n) {
  std::string t = s.size() > n ? "..." + s.substr(s.size() - n) : s;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  return t;
}

}  // namespace

std::string script_path(const std::string& relative) {
  const char* root = std::getenv("RECALL_SOURCE_DIR");
  return (std::filesystem::path(root && *root ? root : RECALL_SOURCE_DIR) / relative).string();
}

Run run(const std::string& relative_script, const std::vector<std::string>& args, int timeout_s) {
  const std::string script = script_path(relative_script);
  if (!std::filesystem::exists(script))
    throw std::invalid_argument("python experiment: script '" + script + "' not found (set RECALL_SOURCE_DIR to the source tree)");
  Run r;
  std::string cmd = quote(interpreter()) + " " + quote(script);
  for (const auto& a : args) cmd += " " + quote(a);
  r.command = cmd;
  // stderr goes to a private temporary file, read back for the reason when the script fails
  char tmpl[] = "/tmp/recall-pyexp-XXXXXX";
  const int fd = mkstemp(tmpl);
  if (fd < 0) {
    r.reason = "cannot create a temporary file for the script's stderr";
    return r;
  }
  close(fd);
  const std::string errfile = tmpl;
  std::string full = (timeout_s > 0 ? "timeout -k 10 " + std::to_string(timeout_s) + " " : std::string()) + cmd + " 2>" + quote(errfile);
  const auto t0 = std::chrono::steady_clock::now();
  std::string out;
  int status = -1;
  if (FILE* p = popen(full.c_str(), "r")) {
    std::array<char, 4096> buf;
    std::size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
    status = pclose(p);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string err;
  {
    std::ifstream f(errfile);
    std::stringstream ss;
    ss << f.rdbuf();
    err = ss.str();
  }
  std::filesystem::remove(errfile);
  const int code = status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code != 0) {
    if (code == 124 || code == 137)
      r.reason = "the script ran past its limit of " + std::to_string(timeout_s) + " s";
    else if (code == 127)
      r.reason = "no Python interpreter '" + interpreter() + "' (install python3 and python3-torch, or set RECALL_PYTHON)";
    else if (err.find("No module named 'torch'") != std::string::npos)
      r.reason = "python3 has no torch (Debian: apt-get install python3-torch)";
    else
      r.reason = "the script exited with status " + std::to_string(code) + ": " + tail(err, 400);
    return r;
  }
  // the last non-empty stdout line is the JSON object
  std::size_t end = out.find_last_not_of(" \n\r\t");
  if (end == std::string::npos) {
    r.reason = "the script printed nothing on stdout";
    return r;
  }
  const std::size_t begin = out.rfind('\n', end);
  const std::string last = out.substr(begin == std::string::npos ? 0 : begin + 1, end + 1 - (begin == std::string::npos ? 0 : begin + 1));
  try {
    r.result = nlohmann::json::parse(last);
  } catch (const std::exception& e) {
    r.reason = std::string("the script's last stdout line is not JSON: ") + e.what();
    return r;
  }
  if (!r.result.is_object()) {
    r.reason = "the script's last stdout line is JSON but not an object";
    return r;
  }
  r.ran = true;
  return r;
}

}  // namespace recall::pyexp
