// limits.hpp: the ceilings on untrusted input, their table and the upload ceilings.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "inputanim/limits.hpp"

namespace inputanim {
namespace {

TEST(Limits, TheTableHasEachLimitOnceWithItsMemberItsWidthAndItsDefault) {
    ASSERT_EQ(limit_fields.size(), 5u);
    const limits defaults{};
    for (std::size_t i = 0; i < limit_fields.size(); ++i) {
        const limit_field& field = limit_fields[i];
        EXPECT_EQ(field.kind, static_cast<limit_kind>(i + 1)) << i;
        EXPECT_EQ(field.get(defaults), field.unset) << limit_name(field.kind);
        EXPECT_FALSE(field.description.empty()) << limit_name(field.kind);
        // Setting one member changes that member alone, across its whole width.
        for (const std::uint64_t value : {std::uint64_t{0}, std::uint64_t{7}, field.largest}) {
            limits l{};
            field.set(l, value);
            for (const limit_field& other : limit_fields) {
                EXPECT_EQ(other.get(l), &other == &field ? value : other.unset)
                    << limit_name(field.kind) << " set to " << value << ", "
                    << limit_name(other.kind) << " read";
            }
        }
    }
    EXPECT_EQ(limit_fields[0].get(upload_limits()), upload_limits().max_bytes);
    EXPECT_EQ(limit_fields[0].largest, std::numeric_limits<std::uint64_t>::max());
    EXPECT_EQ(limit_fields[1].largest, std::numeric_limits<std::uint32_t>::max());
    EXPECT_EQ(limit_fields[1].unset,
              static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()));
}

TEST(Limits, NoCeilingIsSetByDefaultAndEveryOneIsSetForUploads) {
    const limits none{};
    const limits uploads = upload_limits();
    for (const limit_field& field : limit_fields) {
        EXPECT_EQ(field.get(none), field.unset) << limit_name(field.kind);
        EXPECT_LT(field.get(uploads), field.unset) << limit_name(field.kind);
    }
    // docs/SECURITY.md gives the reason for each.
    EXPECT_EQ(uploads.max_bytes, std::uint64_t{64} << 20);
    EXPECT_EQ(uploads.max_keyframes_per_curve, std::uint32_t{1} << 18);
    EXPECT_EQ(uploads.max_total_keyframes, std::uint64_t{1} << 21);
    EXPECT_EQ(uploads.max_markers, 4096u);
    EXPECT_EQ(uploads.max_marker_name_bytes, 1024u);
}

}  // namespace
}  // namespace inputanim
