// The progress line of `inputanim index` on stderr: files done out of found, files per second and
// the time left, redrawn in place at most ten times a second when stderr is a terminal. Where it
// is not (a batch job's log), nothing, or with `index --progress` the same counts as whole lines,
// one every log_interval and, with --progress-every N, one every N files. Diagnostics go through
// note() so that they do not mix with a half-drawn line.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace inputanim::cli {

class progress {
  public:
    // How progress shows on stderr: nothing, a line redrawn in place (a terminal), or whole
    // lines (a log).
    enum class mode : std::uint8_t { off, terminal, log };
    // A log line at least this often while files are done.
    static constexpr auto log_interval = std::chrono::seconds(10);

    // `every_files`: in mode log, also a line each time that many more files are done (0: none).
    explicit progress(mode how, std::uint64_t every_files = 0);

    // A file was found by the walk / handled (indexed, skipped or not a recording).
    void found() { ++found_; }
    void done();
    // The walk is over: the total is known and the time left can be estimated.
    void walk_finished() { walk_finished_ = true; }
    // Prints a line on stderr, above the progress line.
    void note(std::string_view line);
    // Removes the progress line.
    void clear();

    std::chrono::steady_clock::duration elapsed() const {
        return std::chrono::steady_clock::now() - start_;
    }

  private:
    void draw(std::chrono::steady_clock::time_point now);
    // The counts, the rate and the time left, without the bar.
    std::string counts_text(double seconds) const;

    mode mode_;
    std::uint64_t every_files_;
    bool drawn_ = false;
    bool walk_finished_ = false;
    std::uint64_t found_ = 0;
    std::uint64_t done_ = 0;
    std::chrono::steady_clock::time_point start_;
    std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace inputanim::cli
