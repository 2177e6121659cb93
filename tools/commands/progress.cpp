#include "progress.hpp"

#include <cstdio>
#include <string>

namespace inputanim::cli {

namespace {

constexpr auto redraw_interval = std::chrono::milliseconds(100);
constexpr int bar_width = 24;

// "1:05:09", "4:07".
std::string clock_text(double seconds) {
    const auto s = static_cast<long long>(seconds + 0.5);
    char text[32];
    if (s >= 3600) {
        std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
    } else {
        std::snprintf(text, sizeof text, "%lld:%02lld", s / 60, s % 60);
    }
    return text;
}

}  // namespace

progress::progress(mode how, std::uint64_t every_files)
    : mode_(how),
      every_files_(every_files),
      start_(std::chrono::steady_clock::now()),
      // The first file is drawn at once on a terminal; a log's first line comes after an interval.
      last_draw_(how == mode::terminal ? start_ - redraw_interval : start_) {}

void progress::done() {
    ++done_;
    if (mode_ == mode::off) return;
    const auto now = std::chrono::steady_clock::now();
    if (mode_ == mode::terminal) {
        if (now - last_draw_ >= redraw_interval) draw(now);
        return;
    }
    if ((every_files_ > 0 && done_ % every_files_ == 0) || now - last_draw_ >= log_interval) {
        last_draw_ = now;
        const std::string line =
            "inputanim index: " + counts_text(std::chrono::duration<double>(now - start_).count());
        std::fprintf(stderr, "%s\n", line.c_str());
        std::fflush(stderr);
    }
}

std::string progress::counts_text(double seconds) const {
    const double rate = seconds > 0 ? static_cast<double>(done_) / seconds : 0.0;
    std::string line = std::to_string(done_) + "/" + std::to_string(found_);
    // While the walk goes on, more files may come.
    if (!walk_finished_) line += '+';
    char rate_text[48];
    std::snprintf(rate_text, sizeof rate_text, " files  %.0f files/s", rate);
    line += rate_text;
    if (walk_finished_ && rate > 0) {
        line += "  ETA " + clock_text(static_cast<double>(found_ - done_) / rate);
    }
    return line;
}

void progress::draw(std::chrono::steady_clock::time_point now) {
    last_draw_ = now;
    drawn_ = true;
    const double seconds = std::chrono::duration<double>(now - start_).count();
    std::string line = "\r";
    if (walk_finished_ && found_ > 0) {
        const auto filled =
            static_cast<int>(static_cast<double>(bar_width) * static_cast<double>(done_) /
                             static_cast<double>(found_));
        line += '[';
        line.append(static_cast<std::size_t>(filled), '#');
        line.append(static_cast<std::size_t>(bar_width - filled), '.');
        line += "] ";
    }
    line += counts_text(seconds);
    // Erase what a longer previous line left.
    line += "\x1b[K";
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
}

void progress::note(std::string_view line) {
    clear();
    std::fprintf(stderr, "%.*s\n", static_cast<int>(line.size()), line.data());
    if (drawn_) draw(std::chrono::steady_clock::now());
}

void progress::clear() {
    if (mode_ != mode::terminal || !drawn_) return;
    std::fputs("\r\x1b[K", stderr);
    std::fflush(stderr);
}

}  // namespace inputanim::cli
