// run_command.cpp: posix_spawn with two pipes drained by poll(), so neither stream can fill and block the child.
#include "run_command.h"

#include <doctest/doctest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <stdexcept>
#include <system_error>

extern char** environ;

namespace cc::test {

namespace {

// A pipe whose ends close themselves.
struct Pipe {
  int read_end = -1, write_end = -1;
  Pipe() {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe2");
    read_end = ends[0];
    write_end = ends[1];
  }
  ~Pipe() {
    close_read();
    close_write();
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  void close_read() {
    if (read_end >= 0) close(read_end);
    read_end = -1;
  }
  void close_write() {
    if (write_end >= 0) close(write_end);
    write_end = -1;
  }
};

}  // namespace

CommandResult run_command(const std::vector<std::string>& args, std::chrono::seconds timeout) {
  using Clock = std::chrono::steady_clock;
  Pipe out_pipe, err_pipe;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe.write_end, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe.write_end, STDERR_FILENO);
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);

  const Clock::time_point start = Clock::now();
  pid_t pid = 0;
  const int spawn_error = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawn_error != 0) throw std::system_error(spawn_error, std::generic_category(), "posix_spawn " + args[0]);
  out_pipe.close_write();
  err_pipe.close_write();

  CommandResult result;
  std::array<Pipe*, 2> pipes{&out_pipe, &err_pipe};
  std::array<std::string*, 2> sinks{&result.out, &result.err};
  const Clock::time_point deadline = start + timeout;
  while (out_pipe.read_end >= 0 || err_pipe.read_end >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      result.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    std::array<pollfd, 2> polls{pollfd{out_pipe.read_end, POLLIN, 0}, pollfd{err_pipe.read_end, POLLIN, 0}};
    if (poll(polls.data(), polls.size(), static_cast<int>(left)) < 0 && errno != EINTR)
      throw std::system_error(errno, std::generic_category(), "poll");
    for (std::size_t i = 0; i < polls.size(); ++i) {
      if (polls[i].fd < 0 || polls[i].revents == 0) continue;
      char buffer[65536];
      const ssize_t got = read(polls[i].fd, buffer, sizeof buffer);
      if (got > 0)
        sinks[i]->append(buffer, static_cast<std::size_t>(got));
      else if (got == 0 || errno != EINTR)
        pipes[i]->close_read();
    }
  }

  int wait_status = 0;
  rusage usage{};
  while (wait4(pid, &wait_status, 0, &usage) < 0 && errno == EINTR) {
  }
  result.max_rss_kb = usage.ru_maxrss;
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
  return result;
}

CommandResult convcompare(std::vector<std::string> args, std::chrono::seconds timeout) {
  args.insert(args.begin(), CONVCOMPARE_EXE);
  CommandResult result = run_command(args, timeout);
  REQUIRE_MESSAGE(!result.timed_out, "convcompare did not finish within the timeout");
  return result;
}

}  // namespace cc::test
