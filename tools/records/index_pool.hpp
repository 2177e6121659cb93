// The worker threads of `inputanim index`. The main thread walks the directories and hands each
// file over; a worker takes up to batch_width files at once, reads each (a file up to a MiB whole
// with one pread into a buffer the worker keeps, a larger one mapped), checks that each is a
// recording and validates it (the mapped ones together, with the many-inputs validate, which
// overlaps their cache misses); the main thread gets the results back in the order the files
// were handed over, so the output does not depend on the number of threads. At most `window`
// files are in flight, which bounds memory, and at most batch_width files per worker are held at
// a time.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "inputanim/inputanim.hpp"
#include "inputanim/metrics.hpp"

namespace inputanim::records {

// What a stat of the file said; the database keeps it to skip unchanged files.
struct file_stamp {
    std::uint64_t size = 0;
    // Nanoseconds since the Unix epoch.
    std::int64_t mtime_ns = 0;
    // A file replaced by another of the same size and mtime (a copy that keeps times) has
    // another inode.
    std::uint64_t inode = 0;

    bool operator==(const file_stamp&) const = default;
};

enum class file_outcome : std::uint8_t {
    // Validated: `rep` and `bytes` hold the result (valid or not).
    recording,
    // Its first bytes are not the magic (nor a file cut short inside it): not indexed.
    not_recording,
    // Could not be opened, mapped or read: `failure` says why.
    unreadable,
    // The database holds its verdict under the same stamp and options: not read again.
    unchanged,
};

// One file: what the main thread fills in, then what the worker found.
struct file_result {
    std::string path;
    // Named on the command line: indexed whatever its first bytes are.
    bool named = false;
    std::optional<file_stamp> stamp;
    // `recording`, or `unchanged` with the database's verdict, which the workers pass through.
    file_outcome outcome = file_outcome::recording;
    bool known_valid = false;
    // The row the database holds, as it holds it.
    nlohmann::json known_fields;

    report rep{};
    std::uint64_t bytes = 0;
    std::error_code failure;
    // "unreadable" when the file could not be opened or mapped, "io_error" when reading the
    // mapping failed (the file was truncated while it was read).
    const char* failure_code = "";

    // With metrics asked for: those of a valid recording, or why it could not be measured.
    std::optional<recording_metrics> metrics;
    std::error_code metrics_failure;
};

class index_pool {
  public:
    using sink = std::function<void(file_result&)>;

    // `done` runs on the main thread, inside next() and finish(), once per file in order. With
    // `metrics`, every valid recording is also measured (metrics.hpp). Starts up to `jobs`
    // threads: fewer when the system refuses one (started(), refusal()), and throws
    // std::system_error when it refuses the first.
    index_pool(unsigned jobs, std::size_t window, validate_options how,
               std::optional<metrics_options> metrics, sink done);
    ~index_pool();
    index_pool(const index_pool&) = delete;
    index_pool& operator=(const index_pool&) = delete;

    // The result to fill in for the next file (path, named, stamp); then call submit(). Waits
    // while `window` files are in flight, handing finished ones to the sink meanwhile.
    file_result& next();
    void submit();
    // Hands every result still in flight to the sink, in order.
    void finish();

    // The threads that started, and why the next one did not (none when all did).
    std::size_t started() const noexcept { return workers_.size(); }
    std::error_code refusal() const noexcept { return refused_; }

  private:
    struct slot {
        file_result result;
        bool done = false;
    };

    void work();
    void index_batch(std::span<file_result* const> batch, std::vector<std::byte>& buffer) const;
    // Hands the finished results at the head of the window to the sink; with `wait`, first waits
    // until ready_to_drain().
    void drain(bool wait);
    // The head of the window is done, and so is half the window or everything handed over: the
    // main thread then wakes up once per many files, not once per file. Needs mutex_.
    bool ready_to_drain() const;

    validate_options how_;
    std::optional<metrics_options> metrics_;
    sink done_;
    std::vector<slot> slots_;
    std::mutex mutex_;
    std::condition_variable work_ready_;
    std::condition_variable drain_ready_;
    // Files [0, submitted_) were handed over, [0, taken_) taken by a worker, [0, consumed_)
    // handed to the sink; `completed_` were done by the workers. Guarded by mutex_.
    std::uint64_t submitted_ = 0;
    std::uint64_t taken_ = 0;
    std::uint64_t consumed_ = 0;
    std::uint64_t completed_ = 0;
    bool main_waiting_ = false;
    bool stopping_ = false;
    std::error_code refused_;
    std::vector<std::thread> workers_;
};

}  // namespace inputanim::records
