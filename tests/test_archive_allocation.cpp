// Reading a plain tar's or a stored zip's members allocates nothing per member: each member is
// validated in place in the archive's mapping (archive_reader::member_bytes, validate_member), no
// byte of it copied. Checked with every global operator new replaced by a counting one: walking a
// thousand members costs the allocations of walking ten. (libarchive's own buffers, which it
// keeps from member to member, come from malloc and are not counted.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "inputanim/inputanim.hpp"
#include "support/allocation_counter.hpp"
#include "support/archives.hpp"
#include "support/builders.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

// The allocations of walking an archive of `n` recordings and validating each in place.
std::size_t allocations_of_walking(std::size_t n, const std::string& format) {
    const bytes r = small_file(shape::v11_compact);
    std::vector<archive_entry_spec> entries;
    for (std::size_t i = 0; i < n; ++i) {
        entries.push_back({"session/take-" + std::to_string(100000 + i) + ".bin", r});
    }
    std::error_code ec;
    input in = input::from_bytes(make_archive(entries, format), ec);
    archive_reader reader = archive_reader::open(in, {}, ec);
    EXPECT_FALSE(ec);
    archive_member m;
    std::vector<std::byte> buffer;
    std::size_t valid = 0;
    const allocation_probe probe;
    while (reader.next(m)) {
        // In place: the member's bytes are the archive's.
        if (reader.member_bytes().data() == nullptr) return SIZE_MAX;
        if (validate_member(reader, validate_options{}, buffer).rep.valid()) ++valid;
    }
    const std::size_t counted = probe.count();
    EXPECT_EQ(valid, n);
    return counted;
}

}  // namespace

TEST(ArchiveAllocation, NoneForEachMemberOfAPlainTarOrAStoredZip) {
    for (const std::string& format :
         {std::string("ustar"), std::string("pax"), std::string("zip")}) {
        const std::size_t ten = allocations_of_walking(10, format);
        const std::size_t thousand = allocations_of_walking(1000, format);
        EXPECT_NE(thousand, SIZE_MAX) << format << ": a member was not read in place";
        EXPECT_EQ(thousand, ten) << format;
    }
}
