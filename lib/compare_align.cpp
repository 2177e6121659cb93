// The time offset between two takes of one motion, from their heads (docs/DIFF.md, "Alignment").
#include <algorithm>
#include <array>
#include <cmath>
#include <new>
#include <vector>

#include "detail/correlate.hpp"
#include "detail/pose_error.hpp"
#include "inputanim/compare.hpp"
#include "inputanim/detail/codes.hpp"

namespace inputanim {

namespace {

constexpr detail::code_row<align_error> align_rows[] = {
    {align_error::none, "none", "no error"},
    {align_error::no_head, "no_head", "a recording has no head (no camera block) to align by"},
    {align_error::too_flat, "too_flat", "the head's motion is too short or too flat to align by"},
    {align_error::too_long, "too_long", "the two takes hold more grid rows than alignment allows"},
    {align_error::no_match, "no_match",
     "no offset makes the two heads' motions alike (correlation below 0.5)"},
};
constexpr detail::code_table<align_error> align_codes{align_rows, "unknown error"};

// One take's head on its own grid: its speed (m/s) and turning speed (degrees/s) between
// consecutive rows, and the time of its first row.
struct head_motion {
    std::vector<float> speed;
    std::vector<float> turn;
    double start = 0.0;
};

constexpr std::array<curve_id, 7> head_curves = {
    camera_curve(pose_channel::position_x), camera_curve(pose_channel::position_y),
    camera_curve(pose_channel::position_z), camera_curve(pose_channel::rotation_x),
    camera_curve(pose_channel::rotation_y), camera_curve(pose_channel::rotation_z),
    camera_curve(pose_channel::rotation_w)};

// Sets each take's grid (its own first to last key time) and checks both against the ceilings
// before a row is evaluated.
std::error_code set_grids(resampler& a, resampler& b, const compare_options& o) {
    for (resampler* r : {&a, &b}) {
        r->select(head_curves);
        if (const grid_error g = r->set_grid(o.rate, std::nullopt, std::nullopt, o.max_rows);
            g != grid_error::none) {
            return g == grid_error::no_keys ? make_error_code(align_error::too_flat)
                                            : make_error_code(g);
        }
    }
    if (a.row_count() > max_align_steps - b.row_count()) return align_error::too_long;
    if (a.row_count() < 3 || b.row_count() < 3) return align_error::too_flat;
    return {};
}

head_motion motion_of(resampler& r, double rate) {
    head_motion m;
    const std::uint64_t rows = r.row_count();
    m.speed.reserve(rows - 1);
    m.turn.reserve(rows - 1);
    std::array<float, head_curves.size()> previous{};
    std::array<float, head_curves.size()> row{};
    for (std::uint64_t i = 0; i < rows; ++i) {
        const std::optional<float> t = r.next(row);
        if (i == 0) {
            m.start = *t;
        } else {
            m.speed.push_back(
                static_cast<float>(detail::position_error(&previous[0], &row[0]) * rate));
            m.turn.push_back(
                static_cast<float>(detail::rotation_error(&previous[3], &row[3]) * rate));
        }
        previous = row;
    }
    return m;
}

struct moments {
    double mean = 0.0;
    double deviation = 0.0;
};
moments moments_of(const std::vector<float>& v) {
    double sum = 0.0;
    for (const float x : v) sum += x;
    const double mean = sum / double(v.size());
    double squares = 0.0;
    for (const float x : v) squares += (x - mean) * (x - mean);
    return {mean, std::sqrt(squares / double(v.size()))};
}

// The series correlated: the sum of the channels that move on both takes, each standardised on
// its own take, so that speed and turning weigh alike whatever their units.
void add_standardised(const std::vector<float>& v, const moments& m, std::vector<double>& out) {
    for (std::size_t i = 0; i < v.size(); ++i) out[i] += (v[i] - m.mean) / m.deviation;
}

// A series' sum and sum of squares over a range that moves by whole steps.
struct running_sums {
    const std::vector<double>* values = nullptr;
    std::size_t lo = 0;
    std::size_t hi = 0;
    double sum = 0.0;
    double squares = 0.0;

    void move_to(std::size_t new_lo, std::size_t new_hi) {
        const std::vector<double>& v = *values;
        while (lo > new_lo) add(v[--lo], 1.0);
        while (hi < new_hi) add(v[hi++], 1.0);
        while (lo < new_lo) add(v[lo++], -1.0);
        while (hi > new_hi) add(v[--hi], -1.0);
    }
    void add(double x, double sign) {
        sum += sign * x;
        squares += sign * x * x;
    }
};

std::error_code estimate(const recording& ra, const recording& rb, const compare_options& o,
                         time_alignment& out) {
    if (!ra.summary().blocks.camera || !rb.summary().blocks.camera) return align_error::no_head;
    resampler sa(ra);
    resampler sb(rb);
    if (const std::error_code ec = set_grids(sa, sb, o)) return ec;
    double a_start = 0.0;
    double b_start = 0.0;
    std::vector<double> xa;
    std::vector<double> xb;
    {
        const head_motion a = motion_of(sa, o.rate);
        const head_motion b = motion_of(sb, o.rate);
        a_start = a.start;
        b_start = b.start;
        xa.resize(a.speed.size());
        xb.resize(b.speed.size());
        bool moving = false;
        const std::array<std::pair<const std::vector<float>*, const std::vector<float>*>, 2>
            channels = {{{&a.speed, &b.speed}, {&a.turn, &b.turn}}};
        const std::array<double, 2> flat = {align_flat_speed, align_flat_turn};
        for (std::size_t k = 0; k < channels.size(); ++k) {
            const moments ma = moments_of(*channels[k].first);
            const moments mb = moments_of(*channels[k].second);
            if (!(ma.deviation > flat[k] && mb.deviation > flat[k])) continue;
            moving = true;
            add_standardised(*channels[k].first, ma, xa);
            add_standardised(*channels[k].second, mb, xb);
        }
        if (!moving) return align_error::too_flat;
    }

    const detail::cross_correlation c(xa, xb);
    // Lag L pairs xa[i] with xb[i + L]; only lags sharing at least half the shorter series count,
    // so that a few steps at the ends cannot correlate by chance.
    const auto na = static_cast<std::ptrdiff_t>(xa.size());
    const auto nb = static_cast<std::ptrdiff_t>(xb.size());
    const std::ptrdiff_t least = std::max<std::ptrdiff_t>(2, (std::min(na, nb) + 1) / 2);
    running_sums sum_a{&xa, xa.size(), xa.size()};
    running_sums sum_b{&xb, 0, 0};
    double best = -2.0;
    std::ptrdiff_t best_lag = 0;
    std::ptrdiff_t best_overlap = 0;
    for (std::ptrdiff_t lag = -(na - 1); lag <= nb - 1; ++lag) {
        const std::ptrdiff_t a_lo = std::max<std::ptrdiff_t>(0, -lag);
        const std::ptrdiff_t a_hi = std::min(na, nb - lag);
        const std::ptrdiff_t overlap = a_hi - a_lo;
        sum_a.move_to(std::size_t(a_lo), std::size_t(a_hi));
        sum_b.move_to(std::size_t(a_lo + lag), std::size_t(a_hi + lag));
        if (overlap < least) continue;
        const double m = double(overlap);
        const double va = sum_a.squares - sum_a.sum * sum_a.sum / m;
        const double vb = sum_b.squares - sum_b.sum * sum_b.sum / m;
        if (!(va > 0.0 && vb > 0.0)) continue;
        const double r = (c.at(lag) - sum_a.sum * sum_b.sum / m) / std::sqrt(va * vb);
        if (r > best) {
            best = r;
            best_lag = lag;
            best_overlap = overlap;
        }
    }
    if (best < min_align_confidence) return align_error::no_match;
    // Speed i of A lies between its rows i and i + 1, as speed i + L of B between its rows
    // i + L and i + L + 1: the offset is that of the rows.
    out.offset = b_start - a_start + double(best_lag) / o.rate;
    out.confidence = std::min(1.0, best);
    out.overlap = double(best_overlap) / o.rate;
    return {};
}

}  // namespace

std::string_view align_error_name(align_error e) noexcept {
    return align_codes.name(e);
}

const std::error_category& align_error_category() noexcept {
    static const detail::code_category<align_error> category("inputanim.align", align_codes);
    return category;
}

std::error_code make_error_code(align_error e) noexcept {
    return {static_cast<int>(e), align_error_category()};
}

std::error_code estimate_offset(const recording& a, const recording& b,
                                const compare_options& options, time_alignment& out) noexcept {
    if (const std::error_code ec = options.problem()) return ec;
    try {
        time_alignment found;
        if (const std::error_code ec = estimate(a, b, options, found)) return ec;
        out = found;
        return {};
    } catch (const std::bad_alloc&) {
        return make_error_code(std::errc::not_enough_memory);
    }
}

}  // namespace inputanim
