//===- Ptxas.cpp - whole-program compiles with the ptxas binary -----------===//
//
// Part of tilelang. Implements Ptxas.h: finding ptxas, and running it on a
// PTX text in a private temporary directory (no shell: its arguments are
// passed as they are).
//
//===----------------------------------------------------------------------===//

#include "tilelang/Runtime/Ptxas.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <signal.h>
#include <spawn.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace tilelang::runtime {

namespace {

bool isExecutableFile(const std::string &path) {
  struct stat info;
  return !path.empty() && stat(path.c_str(), &info) == 0 &&
         S_ISREG(info.st_mode) && access(path.c_str(), X_OK) == 0;
}

bool readFile(const std::string &path, std::string &text) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return false;
  text.assign(std::istreambuf_iterator<char>(file),
              std::istreambuf_iterator<char>());
  return true;
}

bool writeFile(const std::string &path, const std::string &text) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(text.data(), std::streamsize(text.size()));
  return bool(file);
}

/// Seconds a ptxas run may take: `$TILELANG_PTXAS_TIMEOUT` (a whole number
/// above 0, spaces around allowed; unset or empty: 60, as a whole-program
/// compile of the largest kernels takes seconds and a hung ptxas must not
/// hang the launch that links, which the step, on by default, does without
/// being asked). False, with `problem` naming the variable, for any other
/// value: a malformed knob is not read as its default unseen.
bool ptxasTimeLimit(long &seconds, std::string &problem) {
  seconds = 60;
  const char *given = std::getenv("TILELANG_PTXAS_TIMEOUT");
  if (!given)
    return true;
  std::string text(given);
  const char *spaces = " \t\n\r\f\v";
  text.erase(0, text.find_first_not_of(spaces));
  text.erase(text.find_last_not_of(spaces) + 1);
  if (text.empty())
    return true;
  errno = 0;
  char *end = nullptr;
  long value = std::strtol(text.c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE || value <= 0 ||
      !std::isdigit(static_cast<unsigned char>(text[0]))) {
    problem = "TILELANG_PTXAS_TIMEOUT='" + std::string(given) +
              "' is not a whole number of seconds above 0";
    return false;
  }
  seconds = value;
  return true;
}

/// Waits for `child` at most `seconds`, polling (a few milliseconds apart:
/// no signal handler of the host process is touched); past the limit it is
/// killed and reaped, and false is returned.
bool waitWithin(pid_t child, long seconds, int &status) {
  timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  long pauseNs = 1000000;
  while (true) {
    pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child || (done < 0 && errno != EINTR))
      return true;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec >= seconds) {
      kill(child, SIGKILL);
      while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
      }
      return false;
    }
    timespec pause = {0, pauseNs};
    nanosleep(&pause, nullptr);
    pauseNs = std::min(pauseNs * 2, 20000000L);
  }
}

} // namespace

std::string findPtxas() {
  if (const char *given = std::getenv("TILELANG_PTXAS"); given && *given)
    return given;
  if (const char *home = std::getenv("CUDA_HOME"); home && *home)
    if (isExecutableFile(std::string(home) + "/bin/ptxas"))
      return std::string(home) + "/bin/ptxas";
  if (const char *path = std::getenv("PATH")) {
    std::istringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':'))
      if (!dir.empty() && isExecutableFile(dir + "/ptxas"))
        return dir + "/ptxas";
  }
  if (isExecutableFile("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda/bin/ptxas";
  return "";
}

bool compileWithPtxas(const std::string &ptxas, const std::string &ptx,
                      const std::string &arch, bool verbose, std::string &cubin,
                      std::string &log, bool *rejected) {
  cubin.clear();
  log.clear();
  if (rejected)
    *rejected = false;
  long timeLimit = 0;
  if (!ptxasTimeLimit(timeLimit, log))
    return false;
  const char *tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/tilelang-ptxas-XXXXXX";
  std::vector<char> dirName(pattern.begin(), pattern.end());
  dirName.push_back('\0');
  if (!mkdtemp(dirName.data())) {
    log = "cannot create a temporary directory like " + pattern;
    return false;
  }
  std::string dir = dirName.data();
  std::string input = dir + "/kernel.ptx", output = dir + "/kernel.cubin",
              messages = dir + "/ptxas.log";
  bool ok = writeFile(input, ptx);
  if (!ok)
    log = "cannot write " + input;
  if (ok) {
    std::vector<std::string> args = {ptxas, "-arch=" + arch, "-o", output};
    if (verbose)
      args.push_back("-v");
    args.push_back(input);
    std::vector<char *> argv;
    for (std::string &arg : args)
      argv.push_back(arg.data());
    argv.push_back(nullptr);
    // Its output goes to a file of the directory, read back below.
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, messages.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t child = 0;
    int spawned = posix_spawn(&child, ptxas.c_str(), &actions, nullptr,
                              argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    int status = 0;
    if (spawned != 0) {
      ok = false;
      log = "cannot run " + ptxas;
    } else if (!waitWithin(child, timeLimit, status)) {
      ok = false;
      log = ptxas + " did not finish within " + std::to_string(timeLimit) +
            " s ($TILELANG_PTXAS_TIMEOUT) and was stopped";
    } else {
      readFile(messages, log);
      ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
           readFile(output, cubin) && !cubin.empty();
      if (!ok && log.empty())
        log = ptxas + " failed";
      if (rejected)
        *rejected = !ok && WIFEXITED(status);
    }
  }
  for (const std::string &file : {input, output, messages})
    unlink(file.c_str());
  rmdir(dir.c_str());
  return ok;
}

} // namespace tilelang::runtime
