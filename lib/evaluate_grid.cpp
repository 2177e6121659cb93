// Resampling onto a fixed-rate time grid: which points of the grid are rows, and each row's
// values through the curve samplers (evaluate.cpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "inputanim/detail/codes.hpp"
#include "inputanim/error.hpp"
#include "inputanim/evaluate.hpp"
#include "inputanim/time_window.hpp"

namespace inputanim {

namespace {

constexpr detail::code_row<grid_error> grid_rows[] = {
    {grid_error::none, "none", "no error"},
    {grid_error::bad_rate, "bad_rate",
     "the rate is not a positive finite number with a finite step 1 / rate"},
    {grid_error::bad_time, "bad_time",
     "a time bound is not finite or lies outside the float range"},
    {grid_error::no_keys, "no_keys", "a time bound was left to the recording, which has no keys"},
    {grid_error::too_many_rows, "too_many_rows",
     "the grid has more rows than allowed (at most 2^52 points)"},
};
constexpr detail::code_table<grid_error> grid_codes{grid_rows, "unknown error"};

}  // namespace

std::string_view grid_error_name(grid_error e) noexcept {
    return grid_codes.name(e);
}

const std::error_category& grid_error_category() noexcept {
    static const detail::code_category<grid_error> category("inputanim.grid", grid_codes);
    return category;
}

std::error_code make_error_code(grid_error e) noexcept {
    return {static_cast<int>(e), grid_error_category()};
}

void resampler::select_all() noexcept {
    for (const curve_view& c : rec_->curves()) selected_[to_index(c.id)] = true;
    rebuild();
}

std::size_t resampler::select(std::string_view glob) noexcept {
    std::size_t matched = 0;
    for (const curve_view& c : rec_->curves()) {
        if (path_matches(glob, c.path())) {
            selected_[to_index(c.id)] = true;
            ++matched;
        }
    }
    rebuild();
    return matched;
}

std::size_t resampler::select(std::span<const curve_id> ids) noexcept {
    std::size_t held = 0;
    for (const curve_id id : ids) {
        if (to_index(id) >= curve_id_count || rec_->find(id) == nullptr) continue;
        selected_[to_index(id)] = true;
        ++held;
    }
    rebuild();
    return held;
}

void resampler::rebuild() noexcept {
    count_ = 0;
    for (const curve_view& c : rec_->curves()) {
        if (!selected_[to_index(c.id)]) continue;
        ids_[count_] = c.id;
        samplers_[count_] = curve_sampler(c);
        ++count_;
    }
}

namespace {

// The gap between consecutive floats of magnitude `m` (at most 2^128): 2^(e - 24) for m in
// [2^(e-1), 2^e), and 2^-149 among the subnormals.
double float_spacing(double m) noexcept {
    int e = 0;
    std::frexp(m, &e);
    return std::ldexp(1.0, std::max(e - 24, -149));
}

}  // namespace

grid_error resampler::set_grid(double rate, std::optional<double> from, std::optional<double> to,
                               std::uint64_t max_rows) noexcept {
    points_ = 0;
    rows_ = 0;
    refused_rows_ = 0;
    rewind();
    // A rate so small that its step 1 / rate overflows has no second point to offer.
    if (!std::isfinite(rate) || !(rate > 0.0) || !std::isfinite(1.0 / rate)) {
        return grid_error::bad_rate;
    }
    const summary& sum = rec_->summary();
    if ((!from && !sum.start) || (!to && !sum.duration)) return grid_error::no_keys;
    const double lo = from ? *from : *sum.start;
    const double hi = to ? *to : *sum.duration;
    // A reversed window is an empty grid, not an error: one end may be the recording's own.
    if (const std::error_code e = time_window{lo, hi}.problem()) {
        return e == option_error::window_not_finite ? grid_error::bad_time : grid_error::none;
    }
    // Offsets from `lo` are compared, not times: at 1e30 adding a step does not change a time,
    // and a comparison of times would never find the end.
    const double width = hi - lo;
    const double span = width * rate;
    constexpr double max_points = 4503599627370496.0;  // 2^52
    if (!(span < max_points - 1.0)) return grid_error::too_many_rows;
    // The last i with i / rate <= width, or past it by less than a millionth of a step, so that
    // a decimal range such as 0.1 to 0.3 at 10 Hz (2 / 10 > 0.3 - 0.1) keeps its end. `span` is
    // rounded, so the last i is floor(span) or one of its next two neighbours: below 2^52,
    // consecutive i / rate differ.
    const double reach = width + 1e-6 / rate;
    auto last = static_cast<std::uint64_t>(span);
    for (int k = 0; k < 2 && static_cast<double>(last + 1) / rate <= reach; ++k) ++last;
    for (int k = 0; k < 2 && last > 0 && static_cast<double>(last) / rate > reach; ++k) --last;
    from_ = lo;
    to_ = hi;
    rate_ = rate;
    points_ = last + 1;
    // When a step is at least twice the float spacing at the largest time (the spacing only
    // grows with magnitude), consecutive points are more than one spacing apart and round to
    // different floats: every point is a row. Otherwise the distinct times are counted one row
    // at a time, each found in closed form, and the count stops past max_rows.
    const double largest = std::max(std::abs(lo), std::abs(hi));
    const bool every_point = 1.0 / rate >= 2.0 * float_spacing(largest);
    if (every_point) {
        rows_ = points_;
    } else {
        for (std::uint64_t i = 0; i < points_ && rows_ <= max_rows; i = next_distinct(i)) ++rows_;
    }
    if (rows_ > max_rows) {
        if (every_point) refused_rows_ = rows_;
        rows_ = 0;
        return grid_error::too_many_rows;
    }
    return grid_error::none;
}

float resampler::point_time(std::uint64_t i) const noexcept {
    // A point past `to` by less than a millionth of a step is `to`: every time lies in the range.
    return static_cast<float>(std::min(from_ + static_cast<double>(i) / rate_, to_));
}

std::uint64_t resampler::next_distinct(std::uint64_t i) const noexcept {
    const float t = point_time(i);
    const auto after = [&](std::uint64_t j) { return j >= points_ || point_time(j) > t; };
    // The times that round above t start about halfway to the next float: the point there is
    // the guess, a few points off at most, and the point times are non-decreasing in i, so a
    // gallop from the guess and a binary search find the exact first one.
    const double above = std::nextafter(t, std::numeric_limits<float>::infinity());
    const double guess_at = std::ceil(((static_cast<double>(t) + above) / 2.0 - from_) * rate_);
    std::uint64_t guess = i + 1;
    if (guess_at >= static_cast<double>(points_)) {
        guess = points_;
    } else if (guess_at > static_cast<double>(i + 1)) {
        guess = static_cast<std::uint64_t>(guess_at);
    }
    // Invariant: point lo is not after t, point hi is (or hi == points_).
    std::uint64_t lo = i;
    std::uint64_t hi = guess;
    std::uint64_t step = 1;
    if (after(guess)) {
        while (hi - lo > step) {
            if (!after(hi - step)) {
                lo = hi - step;
                break;
            }
            hi -= step;
            step *= 2;
        }
    } else {
        lo = guess;
        for (;;) {
            if (after(lo + step)) {
                hi = std::min(lo + step, points_);
                break;
            }
            lo += step;
            step *= 2;
        }
    }
    while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        (after(mid) ? hi : lo) = mid;
    }
    return hi;
}

float resampler::row_time(std::uint64_t i) const noexcept {
    if (rows_ == points_) return point_time(i);
    std::uint64_t point = 0;
    for (std::uint64_t row = 0; row < i && point < points_; ++row) point = next_distinct(point);
    return point_time(point);
}

std::optional<float> resampler::next(std::span<float> out) noexcept {
    if (next_row_ >= rows_ || out.size() < count_) return std::nullopt;
    const float t = point_time(next_point_);
    for (std::size_t i = 0; i < count_; ++i) out[i] = samplers_[i](t);
    ++next_row_;
    next_point_ = rows_ == points_ ? next_point_ + 1 : next_distinct(next_point_);
    return t;
}

}  // namespace inputanim
