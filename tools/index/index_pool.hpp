// The worker threads of `inputanim index`. The main thread walks the directories and hands each
// file over; a worker takes up to batch_width files at once, reads each (a file up to a MiB whole
// with one pread into a buffer the worker keeps, a larger one mapped), checks that each is a
// recording and validates it (the mapped ones together, with the many-inputs validate, which
// overlaps their cache misses); the main thread gets the results back in the order the files
// were handed over, so the output does not depend on the number of threads. At most `window`
// files are in flight, which bounds memory, and at most batch_width files per worker are held at
// a time.
//
// A file whose content is an archive (archive.hpp) is walked by the worker that found it, once
// its batch is done: its members' results go through a member_feed, a queue of at most
// feed_capacity results, which the main thread drains in the archive's place among the files. So
// the members come in order too, and a walk runs ahead of the main thread by a bounded amount.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "inputanim/archive.hpp"
#include "inputanim/inputanim.hpp"
#include "inputanim/metrics.hpp"

namespace inputanim::tools {

// The shard of a path among `shards`: FNV-1a (64 bits) of its bytes, modulo `shards`. Fixed by
// docs/CLI.md, so that shards made by different machines and releases fit together.
unsigned shard_of(std::string_view path, unsigned shards);
// The most shards of `--shard K/N`: N is an unsigned count, 1 to this.
inline constexpr unsigned max_shards = std::numeric_limits<unsigned>::max();

enum class file_outcome : std::uint8_t {
    // Its content is an archive: `feed` gives its members' results (member_feed).
    archive,
    // An archive the database holds walked whole under the same stamp and options: its rows are
    // the database's, and it is not read again.
    unchanged_archive,
    // Validated: `rep` and `bytes` hold the result (valid or not).
    recording,
    // Its first bytes are not the magic (nor a file cut short inside it), or, asked only for
    // archives (`only_archive`), it is none: not indexed.
    not_recording,
    // Could not be opened, mapped or read: `failure` says why.
    unreadable,
    // The database holds its verdict under the same stamp and options: not read again.
    unchanged,
};

// Why the index leaves a valid recording it was asked to measure unmeasured when nothing refused
// the measure: its bytes are not to be had a second time. A std::error_code of the category named
// "inputanim.index"; the row's "metrics_error" names it "not_measured" and carries its message().
enum class not_measured : std::uint8_t {
    none,
    // Standard input, read once, by the validation.
    read_once,
    // A member inflated as it was checked (gzip, or past whole_member_bytes in a compressed
    // archive), and not held.
    not_held,
};
const std::error_category& not_measured_category() noexcept;
std::error_code make_error_code(not_measured e) noexcept;

class member_feed;

// One file: what the main thread fills in, then what the worker found. Also one member of an
// archive, or the archive whose walk stopped, as a member_feed hands them.
struct file_result {
    std::string path;
    // Named on the command line: indexed whatever its first bytes are.
    bool named = false;
    // Not of this run's shard: read only to see whether it is an archive, whose members may be.
    bool only_archive = false;
    // The database held it as an archive (lookup_archive): a file now, its rows go.
    bool was_archive = false;
    // What a stat said of the file before it was handed over, for the database to compare with
    // its own; for a file new_in_store that came without one, what the worker's fstat said when
    // it opened the file (with no row to compare with, the main thread stats nothing).
    std::optional<file_stamp> stamp;
    // Its path has no row in the database: it held no other run's rows when the file was handed
    // over, and the run's first walk finds each path once (sqlite_store::put then has no warnings
    // of it to clear, unless another run has written since).
    bool new_in_store = false;
    // `recording`, or `unchanged` with the database's verdict, which the workers pass through.
    file_outcome outcome = file_outcome::recording;
    bool known_valid = false;
    // The row the database holds, as it holds it.
    nlohmann::json known_fields;
    // unchanged_archive: its members that are not recordings, as the database counted them.
    std::uint64_t known_other = 0;

    report rep{};
    std::uint64_t bytes = 0;
    std::error_code failure;
    // "unreadable" when the file could not be opened or mapped, "io_error" when reading the
    // mapping failed (the file was truncated while it was read).
    const char* failure_code = "";

    // With metrics asked for: those of a valid recording, or why it could not be measured.
    std::optional<recording_metrics> metrics;
    std::error_code metrics_failure;

    // A member's or a stopped walk's row: the archive's path; for a member, the member. The
    // row's ordinal: the member's, the place of the entry a stopped walk could not read, -1 for
    // a file.
    std::string archive;
    std::optional<archive_member> member;
    std::int64_t ordinal = -1;

    // outcome archive: where its members come from.
    std::shared_ptr<member_feed> feed;
    // A member the archive holds as it is, not checked yet (index_pool::check_member): its bytes
    // in the archive's mapping, which `holder` keeps.
    std::span<const std::byte> unchecked;
    std::shared_ptr<const input> holder;
};

// What a worker's walk of one archive hands the main thread: its members' results in order, then
// how the walk ended. Results go over in batches of hand_over_size, and a side wakes the other
// only when it waits, so that the walk and the rows do not pay a wake-up per member. The worker
// blocks while feed_capacity results wait; cancel() (the run abandoned) makes it give up.
//
// A member held as it is may go over unchecked: whichever thread has the time checks it. The
// worker checks its batch itself when the main thread was busy at the last hand-over, and leaves
// it to the main thread when that one was waiting for it, so that the checks of one archive are
// shared between the two threads as their loads are.
class member_feed {
  public:
    static constexpr std::size_t feed_capacity = 256;
    static constexpr std::size_t hand_over_size = 32;

    // Worker: a member's result; false when the feed was cancelled. `check` checks an unchecked
    // one (index_pool::check_member) when the worker keeps the checks of a batch.
    bool push(file_result&& r, const std::function<void(file_result&)>& check);
    // Worker: the walk ended, with the damage or budget that stopped it (none when it reached
    // the end), having walked `entries` entries, of which the counts in `skipped` were not
    // handed on: other members (not recordings, not files).
    void finish(const error& stopped, std::uint64_t entries, std::uint64_t skipped,
                archive_format format);
    // Main thread: the next member's result into `r`; false once the walk ended and every result
    // was taken.
    bool pop(file_result& r);
    void cancel();

    // After pop() returned false.
    const error& stopped() const noexcept { return stopped_; }
    std::uint64_t entries() const noexcept { return entries_; }
    std::uint64_t skipped() const noexcept { return skipped_; }
    archive_format format() const noexcept { return format_; }

  private:
    // Worker: hands the results pushed so far over; false when cancelled.
    bool hand_over();
    // Whether the main thread waited at the last hand-over: it then checks the next batch.
    bool taker_idle_ = false;

    std::mutex mutex_;
    std::condition_variable changed_;
    // Handed over, not taken yet. Guarded by mutex_.
    std::deque<file_result> waiting_;
    bool producer_waiting_ = false;
    bool consumer_waiting_ = false;
    bool finished_ = false;
    bool cancelled_ = false;
    // The worker's results not handed over yet, and the main thread's taken ones: each side's
    // own.
    std::vector<file_result> outgoing_;
    std::deque<file_result> taken_;
    error stopped_{};
    std::uint64_t entries_ = 0;
    std::uint64_t skipped_ = 0;
    archive_format format_ = archive_format::tar;
};

// How the workers treat archives.
struct archive_plan {
    // Open the archives found (index --no-archives: false, and an archive is some other file).
    bool open = true;
    archive_limits limits{};
    // Only the members of shard `shard` of `shards` (shard_of their ARCHIVE/MEMBER path).
    unsigned shard = 0;
    unsigned shards = 1;

    bool mine(std::string_view path) const {
        return shards <= 1 || shard_of(path, shards) == shard;
    }
};

class index_pool {
  public:
    using sink = std::function<void(file_result&)>;

    // `done` runs on the main thread, inside next() and finish(), once per file in order. With
    // `metrics`, every valid recording is also measured (metrics.hpp). Starts up to `jobs`
    // threads: fewer when the system refuses one (started(), refusal()), and throws
    // std::system_error when it refuses the first.
    index_pool(unsigned jobs, std::size_t window, validate_options how,
               std::optional<metrics_options> metrics, archive_plan archives, sink done);
    ~index_pool();
    index_pool(const index_pool&) = delete;
    index_pool& operator=(const index_pool&) = delete;

    // The result to fill in for the next file (path, named, stamp); then call submit(). Waits
    // while `window` files are in flight, handing finished ones to the sink meanwhile.
    file_result& next();
    void submit();
    // Hands every result still in flight to the sink, in order.
    void finish();

    // Checks a member of an archive that went over unchecked (file_result::unchecked), as
    // validate_member checks a member in place, and measures it when metrics were asked for;
    // one that is not a recording becomes not_recording. Any thread may call it.
    void check_member(file_result& r) const;

    // The threads that started, and why the next one did not (none when all did).
    std::size_t started() const noexcept { return workers_.size(); }
    std::error_code refusal() const noexcept { return refused_; }

  private:
    struct slot {
        file_result result;
        bool done = false;
    };

    // An archive a worker found in its batch, walked once the batch is done.
    struct found_archive {
        std::shared_ptr<input> file;
        std::string path;
        std::shared_ptr<member_feed> feed;
    };

    void work();
    void index_batch(std::span<file_result* const> batch, std::vector<std::byte>& buffer,
                     std::vector<found_archive>& archives) const;
    // Walks an archive, its members' results into its feed.
    void walk_archive(found_archive& a, std::vector<std::byte>& buffer) const;
    // Hands the finished results at the head of the window to the sink; with `wait`, first waits
    // until ready_to_drain().
    void drain(bool wait);
    // The head of the window is done, and so is half the window or everything handed over: the
    // main thread then wakes up once per many files, not once per file. Needs mutex_.
    bool ready_to_drain() const;

    validate_options how_;
    std::optional<metrics_options> metrics_;
    archive_plan archives_;
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
    // The feeds of the walks under way, cancelled when the run is abandoned.
    std::vector<std::shared_ptr<member_feed>> walking_;
    std::error_code refused_;
    std::vector<std::thread> workers_;
};

}  // namespace inputanim::tools

template <>
struct std::is_error_code_enum<inputanim::tools::not_measured> : std::true_type {};
