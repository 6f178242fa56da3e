// Training experiments written in PyTorch (the model claims of A000 §3 that need multi-layer networks,
// positional encodings or a corpus language model), run from a claim check as a child process.
//
// The division of labour: the script (proofs_numeric/<paper>/<name>.py) trains and measures, and prints
// the raw per-run statistics as one JSON object on the last line of its standard output; the claim check
// in C++ computes the verdict from those numbers (intervals, sign tests), so no verdict is ever decided
// in Python. Where python3 or torch is missing, or the script fails, the run says why (`reason`) and the
// claim is `inconclusive` with that reason: never a crash, never a silent pass.
//
// The interpreter is the one CMake found (Debian's /usr/bin/python3 first, as for the report's figures),
// overridable with the environment variable RECALL_PYTHON; scripts are found under the source tree the
// program was built from, or under RECALL_SOURCE_DIR when that variable is set (an installed copy).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace recall::pyexp {

struct Run {
  bool ran = false;       // the script exited 0 and its last stdout line parsed as a JSON object
  std::string reason;     // when !ran: what went wrong, in words (missing interpreter or torch, exit status, stderr tail)
  nlohmann::json result;  // the script's JSON object
  double seconds = 0;     // wall time of the child process
  std::string command;    // the command line, as run (for the evidence)
};

// The absolute path of a script given relative to the source tree ("proofs_numeric/a000_associative_memory/x.py").
std::string script_path(const std::string& relative);

// Runs `python3 <script> <args...>` with a wall-clock limit (coreutils `timeout`; 0: none). Arguments are
// passed verbatim (shell-quoted here). Never throws for the child's failures: they are reported in `reason`.
// Throws std::invalid_argument when the script does not exist (a packaging error of this repository).
Run run(const std::string& relative_script, const std::vector<std::string>& args, int timeout_s);

}  // namespace recall::pyexp
