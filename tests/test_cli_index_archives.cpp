// `inputanim index` over archives: a tar, tar.gz or zip found in a folder or named is indexed
// member by member, each recording's row the loose file's with the archive and the member's
// place; members of one name keep a row each; a damaged archive keeps the rows of the members
// before the damage and a row of its own that says where its walk stopped; the database skips an
// unchanged archive whole and reads a changed one again, dropping the rows of members gone; the
// shards of one archive add up to its index; schemas before archives migrate, and merge refuses
// a mix of schemas; a gzip member, inflated as it was checked, says why it is not measured.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/archives.hpp"
#include "support/gzip_bytes.hpp"
#include "support/index_cli.hpp"
#include "support/sqlite_database.hpp"

using namespace inputanim;
using namespace inputanim::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> member_fields = {"archive", "member", "member_ordinal",
                                                "member_offset", "member_size"};

class IndexArchives : public IndexCli {
  protected:
    void SetUp() override {
        IndexCli::SetUp();
        valid_ = write(quiet_model(shape::v11_compact));
        warned_ = write(warning_model());
        bad_ = bad_wrap_file();
        v10_ = write(quiet_model(shape::v10));
    }

    // The entries of the archives the tests make: recordings of every verdict, and members that
    // are none.
    std::vector<archive_entry_spec> entries() const {
        return {{"valid.bin", valid_},
                {"dir", {}, "directory"},
                {"dir/warned.bin", warned_},
                {"notes.txt", text_bytes("not a recording\n")},
                {"dir/bad.bin", bad_},
                {"link.bin", {}, "symlink", "valid.bin"},
                {"v10.bin", v10_}};
    }

    // The rows of `index --jsonl - ARGS...`, by path, and the run.
    std::map<std::string, json> rows(const std::vector<std::string>& args, run_result* r = nullptr,
                                     int expected_status = 1) {
        std::vector<std::string> all = {"index", "--jsonl", "-"};
        all.insert(all.end(), args.begin(), args.end());
        const run_result ran = run(all);
        EXPECT_EQ(ran.status, expected_status) << ran.err;
        if (r) *r = ran;
        return by_path(json_lines(ran.out));
    }

    // The row `validate --json`-style fields a loose file with these bytes gets from index.
    json loose_row(const bytes& b) {
        const std::string loose = write_file(path("loose/x.bin"), b);
        json row = json_lines(run({"index", "--jsonl", "-", loose}).out).at(0);
        row.erase("path");
        return row;
    }

    static json without_member(json row) {
        row.erase("path");
        for (const std::string& f : member_fields) row.erase(f);
        return row;
    }

    bytes valid_, warned_, bad_, v10_;
};

}  // namespace

TEST_F(IndexArchives, EachRecordingInAnArchiveFoundInAFolderHasTheRowOfItsBytesLoose) {
    for (const auto& [name, format, filter, deflate] :
         {std::tuple{"a.tar", "pax", "none", false}, std::tuple{"a.tar.gz", "ustar", "gzip", false},
          std::tuple{"a.tar.zst", "gnutar", "zstd", false},
          std::tuple{"a.zip", "zip", "none", false}, std::tuple{"d.zip", "zip", "none", true}}) {
        const std::string archive = write_file(in_data(std::string("sub/") + name),
                                               make_archive(entries(), format, filter, deflate));
        run_result r;
        const std::map<std::string, json> found = rows({data()}, &r);
        ASSERT_EQ(found.size(), 4u) << name << r.out;
        const std::vector<std::pair<std::string, const bytes*>> expected = {
            {"valid.bin", &valid_},
            {"dir/warned.bin", &warned_},
            {"dir/bad.bin", &bad_},
            {"v10.bin", &v10_}};
        for (const auto& [member, content] : expected) {
            const json& row = found.at(archive + "/" + member);
            EXPECT_EQ(row["archive"], archive);
            EXPECT_EQ(row["member"], member);
            EXPECT_EQ(row["member_size"], content->size());
            EXPECT_EQ(row["member_offset"].is_number(), std::string(filter) == "none" && !deflate)
                << name;
            EXPECT_EQ(without_member(row), loose_row(*content)) << name << " " << member;
        }
        // The others are counted as a folder's other files are.
        const totals t = totals_of(r.err);
        EXPECT_EQ(t.recordings, 4);
        EXPECT_EQ(t.invalid, 1);
        EXPECT_EQ(t.other, 3) << r.err;
        EXPECT_EQ(t.archives, 1);
        fs::remove(archive);
    }
}

TEST_F(IndexArchives, WithoutArchivesAnArchiveIsSomeOtherFile) {
    const std::string archive = write_file(in_data("a.tar"), make_archive(entries(), "pax"));
    run_result r;
    EXPECT_TRUE(rows({"--no-archives", data()}, &r, 0).empty());
    EXPECT_EQ(totals_of(r.err).other, 1);
    // Named, it is indexed as any named file is: by its reading.
    const std::map<std::string, json> named = rows({"--no-archives", archive});
    EXPECT_EQ(named.at(archive)["error"]["code"], "bad_magic");
}

TEST_F(IndexArchives, MembersOfOneNameKeepARowEachInJsonLinesAndTheDatabase) {
    const std::string archive =
        write_file(in_data("dup.tar"), make_archive({{"a.bin", valid_}, {"a.bin", bad_}}, "ustar"));
    const std::string db = path("index.sqlite");
    const run_result r = run({"index", "--jsonl", "-", "--sqlite", db, data()});
    EXPECT_EQ(r.status, 1) << r.err;
    const std::vector<json> lines = json_lines(r.out);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0]["path"], lines[1]["path"]);
    EXPECT_EQ(lines[0]["member_ordinal"], 0);
    EXPECT_EQ(lines[1]["member_ordinal"], 1);
    EXPECT_TRUE(lines[0]["valid"]);
    EXPECT_FALSE(lines[1]["valid"]);
    database d(db);
    const std::vector<json> stored =
        d.query("SELECT member_ordinal, valid FROM recordings ORDER BY member_ordinal");
    ASSERT_EQ(stored.size(), 2u);
    EXPECT_EQ(stored[0]["valid"], 1);
    EXPECT_EQ(stored[1]["valid"], 0);
    // The name opens the last of them, as extracting the archive would leave it.
    EXPECT_EQ(run({"validate", archive + "/a.bin"}).status, 1);
}

TEST_F(IndexArchives, ADamagedArchiveKeepsTheRowsBeforeTheDamageAndOneThatSaysWhere) {
    bytes tar = make_archive({{"a.bin", valid_}, {"b.bin", v10_}, {"c.bin", valid_}}, "ustar");
    const std::size_t third =
        512 + (valid_.size() + 511) / 512 * 512 + 512 + (v10_.size() + 511) / 512 * 512;
    tar.resize(third + 100);
    const std::string archive = write_file(in_data("cut.tar"), tar);
    const std::string db = path("index.sqlite");
    run_result r;
    std::map<std::string, json> found = rows({"--sqlite", db, data()}, &r);
    ASSERT_EQ(found.size(), 3u) << r.out;
    EXPECT_TRUE(found.at(archive + "/a.bin")["valid"]);
    EXPECT_TRUE(found.at(archive + "/b.bin")["valid"]);
    const json& stopped = found.at(archive);
    EXPECT_FALSE(stopped["valid"]);
    EXPECT_EQ(stopped["archive"], archive);
    EXPECT_TRUE(stopped["member"].is_null());
    EXPECT_EQ(stopped["member_ordinal"], 2);
    EXPECT_EQ(stopped["error"]["code"], "archive_truncated");
    EXPECT_EQ(stopped["error"]["offset"], third);
    totals t = totals_of(r.err);
    EXPECT_EQ(t.recordings, 2);
    EXPECT_EQ(t.invalid, 1);
    EXPECT_EQ(t.stopped, 1);
    // Unchanged, its rows come from the database, the stopped walk's too, in the same order.
    run_result again;
    const std::map<std::string, json> replayed = rows({"--sqlite", db, data()}, &again);
    EXPECT_EQ(replayed, found);
    EXPECT_EQ(json_lines(again.out), json_lines(r.out));
    t = totals_of(again.err);
    EXPECT_EQ(t.unchanged, 2);
    EXPECT_EQ(t.stopped, 1);
}

TEST_F(IndexArchives, AnUnchangedArchiveIsSkippedWholeAndAChangedOneReadAgain) {
    const std::string archive = write_file(in_data("a.tar"), make_archive(entries(), "pax"));
    const std::string db = path("index.sqlite");
    run_result first;
    const std::map<std::string, json> before = rows({"--sqlite", db, data()}, &first);
    run_result second;
    EXPECT_EQ(rows({"--sqlite", db, data()}, &second), before);
    totals t = totals_of(second.err);
    EXPECT_EQ(t.unchanged, 4);
    EXPECT_EQ(t.other, totals_of(first.err).other);
    EXPECT_EQ(t.files, totals_of(first.err).files);

    // Written again with one member fewer (and a new mtime): the rows of the members gone go.
    write_file(archive, make_archive({{"valid.bin", valid_}, {"v10.bin", v10_}}, "pax"));
    fs::last_write_time(archive, fs::last_write_time(archive) + std::chrono::seconds(5));
    run_result third;
    const std::map<std::string, json> after = rows({"--sqlite", db, data()}, &third, 0);
    EXPECT_EQ(after.size(), 2u);
    EXPECT_EQ(totals_of(third.err).unchanged, 0);
    database d(db);
    EXPECT_EQ(d.paths(), (std::vector<std::string>{archive + "/v10.bin", archive + "/valid.bin"}));

    // Replaced by a recording of the same name: a file's row, none of the archive's.
    write_file(archive, valid_);
    fs::last_write_time(archive, fs::last_write_time(archive) + std::chrono::seconds(10));
    ASSERT_EQ(run({"index", "--sqlite", db, data()}).status, 0);
    EXPECT_EQ(d.paths(), std::vector<std::string>{archive});
    EXPECT_TRUE(d.query("SELECT * FROM archives").empty());
    // And back to an archive.
    write_file(archive, make_archive({{"v10.bin", v10_}}, "zip"));
    fs::last_write_time(archive, fs::last_write_time(archive) + std::chrono::seconds(15));
    ASSERT_EQ(run({"index", "--sqlite", db, data()}).status, 0);
    EXPECT_EQ(d.paths(), std::vector<std::string>{archive + "/v10.bin"});
}

TEST_F(IndexArchives, PruneDeletesTheRowsOfAnArchiveThatIsGone) {
    const std::string archive = write_file(in_data("a.zip"), make_archive(entries(), "zip"));
    const std::string kept = write_file(in_data("kept.bin"), valid_);
    const std::string db = path("index.sqlite");
    ASSERT_EQ(run({"index", "--sqlite", db, data()}).status, 1);
    fs::remove(archive);
    const run_result r = run({"index", "--sqlite", db, "--prune", data()});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(totals_of(r.err).pruned, 4);
    database d(db);
    EXPECT_EQ(d.paths(), std::vector<std::string>{kept});
    EXPECT_TRUE(d.query("SELECT * FROM archives").empty());
}

TEST_F(IndexArchives, TheShardsOfOneArchiveAddUpToItsIndex) {
    std::vector<archive_entry_spec> many;
    for (int i = 0; i < 40; ++i) many.push_back({"m" + std::to_string(i) + ".bin", valid_});
    write_file(in_data("big.tar"), make_archive(many, "ustar"));
    write_file(in_data("loose.bin"), v10_);
    const std::map<std::string, json> whole = rows({data()}, nullptr, 0);
    ASSERT_EQ(whole.size(), 41u);
    std::map<std::string, json> joined;
    std::vector<std::string> shards;
    for (int k = 0; k < 3; ++k) {
        const std::string db = path("shard" + std::to_string(k) + ".sqlite");
        shards.push_back(db);
        const std::map<std::string, json> part =
            rows({"--shard", std::to_string(k) + "/3", "--sqlite", db, data()}, nullptr, 0);
        EXPECT_LT(part.size(), whole.size());
        for (const auto& [p, row] : part) EXPECT_TRUE(joined.emplace(p, row).second) << p;
    }
    EXPECT_EQ(joined, whole);
    std::vector<std::string> merge = {"index", "merge", path("merged.sqlite")};
    merge.insert(merge.end(), shards.begin(), shards.end());
    const run_result merged = run(merge);
    ASSERT_EQ(merged.status, 0) << merged.err;
    database d(path("merged.sqlite"));
    EXPECT_EQ(d.paths().size(), 41u);
    // The merged index holds the archive walked whole: a run over it reads nothing again.
    const run_result again = run({"index", "--sqlite", path("merged.sqlite"), data()});
    EXPECT_EQ(totals_of(again.err).unchanged, 41) << again.err;
}

TEST_F(IndexArchives, AnIndexOfSchemaThreeMigratesAndMergeRefusesAMixOfSchemas) {
    write_file(in_data("a.bin"), valid_);
    const std::string db = path("old.sqlite");
    ASSERT_EQ(run({"index", "--sqlite", db, data()}).status, 0);
    const json before = database(db).row(in_data("a.bin"));
    database(db).make_schema_3();
    const std::string old_copy = path("old-copy.sqlite");
    fs::copy_file(db, old_copy);

    const run_result merged = run({"index", "merge", path("new.sqlite"), old_copy});
    EXPECT_EQ(merged.status, 1);
    EXPECT_NE(merged.err.find("but of schema 3 (a mix of schemas is not merged"), std::string::npos)
        << merged.err;
    EXPECT_FALSE(fs::exists(path("new.sqlite")));

    write_file(in_data("t.tar"), make_archive({{"v10.bin", v10_}}, "ustar"));
    const run_result r = run({"index", "--sqlite", db, data()});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(totals_of(r.err).unchanged, 1) << "the rows of schema 3 are still good";
    database d(db);
    EXPECT_EQ(d.query("PRAGMA user_version")[0]["user_version"], 4);
    EXPECT_EQ(d.row(in_data("a.bin")), before);
    EXPECT_EQ(d.paths().size(), 2u);
    EXPECT_EQ(d.integrity(), "ok");
}

TEST_F(IndexArchives, EncryptedAndUnsupportedMembersHaveARowWithTheirCode) {
    hand_zip z = make_zip({{"secret.bin", valid_}, {"shrunk.bin", valid_}});
    // Flag bit 0 (encrypted) on the first entry; method 1 (shrink) on the second, in both
    // headers.
    put_u16(z.file, z.local[0] + 6, 1);
    const std::uint64_t central = z.directory;
    put_u16(z.file, central + 8, 1);
    put_u16(z.file, z.local[1] + 8, 1);
    const std::uint64_t second_central = central + 46 + std::string("secret.bin").size();
    put_u16(z.file, second_central + 10, 1);
    write_file(in_data("odd.zip"), z.file);
    const std::vector<json> lines = json_lines(run({"index", "--jsonl", "-", data()}).out);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0]["error"]["code"], "encrypted_member");
    EXPECT_EQ(lines[1]["error"]["code"], "unsupported_method");
}

TEST_F(IndexArchives, AGzipMemberInflatedAsItWasCheckedSaysWhyItIsNotMeasured) {
    const std::string archive =
        write_file(in_data("a.tar"), make_archive({{"a.bin.gz", gzip_compress(valid_)}}, "ustar"));
    const std::map<std::string, json> found = rows({"--metrics", archive}, nullptr, 0);
    const json& row = found.at(archive + "/a.bin.gz");
    EXPECT_TRUE(row["valid"].get<bool>());
    EXPECT_TRUE(row["metrics"].is_null());
    EXPECT_EQ(row["metrics_error"],
              json({{"code", "not_measured"},
                    {"message",
                     "a member inflated as it was checked (gzip, or past 64 MiB in a compressed "
                     "archive) is not held to be measured; measure it with inputanim metrics "
                     "ARCHIVE/MEMBER"}}));
}
