// The one way the command writes a file: convert OUT, gen -o and gen --dir, index --jsonl, the
// database of index merge (docs/CLI.md, "Outputs"). Where the name leads decides how:
//
// - a regular file, or a name that does not exist yet: written to a temporary file beside it
//   (.NAME.XXXXXXXXXXXX), which is checked, flushed to disk and renamed over NAME only when
//   complete. An existing file keeps its permission bits (a 0600 file stays 0600); a new one gets
//   0666 less the umask. A symbolic link to a regular file: the temporary file is made beside the
//   file the link leads to and renamed over that file, so the link stays a link;
// - the file open as standard output (`/dev/stdout`, `/proc/self/fd/1`, or any name of it): the
//   bytes are written to standard output, as for `-`, so `>>` appends and nothing is reopened;
// - a character device or a FIFO (`/dev/null`, a terminal, a pipe through `/dev/stdout`):
//   written straight through, never created, truncated or replaced;
// - anything else (a directory, a block device, a socket, a file reached through a link that no
//   longer names it): refused, a usage error.
//
// An output is never one of the command's inputs: NAME leading to the file of one (by its name, a
// hard link, a symbolic link, /proc/self/fd/N, or standard output redirected onto it) is refused,
// a usage error, before anything is written; the input is left as it was.
//
// Until commit() nothing is at NAME but what was there before (for a replaced file): a failure,
// discard() or the destructor removes the temporary file, and so do SIGINT, SIGTERM and SIGHUP
// once remove_temporaries_on_signals() has been called.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "inputanim/writer.hpp"

namespace inputanim::tools {

// Why an output is not written: "NAME: cannot write: REASON" when the system refused a step (exit
// status 3), or why the name is not written at all when `refused` (a usage error, exit status 2).
// `name` is printable text ("stdout" for `-`).
struct output_failure {
    bool refused = false;
    std::string name;
    std::string reason;

    std::string message() const { return name + ": " + reason; }
};

class output_file final : public byte_sink {
  public:
    output_file() = default;
    // Discards what was not committed.
    ~output_file();
    output_file(const output_file&) = delete;
    output_file& operator=(const output_file&) = delete;

    // Opens NAME (`-`: standard output) for a whole new content, as the header says; refused
    // when it is one of `inputs` (names as the command was given them, `-` for standard input).
    std::optional<output_failure> open(const std::string& name,
                                       std::span<const std::string> inputs = {});
    // For a SQLite database built whole at a new NAME (index merge into a missing OUT): a
    // temporary file beside NAME, which SQLite writes by its name, path(); commit() once the
    // database is closed. NAME must not exist (database_target_problem says whether it may be
    // updated in place instead).
    std::optional<output_failure> open_new_database(const std::string& name);
    // The temporary file a database is written to.
    const std::string& path() const noexcept { return temporary_; }

    // Buffered (a MiB at a time), every write(2) checked; the first failure stays.
    std::error_code write(std::span<const std::byte> bytes) override;
    std::error_code write(std::string_view text);
    // Writes `size` bytes of the file open as `fd` from `offset`, after what is buffered: into a
    // temporary file with copy_file_range(2), so that no byte comes up to this process (the
    // kernel copies the pages, or shares them where the file system can); else, or where the
    // two file systems cannot, read and written a MiB at a time. A failure of the output is
    // returned (and stays, as for write()); a read of the source that fails, or finds it shorter
    // than `size` (another process cut it), is `source_error`.
    std::error_code copy_from(int fd, std::uint64_t offset, std::uint64_t size,
                              std::error_code& source_error);
    // Whether open(NAME) would write to a temporary file that only commit() puts at NAME (a
    // regular file, a new name, a link to a regular file), as things are now: bytes written
    // before the command knows it will keep them never reach NAME.
    static bool replaced_when_written(const std::string& name);
    // Writes what is buffered, flushes a temporary file to disk, closes it and renames it over
    // the target; on failure the temporary file is removed and the target left as it was.
    std::optional<output_failure> commit();
    // Removes the temporary file; the target stays as it was.
    void discard() noexcept;
    // "NAME: cannot write: REASON" for `error`.
    output_failure failure(std::error_code error) const;

  private:
    enum class target : std::uint8_t { none, standard_output, through, replaced };

    std::optional<output_failure> create_beside(const std::string& file, bool existing,
                                                unsigned permissions, bool database);
    std::error_code drain();
    void release() noexcept;

    std::string shown_;
    std::string file_;
    std::string temporary_;
    target target_ = target::none;
    int fd_ = -1;
    int slot_ = -1;
    std::vector<std::byte> pending_;
    std::error_code failed_;
};

// Whether the output NAME (`-`: standard output) is the file of one of `inputs` (`-`: standard
// input): "NAME: not written: it is the input file itself", `refused`. For a command that checks
// before it reads its inputs; output_file::open and database_target_problem check it again.
std::optional<output_failure> output_is_input(const std::string& name,
                                              std::span<const std::string> inputs);

// Whether SQLite may keep a database at NAME, updating it in place (index --sqlite, an existing
// OUT of index merge): a regular file, a link to one, or a name that does not exist yet, and none
// of `inputs`. A device or a FIFO is refused before SQLite opens it (it would put a journal beside
// the device node), as is anything else that is not a regular file. Nothing when it may; else
// why not (`refused`, or the system's error).
std::optional<output_failure> database_target_problem(const std::string& name,
                                                      std::span<const std::string> inputs = {});

// Makes SIGINT, SIGTERM and SIGHUP remove the temporary files of the outputs being written (and
// a database's journal files beside them), then end the process by the same signal (a shell
// reports 128 + its number). A signal whose disposition is to be ignored stays ignored. For the
// command's main: a program embedding these libraries (Python) keeps its own handlers.
void remove_temporaries_on_signals() noexcept;

}  // namespace inputanim::tools
