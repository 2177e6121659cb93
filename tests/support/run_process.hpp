// Running a program as a user runs it, for the tests of the `inputanim` command: its exit status,
// and what it wrote on stdout and stderr.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace inputanim::testing {

struct run_result {
    int status = -1;
    std::string out;
    std::string err;
    // The program's peak resident memory (with the children it waited for), in KiB; 0 when not
    // measured (stderr_is_terminal).
    long peak_rss_kib = 0;
};

// Where the program's stdout goes.
enum class stdout_target {
    // A file in the scratch folder: run_result::out.
    file,
    // /dev/full: every write fails with ENOSPC, as on a full disk.
    full_device,
    // No descriptor 1 at all, as after `>&-`.
    closed,
};

struct run_options {
    // Where stdout and stderr are collected (in files: no pipe to deadlock on).
    std::filesystem::path scratch;
    // Connects stderr to a pseudo-terminal instead of a file, so that the program sees a
    // terminal there (isatty); `err` then holds what it wrote to the terminal.
    bool stderr_is_terminal = false;
    stdout_target out = stdout_target::file;
};

// Runs argv[0] (a path, not looked up in PATH) with argv. A test failure is recorded when the
// program cannot be started or does not exit normally; the status is then -1.
run_result run_process(const std::vector<std::string>& argv, const run_options& options);

// Starts argv[0] (a path) with argv in the background, stdout and stderr thrown away, SIGINT,
// SIGTERM and SIGHUP at their default actions and no signal blocked, whatever the test runner
// inherited (a background job ignores SIGINT, nohup SIGHUP), so that a test may signal it.
// Returns its pid, to be waited for; -1 and a test failure when it cannot be started.
int start_process(const std::vector<std::string>& argv);

// A fresh empty folder under the system's temporary folder, removed with everything in it.
class scratch_folder {
  public:
    scratch_folder();
    ~scratch_folder();
    scratch_folder(const scratch_folder&) = delete;
    scratch_folder& operator=(const scratch_folder&) = delete;

    const std::filesystem::path& path() const { return path_; }

  private:
    std::filesystem::path path_;
};

// The whole content of a file ("" when it cannot be read).
std::string slurp(const std::filesystem::path& p);
// The lines of a text, without their '\n'.
std::vector<std::string> lines_of(const std::string& text);

}  // namespace inputanim::testing
