#include "inputanim/validate.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "detail/content.hpp"
#include "detail/rules.hpp"
#include "detail/validate_parts.hpp"
#include "inputanim/guard.hpp"

namespace inputanim {

std::string_view warning_name(warning_code code) noexcept {
    switch (code) {
        case warning_code::dropped_rotation_w:
            return "dropped_rotation_w";
        case warning_code::non_unit_quaternion:
            return "non_unit_quaternion";
        case warning_code::negative_time:
            return "negative_time";
    }
    return detail::unknown_name;
}

std::string warning::message() const {
    switch (code) {
        case warning_code::dropped_rotation_w:
            return "rotation.w has a single key while rotation.x/y/z have many: MRTK 2.6-2.7.2 "
                   "dropped every W key after the first (MRTK issue 9831), so playback is wrong";
        case warning_code::non_unit_quaternion:
            return std::to_string(count) + " rotation key(s) far from unit length, first at key " +
                   std::to_string(keyframe) + " with length " + std::to_string(value);
        case warning_code::negative_time:
            return "first key time is negative (" + std::to_string(value) + ")";
    }
    return {};
}

using detail::unit_lengths;

namespace {

// Walks the structure of every input (at most batch_width), one step of each in turn, as
// recording::open will walk it: under the candidates of the layout choice (detail::candidates),
// in order of preference, each next one only when the walk before was not sound (a lone
// candidate is the choice whatever its walk). Only the cache lines it leaves behind matter: the
// reader's bounds checks keep it inside each input, and its limits bound its work.
void walk_side_by_side(std::span<const std::span<const std::byte>> inputs,
                       const validate_options& options) noexcept {
    struct walk {
        reader r{std::span<const std::byte>{}};
        detail::layout_candidates c{};
        std::size_t next = 0;
        bool live = false;
    };
    std::array<walk, batch_width> walks{};
    std::size_t active = 0;
    // The next candidate's walk: a reader under the choice that reads that layout (choice_of).
    const auto start_next = [&](walk& w, std::span<const std::byte> bytes) {
        const detail::walk_start& s = w.c.starts[w.next++];
        w.r = reader(bytes, read_options{choice_of(s.header), options.limits});
    };
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        walk& w = walks[i];
        w.c = detail::candidates(inputs[i].data(), inputs[i].size(), options.layout);
        if (w.c.count == 0) continue;
        start_next(w, inputs[i]);
        w.live = true;
        ++active;
    }
    while (active > 0) {
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            walk& w = walks[i];
            if (!w.live) continue;
            const item it = w.r.next();
            if (it == item::curve) {
                // The next curve header: a prefetch retires at once, so the other walks' loads
                // go out while this one is under way (a load would hold up everything after it
                // until it arrived).
                const keyframes_view& k = w.r.curve().keys;
                __builtin_prefetch(k.data() + k.size() * k.stride());
                continue;
            }
            if (it == item::marker) continue;
            if (it == item::error && detail::walk_next(w.c, w.next, w.r.error())) {
                start_next(w, inputs[i]);
                continue;
            }
            w.live = false;
            --active;
        }
    }
}

}  // namespace

namespace detail {

std::optional<std::uint64_t> fault_in(std::span<const std::byte> region, void (*fn)(void*),
                                      void* context) noexcept {
    std::uint64_t at = 0;
    const std::error_code ec = run_guarded(region, fn, context, &at);
    if (ec == std::errc::io_error) return at;
    // No guard could be armed (the handler could not be installed): read unguarded.
    if (ec) fn(context);
    return std::nullopt;
}

report io_fault(std::uint64_t offset) noexcept {
    report rep;
    rep.error = error{errc::io_error, offset, error_place::none};
    return rep;
}

report validate_here(std::span<const std::byte> bytes, const validate_options& options) noexcept {
    report rep;
    recording rec;
    rep.error = rec.open(bytes, read_options{options.layout, options.limits});
    rep.summary = rec.summary();
    if (rep.error) return rep;
    if (options.level == level::structure) {
        detail::add_report_warnings(rec, nullptr, rep);
        return rep;
    }
    unit_lengths units{};
    rep.error = detail::check_content(rec, 0, rec.curves().size(), true, &units);
    if (rep.error) return rep;
    detail::add_report_warnings(rec, &units, rep);
    return rep;
}

bool validate_structure_by_reads(std::span<const std::byte> bytes, const offset_source& file,
                                 const validate_options& options, report& rep) noexcept {
    recording rec;
    if (!rec.open_by_reads(bytes, file, read_options{options.layout, options.limits})) return false;
    rep = report{};
    rep.summary = rec.summary();
    detail::add_report_warnings(rec, nullptr, rep);
    return true;
}

report validate_guarded_here(std::span<const std::byte> bytes,
                             const validate_options& options) noexcept {
    report rep;
    if (const auto at = guard_reads(bytes, [&] { rep = validate_here(bytes, options); })) {
        return io_fault(*at);
    }
    return rep;
}

}  // namespace detail

report validate(std::span<const std::byte> bytes, const validate_options& options) noexcept {
    if (options.level == level::full && options.threads != 1) {
        return detail::validate_in_parts(bytes, options);
    }
    return detail::validate_guarded_here(bytes, options);
}

void validate(std::span<const std::span<const std::byte>> inputs, std::span<report> reports,
              const validate_options& options) noexcept {
    const std::size_t n = std::min(inputs.size(), reports.size());
    for (std::size_t begin = 0; begin < n; begin += batch_width) {
        const std::size_t end = std::min(n, begin + batch_width);
        const auto batch = inputs.subspan(begin, end - begin);
        // The walk only brings header lines into the caches: a page that vanished under it ends
        // it, and that input's own validation reports the fault.
        guarded_each(batch, [&] { walk_side_by_side(batch, options); });
        for (std::size_t i = begin; i < end; ++i) {
            reports[i] = detail::validate_guarded_here(inputs[i], options);
        }
    }
}

}  // namespace inputanim
