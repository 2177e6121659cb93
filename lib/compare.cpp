#include "inputanim/compare.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cfloat>
#include <cmath>
#include <functional>
#include <limits>
#include <new>
#include <span>
#include <string>

#include "detail/pose_error.hpp"
#include "inputanim/error.hpp"

namespace inputanim {

namespace {

using detail::direction_error;
using detail::position_error;
using detail::rotation_error;

constexpr double infinity = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// The larger of a row's worst error so far (NaN before the first) and `e` (NaN counted as
// infinite, as the accumulators count it).
double larger(double worst, double e) noexcept {
    if (std::isnan(e)) e = infinity;
    return std::isnan(worst) ? e : std::max(worst, e);
}

// Float32 rounding of the values compared: a value of magnitude m is off by up to half an ulp
// (about m * FLT_EPSILON / 2) when evaluation rounds it, on each side; four ulps cover both sides
// and a component's share of a Euclidean distance.
double value_slack(double magnitude) noexcept {
    return 4.0 * FLT_EPSILON * std::max(1.0, magnitude);
}
// Unit quaternion and direction components (at most 1) rounded to float32 move an angle by about
// 2 x their ulp in radians; eight float epsilons, in degrees (5.5e-5), cover it.
constexpr double angle_slack = 8.0 * FLT_EPSILON * detail::degrees_per_radian;

bool within(double error, double tolerance, double slack) noexcept {
    return error <= tolerance + slack;
}

double magnitude(const float* v, std::size_t n) noexcept {
    double m = 0.0;
    for (std::size_t i = 0; i < n; ++i) m = std::max(m, std::abs(double(v[i])));
    return m;
}

// One compared pose: its first column in a row, the hand (side index) whose tracking gates it
// (none for the head and gaze), and its accumulator.
struct pose_sweep {
    motion_difference result;
    std::size_t column = 0;
    std::optional<std::size_t> hand;
    double sum_squares = 0.0;

    void add(float t, double error, bool is_within) noexcept {
        if (std::isnan(error)) error = infinity;
        ++result.samples;
        sum_squares += error * error;
        if (error > result.max || result.samples == 1) {
            result.max = error;
            result.max_time = t;
        }
        if (is_within) return;
        ++result.exceeded_samples;
        if (!result.first_exceeded) {
            result.first_exceeded = t;
            result.first_exceeded_error = error;
        }
    }
    motion_difference finish() {
        if (result.samples != 0) result.rms = std::sqrt(sum_squares / double(result.samples));
        return result;
    }
};

// The true intervals of one bool curve on both sides, grouped as they overlap: a group is a run of
// rows where either side is true, finished at the first row where both are false.
class interval_sweep {
  public:
    interval_sweep(curve_id curve, std::size_t column) noexcept : curve_(curve), column_(column) {}
    std::size_t column() const noexcept { return column_; }

    // The states at the row of time `t`; a finished group that differs goes to `out`.
    void add(float t, bool a, bool b, double tolerance,
             const std::function<void(const state_difference&)>& out) {
        side_step(a_, a, t);
        side_step(b_, b, t);
        const bool any = a || b;
        if (!any && active_) finish(tolerance, out);
        active_ = any;
    }
    // The end of the grid at time `end` (one step past the last row).
    void end(float end, double tolerance, const std::function<void(const state_difference&)>& out) {
        side_step(a_, false, end);
        side_step(b_, false, end);
        if (active_) finish(tolerance, out);
        active_ = false;
    }

  private:
    struct side_state {
        bool on = false;
        std::uint32_t count = 0;
        interval span{};
    };
    static void side_step(side_state& s, bool on, float t) noexcept {
        if (on && !s.on) {
            if (s.count == 0) s.span.start = t;
            ++s.count;
        } else if (!on && s.on) {
            s.span.end = t;
        }
        s.on = on;
    }
    void finish(double tolerance, const std::function<void(const state_difference&)>& out) {
        state_difference d;
        d.curve = curve_;
        d.a_intervals = a_.count;
        d.b_intervals = b_.count;
        if (a_.count != 0) d.a = a_.span;
        if (b_.count != 0) d.b = b_.span;
        auto close = [&](float x, float y) {
            return within(std::abs(double(x) - y), tolerance,
                          value_slack(std::max(std::abs(x), std::abs(y))));
        };
        bool differs = true;
        if (a_.count == 0 || b_.count == 0) {
            // An interval only one side has, no longer than the tolerance, is the tolerance's.
            const interval& only = a_.count == 0 ? b_.span : a_.span;
            d.change = a_.count == 0 ? interval_change::gained : interval_change::lost;
            differs = !(a_.count + b_.count == 1 && close(only.start, only.end));
        } else if (a_.count == 1 && b_.count == 1) {
            d.change = interval_change::moved;
            differs = !close(a_.span.start, b_.span.start) || !close(a_.span.end, b_.span.end);
        } else {
            d.change = interval_change::split;
        }
        a_ = {};
        b_ = {};
        if (differs) out(d);
    }

    curve_id curve_;
    std::size_t column_;
    side_state a_;
    side_state b_;
    bool active_ = false;
};

// A side's markers, their times less `offset` (A's time of B's marker).
std::vector<marker> marker_list(const recording& r, double offset) {
    std::vector<marker> list;
    list.reserve(r.markers().size());
    for (const marker_view& m : r.markers()) {
        const float t = offset == 0.0 ? m.time : static_cast<float>(double(m.time) - offset);
        list.push_back({t, std::string(m.name)});
    }
    return list;
}

// A side's markers in an order of their own, each with whether it is paired yet.
struct marker_slot {
    const marker* m = nullptr;
    bool paired = false;
};

std::vector<marker_slot> slots_of(const std::vector<marker>& list) {
    std::vector<marker_slot> slots;
    slots.reserve(list.size());
    for (const marker& m : list) slots.push_back({&m});
    return slots;
}

// Pairs the unpaired slots of two lists sorted by time, in one merge: `a` and `b` are paired when
// `near`, else the earlier one is passed over. O(size of both).
template <class Pair>
void pair_in_time(std::span<marker_slot* const> a, std::span<marker_slot* const> b,
                  const std::function<bool(float, float)>& near, Pair&& pair) {
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < a.size() && j < b.size()) {
        if (a[i]->paired) {
            ++i;
        } else if (b[j]->paired) {
            ++j;
        } else if (near(a[i]->m->time, b[j]->m->time)) {
            pair(*a[i], *b[j]);
            ++i;
            ++j;
        } else if (a[i]->m->time < b[j]->m->time) {
            ++i;
        } else {
            ++j;
        }
    }
}

std::vector<marker_slot*> pointers(std::vector<marker_slot>& slots) {
    std::vector<marker_slot*> p;
    p.reserve(slots.size());
    for (marker_slot& s : slots) p.push_back(&s);
    return p;
}

// Pairs the markers: the same name within the time tolerance (equal), then the same name at
// another time (moved, in time order), then the same time within the tolerance with another name
// (renamed); the rest were removed (A, in file order) or added (B). Each pass is a sort and a
// merge, so the work is O(n log n) in the markers whatever their names and times.
void compare_markers(const recording& ra, const recording& rb, double offset, double tolerance,
                     const std::function<void(const marker_difference&)>& out) {
    const std::vector<marker> a = marker_list(ra, 0.0);
    const std::vector<marker> b = marker_list(rb, offset);
    std::vector<marker_slot> sa = slots_of(a);
    std::vector<marker_slot> sb = slots_of(b);
    const std::function<bool(float, float)> near = [tolerance](float x, float y) {
        return within(std::abs(double(x) - y), tolerance,
                      value_slack(std::max(std::abs(x), std::abs(y))));
    };
    auto by_name_then_time = [](const marker_slot* x, const marker_slot* y) {
        if (x->m->name != y->m->name) return x->m->name < y->m->name;
        return x->m->time < y->m->time;
    };
    std::vector<marker_slot*> pa = pointers(sa);
    std::vector<marker_slot*> pb = pointers(sb);
    std::stable_sort(pa.begin(), pa.end(), by_name_then_time);
    std::stable_sort(pb.begin(), pb.end(), by_name_then_time);
    auto mark = [](marker_slot& x, marker_slot& y) { x.paired = y.paired = true; };
    // Each name's markers on both sides: equal ones, then the rest in time order, moved.
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < pa.size() && j < pb.size()) {
        const std::string& na = pa[i]->m->name;
        const std::string& nb = pb[j]->m->name;
        if (na < nb) {
            ++i;
            continue;
        }
        if (nb < na) {
            ++j;
            continue;
        }
        std::size_t i2 = i;
        std::size_t j2 = j;
        while (i2 < pa.size() && pa[i2]->m->name == na) ++i2;
        while (j2 < pb.size() && pb[j2]->m->name == na) ++j2;
        const std::span<marker_slot* const> ga(pa.data() + i, i2 - i);
        const std::span<marker_slot* const> gb(pb.data() + j, j2 - j);
        pair_in_time(ga, gb, near, mark);
        const auto always = [](float, float) { return true; };
        pair_in_time(ga, gb, always, [&](marker_slot& x, marker_slot& y) {
            mark(x, y);
            out({marker_change::moved, *x.m, *y.m});
        });
        i = i2;
        j = j2;
    }
    auto by_time = [](const marker_slot* x, const marker_slot* y) {
        return x->m->time < y->m->time;
    };
    std::stable_sort(pa.begin(), pa.end(), by_time);
    std::stable_sort(pb.begin(), pb.end(), by_time);
    pair_in_time(pa, pb, near, [&](marker_slot& x, marker_slot& y) {
        mark(x, y);
        out({marker_change::renamed, *x.m, *y.m});
    });
    for (const marker_slot& s : sa) {
        if (!s.paired) out({marker_change::removed, *s.m, std::nullopt});
    }
    for (const marker_slot& s : sb) {
        if (!s.paired) out({marker_change::added, std::nullopt, *s.m});
    }
}

std::uint32_t bits(float v) noexcept {
    return std::bit_cast<std::uint32_t>(v);
}

// The first field in which the curves differ bit for bit (keys read as MRTK reads them: a compact
// key is (t, v, 0, 0, 0, 0, 3)), if any.
std::optional<key_difference> first_key_difference(const curve_view& x, const curve_view& y) {
    key_difference d;
    d.curve = x.id;
    if (x.size() != y.size()) {
        d.field = "count";
        d.a = double(x.size());
        d.b = double(y.size());
        return d;
    }
    if (x.pre_wrap != y.pre_wrap || x.post_wrap != y.post_wrap) {
        const bool pre = x.pre_wrap != y.pre_wrap;
        d.field = pre ? "pre_wrap" : "post_wrap";
        d.a = pre ? x.pre_wrap : x.post_wrap;
        d.b = pre ? y.pre_wrap : y.post_wrap;
        return d;
    }
    for (std::size_t k = 0; k < x.size(); ++k) {
        const keyframe_view p = x.keys[k];
        const keyframe_view q = y.keys[k];
        const std::array<std::pair<std::string_view, std::array<float, 2>>, 6> fields = {{
            {"time", {p.time(), q.time()}},
            {"value", {p.value(), q.value()}},
            {"in_tangent", {p.in_tangent(), q.in_tangent()}},
            {"out_tangent", {p.out_tangent(), q.out_tangent()}},
            {"in_weight", {p.in_weight(), q.in_weight()}},
            {"out_weight", {p.out_weight(), q.out_weight()}},
        }};
        d.key = k;
        for (const auto& [name, v] : fields) {
            if (bits(v[0]) == bits(v[1])) continue;
            d.field = name;
            d.a = v[0];
            d.b = v[1];
            return d;
        }
        if (p.weighted_mode_raw() != q.weighted_mode_raw()) {
            d.field = "weighted_mode";
            d.a = p.weighted_mode_raw();
            d.b = q.weighted_mode_raw();
            return d;
        }
    }
    return std::nullopt;
}

// Appends to a list of at most `max` entries, counting every one.
template <class T>
auto listing(std::vector<T>& list, std::uint64_t& count, std::size_t max) {
    return [&list, &count, max](const T& v) {
        ++count;
        if (list.size() < max) list.push_back(v);
    };
}

// The poses compared, in curve order, for the curves both files hold (`column`: each id's column
// in a row, none when not selected).
std::vector<pose_sweep> pose_sweeps(
    const std::array<std::optional<std::size_t>, curve_id_count>& column) {
    std::vector<pose_sweep> poses;
    auto add = [&](curve_id first, error_kind kind, std::optional<std::size_t> hand) {
        const std::optional<std::size_t> c = column[to_index(first)];
        if (!c) return;
        pose_sweep p;
        const std::string_view path = curve_path(first);
        // The x curve's path without ".x".
        p.result.name = path.substr(0, path.size() - 2);
        p.result.kind = kind;
        p.result.first_curve = first;
        p.column = *c;
        p.hand = hand;
        poses.push_back(p);
    };
    add(camera_curve(pose_channel::position_x), error_kind::position, std::nullopt);
    add(camera_curve(pose_channel::rotation_x), error_kind::rotation, std::nullopt);
    for (const side s : {side::left, side::right}) {
        const std::size_t hand = s == side::left ? 0 : 1;
        for (std::size_t j = 0; j < joint_count; ++j) {
            add(joint_curve(s, joint(j), pose_channel::position_x), error_kind::position, hand);
            add(joint_curve(s, joint(j), pose_channel::rotation_x), error_kind::rotation, hand);
        }
    }
    add(gaze_curve(ray_channel::origin_x), error_kind::position, std::nullopt);
    add(gaze_curve(ray_channel::direction_x), error_kind::direction, std::nullopt);
    return poses;
}

struct grid_ends {
    std::optional<double> from;
    std::optional<double> to;
};

// The window's open ends from the two recordings in A's time (B's less the offset). Unshifted,
// the span either covers: the earlier first key time, the later duration. Shifted (`shared`),
// the span both cover, where the takes hold the same moments (the span either covers when they
// share none). None when neither has keys.
grid_ends ends_of(const recording& a, const recording& b, const time_window& w, double offset,
                  bool shared) {
    auto pick = [](std::optional<double> x, std::optional<double> y, bool earliest) {
        if (!x) return y;
        if (!y) return x;
        return std::optional<double>(earliest ? std::min(*x, *y) : std::max(*x, *y));
    };
    auto in_a = [offset](std::optional<float> t) {
        return t ? std::optional<double>(double(*t) - offset) : std::nullopt;
    };
    const std::optional<double> a_start = a.summary().start;
    const std::optional<double> a_end = a.summary().duration;
    const std::optional<double> b_start = in_a(b.summary().start);
    const std::optional<double> b_end = in_a(b.summary().duration);
    grid_ends either{pick(a_start, b_start, true), pick(a_end, b_end, false)};
    grid_ends e = either;
    if (shared) {
        const grid_ends both{pick(a_start, b_start, false), pick(a_end, b_end, true)};
        if (both.from && both.to && *both.from <= *both.to) e = both;
    }
    if (w.from) e.from = w.from;
    if (w.until) e.to = w.until;
    return e;
}

std::error_code compare_into(const recording& ra, const recording& rb, const compare_options& o,
                             comparison& c,
                             const std::function<void(const row_errors&)>* each_row) {
    c.a = ra.summary();
    c.b = rb.summary();
    c.blocks_differ = !(c.a.blocks == c.b.blocks);
    c.offset = o.offset;
    c.rate = o.rate;
    c.tolerance = o.tolerance;

    // Curves both hold, in id order.
    std::vector<curve_id> shared;
    for (const curve_view& v : ra.curves()) {
        if (const curve_view* w = rb.find(v.id)) {
            shared.push_back(v.id);
            if (v.size() != w->size()) {
                listing(c.key_counts, c.key_count_curves, o.max_listed)(
                    {v.id, "count", std::nullopt, double(v.size()), double(w->size())});
            }
        }
    }
    if (o.keys) {
        std::uint64_t differing = 0;
        auto add = listing(c.keys, differing, o.max_listed);
        for (const curve_id id : shared) {
            if (auto d = first_key_difference(*ra.find(id), *rb.find(id))) add(*d);
        }
        c.key_curves = differing;
    }
    compare_markers(ra, rb, o.offset, o.tolerance.time,
                    listing(c.markers, c.marker_count, o.max_listed));

    const grid_ends ends = ends_of(ra, rb, o.window, o.offset, o.align || o.offset != 0.0);
    if (!ends.from || !ends.to) return {};
    resampler sa(ra);
    resampler sb(rb);
    sa.select(shared);
    sb.select(shared);
    if (const grid_error g = sa.set_grid(o.rate, ends.from, ends.to, o.max_rows);
        g != grid_error::none) {
        return g;
    }
    // B's grid is A's shifted by the offset; its rows are paired with A's by index, and the two
    // counts can differ by the rounding of the shifted ends.
    if (const grid_error g =
            sb.set_grid(o.rate, *ends.from + o.offset, *ends.to + o.offset, o.max_rows);
        g != grid_error::none) {
        return g;
    }
    c.rows = std::min(sa.row_count(), sb.row_count());
    if (c.rows == 0) return {};

    std::array<std::optional<std::size_t>, curve_id_count> column{};
    for (std::size_t i = 0; i < sa.curves().size(); ++i) column[to_index(sa.curves()[i])] = i;
    std::vector<pose_sweep> poses = pose_sweeps(column);
    std::vector<interval_sweep> states;
    for (std::size_t s = 0; s < hand_state_count; ++s) {
        const curve_id id = hand_state_curve(hand_state(s));
        if (const auto col = column[to_index(id)]) states.emplace_back(id, *col);
    }
    const std::array<std::optional<std::size_t>, 2> tracked = {
        column[to_index(hand_state_curve(hand_state::left_tracked))],
        column[to_index(hand_state_curve(hand_state::right_tracked))]};

    // Made a std::function once, not at each row.
    const std::function<void(const state_difference&)> add_state =
        listing(c.state, c.state_count, o.max_listed);
    const compare_tolerances& tol = o.tolerance;
    std::vector<float> va(shared.size());
    std::vector<float> vb(shared.size());
    float last = 0.0f;
    for (std::uint64_t row = 0; row < c.rows; ++row) {
        const std::optional<float> t = sa.next(va);
        sb.next(vb);
        if (row == 0) c.from = *t;
        last = *t;
        std::array<bool, 2> both_track{};
        for (std::size_t h = 0; h < 2; ++h) {
            if (!tracked[h]) continue;
            const bool a = va[*tracked[h]] > 0.5f;
            const bool b = vb[*tracked[h]] > 0.5f;
            both_track[h] = a && b;
            if (a != b) ++c.tracking_mismatch_rows[h];
        }
        row_errors worst{*t, nan, nan};
        for (pose_sweep& p : poses) {
            if (p.hand && !both_track[*p.hand]) continue;
            const float* a = &va[p.column];
            const float* b = &vb[p.column];
            switch (p.result.kind) {
                case error_kind::position: {
                    const double e = position_error(a, b);
                    const double m = std::max(magnitude(a, 3), magnitude(b, 3));
                    p.add(*t, e, within(e, tol.position, value_slack(m)));
                    worst.position = larger(worst.position, e);
                    break;
                }
                case error_kind::rotation: {
                    const double e = rotation_error(a, b);
                    p.add(*t, e, within(e, tol.angle, angle_slack));
                    worst.angle = larger(worst.angle, e);
                    break;
                }
                case error_kind::direction: {
                    const double e = direction_error(a, b);
                    p.add(*t, e, within(e, tol.angle, angle_slack));
                    worst.angle = larger(worst.angle, e);
                    break;
                }
            }
        }
        if (each_row) (*each_row)(worst);
        for (interval_sweep& s : states) {
            s.add(*t, va[s.column()] > 0.5f, vb[s.column()] > 0.5f, tol.time, add_state);
        }
    }
    c.to = last;
    const float end = static_cast<float>(double(last) + 1.0 / o.rate);
    for (interval_sweep& s : states) s.end(end, tol.time, add_state);
    c.motion.reserve(poses.size());
    for (pose_sweep& p : poses) c.motion.push_back(p.finish());
    return {};
}

std::error_code compare_checked(const recording& a, const recording& b,
                                const compare_options& options, comparison& out,
                                const std::function<void(const row_errors&)>* each_row) noexcept {
    if (const std::error_code ec = options.problem()) return ec;
    try {
        comparison c;
        if (!options.align) {
            if (const std::error_code ec = compare_into(a, b, options, c, each_row)) return ec;
            out = std::move(c);
            return {};
        }
        time_alignment found;
        if (const std::error_code ec = estimate_offset(a, b, options, found)) return ec;
        compare_options aligned = options;
        aligned.offset = found.offset;
        if (const std::error_code ec = compare_into(a, b, aligned, c, each_row)) return ec;
        c.alignment = found;
        out = std::move(c);
        return {};
    } catch (const std::bad_alloc&) {
        return make_error_code(std::errc::not_enough_memory);
    }
}

}  // namespace

std::error_code compare_options::problem() const noexcept {
    if (!std::isfinite(rate) || rate <= 0.0) return option_error::bad_rate;
    if (const std::error_code ec = window.problem()) return ec;
    if (!std::isfinite(tolerance.position) || tolerance.position < 0.0) {
        return option_error::bad_position_tolerance;
    }
    if (!(tolerance.angle >= 0.0 && tolerance.angle <= 180.0)) {
        return option_error::bad_rotation_tolerance;
    }
    if (!std::isfinite(tolerance.time) || tolerance.time < 0.0) {
        return option_error::bad_time_tolerance;
    }
    if (!std::isfinite(offset)) return option_error::bad_offset;
    return {};
}

std::string_view error_kind_name(error_kind k) noexcept {
    switch (k) {
        case error_kind::position:
            return "position";
        case error_kind::rotation:
            return "rotation";
        case error_kind::direction:
            return "direction";
    }
    return "unknown";
}

std::string_view interval_change_name(interval_change c) noexcept {
    switch (c) {
        case interval_change::lost:
            return "lost";
        case interval_change::gained:
            return "gained";
        case interval_change::moved:
            return "moved";
        case interval_change::split:
            return "split";
    }
    return "unknown";
}

std::string_view marker_change_name(marker_change c) noexcept {
    switch (c) {
        case marker_change::moved:
            return "moved";
        case marker_change::renamed:
            return "renamed";
        case marker_change::removed:
            return "removed";
        case marker_change::added:
            return "added";
    }
    return "unknown";
}

bool comparison::same() const noexcept {
    if (blocks_differ || state_count != 0 || marker_count != 0) return false;
    if (key_curves && *key_curves != 0) return false;
    return std::none_of(motion.begin(), motion.end(), exceeded);
}

std::error_code compare(const recording& a, const recording& b, const compare_options& options,
                        comparison& out) noexcept {
    return compare_checked(a, b, options, out, nullptr);
}

std::error_code compare(const recording& a, const recording& b, const compare_options& options,
                        comparison& out,
                        const std::function<void(const row_errors&)>& each_row) noexcept {
    return compare_checked(a, b, options, out, &each_row);
}

}  // namespace inputanim
