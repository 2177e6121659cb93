// validate() with options.threads: the one-thread report however a file's content checks are
// split between threads: the first error in file order wins whichever part finds it,
// a rotation's quaternion warning is found whichever part holds it, and the structure walk, the
// summary and the other warnings are validate()'s. (A mapping cut short under it: in
// test_mapped_file_guard.cpp.)
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "inputanim/generate.hpp"
#include "inputanim/inputanim.hpp"
#include "support/allocation_counter.hpp"
#include "support/builders.hpp"
#include "support/generated.hpp"
#include "support/seed.hpp"
#include "support/validation_cases.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

// Parts of a single byte: every file is split into as many parts as the threads allow (four per
// thread), so cuts land all over small files.
constexpr std::uint64_t tiny_parts = 1;

void expect_threads_give_one_threads_report(const bytes& file, validate_options options,
                                            const std::string& what) {
    const report expected = validate(view(file), options);
    options.min_part_bytes = tiny_parts;
    for (const unsigned threads : {1u, 2u, 3u, 8u}) {
        options.threads = threads;
        const report got = validate(view(file), options);
        ASSERT_EQ(difference(got, expected), "") << what << ", " << threads << " threads";
    }
}

// A generated recording with markers and a key of every rotation's w curve off unit length
// (the i-th rotation at its key i), so that every part holds warnings to find.
model recording_with_warnings(layout l) {
    generate_options g;
    g.seconds = 3;
    g.markers = 4;
    g.layout = l;
    model m = generated_model(g);
    std::size_t i = 0;
    for (std::size_t id = 0; id < curve_id_count; ++id) {
        const std::string_view path = curve_path(static_cast<curve_id>(id));
        if (!path.ends_with("rotation.w")) continue;
        auto& keys = m[static_cast<curve_id>(id)].keys;
        if (!keys.empty()) keys[i++ % keys.size()].value = 1.5f;
    }
    return m;
}

}  // namespace

TEST(ValidateThreads, GivesValidatesReportOnEveryMixedFile) {
    std::size_t n = 0;
    for (const bytes& file : mixed_files()) {
        for (const level lvl : {level::structure, level::full}) {
            expect_threads_give_one_threads_report(file, validate_options{lvl},
                                                   "file " + std::to_string(n));
        }
        ++n;
    }
}

TEST(ValidateThreads, FindsEveryRotationsQuaternionWarningInWhicheverPartHoldsIt) {
    for (const layout l : {layout::compact, layout::full}) {
        const bytes file = write(recording_with_warnings(l));
        const report expected = validate(view(file));
        ASSERT_TRUE(expected.valid());
        ASSERT_GT(expected.warnings_found, 20u);
        expect_threads_give_one_threads_report(file, validate_options{}, "warnings");
    }
}

TEST(ValidateThreads, TheFirstErrorInFileOrderWinsWhicheverPartFindsIt) {
    // Two content errors in different curves: every split must report the earlier one, also
    // when a later part finds its error first.
    const model m = recording_with_warnings(layout::compact);
    const bytes clean = write(m);
    std::mt19937_64 rng(test_seed(7));
    for (int round = 0; round < 40; ++round) {
        bytes file = clean;
        for (int k = 0; k < 2; ++k) {
            // A key's time or value turned NaN somewhere after the header.
            const std::size_t at = 19 + rng() % (file.size() - 23);
            put_f32(file, at - at % 4, std::nanf(""));
        }
        expect_threads_give_one_threads_report(file, validate_options{},
                                               "round " + std::to_string(round));
    }
}

TEST(ValidateThreads, AnErrorInTheMarkersIsFoundAfterEveryCurve) {
    model m = recording_with_warnings(layout::full);
    (*m.markers)[1].name = std::string("\xff\xfe", 2);
    expect_threads_give_one_threads_report(write(m), validate_options{}, "bad marker name");
}

TEST(ValidateThreads, LimitsAndLayoutsAreValidates) {
    const bytes file = write(recording_with_warnings(layout::full));
    for (const layout_choice choice :
         {layout_choice::automatic, layout_choice::compact, layout_choice::full}) {
        expect_threads_give_one_threads_report(file, validate_options{level::full, choice, {}},
                                               "layout");
    }
    limits lim;
    lim.max_total_keyframes = 100;
    expect_threads_give_one_threads_report(
        file, validate_options{level::full, layout_choice::automatic, lim}, "limit");
}

TEST(ValidateThreads, ASmallFileIsValidatedOnTheCallingThreadWithoutAllocating) {
    // Below twice the default part size (16 MiB) there is one part: no thread, no allocation.
    const bytes file = small_file(shape::v11_full);
    validate_options eight;
    eight.threads = 8;
    const allocation_probe probe;
    const report got = validate(view(file), eight);
    const std::size_t seen = probe.count();
    EXPECT_EQ(seen, 0u);
    EXPECT_EQ(difference(got, validate(view(file))), "");
}
