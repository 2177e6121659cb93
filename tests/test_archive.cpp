// The archive reader (inputanim/archive.hpp): every container's members with their names, kinds,
// sizes and places; a member stored as it is read in place as a part of the archive's mapping;
// every member given the verdict the same bytes get as a loose file; names that lead through an
// archive. Damaged archives and budgets: test_archive_errors.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
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

// An archive's bytes opened through the front door, as a file is.
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

std::vector<archive_member> members_of(archive_reader& r) {
    std::vector<archive_member> out;
    archive_member m;
    while (r.next(m)) out.push_back(m);
    return out;
}

const std::vector<std::string> tar_formats = {"ustar", "pax", "gnutar"};
const std::vector<std::string> filters = {"gzip", "bzip2", "xz", "zstd"};

}  // namespace

TEST(Archive, ATarsMembersAreReadInPlaceAtTheirOffsets) {
    const bytes a = small_file(shape::v11_compact);
    const bytes b = small_file(shape::v10);
    for (const std::string& format : tar_formats) {
        const bytes tar = make_archive({{"a.bin", a}, {"dir/b.bin", b}}, format);
        opened_archive o;
        open_archive(tar, o);
        EXPECT_EQ(o.reader.format(), archive_format::tar);
        const std::vector<archive_member> ms = members_of(o.reader);
        ASSERT_EQ(ms.size(), 2u) << format;
        EXPECT_FALSE(o.reader.fault()) << format;
        for (std::size_t i = 0; i < 2; ++i) {
            const bytes& content = i == 0 ? a : b;
            EXPECT_EQ(ms[i].name, i == 0 ? "a.bin" : "dir/b.bin");
            EXPECT_EQ(ms[i].ordinal, i);
            EXPECT_EQ(ms[i].kind, member_kind::file);
            EXPECT_EQ(ms[i].size, content.size());
            EXPECT_EQ(ms[i].method, "stored");
            ASSERT_TRUE(ms[i].data_offset) << format;
            EXPECT_TRUE(std::equal(content.begin(), content.end(),
                                   tar.begin() + static_cast<std::ptrdiff_t>(*ms[i].data_offset)))
                << format << " member " << i;
        }
    }
}

TEST(Archive, LongNamesOfPaxAndGnuHeadersReadBack) {
    const std::string name = "session-" + std::string(150, 'x') + "/take.bin";
    for (const std::string& format : {std::string("pax"), std::string("gnutar")}) {
        opened_archive o;
        open_archive(make_archive({{name, small_file(shape::v11_full)}}, format), o);
        const std::vector<archive_member> ms = members_of(o.reader);
        ASSERT_EQ(ms.size(), 1u) << format;
        EXPECT_EQ(ms[0].name, name) << format;
        EXPECT_TRUE(ms[0].data_offset) << format;
    }
}

TEST(Archive, ACompressedTarsMembersAreInflatedAsTheyAreRead) {
    const bytes a = small_file(shape::v11_compact);
    for (const std::string& filter : filters) {
        opened_archive o;
        open_archive(make_archive({{"a.bin", a}, {"b.bin", a}}, "pax", filter), o);
        archive_member m;
        for (int i = 0; i < 2; ++i) {
            ASSERT_TRUE(o.reader.next(m)) << filter;
            EXPECT_EQ(m.method, filter);
            EXPECT_FALSE(m.data_offset);
            std::error_code ec;
            input member = o.reader.member(ec);
            ASSERT_FALSE(ec);
            EXPECT_FALSE(member.is_mapped());
            bytes read(a.size() + 10);
            std::size_t got = 0;
            while (const std::size_t n = member.read(std::span(read).subspan(got), ec)) got += n;
            EXPECT_FALSE(ec);
            read.resize(got);
            EXPECT_EQ(read, a) << filter;
        }
        EXPECT_FALSE(o.reader.next(m));
        EXPECT_FALSE(o.reader.fault()) << filter;
    }
}

TEST(Archive, AZipsMembersAreStoredInPlaceOrInflated) {
    const bytes a = small_file(shape::v11_compact);
    for (const bool deflate : {false, true}) {
        const bytes zip =
            make_archive({{"a.bin", a}, {"sub/", {}, "directory"}}, "zip", "none", deflate);
        opened_archive o;
        open_archive(zip, o);
        EXPECT_EQ(o.reader.format(), archive_format::zip);
        archive_member m;
        ASSERT_TRUE(o.reader.next(m));
        EXPECT_EQ(m.name, "a.bin");
        EXPECT_EQ(m.size, a.size());
        EXPECT_EQ(m.method, deflate ? "deflate" : "stored");
        EXPECT_EQ(m.data_offset.has_value(), !deflate);
        const file_check c = validate_member(o.reader, validate_options{});
        EXPECT_TRUE(c.rep.valid()) << describe(c.rep.error);
        EXPECT_EQ(c.bytes, a.size());
        ASSERT_TRUE(o.reader.next(m));
        EXPECT_EQ(m.kind, member_kind::directory);
        EXPECT_FALSE(o.reader.next(m));
        EXPECT_FALSE(o.reader.fault());
    }
}

TEST(Archive, ZipDataDescriptorsAndZip64RecordsAreRead) {
    const bytes a = small_file(shape::v11_full);
    for (const bool descriptors : {false, true}) {
        for (const bool zip64 : {false, true}) {
            const hand_zip z = make_zip({{"a.bin", a}, {"b.bin", a, true}}, descriptors, zip64);
            opened_archive o;
            open_archive(z.file, o);
            archive_member m;
            ASSERT_TRUE(o.reader.next(m)) << descriptors << zip64;
            EXPECT_EQ(m.data_offset, z.data[0]);
            EXPECT_TRUE(validate_member(o.reader, {}).rep.valid());
            ASSERT_TRUE(o.reader.next(m));
            EXPECT_EQ(m.method, "deflate");
            const file_check c = validate_member(o.reader, {});
            EXPECT_TRUE(c.rep.valid()) << describe(c.rep.error);
            EXPECT_EQ(c.bytes, a.size());
            EXPECT_FALSE(o.reader.next(m));
            EXPECT_FALSE(o.reader.fault()) << describe(o.reader.fault());
        }
    }
}

TEST(Archive, AMemberStoredAsItIsIsAPartOfTheArchivesMappingNotACopy) {
    const bytes a = small_file(shape::v11_compact);
    opened_archive o;
    open_archive(make_archive({{"a.bin", a}}, "ustar"), o);
    archive_member m;
    ASSERT_TRUE(o.reader.next(m));
    std::error_code ec;
    const input member = o.reader.member(ec);
    ASSERT_FALSE(ec);
    ASSERT_TRUE(member.is_mapped());
    EXPECT_EQ(member.mapped().data(), o.in.mapped().data() + *m.data_offset);
    EXPECT_EQ(member.mapped().size(), a.size());
    EXPECT_EQ(member.file_size(), a.size());
    EXPECT_EQ(member.descriptor(), -1);
    EXPECT_EQ(o.reader.member_bytes().data(), member.mapped().data());
}

TEST(Archive, EveryMemberGetsTheVerdictItsBytesGetAsALooseFile) {
    // Every shape valid and damaged, the 2019 layouts, warnings; each also as .bin.gz.
    std::vector<archive_entry_spec> entries;
    std::vector<bytes> loose;
    const std::vector<bytes> files = mixed_files();
    for (std::size_t i = 0; i < files.size(); ++i) {
        entries.push_back({"f" + std::to_string(i) + ".bin", files[i]});
        loose.push_back(files[i]);
        entries.push_back({"f" + std::to_string(i) + ".bin.gz", gzip_compress(files[i])});
        loose.push_back(entries.back().content);
    }
    std::vector<bytes> containers;
    for (const std::string& format : tar_formats)
        containers.push_back(make_archive(entries, format));
    containers.push_back(make_archive(entries, "pax", "gzip"));
    containers.push_back(make_archive(entries, "pax", "zstd"));
    containers.push_back(make_archive(entries, "zip"));
    containers.push_back(make_archive(entries, "zip", "none", true));
    for (const validate_options& how : every_layout_and_level()) {
        std::vector<file_check> expected;
        for (const bytes& b : loose) {
            std::error_code ec;
            input in = input::from_bytes(b, ec);
            expected.push_back(validate_input(in, how));
        }
        for (std::size_t k = 0; k < containers.size(); ++k) {
            opened_archive o;
            open_archive(containers[k], o);
            archive_member m;
            std::size_t i = 0;
            while (o.reader.next(m)) {
                ASSERT_LT(i, loose.size());
                const file_check c = validate_member(o.reader, how);
                EXPECT_FALSE(c.io);
                EXPECT_EQ(difference(expected[i].rep, c.rep), "")
                    << "container " << k << " member " << m.name << " " << describe(how);
                EXPECT_EQ(c.bytes, expected[i].bytes) << m.name;
                EXPECT_EQ(c.compressed_bytes, expected[i].compressed_bytes) << m.name;
                ++i;
            }
            EXPECT_EQ(i, loose.size()) << "container " << k;
            EXPECT_FALSE(o.reader.fault());
        }
    }
}

TEST(Archive, MembersThatAreNotFilesAreReportedAndNeverRead) {
    const bytes tar = make_archive({{"dir", {}, "directory"},
                                    {"link.bin", {}, "symlink", "a.bin"},
                                    {"a.bin", small_file(shape::v10)},
                                    {"hard.bin", {}, "hardlink", "a.bin"},
                                    {"pipe", {}, "fifo"}},
                                   "pax");
    opened_archive o;
    open_archive(tar, o);
    const std::vector<member_kind> kinds = {member_kind::directory, member_kind::symlink,
                                            member_kind::file, member_kind::hardlink,
                                            member_kind::fifo};
    archive_member m;
    for (const member_kind k : kinds) {
        ASSERT_TRUE(o.reader.next(m));
        EXPECT_EQ(m.kind, k) << m.name << " is " << member_kind_name(m.kind);
        std::error_code ec;
        (void)o.reader.member(ec);
        EXPECT_EQ(static_cast<bool>(ec), k != member_kind::file) << m.name;
    }
    EXPECT_FALSE(o.reader.next(m));
}

TEST(Archive, AContentIsAnArchiveByItsFirstBytesNotItsName) {
    const std::vector<std::pair<bytes, std::optional<archive_format>>> cases = {
        {make_archive({{"a", {}}}, "ustar"), archive_format::tar},
        {make_archive({{"a", {}}}, "pax", "xz"), archive_format::tar},
        {make_archive({{"a", {}}}, "zip"), archive_format::zip},
        {make_archive({}, "zip"), archive_format::zip},
        {small_file(shape::v11_compact), std::nullopt},
        {gzip_compress(small_file(shape::v11_compact)), std::nullopt},
        {bytes(1024, std::byte{0}), std::nullopt},
        // Zeros are an empty tar to libarchive, compressed or not; to us they are no archive.
        {gzip_compress(bytes(1 << 20, std::byte{0})), std::nullopt},
        {{}, std::nullopt}};
    for (std::size_t i = 0; i < cases.size(); ++i) {
        std::error_code ec;
        const input in = input::from_bytes(cases[i].first, ec);
        EXPECT_EQ(archive_format_of(in, ec), cases[i].second) << i;
        EXPECT_FALSE(ec);
    }
}

TEST(Archive, ANameThroughAnArchiveOpensTheLastMemberOfThatName) {
    const scratch_folder scratch;
    const bytes first = small_file(shape::v10);
    const bytes second = small_file(shape::v11_full);
    const auto write_file = [&](const std::string& name, const bytes& b) {
        std::ofstream(scratch.path() / name, std::ios::binary)
            .write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
        return (scratch.path() / name).string();
    };
    for (const auto& [name, archive] :
         {std::pair{std::string("t.tar"),
                    make_archive({{"s/a.bin", first}, {"s/a.bin", second}}, "pax")},
          std::pair{std::string("t.tar.gz"),
                    make_archive({{"s/a.bin", first}, {"s/a.bin", second}}, "pax", "gzip")},
          std::pair{std::string("t.zip"), make_archive({{"s/a.bin", first}, {"s/a.bin", second}},
                                                       "zip", "none", true)}}) {
        const std::string path = write_file(name, archive);
        std::error_code ec;
        input in = input::open(path + "/s/a.bin", ec);
        ASSERT_FALSE(ec) << name << ": " << ec.message();
        std::vector<std::byte> storage;
        const whole_input w = read_whole(in, validate_options{}, storage);
        ASSERT_FALSE(w.invalid) << name;
        EXPECT_EQ(bytes(w.bytes.begin(), w.bytes.end()), second) << name;
        (void)input::open(path + "/s/none.bin", ec);
        EXPECT_EQ(ec, std::errc::no_such_file_or_directory) << name;
        (void)input::open(path + "/s", ec);
        EXPECT_TRUE(ec) << name;
    }
    // A file that is no archive leads nowhere, as the system says.
    const std::string plain = write_file("plain.bin", first);
    std::error_code ec;
    (void)input::open(plain + "/a.bin", ec);
    EXPECT_EQ(ec, std::errc::not_a_directory);
}

TEST(Archive, FindMemberGivesTheLastOfANameAndAFolderByItsNameWithoutTheSlash) {
    const bytes first = small_file(shape::v10);
    const bytes second = small_file(shape::v11_full);
    const bytes archive =
        make_archive({{"s", {}, "directory"}, {"s/a.bin", first}, {"s/a.bin", second}}, "pax");
    opened_archive o;
    open_archive(archive, o);
    error stopped;
    std::error_code ec;
    const std::optional<archive_member> a = find_member(o.in, "s/a.bin", {}, stopped, ec);
    ASSERT_FALSE(ec) << ec.message();
    ASSERT_TRUE(a);
    EXPECT_EQ(a->ordinal, 2u);
    EXPECT_EQ(a->size, second.size());
    EXPECT_FALSE(stopped);
    const std::optional<archive_member> folder = find_member(o.in, "s", {}, stopped, ec);
    ASSERT_TRUE(folder);
    EXPECT_EQ(folder->kind, member_kind::directory);
    EXPECT_FALSE(find_member(o.in, "s/b.bin", {}, stopped, ec));
    EXPECT_FALSE(ec);
    // A walk stopped early finds nothing past where it stopped, and says where.
    archive_limits two;
    two.max_members = 2;
    EXPECT_EQ(find_member(o.in, "s/a.bin", two, stopped, ec)->ordinal, 1u);
    EXPECT_EQ(stopped.code, errc::too_many_members);
    // Bytes that are no archive.
    std::error_code no;
    input plain = input::from_bytes(first, no);
    EXPECT_FALSE(find_member(plain, "s/a.bin", {}, stopped, ec));
    EXPECT_EQ(ec, std::errc::invalid_argument);
}

TEST(Archive, AStoredMemberOpensWhereAWalkFoundItWithoutWalkingAgain) {
    const scratch_folder scratch;
    const bytes first = small_file(shape::v10);
    const bytes second = small_file(shape::v11_full);
    for (const auto& [name, archive] :
         {std::pair{
              std::string("t.tar"),
              make_archive({{"a.bin", first}, {"long/" + std::string(150, 'n') + ".bin", second}},
                           "pax")},
          std::pair{
              std::string("t.zip"),
              make_archive({{"a.bin", first}, {"long/" + std::string(150, 'n') + ".bin", second}},
                           "zip")},
          std::pair{std::string("d.zip"),
                    make_zip({{"a.bin", first}, {"long/" + std::string(150, 'n') + ".bin", second}},
                             true, true)
                        .file}}) {
        const std::string path = write_bytes(scratch.path() / name, archive);
        // Where a walk found them: what an index row keeps.
        opened_archive o;
        open_archive(archive, o);
        for (const archive_member& m : members_of(o.reader)) {
            ASSERT_TRUE(m.data_offset) << name;
            std::error_code ec;
            input in = open_member_at(path, m.name, *m.data_offset, m.size, ec);
            ASSERT_FALSE(ec) << name << " " << m.name << ": " << ec.message();
            ASSERT_TRUE(in.is_mapped());
            const bytes& expected = m.name == "a.bin" ? first : second;
            EXPECT_EQ(bytes(in.mapped().begin(), in.mapped().end()), expected) << name;
            // By name, after a walk, the same bytes.
            input named = open_member(path, m.name, ec);
            ASSERT_FALSE(ec) << name;
            EXPECT_EQ(bytes(named.mapped().begin(), named.mapped().end()), expected) << name;
        }
    }
}

TEST(Archive, AMemberPathIsTheFirstRegularFileAndWhatFollowsItVerbatim) {
    const scratch_folder scratch;
    std::filesystem::create_directories(scratch.path() / "d");
    std::ofstream(scratch.path() / "d" / "t.zip") << "x";
    const std::string base = (scratch.path() / "d" / "t.zip").string();
    for (const std::string& member : {std::string("a.bin"), std::string("s//b.bin"),
                                      std::string("../up.bin"), std::string("/abs.bin")}) {
        const std::optional<member_path> p = split_member_path(base + "/" + member);
        ASSERT_TRUE(p) << member;
        EXPECT_EQ(p->archive, base);
        EXPECT_EQ(p->member, member);
    }
    // The file itself, a missing name, a folder's file, and nothing after the slash: no member.
    EXPECT_FALSE(split_member_path(base));
    EXPECT_FALSE(split_member_path((scratch.path() / "d" / "missing.bin").string()));
    EXPECT_FALSE(split_member_path(base + "/"));
}
