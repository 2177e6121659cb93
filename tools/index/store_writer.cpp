#include "index/store_writer.hpp"

namespace inputanim::tools {

store_writer::store_writer(sqlite_store& store, std::string options)
    : store_(store), options_(std::move(options)) {
    try {
        thread_ = std::thread([this] { work(); });
    } catch (const std::system_error& e) {
        refused_ = e.code();
    }
}

store_writer::~store_writer() {
    {
        const std::lock_guard lock(mutex_);
        stopping_ = true;
        waiting_.clear();
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void store_writer::write(const row& r) {
    store_.put(r.result, options_, r.line, r.indexed_at_ns);
}

void store_writer::put(const file_result& r, std::string line, std::int64_t indexed_at_ns) {
    if (!thread_.joinable()) {
        const std::lock_guard lock(store_mutex_);
        return store_.put(r, options_, line, indexed_at_ns);
    }
    // Copied before the lock is taken, so that the thread is not kept from the rows waiting.
    row copy{r, std::move(line), indexed_at_ns};
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return waiting_.size() < max_waiting || failure_; });
    rethrow();
    waiting_.push_back(std::move(copy));
    // The thread waits only when it has nothing: one wake-up per batch, not per row.
    if (waiting_.size() == 1 && !writing_) changed_.notify_all();
}

void store_writer::flush() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return (waiting_.empty() && !writing_) || failure_; });
    rethrow();
}

void store_writer::rethrow() {
    if (failure_) std::rethrow_exception(failure_);
}

void store_writer::work() {
    std::deque<row> batch;
    std::unique_lock lock(mutex_);
    for (;;) {
        changed_.wait(lock, [this] { return !waiting_.empty() || stopping_; });
        if (stopping_) return;
        batch.swap(waiting_);
        writing_ = true;
        lock.unlock();
        // A caller waiting for room goes on.
        changed_.notify_all();
        std::exception_ptr failed;
        {
            const std::lock_guard use(store_mutex_);
            try {
                for (const row& r : batch) write(r);
            } catch (...) {
                failed = std::current_exception();
            }
        }
        batch.clear();
        lock.lock();
        writing_ = false;
        if (failed) {
            failure_ = failed;
            waiting_.clear();
        }
        changed_.notify_all();
        if (failed) return;
    }
}

}  // namespace inputanim::tools
