// the many-inputs validate: the same report for every input as validate() gives it, whatever the
// mix of inputs in a batch (valid, invalid at any point, of any layout, stopped by a limit, empty),
// for every layout choice and level, and across more inputs than one batch holds.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "inputanim/inputanim.hpp"
#include "support/builders.hpp"
#include "support/seed.hpp"
#include "support/validation_cases.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

std::vector<std::span<const std::byte>> views_of(const std::vector<bytes>& files) {
    std::vector<std::span<const std::byte>> v;
    for (const bytes& f : files) v.push_back(view(f));
    return v;
}

void expect_batch_is_validate(const std::vector<bytes>& files, const validate_options& options) {
    const auto inputs = views_of(files);
    std::vector<report> reports(inputs.size());
    validate(inputs, reports, options);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        ASSERT_EQ(difference(reports[i], validate(inputs[i], options)), "")
            << "input " << i << " of " << inputs.size() << ", " << describe(options);
    }
}

}  // namespace

TEST(ValidateBatch, GivesEveryInputTheReportOfValidate) {
    const std::vector<bytes> files = mixed_files();
    ASSERT_GT(files.size(), 2 * batch_width);
    for (const validate_options& o : every_layout_and_level()) expect_batch_is_validate(files, o);
}

TEST(ValidateBatch, FullLayoutFilesAreDetectedAsValidateDetectsThem) {
    // Under `automatic` a full-layout v1.1 file is walked as compact first, which fails, and
    // then as full: side by side with compact files that need no second walk.
    std::vector<bytes> files;
    for (std::size_t i = 0; i < batch_width + 1; ++i) {
        files.push_back(small_file(i % 2 == 0 ? shape::v11_full : shape::v11_compact));
    }
    expect_batch_is_validate(files, validate_options{});
    const auto inputs = views_of(files);
    std::vector<report> reports(inputs.size());
    validate(inputs, reports);
    for (std::size_t i = 0; i < reports.size(); ++i) {
        EXPECT_TRUE(reports[i].valid()) << i;
        EXPECT_EQ(reports[i].summary.layout, i % 2 == 0 ? layout::full : layout::compact) << i;
    }
}

TEST(ValidateBatch, LimitsStopEachInputAsTheyStopValidate) {
    std::vector<bytes> files = mixed_files();
    for (limits lim : {limits{.max_keyframes_per_curve = 2}, limits{.max_total_keyframes = 10},
                       limits{.max_markers = 1}, limits{.max_bytes = 1000}}) {
        for (const level lvl : {level::structure, level::full}) {
            expect_batch_is_validate(files, validate_options{lvl, layout_choice::automatic, lim});
        }
    }
}

TEST(ValidateBatch, RandomBytesAndMutationsGetValidatesVerdict) {
    std::mt19937_64 rng(test_seed(20261121));
    std::vector<bytes> files;
    const bytes base[] = {small_file(shape::v10), small_file(shape::v11_compact),
                          small_file(shape::v11_full)};
    for (int i = 0; i < 300; ++i) {
        bytes b = base[rng() % 3];
        // A few random bytes changed anywhere, headers included.
        for (int k = 0; k < 1 + static_cast<int>(rng() % 3); ++k) {
            b[rng() % b.size()] = static_cast<std::byte>(rng());
        }
        files.push_back(std::move(b));
        bytes noise(rng() % 200);
        for (std::byte& x : noise) x = static_cast<std::byte>(rng());
        // Half of them start like a recording, so that the walk gets past the header.
        if (noise.size() >= 19 && rng() % 2 == 0) {
            std::copy(base[1].begin(), base[1].begin() + 19, noise.begin());
        }
        files.push_back(std::move(noise));
    }
    for (const validate_options& o : every_layout_and_level()) expect_batch_is_validate(files, o);
}

TEST(ValidateBatch, FillsOnlyTheReportsItIsGiven) {
    const std::vector<bytes> files = {small_file(shape::v10), small_file(shape::v11_compact),
                                      bytes{}};
    const auto inputs = views_of(files);
    std::vector<report> reports(2);
    validate(inputs, reports);
    EXPECT_TRUE(reports[0].valid());
    EXPECT_EQ(reports[1].summary.minor, 1);

    // More reports than inputs: the ones beyond are left as they were.
    std::vector<report> more(5);
    more[3].summary.curves = 123;
    validate(inputs, more);
    EXPECT_EQ(more[2].error.code, errc::truncated);
    EXPECT_EQ(more[3].summary.curves, 123u);
    EXPECT_EQ(more[4].summary.bytes, 0u);
}

TEST(ValidateBatch, OfNothingDoesNothing) {
    std::vector<report> reports(1);
    reports[0].summary.curves = 7;
    validate({}, reports);
    EXPECT_EQ(reports[0].summary.curves, 7u);
}
