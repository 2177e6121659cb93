// The seeds of the randomised tests. A test that draws random numbers takes its seed here, once:
// the seed is printed on stderr and recorded as the test's "seed" property (in gtest's XML and
// JSON reports), and the environment variable INPUTANIM_TEST_SEED replaces it, so that a failure
// can be replayed with the seed it printed:
//
//     INPUTANIM_TEST_SEED=1705374725 ctest --test-dir build -R IndexInterrupted
//
// One variable for every test: set, it gives each randomised test that seed.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace inputanim::testing {

inline constexpr const char* seed_variable = "INPUTANIM_TEST_SEED";

namespace seed_detail {

// The seed INPUTANIM_TEST_SEED asks for, if it is set: a decimal number below 2^32 (what
// std::mt19937 takes whole). Anything else fails the test, as a replay of the wrong numbers would
// pass for one of the right ones.
inline std::optional<std::uint32_t> from_environment() {
    const char* text = std::getenv(seed_variable);
    if (text == nullptr || *text == '\0') return std::nullopt;
    const std::string_view s(text);
    std::uint32_t value = 0;
    const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (error != std::errc() || end != s.data() + s.size()) {
        ADD_FAILURE() << seed_variable << "=" << s << " is not a decimal number below 2^32";
        return std::nullopt;
    }
    return value;
}

// Prints and records `seed` once per test, and refuses a second, different one: a test that
// drew from two seeds could not be replayed by one variable.
inline std::uint32_t reported(std::uint32_t seed) {
    const std::string text = std::to_string(seed);
    if (const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info()) {
        const ::testing::TestResult& result = *test->result();
        for (int i = 0; i < result.test_property_count(); ++i) {
            const ::testing::TestProperty& p = result.GetTestProperty(i);
            if (std::string_view(p.key()) != "seed") continue;
            EXPECT_EQ(p.value(), text) << "a test takes one seed (support/seed.hpp)";
            return seed;
        }
    }
    ::testing::Test::RecordProperty("seed", text);
    std::cerr << "seed " << text << " (" << seed_variable << "=" << text << " replays it)\n";
    return seed;
}

}  // namespace seed_detail

// The seed of a test whose random numbers are the same on every run: `fixed`, unless
// INPUTANIM_TEST_SEED is set.
inline std::uint32_t test_seed(std::uint32_t fixed) {
    return seed_detail::reported(seed_detail::from_environment().value_or(fixed));
}

// The seed of a test whose random numbers differ from run to run (to meet, over many runs, more
// of what it samples): a fresh one, unless INPUTANIM_TEST_SEED is set.
inline std::uint32_t fresh_test_seed() {
    const std::optional<std::uint32_t> chosen = seed_detail::from_environment();
    return seed_detail::reported(chosen ? *chosen : std::random_device{}());
}

}  // namespace inputanim::testing
