// Runs a command and writes its memory use and times to REPORT as one line:
//     rss_anon_kib=N max_rss_kib=N seconds=S cpu_seconds=S status=N
// rss_anon_kib is the largest RssAnon seen (anonymous memory: heap, stacks, not the page cache
// behind a mapped file), read from /proc/PID/status every millisecond and once more when the
// process exits (stopped there through ptrace, its memory still whole); max_rss_kib is the
// kernel's peak resident set (ru_maxrss), mapped file pages included; seconds is the wall time,
// cpu_seconds the user and system time of all its threads.
//
//     rss_probe REPORT COMMAND [ARGS...]
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

namespace {

long rss_anon_kib(pid_t pid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("RssAnon:", 0) == 0) return std::stol(line.substr(8));
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::cerr << "usage: rss_probe REPORT COMMAND [ARGS...]\n";
        return 2;
    }
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid < 0) {
        std::perror("rss_probe: fork");
        return 2;
    }
    if (pid == 0) {
        ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
        execvp(argv[2], argv + 2);
        std::perror("rss_probe: exec");
        _exit(127);
    }
    int status = 0;
    rusage usage{};
    // The child stops at exec; from there on, stop it again as it exits.
    wait4(pid, &status, 0, &usage);
    if (!WIFSTOPPED(status)) {
        std::cerr << "rss_probe: the command did not start\n";
        return 2;
    }
    ptrace(PTRACE_SETOPTIONS, pid, nullptr, reinterpret_cast<void*>(PTRACE_O_TRACEEXIT));
    ptrace(PTRACE_CONT, pid, nullptr, nullptr);
    long peak = 0;
    for (;;) {
        const pid_t done = wait4(pid, &status, WNOHANG, &usage);
        if (done == 0) {
            peak = std::max(peak, rss_anon_kib(pid));
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            continue;
        }
        if (done < 0 || WIFEXITED(status) || WIFSIGNALED(status)) break;
        if (WIFSTOPPED(status)) {
            int forward = 0;
            if (status >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
                peak = std::max(peak, rss_anon_kib(pid));
            } else {
                forward = WSTOPSIG(status);
            }
            ptrace(PTRACE_CONT, pid, nullptr, reinterpret_cast<void*>(static_cast<long>(forward)));
        }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    const auto to_seconds = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    };
    const double cpu_seconds = to_seconds(usage.ru_utime) + to_seconds(usage.ru_stime);
    std::ofstream report(argv[1]);
    report << "rss_anon_kib=" << peak << " max_rss_kib=" << usage.ru_maxrss
           << " seconds=" << seconds << " cpu_seconds=" << cpu_seconds << " status=" << code
           << '\n';
    return report ? 0 : 2;
}
