// validate() of one large input at level full on several threads: the structure walk and the
// warnings on the calling thread, the content checks in parts of about equal bytes taken in turn
// by the threads, each part under its own guard (a fault is caught on the thread that reads).
#include <algorithm>
#include <atomic>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include "detail/content.hpp"
#include "detail/validate_parts.hpp"

namespace inputanim::detail {

namespace {

report validate_on_threads(std::span<const std::byte> bytes, const validate_options& options,
                           std::size_t parts, std::size_t workers_wanted) {
    report rep;
    recording rec;
    if (const auto at = guard_reads(bytes, [&] {
            rep.error = rec.open(bytes, read_options{options.layout, options.limits});
        })) {
        return io_fault(*at);
    }
    rep.summary = rec.summary();
    if (rep.error) return rep;

    // Part p checks curves [cuts[p], cuts[p + 1]); the last one also the markers. Each rotation
    // lies in one part, so the parts write different elements of `units`.
    const std::size_t curves = rec.curves().size();
    std::vector<std::size_t> cuts(parts + 1, curves);
    cuts[0] = 0;
    for (std::size_t p = 1; p < parts; ++p) {
        cuts[p] = std::max(cuts[p - 1], content_cut(rec, bytes.size() / parts * p));
    }
    struct result {
        error first;
        std::optional<std::uint64_t> fault;
    };
    std::vector<result> results(parts);
    unit_lengths units{};
    std::atomic<std::size_t> next_part{0};
    // The first part that ended in an error: the parts after it cannot change the verdict, and
    // are skipped (an invalid file costs no more than validate() would spend on it).
    std::atomic<std::size_t> first_bad{parts};
    const auto check_parts = [&] {
        for (std::size_t p = next_part++; p < parts; p = next_part++) {
            if (p > first_bad.load()) continue;
            result& r = results[p];
            r.fault = guard_reads(bytes, [&] {
                r.first = check_content(rec, cuts[p], cuts[p + 1], p + 1 == parts, &units);
            });
            if (!r.fault && !r.first) continue;
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
        if (r.fault) return io_fault(*r.fault);
        rep.error = r.first;
        return rep;
    }
    if (const auto at = guard_reads(bytes, [&] { add_report_warnings(rec, &units, rep); })) {
        return io_fault(*at);
    }
    return rep;
}

}  // namespace

report validate_in_parts(std::span<const std::byte> bytes,
                         const validate_options& options) noexcept {
    const unsigned threads =
        options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    // Four parts per thread, taken in turn by whichever thread is free: on a shared machine one
    // core may be slower than the others. Parts are whole curves, so there are never more than
    // curves.
    const std::uint64_t parts_that_pay =
        bytes.size() / std::max<std::uint64_t>(options.min_part_bytes, 1);
    const auto parts = static_cast<std::size_t>(std::clamp<std::uint64_t>(
        parts_that_pay, 1, std::min<std::uint64_t>(std::uint64_t{4} * threads, curve_id_count)));
    const std::size_t workers_wanted = std::min<std::size_t>(threads, parts);
    if (workers_wanted == 1) return validate_guarded_here(bytes, options);
    try {
        return validate_on_threads(bytes, options, parts, workers_wanted);
    } catch (const std::bad_alloc&) {
        // Too little memory to start threads: the one-thread check needs none.
        return validate_guarded_here(bytes, options);
    }
}

}  // namespace inputanim::detail
