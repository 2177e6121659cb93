// The progress line of `inputanim index` on stderr: files done out of found, files per second and
// the time left, redrawn in place at most ten times a second. It is drawn only when stderr is a
// terminal; scripts and logs see nothing. Diagnostics go through note() so that they do not mix
// with a half-drawn line.
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

namespace inputanim::cli {

class progress {
  public:
    // Draws only when `enabled` (stderr is a terminal).
    explicit progress(bool enabled);

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

    bool enabled_;
    bool drawn_ = false;
    bool walk_finished_ = false;
    std::uint64_t found_ = 0;
    std::uint64_t done_ = 0;
    std::chrono::steady_clock::time_point start_;
    std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace inputanim::cli
