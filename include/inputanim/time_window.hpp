// A time window of a recording, [from, until] inclusive, and its one check: the window `convert`
// cuts to, the grid `sample` and `export` lay and Python's sample(start, stop). Either end may be
// left open, for the recording's own first key time or duration.
//
//     inputanim::time_window w{2.0, 1.0};
//     if (w.problem()) std::cerr << w.problem_text("--from", "--until") << '\n';
//     // --from 2 is after --until 1
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace inputanim {

struct time_window {
    std::optional<double> from;
    std::optional<double> until;

    // Whether `t` is a time a recording can hold: a finite float, at most the largest float in
    // magnitude (a double beyond it would become infinite as a key time).
    static bool holds(double t) noexcept;
    // option_error::window_not_finite when an end is no time a recording can hold,
    // window_reversed when `from` is after `until`; a false code when the window is sound.
    std::error_code problem() const noexcept;
    // problem() in words, each end named as the caller's users know it (--from and --until,
    // start and stop): "NAME T is not a time a recording can hold (a finite float, at most
    // 3.4028234663852886e+38 in magnitude)" for the first end that is not, else "FROM T is after
    // UNTIL T"; empty when the window is sound.
    std::string problem_text(std::string_view from_name, std::string_view until_name) const;
};

}  // namespace inputanim
