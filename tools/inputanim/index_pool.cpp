#include "index_pool.hpp"

#include <algorithm>
#include <span>

namespace inputanim::cli {

namespace {

// True when the file starts with the magic, or is shorter than the magic and holds a prefix of
// it (an empty file included): a recording, perhaps cut short, which deserves a row with its
// error. Anything else is some other kind of file.
bool starts_like_recording(std::span<const std::byte> bytes) {
    const std::size_t n = std::min<std::size_t>(bytes.size(), sizeof file_magic);
    for (std::size_t i = 0; i < n; ++i) {
        if (bytes[i] != static_cast<std::byte>((file_magic >> (8 * i)) & 0xff)) return false;
    }
    return true;
}

// Opens, maps, validates and unmaps one file.
void index_file(file_result& r, const validate_options& how) {
    r.outcome = file_outcome::recording;
    r.bytes = 0;
    r.failure.clear();
    const mapped_file file = mapped_file::open(r.path, r.failure);
    if (r.failure) {
        r.outcome = file_outcome::unreadable;
        r.failure_code = "unreadable";
        return;
    }
    r.bytes = file.size();
    bool recording = true;
    const std::error_code read = file.guard([&] {
        recording = r.named || starts_like_recording(file.bytes());
        if (recording) r.rep = validate(file.bytes(), how);
    });
    if (read) {
        r.outcome = file_outcome::unreadable;
        r.failure = read;
        r.failure_code = "io_error";
    } else if (!recording) {
        r.outcome = file_outcome::not_recording;
    }
}

}  // namespace

index_pool::index_pool(unsigned jobs, std::size_t window, validate_options how, sink done)
    : how_(how), done_(std::move(done)), slots_(std::max<std::size_t>(window, 1)) {
    workers_.reserve(jobs);
    for (unsigned i = 0; i < jobs; ++i) workers_.emplace_back([this] { work(); });
}

index_pool::~index_pool() {
    {
        const std::lock_guard lock(mutex_);
        // Files not taken yet are dropped: this only happens when the run is abandoned.
        submitted_ = taken_;
        stopping_ = true;
    }
    work_ready_.notify_all();
    for (std::thread& t : workers_) t.join();
}

void index_pool::work() {
    std::unique_lock lock(mutex_);
    for (;;) {
        work_ready_.wait(lock, [this] { return taken_ < submitted_ || stopping_; });
        if (taken_ == submitted_) return;
        const std::uint64_t seq = taken_++;
        slot& s = slots_[seq % slots_.size()];
        lock.unlock();
        index_file(s.result, how_);
        lock.lock();
        s.done = true;
        ++completed_;
        if (main_waiting_ && ready_to_drain()) drain_ready_.notify_one();
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
    {
        const std::lock_guard lock(mutex_);
        ++submitted_;
    }
    work_ready_.notify_one();
}

void index_pool::finish() {
    while (consumed_ != submitted_) drain(true);
}

}  // namespace inputanim::cli
