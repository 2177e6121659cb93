// Where every command's output goes, and how its failure is said: exit 3 with the reason.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "exit_status.hpp"
#include "os/output_file.hpp"

namespace inputanim::cli {

// Where every command's output goes and how its failure is found (exit 3, "inputanim: stdout:
// cannot write: REASON" on stderr). Small text goes to std::cout; large output (dump, sample) is
// built in blocks and written by a stdout_writer; finish_stdout, the last step of each command
// that prints, checks both, on flush and on close.
class stdout_writer {
  public:
    stdout_writer() { buffer_.reserve(block); }
    ~stdout_writer() { flush(); }
    stdout_writer(const stdout_writer&) = delete;
    stdout_writer& operator=(const stdout_writer&) = delete;

    stdout_writer& operator<<(std::string_view text) {
        buffer_ += text;
        if (buffer_.size() >= block) flush();
        return *this;
    }
    // Writes what is buffered (nothing more once a write failed); false when one failed.
    bool flush();
    // Whether a write failed: a producer of many rows stops writing them.
    bool failed() const noexcept { return failed_; }

  private:
    static constexpr std::size_t block = std::size_t{1} << 16;
    std::string buffer_;
    bool failed_ = false;
};

// Flushes std::cout and stdout and checks that everything written to standard output reached
// it: a failed write, flush, or close (a file system may report a write error only when the
// file is closed, as NFS does; a duplicate of the descriptor is closed to ask, so stdout itself
// stays open until exit). Returns `status` when it did, else prints the reason and returns
// exit_unreadable.
int finish_stdout(int status);

// "inputanim: NAME: cannot write: REASON" (REASON from `error_number`, an errno) on stderr;
// returns exit_unreadable.
int write_failed(std::string_view name, int error_number);

// "inputanim: MESSAGE" on stderr for an output that is not written; returns exit_usage when it
// was refused, else exit_unreadable.
int output_failed(const tools::output_failure& failure);

// Commits `out` once its writer is done (`written`: the writer's failure, if any): none when the
// output is in place, else the status of its failure, said as output_failed says it.
std::optional<int> commit_output(tools::output_file& out, const std::error_code& written = {});

// The status of a command that committed its output `name`: exit_valid, or for standard output
// (`-`) finish_stdout's.
int finish_output(std::string_view name);

// Keeps descriptors 0, 1 and 2 taken: one that is closed when the program starts is opened on
// /dev/null for reading, so that a file the program opens later never becomes its standard
// output, and a write to a closed stdout fails (EBADF) instead of going somewhere.
void hold_standard_descriptors() noexcept;

}  // namespace inputanim::cli
