#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "detail/content.hpp"
#include "detail/kernels.hpp"
#include "detail/load.hpp"
#include "detail/rules.hpp"
#include "detail/utf8.hpp"

namespace inputanim {

namespace {

// Quaternions whose length differs from 1 by more than this are reported.
constexpr float unit_tolerance = 0.01f;
// A squared length in this range has a length within half the tolerance of 1 whatever the
// rounding: the key-by-key check cannot report it, so a block of such keys needs no closer look.
constexpr float clearly_unit_low = (1.0f - unit_tolerance / 2) * (1.0f - unit_tolerance / 2);
constexpr float clearly_unit_high = (1.0f + unit_tolerance / 2) * (1.0f + unit_tolerance / 2);

// The rotations (camera, then every joint of the left and the right hand) by their rotation.x
// curve; y, z and w follow it in file order.
using detail::rotation_count;
using detail::unit_lengths;
constexpr std::size_t rotation_x = static_cast<std::size_t>(pose_channel::rotation_x);

bool starts_rotation(curve_id id) noexcept {
    const std::size_t i = to_index(id);
    if (i < hand_state_first) return i == camera_first + rotation_x;
    return i >= left_joint_first && i < gaze_first &&
           (i - left_joint_first) % pose_channel_count == rotation_x;
}

std::size_t rotation_ordinal(curve_id x) noexcept {
    const std::size_t i = to_index(x);
    return i < hand_state_first ? 0 : 1 + (i - left_joint_first) / pose_channel_count;
}

// The non_unit_quaternion warning of one rotation, found at every time where all four rotation
// curves have a key. Keys are sorted once the file passed level full; the walk may run ahead of
// the content checks over keys not yet checked (it reads only inside the curves), and its result
// counts only when they all pass.
class unit_length_walk {
  public:
    explicit unit_length_walk(const curve_view* q) noexcept
        : stride_(q[3].keys.stride()), found_{warning_code::non_unit_quaternion, q[3].id} {
        for (std::size_t c = 0; c < 4; ++c) {
            keys_[c] = q[c].keys.data();
            size_[c] = q[c].keys.size();
        }
    }

    // Takes rotation.w's keys up to `end`.
    void run_to(std::size_t end) noexcept {
        run_blocks(end);
        for (; k_ < end; ++k_) step();
    }

    // Takes rotation.w's keys [0, k), which line up key for key with those of x, y and z and
    // are all clearly of unit length: `step` would find nothing in them.
    void skip_to(std::size_t k) noexcept {
        k_ = k;
        for (std::size_t& i : cursor_) i = k;
    }

    const warning& found() const noexcept { return found_; }

  private:
    // Takes w's keys a block at a time while they line up, key for key, with keys of x, y and z
    // that are all clearly of unit length: `step` would find nothing in them. It would leave
    // each cursor on the last of them; one past it is the same to every later step, as keys are
    // sorted (and a walk over unsorted keys does not count). Likewise a cursor moved early to
    // the first key not before w's time is what `step` does when it reaches that cursor.
    void run_blocks(std::size_t end) noexcept {
        const detail::block_kernels& kernels = detail::kernels();
        const bool full = stride_ == full_keyframe_size;
        while (end - k_ >= detail::block_keys) {
            const float t = time(3, k_);
            std::size_t n = end - k_;
            for (std::size_t c = 0; c < 3; ++c) {
                std::size_t& i = cursor_[c];
                while (i < size_[c] && time(c, i) < t) ++i;
                n = std::min(n, size_[c] - i);
            }
            const std::byte* q[4];
            for (std::size_t c = 0; c < 3; ++c) q[c] = keys_[c] + cursor_[c] * stride_;
            q[3] = keys_[3] + k_ * stride_;
            const std::size_t m = kernels.aligned[full](q, n, clearly_unit_low, clearly_unit_high);
            k_ += m;
            for (std::size_t& i : cursor_) i += m;
            if (m > 0) continue;
            // Keys that do not line up (or a length to report): a block's worth key by key
            // before the next try, so that such curves cost little more than before.
            for (const std::size_t stop = k_ + detail::block_keys; k_ < stop; ++k_) step();
        }
    }

    float time(std::size_t c, std::size_t i) const noexcept {
        return detail::load_f32_le(keys_[c] + i * stride_);
    }
    float value(std::size_t c, std::size_t i) const noexcept {
        return detail::load_f32_le(keys_[c] + i * stride_ + 4);
    }

    // One key of rotation.w.
    void step() noexcept {
        const float t = time(3, k_);
        float xyz[3];
        for (std::size_t c = 0; c < 3; ++c) {
            std::size_t& i = cursor_[c];
            while (i < size_[c] && time(c, i) < t) ++i;
            if (i == size_[c] || time(c, i) != t) return;
            xyz[c] = value(c, i);
        }
        const float v = value(3, k_);
        const float length = std::sqrt(xyz[0] * xyz[0] + xyz[1] * xyz[1] + xyz[2] * xyz[2] + v * v);
        if (std::fabs(length - 1.0f) > unit_tolerance) {
            if (found_.count++ == 0) {
                found_.keyframe = static_cast<std::int64_t>(k_);
                found_.value = length;
            }
        }
    }

    // x, y, z and w.
    const std::byte* keys_[4];
    std::size_t size_[4];
    std::size_t stride_;
    std::size_t k_ = 0;
    std::size_t cursor_[3] = {0, 0, 0};
    warning found_;
};

// How many keys of a rotation's four curves q[0..3] are in lockstep from the first
// (detail::lockstep_prefix).
std::size_t lockstep_prefix(const curve_view* q) noexcept {
    std::size_t n = q[0].keys.size();
    const std::byte* keys[4];
    for (std::size_t c = 0; c < 4; ++c) {
        n = std::min(n, q[c].keys.size());
        keys[c] = q[c].keys.data();
    }
    return detail::lockstep_prefix(detail::kernels(), keys, q[3].keys.stride(), n, clearly_unit_low,
                                   clearly_unit_high);
}

// The first fault among keys [from, to) of c, key from - 1 having passed.
detail::key_fault first_fault(const curve_view& c, std::size_t from, std::size_t to) noexcept {
    if (c.kind == curve_kind::bool_curve) {
        return detail::scan_keys(c.keys.data(), c.keys.stride(), true, from, to);
    }
    return detail::first_fault(detail::kernels(), c.keys.data(), c.keys.stride(), from, to);
}

class content_checker {
  public:
    explicit content_checker(std::span<const std::byte> bytes) noexcept : base_(bytes.data()) {}

    // Keys [from, to) of c, key from - 1 having passed.
    error check_keys(const curve_view& c, std::size_t from, std::size_t to) const noexcept {
        const detail::key_fault f = first_fault(c, from, to);
        if (f.index == to) return {};
        const std::byte* key = c.keys.data() + f.index * c.keys.stride();
        return error{f.fault.code, static_cast<std::uint64_t>(key + f.fault.field - base_),
                     error_place::curve, c.id, static_cast<std::int64_t>(f.index)};
    }

    // A rotation's four curves q[0..3] and its quaternion walk, in one pass over their bytes:
    // first as far as their keys line up without a fault, checked side by side a block at a
    // time; from there a stretch of each curve at a time, so that the walk finds the keys still
    // in cache. The first error in file order wins: one in an earlier curve, even found later.
    error check_rotation(const curve_view* q, warning& found) const noexcept {
        constexpr std::size_t stretch = 4096;
        unit_length_walk walk(q);
        const std::size_t start = lockstep_prefix(q);
        walk.skip_to(start);
        error first{};
        // Curves [0, active) can still hold the first error.
        std::size_t active = 4;
        for (std::size_t from = start;; from += stretch) {
            bool more = false;
            for (std::size_t c = 0; c < active; ++c) {
                const std::size_t n = q[c].keys.size();
                if (from >= n) continue;
                const std::size_t to = std::min(n, from + stretch);
                if (error e = check_keys(q[c], from, to)) {
                    first = e;
                    active = c;
                    break;
                }
                more = more || to < n;
            }
            if (active == 0) return first;
            if (!first) walk.run_to(std::min(q[3].keys.size(), from + stretch));
            if (!more) break;
        }
        if (first) return first;
        walk.run_to(q[3].keys.size());
        found = walk.found();
        return {};
    }

    error check_marker(const marker_view& m) const noexcept {
        if (const errc e = detail::check_marker_time(m.time); e != errc::ok) {
            return error{e, m.offset, error_place::markers, {}, m.index};
        }
        const errc e =
            detail::check_marker_name(detail::valid_utf8_prefix(m.name) == m.name.size());
        if (e != errc::ok) {
            const auto name_offset = static_cast<std::uint64_t>(
                reinterpret_cast<const std::byte*>(m.name.data()) - base_);
            return error{e, name_offset, error_place::markers, {}, m.index};
        }
        return {};
    }

  private:
    const std::byte* base_;
};

// Curve i starts the four curves of a rotation, x, y, z and w, all present.
bool starts_group(std::span<const curve_view> curves, std::size_t i) noexcept {
    return starts_rotation(curves[i].id) && curves.size() - i >= 4 &&
           to_index(curves[i + 3].id) == to_index(curves[i].id) + 3;
}

}  // namespace

namespace detail {

error check_content(const recording& rec, std::size_t first, std::size_t end, bool markers,
                    unit_lengths* units) noexcept {
    const content_checker checker(rec.bytes());
    const std::span<const curve_view> curves = rec.curves();
    for (std::size_t i = first; i < end; ++i) {
        const curve_view& c = curves[i];
        if (units != nullptr && starts_group(curves, i)) {
            if (error e = checker.check_rotation(&c, (*units)[rotation_ordinal(c.id)])) return e;
            i += 3;
            continue;
        }
        if (error e = checker.check_keys(c, 0, c.keys.size())) return e;
    }
    if (markers) {
        for (const marker_view& m : rec.markers()) {
            if (error e = checker.check_marker(m)) return e;
        }
    }
    return {};
}

std::size_t content_cut(const recording& rec, std::uint64_t offset) noexcept {
    const std::span<const curve_view> curves = rec.curves();
    std::size_t i = 0;
    while (i < curves.size() && curves[i].offset < offset) ++i;
    for (std::size_t back = 1; back <= 3 && back <= i; ++back) {
        if (starts_group(curves, i - back)) return std::min(curves.size(), i - back + 4);
    }
    return i;
}

void add_report_warnings(const recording& rec, const unit_lengths* units, report& rep) noexcept {
    add_count_warnings(
        rec.header(),
        [&](curve_id id) {
            const curve_view* c = rec.find(id);
            if (c == nullptr) return curve_tally{};
            return curve_tally{
                true, static_cast<std::uint32_t>(c->keys.size()),
                rec.first_key_time(static_cast<std::size_t>(c - rec.curves().data()))};
        },
        [&](curve_id x) -> const warning* {
            return units == nullptr ? nullptr : &(*units)[rotation_ordinal(x)];
        },
        rep);
}

}  // namespace detail

}  // namespace inputanim
