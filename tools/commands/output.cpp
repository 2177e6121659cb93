#include "output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "commands.hpp"
#include "os/text.hpp"

namespace inputanim::cli {

namespace {

// The first errno of a failed write to stdout: what finish_stdout reports.
int stdout_errno = 0;

void note_stdout_error() {
    if (stdout_errno == 0) stdout_errno = errno != 0 ? errno : EIO;
}

}  // namespace

bool stdout_writer::flush() {
    if (!failed_ && !buffer_.empty()) {
        errno = 0;
        if (std::fwrite(buffer_.data(), 1, buffer_.size(), stdout) != buffer_.size()) {
            note_stdout_error();
            failed_ = true;
        }
    }
    buffer_.clear();
    return !failed_;
}

int finish_stdout(int status) {
    errno = 0;
    std::cout.flush();
    if (!std::cout) note_stdout_error();
    errno = 0;
    if (std::fflush(stdout) != 0) note_stdout_error();
    if (std::ferror(stdout) != 0 && stdout_errno == 0) stdout_errno = EIO;
    if (stdout_errno == 0) {
        const int copy = ::dup(STDOUT_FILENO);
        errno = 0;
        if (copy < 0 || ::close(copy) != 0) note_stdout_error();
    }
    if (stdout_errno == 0) return status;
    std::cerr << "inputanim: stdout: cannot write: " << std::strerror(stdout_errno) << '\n';
    return exit_unreadable;
}

int write_failed(std::string_view name, int error_number) {
    std::cerr << "inputanim: " << printable(name)
              << ": cannot write: " << std::strerror(error_number != 0 ? error_number : EIO)
              << '\n';
    return exit_unreadable;
}

int output_failed(const output_failure& failure) {
    std::cerr << "inputanim: " << failure.message() << '\n';
    return failure.refused ? exit_usage : exit_unreadable;
}

std::optional<int> commit_output(output_file& out, const std::error_code& written) {
    if (written) return output_failed(out.failure(written));
    if (const std::optional<output_failure> failure = out.commit()) {
        return output_failed(*failure);
    }
    return std::nullopt;
}

int finish_output(std::string_view name) {
    return name == "-" ? finish_stdout(exit_valid) : exit_valid;
}

void hold_standard_descriptors() noexcept {
    for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
        if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        // open() takes the lowest free descriptor: this one, as the lower ones are open.
        const int opened = ::open("/dev/null", O_RDONLY);
        if (opened >= 0 && opened != fd) ::close(opened);
    }
}

}  // namespace inputanim::cli
