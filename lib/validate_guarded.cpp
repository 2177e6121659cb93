#include <algorithm>
#include <atomic>
#include <system_error>
#include <thread>
#include <vector>

#include "detail/content.hpp"
#include "inputanim/mapped_file.hpp"

namespace inputanim {

std::error_code validate_guarded(std::span<const std::byte> bytes, const validate_options& options,
                                 unsigned threads, report& out, std::uint64_t min_part_bytes) {
    // Four parts per thread, taken in turn by whichever thread is free: on a shared machine one
    // core may be slower than the others.
    // Parts are whole curves, so there are never more than curves.
    const std::uint64_t parts_that_pay = bytes.size() / std::max<std::uint64_t>(min_part_bytes, 1);
    const auto parts = static_cast<std::size_t>(std::clamp<std::uint64_t>(
        parts_that_pay, 1,
        std::min<std::uint64_t>(std::uint64_t{4} * std::max(threads, 1u), curve_id_count)));
    const std::size_t workers_wanted = std::min<std::size_t>(std::max(threads, 1u), parts);
    if (options.level == level::structure || workers_wanted == 1) {
        return guarded(bytes, [&] { out = validate(bytes, options); });
    }

    report rep;
    recording rec;
    if (const std::error_code io = guarded(bytes, [&] {
            rep.error = rec.open(bytes, read_options{options.layout, options.limits});
        })) {
        return io;
    }
    rep.summary = rec.summary();
    if (rep.error) {
        out = rep;
        return {};
    }

    // Part p checks curves [cuts[p], cuts[p + 1]); the last one also the markers. Each rotation
    // lies in one part, so the parts write different elements of `units`.
    const std::size_t curves = rec.curves().size();
    std::vector<std::size_t> cuts(parts + 1, curves);
    cuts[0] = 0;
    for (std::size_t p = 1; p < parts; ++p) {
        cuts[p] = std::max(cuts[p - 1], detail::content_cut(rec, bytes.size() / parts * p));
    }
    struct result {
        error first;
        std::error_code io;
    };
    std::vector<result> results(parts);
    detail::unit_lengths units{};
    std::atomic<std::size_t> next_part{0};
    // The first part that ended in an error: the parts after it cannot change the verdict, and
    // are skipped (an invalid file costs no more than validate() would spend on it).
    std::atomic<std::size_t> first_bad{parts};
    const auto check_parts = [&] {
        for (std::size_t p = next_part++; p < parts; p = next_part++) {
            if (p > first_bad.load()) continue;
            result& r = results[p];
            r.io = guarded(bytes, [&] {
                r.first = detail::check_content(rec, cuts[p], cuts[p + 1], p + 1 == parts, &units);
            });
            if (!r.io && !r.first) continue;
            std::size_t bad = first_bad.load();
            while (p < bad && !first_bad.compare_exchange_weak(bad, p)) {
            }
        }
    };
    {
        std::vector<std::jthread> workers;
        workers.reserve(workers_wanted - 1);
        for (std::size_t w = 1; w < workers_wanted; ++w) {
            // A thread that cannot start leaves its parts to the others (this one among them).
            try {
                workers.emplace_back(check_parts);
            } catch (const std::system_error&) {
                break;
            }
        }
        check_parts();
    }
    // The parts are in file order: what the first part that did not pass found is the verdict,
    // as validate() under one guard would have met it first.
    if (first_bad.load() < parts) {
        const result& r = results[first_bad.load()];
        if (r.io) return r.io;
        rep.error = r.first;
        out = rep;
        return {};
    }
    if (const std::error_code io =
            guarded(bytes, [&] { detail::add_report_warnings(rec, &units, rep); })) {
        return io;
    }
    out = rep;
    return {};
}

}  // namespace inputanim
