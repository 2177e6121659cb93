#include "index/index_pool.hpp"

#include <algorithm>
#include <array>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "inputanim/archive.hpp"
#include "inputanim/detail/codes.hpp"
#include "inputanim/loaded.hpp"

#include "os/ceilings.hpp"
#include "os/threads.hpp"

namespace inputanim::tools {

namespace {

// Files up to this size are read whole with one pread into a worker's buffer; larger ones are
// mapped. Mapping a file, faulting its pages in one by one and unmapping it (which flushes the
// other CPUs' TLBs) costs more than copying it out up to about a MiB; past that the copy costs
// more than the faults of the pages the walk touches. Measured with `index --jobs 2` (paired
// runs, docs/PERFORMANCE.md, "Reading many small files"): reading whole was 3.3x faster for
// files of 605 KB, and 1.37x slower for files of 2.2 MB.
constexpr std::uint64_t read_whole_bytes = 1 << 20;

// Whether a file without the magic that the reader took for a 2019 layout is one: it holds a
// keyframe. A run of NUL bytes (a crash's zeroed file, a preallocated placeholder) of the right
// length walks as a June 2019 file of 389 empty curves, which no recorder writes.
bool found_2019(const summary& s) {
    return s.edition != edition::v1 && s.keyframes > 0;
}

// A file the reader detects as a 2019 layout (a walk of its curve headers) that holds a keyframe.
bool is_2019_recording(std::span<const std::byte> bytes) {
    if (!may_be_2019(bytes)) return false;
    recording rec;
    return !rec.open(bytes) && found_2019(rec.summary());
}

// Opens r's file through the input layer (a FIFO put in a listed file's place is refused, never
// waited on), not mapped yet; false (r unreadable) when that fails.
bool open_file(file_result& r, input& file) {
    r.outcome = file_outcome::recording;
    r.bytes = 0;
    r.failure.clear();
    r.metrics.reset();
    r.metrics_failure.clear();
    file = input::open(r.path, r.failure, file_access::reads);
    if (r.failure) {
        r.outcome = file_outcome::unreadable;
        r.failure_code = "unreadable";
        return false;
    }
    r.bytes = file.file_size().value_or(0);
    if (r.new_in_store && !r.stamp) r.stamp = file.stamp();
    return true;
}

// The row of a file that could not be read whole (another process truncated it).
void mark_cut(file_result& r, std::error_code io = std::make_error_code(std::errc::io_error)) {
    r.outcome = file_outcome::unreadable;
    r.failure = io;
    r.failure_code = "io_error";
}

// Measures the valid recording in `bytes`; a truncated mapping makes the file unreadable.
void measure_into(file_result& r, held_bytes bytes, const validate_options& how,
                  const metrics_options& metrics) {
    recording rec;
    recording_metrics m;
    std::error_code failure;
    if (bytes.run([&] {
            const error e = rec.open(bytes.span(), read_options{how.layout, how.limits});
            failure = e ? make_error_code(e.code) : measure(rec, metrics, m);
        })) {
        return mark_cut(r);
    }
    if (failure) {
        r.metrics_failure = failure;
    } else {
        r.metrics = m;
    }
}

// A gzip file or a stream, validated as it is inflated or read. A gzip file found by the walk is
// a recording when its first inflated bytes are (a prefix of) the magic, or when they may begin
// a 2019 layout and the whole file reads as one with a keyframe.
void index_alone(file_result& r, input& file, const validate_options& how,
                 const std::optional<metrics_options>& metrics) {
    bool maybe_2019 = false;
    if (!r.named && file.is_mapped()) {
        std::array<std::byte, recording_head_size> head{};
        std::error_code io;
        const std::size_t n = recording_head(file, head, io);
        if (io) return mark_cut(r, io);
        maybe_2019 = may_be_2019({head.data(), n});
        if (!starts_like_recording({head.data(), n}) && !maybe_2019) {
            r.outcome = file_outcome::not_recording;
            return;
        }
    }
    const file_check c = validate_input(file, how);
    if (c.io) return mark_cut(r, c.io);
    // Without the magic, a recording only if it read as a 2019 layout with a keyframe.
    if (maybe_2019 && !found_2019(c.rep.summary)) {
        r.outcome = file_outcome::not_recording;
        return;
    }
    r.rep = c.rep;
    r.bytes = c.bytes;
    if (!metrics || !r.rep.valid()) return;
    if (!file.is_mapped()) {
        // Standard input is read once, by the validation.
        r.metrics_failure = not_measured::read_once;
        return;
    }
    // A gzip file: inflated again, into memory, as `inputanim metrics` reads it (the validation
    // read the input through).
    validate_options whole = how;
    whole.limits.max_bytes = std::min(how.limits.max_bytes, default_max_whole_bytes);
    loaded_recording again;
    const whole_input& w = again.load(r.path, whole);
    if (w.io) return mark_cut(r, w.io);
    if (w.invalid) {
        r.metrics_failure = make_error_code(w.invalid.code);
        return;
    }
    measure_into(r, again.held(), how, *metrics);
}

// The bytes of a regular file read whole into `buffer` (kept from file to file): false, with r
// unreadable, when the read fails or finds the file shorter than it was (another process cut it).
bool read_small(file_result& r, const input& file, std::uint64_t size,
                std::vector<std::byte>& buffer) {
    try {
        buffer.resize(static_cast<std::size_t>(size));
    } catch (const std::bad_alloc&) {
        mark_cut(r, std::make_error_code(std::errc::not_enough_memory));
        return false;
    }
    std::error_code io;
    const std::size_t got = read_at(file.descriptor(), 0, buffer, io);
    if (io || got != size) {
        mark_cut(r, io ? io : std::make_error_code(std::errc::io_error));
        return false;
    }
    return true;
}

constexpr inputanim::detail::code_row<not_measured> not_measured_rows[] = {
    {not_measured::none, "none", "no error"},
    {not_measured::read_once, "read_once",
     "standard input is read once, by the validation; measure it with inputanim metrics"},
    {not_measured::not_held, "not_held",
     "a member inflated as it was checked (gzip, or past 64 MiB in a compressed archive) is not "
     "held to be measured; measure it with inputanim metrics ARCHIVE/MEMBER"},
};
constexpr inputanim::detail::code_table<not_measured> not_measured_codes{not_measured_rows,
                                                                         "unknown error"};

}  // namespace

const std::error_category& not_measured_category() noexcept {
    static const inputanim::detail::code_category<not_measured> category("inputanim.index",
                                                                         not_measured_codes);
    return category;
}

std::error_code make_error_code(not_measured e) noexcept {
    return {static_cast<int>(e), not_measured_category()};
}

unsigned shard_of(std::string_view path, unsigned shards) {
    std::uint64_t h = 0xcbf29ce484222325;
    for (const char c : path) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001b3;
    }
    return static_cast<unsigned>(h % shards);
}

bool member_feed::push(file_result&& r, const std::function<void(file_result&)>& check) {
    outgoing_.push_back(std::move(r));
    if (outgoing_.size() < hand_over_size) return true;
    if (!taker_idle_) {
        for (file_result& member : outgoing_) {
            if (!member.unchecked.empty()) check(member);
        }
    }
    return hand_over();
}

bool member_feed::hand_over() {
    std::unique_lock lock(mutex_);
    producer_waiting_ = true;
    changed_.wait(lock, [this] { return waiting_.size() < feed_capacity || cancelled_; });
    producer_waiting_ = false;
    if (cancelled_) return false;
    for (file_result& r : outgoing_) waiting_.push_back(std::move(r));
    outgoing_.clear();
    taker_idle_ = consumer_waiting_;
    if (consumer_waiting_) changed_.notify_all();
    return true;
}

void member_feed::finish(const error& stopped, std::uint64_t entries, std::uint64_t skipped,
                         archive_format format) {
    if (!hand_over()) return;
    const std::lock_guard lock(mutex_);
    stopped_ = stopped;
    entries_ = entries;
    skipped_ = skipped;
    format_ = format;
    finished_ = true;
    changed_.notify_all();
}

bool member_feed::pop(file_result& r) {
    if (taken_.empty()) {
        std::unique_lock lock(mutex_);
        consumer_waiting_ = true;
        changed_.wait(lock, [this] { return !waiting_.empty() || finished_; });
        consumer_waiting_ = false;
        if (waiting_.empty()) return false;
        std::swap(taken_, waiting_);
        if (producer_waiting_) changed_.notify_all();
    }
    r = std::move(taken_.front());
    taken_.pop_front();
    return true;
}

void member_feed::cancel() {
    const std::lock_guard lock(mutex_);
    cancelled_ = true;
    changed_.notify_all();
}

namespace {

// Whether the opened file `file` (its first bytes `head`, inflated when it is gzip) is an
// archive: never when they start like a recording; else archive_format_of.
std::optional<archive_format> archive_of(const input& file, std::span<const std::byte> head,
                                         std::error_code& io) {
    if (starts_like_recording(head)) return std::nullopt;
    return archive_format_of(file, io);
}

}  // namespace

void index_pool::check_member(file_result& r) const {
    // In the archive's mapping.
    const held_bytes member = held_bytes::mapping(std::exchange(r.unchecked, {}));
    const std::span<const std::byte> bytes = member.span();
    file_check c;
    c.head_size = std::min(c.head.size(), bytes.size());
    if (const std::error_code io = member.run([&] {
            std::copy_n(bytes.begin(), c.head_size, c.head.begin());
            c.rep = validate(bytes, how_);
        });
        io || c.rep.error.code == errc::io_error) {
        mark_cut(r);
    } else if (!found_recording(c)) {
        r.outcome = file_outcome::not_recording;
    } else {
        r.rep = c.rep;
        r.bytes = bytes.size();
        if (metrics_ && r.rep.valid()) measure_into(r, member, how_, *metrics_);
    }
    r.holder.reset();
}

void index_pool::walk_archive(found_archive& a, std::vector<std::byte>& buffer) const {
    std::error_code io;
    archive_reader reader = archive_reader::open(*a.file, archives_.limits, io);
    const auto check = [this](file_result& r) { check_member(r); };
    std::uint64_t entries = 0;
    std::uint64_t skipped = 0;
    if (io) {
        // Said as a walk stopped at its first entry, by take_archive.
        error unreadable;
        unreadable.code = errc::io_error;
        a.feed->finish(archives_.mine(a.path) ? unreadable : error{}, 0, 0, archive_format::tar);
        return;
    }
    archive_member m;
    while (reader.next(m)) {
        ++entries;
        std::string path;
        try {
            path = a.path + "/" + m.name;
        } catch (const std::bad_alloc&) {
            error refused;
            refused.code = errc::io_error;
            a.feed->finish(refused, entries, skipped, reader.format());
            return;
        }
        if (!archives_.mine(path)) continue;
        if (m.kind != member_kind::file) {
            ++skipped;
            continue;
        }
        file_result r;
        r.path = std::move(path);
        r.archive = a.path;
        r.member = m;
        r.ordinal = static_cast<std::int64_t>(m.ordinal);
        // A plain member in place is checked by whichever thread has the time (member_feed); a
        // gzip one is inflated here.
        const std::span<const std::byte> in_place = reader.member_bytes();
        bool gzip = false;
        if (!in_place.empty() && !guarded(in_place, [&] { gzip = starts_like_gzip(in_place); }) &&
            !gzip) {
            r.unchecked = in_place;
            r.holder = a.file;
            if (!a.feed->push(std::move(r), check)) return;
            continue;
        }
        const file_check c = validate_member(reader, how_, buffer);
        if (c.io) {
            mark_cut(r, c.io);
        } else if (!reported_member(reader, c)) {
            // Sorted from the recordings as a folder's files are.
            ++skipped;
            continue;
        } else {
            r.rep = c.rep;
            r.bytes = c.bytes;
            if (metrics_ && r.rep.valid()) {
                if (!buffer.empty() && !starts_like_gzip(buffer)) {
                    measure_into(r, held_bytes::in_memory(buffer), how_, *metrics_);
                } else {
                    // Inflated as it was checked, and not held: measured by `inputanim metrics`.
                    r.metrics_failure = not_measured::not_held;
                }
            }
        }
        if (!a.feed->push(std::move(r), check)) return;
    }
    error stopped = reader.fault();
    if (stopped && !archives_.mine(a.path)) stopped = {};
    a.feed->finish(stopped, entries, skipped, reader.format());
}

// Opens, reads or maps, and validates the files of `batch` (at most batch_width): a file read into
// `buffer` is validated at once, the buffer then taken by the next; the mapped ones together,
// where the many-inputs validate() overlaps the cache misses of their structure walks. gzip files
// and streams are validated one at a time.
void index_pool::index_batch(std::span<file_result* const> batch, std::vector<std::byte>& buffer,
                             std::vector<found_archive>& archives) const {
    std::array<input, batch_width> files;
    std::array<std::span<const std::byte>, batch_width> inputs;
    std::array<report, batch_width> reports;
    std::array<file_result*, batch_width> targets{};
    std::size_t n = 0;
    for (std::size_t i = 0; i < batch.size(); ++i) {
        file_result& r = *batch[i];
        if (r.outcome == file_outcome::unchanged || r.outcome == file_outcome::unchanged_archive) {
            continue;
        }
        if (!open_file(r, files[i])) {
            // Not of this shard: nothing to say of it.
            if (r.only_archive) r.outcome = file_outcome::not_recording;
            continue;
        }
        input& file = files[i];
        const std::optional<std::uint64_t> size = file.file_size();
        if (!size) {
            // Standard input, read as it arrives.
            index_alone(r, file, how_, metrics_);
            continue;
        }
        held_bytes held;
        bool gzip = false;
        if (*size <= read_whole_bytes) {
            if (!read_small(r, file, *size, buffer)) continue;
            held = held_bytes::in_memory(buffer);
            gzip = starts_like_gzip(buffer);
        } else {
            std::error_code io = file.map();
            if (!io) gzip = is_gzip(file, io);
            if (io) {
                mark_cut(r, io);
                continue;
            }
            held = held_bytes::mapping(file.mapped());
        }
        const std::span<const std::byte> bytes = held.span();
        if (archives_.open) {
            // The first bytes of the content, inflated when it is gzip.
            std::array<std::byte, recording_head_size> head{};
            std::size_t n = 0;
            std::error_code io;
            if (gzip) {
                io = file.map();
                if (!io) n = recording_head(file, head, io);
            } else if (!bytes.empty()) {
                n = std::min(head.size(), bytes.size());
                io = held.run([&] { std::copy_n(bytes.begin(), n, head.begin()); });
            }
            std::optional<archive_format> format;
            if (!io) format = archive_of(file, {head.data(), n}, io);
            if (io) {
                mark_cut(r, io);
                if (r.only_archive) r.outcome = file_outcome::not_recording;
                continue;
            }
            if (format) {
                // Walked once the batch is done (work()), in the order found.
                r.outcome = file_outcome::archive;
                r.feed = std::make_shared<member_feed>();
                archives.push_back({std::make_shared<input>(std::move(file)), r.path, r.feed});
                continue;
            }
        }
        if (r.only_archive) {
            r.outcome = file_outcome::not_recording;
            continue;
        }
        if (gzip) {
            // Inflated from the mapping as it is read (a small file is mapped only now).
            if (const std::error_code io = file.map()) {
                mark_cut(r, io);
                continue;
            }
            index_alone(r, file, how_, metrics_);
            continue;
        }
        bool looks = true;
        if (!r.named &&
            held.run([&] { looks = starts_like_recording(bytes) || is_2019_recording(bytes); })) {
            mark_cut(r);
            continue;
        }
        if (!looks) {
            r.outcome = file_outcome::not_recording;
            continue;
        }
        if (held.mapped() && how_.level == level::structure) {
            // A large file alone: validate_input reads its structure by pread, where the batch
            // would fault in a page of the mapping per curve.
            const file_check c = validate_input(file, how_);
            if (c.io) {
                mark_cut(r, c.io);
                continue;
            }
            r.rep = c.rep;
            if (metrics_ && r.rep.valid()) measure_into(r, held, how_, *metrics_);
            continue;
        }
        if (!held.mapped()) {
            // Just read, so in the caches: nothing for the batch's walk to overlap.
            r.rep = validate(bytes, how_);
            if (metrics_ && r.rep.valid()) measure_into(r, held, how_, *metrics_);
            continue;
        }
        inputs[n] = bytes;
        targets[n++] = &r;
    }
    validate({inputs.data(), n}, {reports.data(), n}, how_);
    for (std::size_t k = 0; k < n; ++k) {
        if (reports[k].error.code == errc::io_error) {
            mark_cut(*targets[k]);
            continue;
        }
        targets[k]->rep = reports[k];
        // The batch holds only mappings.
        if (metrics_ && reports[k].valid()) {
            measure_into(*targets[k], held_bytes::mapping(inputs[k]), how_, *metrics_);
        }
    }
}

index_pool::index_pool(unsigned jobs, std::size_t window, validate_options how,
                       std::optional<metrics_options> metrics, archive_plan archives, sink done)
    : how_(how),
      metrics_(metrics),
      archives_(archives),
      done_(std::move(done)),
      slots_(std::max<std::size_t>(window, 1)) {
    workers_.reserve(jobs);
    // The run goes on with the threads that started, and the indexer says so.
    refused_ = start_threads(jobs, workers_, [this] { work(); });
    if (workers_.empty()) {
        throw std::system_error(refused_, "cannot start a thread to read files");
    }
}

index_pool::~index_pool() {
    {
        const std::lock_guard lock(mutex_);
        // Files not taken yet are dropped: this only happens when the run is abandoned.
        submitted_ = taken_;
        stopping_ = true;
        for (const std::shared_ptr<member_feed>& feed : walking_) feed->cancel();
    }
    work_ready_.notify_all();
    for (std::thread& t : workers_) t.join();
}

void index_pool::work() {
    // The worker's buffer for the files it reads whole, kept from file to file.
    std::vector<std::byte> buffer;
    std::vector<found_archive> archives;
    std::unique_lock lock(mutex_);
    for (;;) {
        work_ready_.wait(lock, [this] { return taken_ < submitted_ || stopping_; });
        if (taken_ == submitted_) return;
        // Up to batch_width files at once, for index_batch.
        const std::uint64_t first = taken_;
        const std::size_t count =
            static_cast<std::size_t>(std::min<std::uint64_t>(batch_width, submitted_ - taken_));
        taken_ += count;
        std::array<file_result*, batch_width> batch{};
        for (std::size_t i = 0; i < count; ++i) {
            batch[i] = &slots_[(first + i) % slots_.size()].result;
        }
        lock.unlock();
        index_batch({batch.data(), count}, buffer, archives);
        lock.lock();
        for (std::size_t i = 0; i < count; ++i) slots_[(first + i) % slots_.size()].done = true;
        completed_ += count;
        if (main_waiting_ && ready_to_drain()) drain_ready_.notify_one();
        // The archives of the batch, now that the main thread may reach their slots: it drains
        // each one's feed in its place.
        for (found_archive& a : archives) {
            if (stopping_) {
                a.feed->cancel();
                continue;
            }
            walking_.push_back(a.feed);
            lock.unlock();
            walk_archive(a, buffer);
            // The members not checked yet keep the mapping.
            a.file.reset();
            lock.lock();
            std::erase(walking_, a.feed);
        }
        archives.clear();
    }
}

bool index_pool::ready_to_drain() const {
    return slots_[consumed_ % slots_.size()].done &&
           (completed_ - consumed_ >= slots_.size() / 2 || completed_ == submitted_);
}

void index_pool::drain(bool wait) {
    bool handed = false;
    for (;;) {
        slot* head = nullptr;
        {
            std::unique_lock lock(mutex_);
            if (handed) ++consumed_;
            handed = false;
            if (consumed_ == submitted_) return;
            head = &slots_[consumed_ % slots_.size()];
            if (wait) {
                // Files handed over since the last wake-up are not left waiting for more.
                if (taken_ < submitted_) work_ready_.notify_all();
                main_waiting_ = true;
                drain_ready_.wait(lock, [this] { return ready_to_drain(); });
                main_waiting_ = false;
                wait = false;
            }
            if (!head->done) return;
            head->done = false;
        }
        // Outside the lock: the sink writes output, and no worker touches a finished slot.
        done_(head->result);
        handed = true;
    }
}

file_result& index_pool::next() {
    drain(false);
    // Only this thread changes submitted_ and consumed_, so it may read them without the lock.
    while (submitted_ - consumed_ == slots_.size()) drain(true);
    return slots_[submitted_ % slots_.size()].result;
}

void index_pool::submit() {
    bool wake = false;
    {
        const std::lock_guard lock(mutex_);
        ++submitted_;
        // A worker takes batch_width files at a time: waking one for every file would cost a
        // futex call and a context switch per file (half the time of re-indexing an unchanged
        // tree). The rest are woken by drain() before the main thread waits.
        wake = (submitted_ - taken_) % batch_width == 0;
    }
    if (wake) work_ready_.notify_one();
}

void index_pool::finish() {
    while (consumed_ != submitted_) drain(true);
}

}  // namespace inputanim::tools
