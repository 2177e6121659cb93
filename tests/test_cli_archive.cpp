// The commands on archives, run as a user runs them: a whole tar, tar.gz or zip (stored or
// deflated) given to validate, info and metrics gives each recording in it the verdict and the
// output the same bytes get as a loose file, named ARCHIVE/MEMBER; the members that are not
// recordings are counted, never read as ones; a member named through its archive is an input of
// every command that takes a recording; an archive is never the output of its own member; a
// damaged archive says where its walk stopped; names that could forge a line are shown escaped.
#include <filesystem>
#include <string>
#include <vector>

#include "support/archives.hpp"
#include "support/cli_fixture.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

struct container {
    const char* file;
    const char* format;
    const char* filter;
    bool deflate;
    // Whether its members' bytes are stored as they are (member_offset is a number).
    bool in_place;
};

const std::vector<container> containers = {
    {"take.tar", "pax", "none", false, true},      {"take.tar.gz", "ustar", "gzip", false, false},
    {"take.tar.xz", "gnutar", "xz", false, false}, {"take.zip", "zip", "none", false, true},
    {"deflated.zip", "zip", "none", true, false},
};

class ArchiveCli : public cli_fixture {
  protected:
    void SetUp() override {
        valid_ = write(without_warnings(small_model(shape::v11_compact)));
        unsorted_ = write(unsorted_model());
        cut_ = valid_;
        cut_.resize(cut_.size() / 2);
        // The loose files, for the verdicts the members must match.
        write_file("loose/a.bin", valid_);
        write_file("loose/session/unsorted.bin", unsorted_);
        write_file("loose/cut.bin", cut_);
        const std::vector<archive_entry_spec> entries = {
            {"a.bin", valid_},
            {"session", {}, "directory"},
            {"session/unsorted.bin", unsorted_},
            {"notes.txt", bytes(40, std::byte{'n'})},
            {"link.bin", {}, "symlink", "a.bin"},
            {"cut.bin", cut_},
        };
        for (const container& c : containers) {
            write_file(c.file, make_archive(entries, c.format, c.filter, c.deflate));
        }
    }

    // What `args` prints for the loose file `name` with its folder's name replaced by `archive`.
    std::string loose_output(std::vector<std::string> args, const std::string& name,
                             const std::string& archive) const {
        args.push_back(path("loose/" + name));
        std::string out = run(args).out;
        const std::string from = path("loose/");
        for (std::size_t at = out.find(from); at != std::string::npos;
             at = out.find(from, at + 1)) {
            out.replace(at, from.size(), path(archive) + "/");
        }
        return out;
    }

    bytes valid_, unsorted_, cut_;
};

}  // namespace

TEST_F(ArchiveCli, ValidateGivesEachRecordingInAnArchiveTheVerdictOfItsBytesAsALooseFile) {
    for (const container& c : containers) {
        const run_result r = run({"validate", path(c.file)});
        EXPECT_EQ(r.status, 1) << c.file << r.err;
        std::string expected;
        for (const char* name : {"a.bin", "session/unsorted.bin", "cut.bin"}) {
            expected += loose_output({"validate"}, name, c.file);
        }
        EXPECT_EQ(r.out, expected) << c.file;
        // The others are counted, not read as recordings nor followed.
        EXPECT_NE(r.err.find(path(c.file) + ": not read: 1 member that is not a recording"),
                  std::string::npos)
            << c.file << ": " << r.err;
        if (std::string_view(c.format) != "zip") {
            EXPECT_NE(r.err.find("1 directory, 1 symbolic link"), std::string::npos) << r.err;
        }
    }
}

TEST_F(ArchiveCli, JsonLinesNameTheArchiveAndTheMembersPlaceBesideTheLooseFilesFields) {
    for (const container& c : containers) {
        const run_result r = run({"validate", "--json", path(c.file)});
        const std::vector<nlohmann::json> lines = json_lines(r.out);
        ASSERT_EQ(lines.size(), 3u) << c.file << r.out;
        const std::vector<std::string> names = {"a.bin", "session/unsorted.bin", "cut.bin"};
        for (std::size_t i = 0; i < names.size(); ++i) {
            nlohmann::json line = lines[i];
            EXPECT_EQ(line["path"], path(c.file) + "/" + names[i]);
            EXPECT_EQ(line["archive"], path(c.file));
            EXPECT_EQ(line["member"], names[i]);
            EXPECT_TRUE(line["member_ordinal"].is_number_unsigned());
            EXPECT_EQ(line["member_offset"].is_number(), c.in_place) << c.file << line;
            EXPECT_EQ(line["member_size"], lines[i]["bytes"]) << c.file;
            for (const char* key :
                 {"path", "archive", "member", "member_ordinal", "member_offset", "member_size"}) {
                line.erase(key);
            }
            nlohmann::json loose =
                json_lines(run({"validate", "--json", path("loose/" + names[i])}).out).at(0);
            loose.erase("path");
            EXPECT_EQ(line, loose) << c.file << " " << names[i];
        }
        // Ordinals count every entry of the archive, the skipped ones too, in order.
        EXPECT_LT(lines[0]["member_ordinal"], lines[1]["member_ordinal"]);
        EXPECT_LT(lines[1]["member_ordinal"], lines[2]["member_ordinal"]);
    }
}

TEST_F(ArchiveCli, AMemberInPlaceLiesAtItsOffsetInTheArchive) {
    const run_result r = run({"validate", "--json", path("take.tar")});
    const std::string tar = slurp(path("take.tar"));
    for (const nlohmann::json& line : json_lines(r.out)) {
        const auto at = line["member_offset"].get<std::size_t>();
        const auto size = line["member_size"].get<std::size_t>();
        const std::string loose = slurp(path("loose/" + line["member"].get<std::string>()));
        EXPECT_EQ(tar.substr(at, size), loose) << line["member"];
    }
}

TEST_F(ArchiveCli, EveryCommandThatTakesARecordingTakesAMemberNamedThroughItsArchive) {
    const std::vector<std::vector<std::string>> commands = {
        {"info"},    {"info", "--json"},
        {"dump"},    {"sample", "--rate", "20"},
        {"metrics"}, {"metrics", "--events", "pinches", "--csv"}};
    for (const container& c : containers) {
        for (const std::vector<std::string>& command : commands) {
            std::vector<std::string> args = command;
            args.push_back(path(c.file) + "/session/unsorted.bin");
            const run_result r = run(args);
            EXPECT_EQ(r.out, loose_output(command, "session/unsorted.bin", c.file))
                << c.file << " " << command[0] << r.err;
        }
    }
}

TEST_F(ArchiveCli, ExportAndConvertWriteWhatTheyWriteForTheLooseFile) {
    for (const container& c : containers) {
        const std::string member = path(c.file) + "/a.bin";
        for (const std::string& out : std::vector<std::string>{"x.glb", "x.anim"}) {
            ASSERT_EQ(run({"export", member, path("member." + out)}).status, 0) << c.file;
            ASSERT_EQ(run({"export", path("loose/a.bin"), path("loose." + out)}).status, 0);
            EXPECT_EQ(slurp(path("member." + out)), slurp(path("loose." + out))) << c.file << out;
        }
        const run_result converted = run({"convert", member, path("member.bin"), "--to", "1.0"});
        ASSERT_EQ(run({"convert", path("loose/a.bin"), path("loose.bin"), "--to", "1.0"}).status,
                  0);
        EXPECT_EQ(slurp(path("member.bin")), slurp(path("loose.bin"))) << c.file << converted.err;
    }
}

TEST_F(ArchiveCli, AnArchiveIsNeverTheOutputOfItsOwnMember) {
    for (const container& c : containers) {
        const std::string before = slurp(path(c.file));
        const std::string member = path(c.file) + "/a.bin";
        for (const std::vector<std::string>& args :
             {std::vector<std::string>{"convert", member, path(c.file)},
              std::vector<std::string>{"export", member, path(c.file), "--to", "glb"},
              std::vector<std::string>{"index", "--jsonl", path(c.file), member}}) {
            const run_result r = run(args);
            EXPECT_EQ(r.status, 2) << c.file << " " << args[0] << r.err;
            EXPECT_NE(r.err.find("not written: it is the archive that holds the input"),
                      std::string::npos)
                << r.err;
        }
        EXPECT_EQ(slurp(path(c.file)), before) << c.file;
    }
}

TEST_F(ArchiveCli, ADamagedArchiveGivesTheMembersBeforeTheDamageAndWhereItsWalkStopped) {
    // The tar cut inside the header of its third entry, after two headers and their bytes.
    const bytes tar =
        make_archive({{"a.bin", valid_}, {"b.bin", valid_}, {"c.bin", valid_}}, "ustar");
    const std::size_t third =
        512 + (valid_.size() + 511) / 512 * 512 + 512 + (valid_.size() + 511) / 512 * 512;
    write_file("cut.tar", bytes(tar.begin(), tar.begin() + static_cast<long>(third + 100)));
    const run_result r = run({"validate", path("cut.tar")});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(r.out, path("cut.tar") + "/a.bin: valid\n" + path("cut.tar") + "/b.bin: valid\n");
    EXPECT_NE(r.err.find(path("cut.tar") + ": invalid: archive_truncated at byte " +
                         std::to_string(third)),
              std::string::npos)
        << r.err;
    const std::vector<nlohmann::json> lines =
        json_lines(run({"validate", "--json", path("cut.tar")}).out);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[2]["path"], path("cut.tar"));
    EXPECT_EQ(lines[2]["valid"], false);
    EXPECT_EQ(lines[2]["error"]["code"], "archive_truncated");
    EXPECT_EQ(lines[2]["error"]["offset"], third);
}

TEST_F(ArchiveCli, NamesThatCouldForgeALineOrMoveTheCursorAreShownEscaped) {
    const std::string forged = "x\n" + path("take.tar") + "/a.bin: valid\x1b[2K.bin";
    const std::string not_utf8 = "\xff\xfe.bin";
    write_file("names.tar", make_archive({{forged, valid_}, {not_utf8, valid_}}, "pax"));
    const run_result r = run({"validate", path("names.tar")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(lines_of(r.out).size(), 2u) << r.out;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
    EXPECT_NE(r.out.find("/x\\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\\x1B[2K.bin: valid"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("/\\xFF\\xFE.bin: valid"), std::string::npos) << r.out;
    const std::vector<nlohmann::json> lines =
        json_lines(run({"validate", "--json", path("names.tar")}).out);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0]["member"], forged);
    EXPECT_FALSE(lines[0].contains("member_bytes"));
    EXPECT_EQ(lines[1]["member_bytes"], "fffe2e62696e");
}

TEST_F(ArchiveCli, AnArchiveOfNoRecordingsIsValidAndSaysWhatItSkipped) {
    write_file("docs.zip", make_archive({{"readme.txt", bytes(100, std::byte{'r'})}}, "zip"));
    const run_result r = run({"validate", path("docs.zip")});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("not read: 1 member that is not a recording"), std::string::npos) << r.err;
}
