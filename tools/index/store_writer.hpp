// The rows of an index run written into its database on a thread of their own, in the order they
// were handed over, while the main thread goes on walking and making the next rows: SQLite's
// inserts, commits and checkpoints were more than half of the main thread's time indexing many
// small files into a new database, and the main thread was what the run waited for. Every other
// use of the database (a lookup, a file seen, an archive forgotten) is made on the caller's
// thread under the writer's lock; those that change rows first wait for the rows handed over
// before them to be written. A write that fails stops the writing, and its error is thrown on
// the caller's thread by the next call.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "index/index_pool.hpp"
#include "index/sqlite_store.hpp"

namespace inputanim::tools {

class store_writer {
  public:
    // At most this many rows wait to be written: the caller waits past it (memory bound).
    static constexpr std::size_t max_waiting = 256;

    // Starts the thread, for rows made under `options` (the text of indexer::stored_options);
    // when the system refuses it, rows are written on the caller's thread (refusal() says why).
    store_writer(sqlite_store& store, std::string options);
    // Stops the thread: rows not written yet are dropped (a run abandoned), and the database
    // keeps what its last commit holds.
    ~store_writer();
    store_writer(const store_writer&) = delete;
    store_writer& operator=(const store_writer&) = delete;

    // Hands the row of `r` over (sqlite_store::put of a copy of `r` and `line`).
    void put(const file_result& r, std::string line, std::int64_t indexed_at_ns);
    // Waits until every row handed over is written.
    void flush();
    // Runs `use` with the database under the writer's lock, on this thread; with `after_rows`,
    // once every row handed over is written (for a change that must come after them).
    template <class Use>
    decltype(auto) locked(Use&& use, bool after_rows = false) {
        if (after_rows) {
            flush();
        } else {
            const std::lock_guard lock(mutex_);
            rethrow();
        }
        const std::lock_guard lock(store_mutex_);
        return use(store_);
    }

    std::error_code refusal() const noexcept { return refused_; }

  private:
    struct row {
        file_result result;
        std::string line;
        std::int64_t indexed_at_ns = 0;
    };

    void work();
    // Throws the failure of a write, if one failed. Needs mutex_.
    void rethrow();
    void write(const row& r);

    sqlite_store& store_;
    const std::string options_;
    // Held while the database is used: by the thread for each batch of rows it took.
    std::mutex store_mutex_;
    std::mutex mutex_;
    std::condition_variable changed_;
    // Handed over, not taken by the thread yet. Guarded by mutex_.
    std::deque<row> waiting_;
    // The thread is writing rows it took. Guarded by mutex_.
    bool writing_ = false;
    bool stopping_ = false;
    // Guarded by mutex_.
    std::exception_ptr failure_;
    std::error_code refused_;
    std::thread thread_;
};

}  // namespace inputanim::tools
