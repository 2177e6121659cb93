// Archives damaged, hostile or past a budget (inputanim/archive.hpp): each case is an error of the
// archive's, at the byte of the archive where it is, for the member it concerns or as the walk's
// end; the members before it (and, in a zip, every member whose own bytes are sound) are read.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "inputanim/inputanim.hpp"
#include "support/archives.hpp"
#include "support/builders.hpp"
#include "support/gzip_bytes.hpp"
#include "support/run_process.hpp"
#include "support/validation_cases.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

struct opened_archive {
    input in;
    archive_reader reader;
};

void open_archive(const bytes& b, opened_archive& o, const archive_limits& limits = {}) {
    std::error_code ec;
    o.in = input::from_bytes(b, ec);
    ASSERT_FALSE(ec) << ec.message();
    o.reader = archive_reader::open(o.in, limits, ec);
    ASSERT_FALSE(ec) << ec.message();
}

// Each member's name, place and what validate_member says of it (its error; ok when valid).
struct walked {
    std::vector<archive_member> members;
    std::vector<error> verdicts;
    error fault;
};

walked walk(const bytes& b, const archive_limits& limits = {}) {
    walked w;
    opened_archive o;
    open_archive(b, o, limits);
    archive_member m;
    while (o.reader.next(m)) {
        w.members.push_back(m);
        w.verdicts.push_back(m.kind == member_kind::file ? validate_member(o.reader, {}).rep.error
                                                         : error{});
    }
    w.fault = o.reader.fault();
    return w;
}

// Three members, so that a damage in the second is the second's alone.
std::vector<archive_entry_spec> three() {
    const bytes r = small_file(shape::v11_compact);
    return {{"a.bin", r, "file", ""}, {"b.bin", r, "file", ""}, {"c.bin", r, "file", ""}};
}

std::vector<zip_entry_spec> three_zipped(bool deflate = false) {
    const bytes r = small_file(shape::v11_compact);
    return {{"a.bin", r, deflate}, {"b.bin", r, deflate}, {"c.bin", r, deflate}};
}

bytes cut(const bytes& b, std::uint64_t n) {
    return bytes(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n));
}

}  // namespace

TEST(ArchiveErrors, ATarCutShortInAHeaderEndsTheWalkThereAfterTheMembersBeforeIt) {
    const bytes tar = make_archive(three(), "ustar");
    const walked whole = walk(tar);
    ASSERT_EQ(whole.members.size(), 3u);
    // The third member's header starts one header before its data.
    const std::uint64_t third_header = *whole.members[2].data_offset - 512;
    const walked w = walk(cut(tar, third_header + 100));
    ASSERT_EQ(w.members.size(), 2u);
    EXPECT_FALSE(w.verdicts[0]);
    EXPECT_FALSE(w.verdicts[1]);
    EXPECT_EQ(w.fault.code, errc::archive_truncated);
    EXPECT_EQ(w.fault.offset, third_header);
}

TEST(ArchiveErrors, AMemberWhoseBytesPassTheArchivesEndIsSaidAtItsData) {
    // Cut inside the second member's bytes: its size says more than what follows. To a plain tar,
    // whose members are read in place, it is the same as a size field that lies.
    const bytes tar = make_archive(three(), "ustar");
    const walked whole = walk(tar);
    const std::uint64_t second = *whole.members[1].data_offset;
    const walked w = walk(cut(tar, second + 100));
    ASSERT_EQ(w.members.size(), 2u);
    EXPECT_FALSE(w.verdicts[0]);
    EXPECT_EQ(w.verdicts[1].code, errc::member_past_end);
    EXPECT_EQ(w.verdicts[1].offset, second);
    // The member's own: nothing else is wrong with the archive, which ends there.
    EXPECT_FALSE(w.fault);
    // Compressed, the same cut is the stream's end inside the member.
    const bytes gz = gzip_compress(cut(tar, second + 100));
    const walked z = walk(gz);
    ASSERT_EQ(z.members.size(), 2u);
    EXPECT_FALSE(z.verdicts[0]);
    EXPECT_EQ(z.verdicts[1].code, errc::archive_truncated);
}

TEST(ArchiveErrors, ATarHeaderWhoseChecksumIsWrongIsDamageAtThatHeader) {
    bytes tar = make_archive(three(), "ustar");
    const walked whole = walk(tar);
    const std::uint64_t second_header = *whole.members[1].data_offset - 512;
    // The checksum field (8 bytes at 148) no longer adds up.
    tar[second_header + 148] = std::byte{'7'};
    const walked w = walk(tar);
    ASSERT_EQ(w.members.size(), 1u);
    EXPECT_FALSE(w.verdicts[0]);
    EXPECT_EQ(w.fault.code, errc::archive_damaged);
    EXPECT_EQ(w.fault.offset, second_header);
}

TEST(ArchiveErrors, APaxHeaderOfGigabytesIsRefusedNotRead) {
    // A pax extended header that says it holds 3 GB: its reading would hold them all.
    bytes tar =
        make_archive({{"a-" + std::string(120, 'x') + ".bin", small_file(shape::v10)}}, "pax");
    // The pax header's size field (octal, 12 bytes at 124 of the first block), then its checksum.
    const std::string size = "26000000000";
    for (std::size_t i = 0; i < size.size(); ++i) tar[124 + i] = std::byte(size[i]);
    unsigned sum = 8 * ' ';
    for (std::size_t i = 0; i < 512; ++i) {
        if (i < 148 || i >= 156) sum += std::to_integer<unsigned>(tar[i]);
    }
    char field[8];
    std::snprintf(field, sizeof field, "%06o", sum);
    for (std::size_t i = 0; i < 7; ++i) tar[148 + i] = std::byte(field[i]);
    const walked w = walk(tar);
    EXPECT_TRUE(w.members.empty());
    EXPECT_EQ(w.fault.code, errc::header_too_large);
    // Where its body would start, after the header record that announced it.
    EXPECT_EQ(w.fault.offset, 512u);
}

TEST(ArchiveErrors, AZipLocalHeaderThatDisagreesWithTheDirectoryIsThatMembersErrorAlone) {
    const hand_zip z = make_zip(three_zipped());
    // Its name, its method, or its size (without a data descriptor) differs from the directory's.
    for (const std::uint64_t field : {std::uint64_t{30}, std::uint64_t{8}, std::uint64_t{22}}) {
        bytes b = z.file;
        b[z.local[1] + field] = std::byte{'X'};
        const walked w = walk(b);
        ASSERT_EQ(w.members.size(), 3u) << field;
        EXPECT_FALSE(w.verdicts[0]);
        EXPECT_EQ(w.verdicts[1].code, errc::header_mismatch) << field;
        EXPECT_EQ(w.verdicts[1].offset, z.local[1]);
        EXPECT_FALSE(w.verdicts[2]);
        // The directory is trusted: the member keeps its name from it.
        EXPECT_EQ(w.members[1].name, "b.bin");
        EXPECT_FALSE(w.fault);
    }
}

TEST(ArchiveErrors, ZipEntriesWhoseBytesOverlapAreRefusedBeforeTheyAreInflated) {
    // The third entry of the directory is made to point at the second's local header: two names
    // for one compressed kernel, as a non-recursive zip bomb has thousands.
    hand_zip z = make_zip(three_zipped(true));
    std::uint64_t at = z.directory;
    for (int i = 0; i < 2; ++i) {
        at += 46 + 5;
    }
    put_u32(z.file, at + 42, static_cast<std::uint32_t>(z.local[1]));
    // The name must agree with that local header for the overlap to be the only fault.
    z.file[at + 46] = std::byte{'b'};
    const walked w = walk(z.file);
    ASSERT_EQ(w.members.size(), 3u);
    EXPECT_FALSE(w.verdicts[0]);
    EXPECT_EQ(w.verdicts[1].code, errc::overlapping_members);
    EXPECT_EQ(w.verdicts[2].code, errc::overlapping_members);
    EXPECT_EQ(w.verdicts[2].offset, z.local[1]);
}

TEST(ArchiveErrors, AnEncryptedMemberOrOneOfAnotherMethodHasACodeOfItsOwn) {
    hand_zip z = make_zip(three_zipped());
    // Encryption is bit 0 of the flags, in the local header and the directory alike.
    z.file[z.local[0] + 6] |= std::byte{1};
    z.file[z.directory + 8] |= std::byte{1};
    // bzip2 (12) for the second, in both.
    put_u16(z.file, z.local[1] + 8, 12);
    put_u16(z.file, z.directory + 46 + 5 + 10, 12);
    const walked w = walk(z.file);
    ASSERT_EQ(w.members.size(), 3u);
    EXPECT_TRUE(w.members[0].encrypted);
    EXPECT_EQ(w.verdicts[0].code, errc::encrypted_member);
    EXPECT_EQ(w.verdicts[1].code, errc::unsupported_method);
    EXPECT_FALSE(w.verdicts[2]);
}

TEST(ArchiveErrors, DeflatedBytesThatDoNotInflateOrWhoseCrcIsWrongAreBadCompression) {
    const hand_zip z = make_zip(three_zipped(true));
    bytes broken = z.file;
    // A deflate block type that does not exist (3) in the second member's first byte.
    broken[z.data[1]] = std::byte{0x07};
    bytes wrong_crc = z.file;
    wrong_crc[z.local[1] + 14] ^= std::byte{0xff};
    wrong_crc[z.directory + 46 + 5 + 16] ^= std::byte{0xff};
    for (const bytes& b : {broken, wrong_crc}) {
        const walked w = walk(b);
        ASSERT_EQ(w.members.size(), 3u);
        EXPECT_FALSE(w.verdicts[0]);
        EXPECT_EQ(w.verdicts[1].code, errc::bad_compression);
        EXPECT_GE(w.verdicts[1].offset, z.data[1]);
        EXPECT_FALSE(w.verdicts[2]);
    }
}

TEST(ArchiveErrors, AMemberPastTheCompressionRatioIsRefusedAsItIsInflated) {
    // 32 MiB of zeros deflate to about 32 KB: a ratio of about 1000.
    const bytes zeros(std::size_t{32} << 20, std::byte{0});
    archive_limits limits;
    limits.max_ratio = 100;
    const walked zip =
        walk(make_zip({{"z.bin", zeros, true}, {"a.bin", small_file(shape::v10)}}).file, limits);
    ASSERT_EQ(zip.members.size(), 2u);
    EXPECT_EQ(zip.verdicts[0].code, errc::ratio_exceeded);
    EXPECT_FALSE(zip.verdicts[1]);
    // A compressed tar: the stream's ratio, which ends the walk.
    const walked tar = walk(make_archive({{"z.bin", zeros}}, "pax", "gzip"), limits);
    ASSERT_EQ(tar.members.size(), 1u);
    EXPECT_EQ(tar.verdicts[0].code, errc::ratio_exceeded);
}

TEST(ArchiveErrors, TheMembersAndTheBytesAnArchiveMayHaveAreBudgets) {
    std::vector<archive_entry_spec> many;
    for (int i = 0; i < 10; ++i) many.push_back({"e" + std::to_string(i), {}});
    archive_limits limits;
    limits.max_members = 4;
    // A tar's members are counted as they come; a zip's directory says its count at once.
    const walked tar = walk(make_archive(many, "ustar"), limits);
    EXPECT_EQ(tar.members.size(), 4u);
    EXPECT_EQ(tar.fault.code, errc::too_many_members);
    opened_archive zip;
    std::error_code ec;
    zip.in = input::from_bytes(make_archive(many, "zip"), ec);
    zip.reader = archive_reader::open(zip.in, limits, ec);
    archive_member m;
    EXPECT_FALSE(zip.reader.next(m));
    EXPECT_EQ(zip.reader.fault().code, errc::too_many_members);
    // The bytes inflated from all members together.
    limits = {};
    const bytes r = small_file(shape::v11_full);
    limits.max_inflated_bytes = r.size() * 3 / 2;
    const walked bytes_budget = walk(
        make_archive({{"a.bin", r, "file", ""}, {"b.bin", r, "file", ""}, {"c.bin", r, "file", ""}},
                     "zip", "none", true),
        limits);
    EXPECT_FALSE(bytes_budget.verdicts[0]);
    EXPECT_EQ(bytes_budget.verdicts[1].code, errc::archive_too_large);
    // The walk ends with the member that passed the budget.
    EXPECT_EQ(bytes_budget.members.size(), 2u);
}

TEST(ArchiveErrors, ManyEmptyMembersAreWalkedInConstantMemory) {
    std::vector<archive_entry_spec> empty;
    for (int i = 0; i < 100'000; ++i) empty.push_back({"e" + std::to_string(i), {}});
    const walked w = walk(make_archive(empty, "ustar"));
    EXPECT_EQ(w.members.size(), 100'000u);
    EXPECT_FALSE(w.fault);
    // Each is a file of no bytes: a recording cut short at its first byte.
    EXPECT_EQ(w.verdicts.back().code, errc::truncated);
}

TEST(ArchiveErrors, MembersOfOneNameKeepAnOrdinalEach) {
    const walked w = walk(make_archive(
        {{"a.bin", small_file(shape::v10)}, {"a.bin", bytes(10, std::byte{1})}}, "ustar"));
    ASSERT_EQ(w.members.size(), 2u);
    EXPECT_EQ(w.members[0].name, w.members[1].name);
    EXPECT_EQ(w.members[0].ordinal, 0u);
    EXPECT_EQ(w.members[1].ordinal, 1u);
    EXPECT_FALSE(w.verdicts[0]);
    EXPECT_EQ(w.verdicts[1].code, errc::bad_magic);
}

TEST(ArchiveErrors, WhatIsNoArchiveIsRefusedToOpen) {
    for (const bytes& b : {small_file(shape::v11_compact), gzip_compress(small_file(shape::v10)),
                           bytes(600, std::byte{'x'}), bytes{}}) {
        std::error_code ec;
        input in = input::from_bytes(b, ec);
        (void)archive_reader::open(in, {}, ec);
        EXPECT_EQ(ec, std::errc::invalid_argument);
    }
}

TEST(ArchiveErrors, AZipWithoutItsEndRecordIsTruncated) {
    const hand_zip z = make_zip(three_zipped());
    std::error_code ec;
    input in = input::from_bytes(cut(z.file, z.directory + 10), ec);
    // Its first bytes are a zip's; its directory is gone.
    archive_reader r = archive_reader::open(in, {}, ec);
    ASSERT_FALSE(ec);
    archive_member m;
    EXPECT_FALSE(r.next(m));
    EXPECT_EQ(r.fault().code, errc::archive_truncated);
}

TEST(ArchiveErrors, AStoredMemberOpenedWhereARowSaysIsCheckedAgainstItsHeader) {
    const scratch_folder scratch;
    const bytes recording = small_file(shape::v11_compact);
    const bytes other = small_file(shape::v10);
    for (const char* format : {"ustar", "zip"}) {
        const std::string path = write_bytes(scratch.path() / (std::string("t.") + format),
                                             make_archive({{"a.bin", recording}}, format));
        std::error_code ec;
        input in = input::open(path, ec);
        archive_reader r = archive_reader::open(in, {}, ec);
        archive_member m;
        ASSERT_TRUE(r.next(m));
        const std::uint64_t at = *m.data_offset;
        // A row of another version of the archive: another size, another place, another name.
        (void)open_member_at(path, "a.bin", at, m.size + 1, ec);
        EXPECT_EQ(ec, make_error_code(errc::header_mismatch)) << format;
        (void)open_member_at(path, "a.bin", at + 512, 16, ec);
        EXPECT_EQ(ec, make_error_code(errc::header_mismatch)) << format;
        if (std::string_view(format) == "zip") {
            (void)open_member_at(path, "b.bin", at, m.size, ec);
            EXPECT_EQ(ec, make_error_code(errc::header_mismatch));
        }
        // Past the end, without overflow.
        (void)open_member_at(path, "a.bin", at, UINT64_MAX, ec);
        EXPECT_EQ(ec, make_error_code(errc::member_past_end)) << format;
        (void)open_member_at(path, "a.bin", UINT64_MAX, 1, ec);
        EXPECT_EQ(ec, make_error_code(errc::member_past_end)) << format;
    }
    // A compressed tar and a file that is no archive hold no member in place.
    const std::string tgz = write_bytes(scratch.path() / "t.tgz",
                                        make_archive({{"a.bin", recording}}, "ustar", "gzip"));
    std::error_code ec;
    (void)open_member_at(tgz, "a.bin", 512, recording.size(), ec);
    EXPECT_EQ(ec, std::errc::not_a_directory);
    const std::string plain = write_bytes(scratch.path() / "p.bin", other);
    (void)open_member_at(plain, "a.bin", 0, 16, ec);
    EXPECT_EQ(ec, std::errc::not_a_directory);
}
