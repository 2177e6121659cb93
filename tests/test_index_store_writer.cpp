// The database's writes of an index run on a thread of their own (tools/index/store_writer.hpp):
// rows written in the order they were handed over, more of them than may wait at once; a use of
// the database after the rows sees them; a write that fails is thrown on the caller's thread and
// stops the writing; a writer dropped with rows waiting stops without them.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "index/sqlite_store.hpp"
#include "index/store_writer.hpp"
#include "inputanim/inputanim.hpp"
#include "report/report_json.hpp"
#include "support/builders.hpp"
#include "support/run_process.hpp"
#include "support/sqlite_database.hpp"

using namespace inputanim;
using namespace inputanim::tools;
using namespace inputanim::testing;

namespace {

constexpr std::int64_t indexed_at = 1'700'000'000'000'000'000;

file_result result_of(const std::string& path) {
    file_result r;
    r.path = path;
    r.rep = validate(view(small_file(shape::v10)));
    r.bytes = 1;
    return r;
}

std::string line_of(const std::string& path) {
    return json_line(path, {{"valid", true}});
}

class StoreWriter : public ::testing::Test {
  protected:
    std::string file() const { return (folder_.path() / "index.sqlite").string(); }
    const std::string options = options_json({}).dump();

    // The paths of table recordings, in the order their rows were inserted.
    std::vector<std::string> paths_in_order() {
        std::vector<std::string> paths;
        database db(file());
        for (const nlohmann::json& r : db.query("SELECT path FROM recordings ORDER BY rowid")) {
            paths.push_back(r["path"]);
        }
        return paths;
    }

  private:
    scratch_folder folder_;
};

}  // namespace

TEST_F(StoreWriter, RowsAreWrittenInTheOrderTheyWereHandedOverMoreThanMayWaitAtOnce) {
    std::vector<std::string> expected;
    {
        sqlite_store store(file(), false);
        store_writer writer(store, options);
        EXPECT_FALSE(writer.refusal());
        for (std::size_t i = 0; i < 3 * store_writer::max_waiting + 7; ++i) {
            const std::string path = "take-" + std::to_string(i) + ".bin";
            writer.put(result_of(path), line_of(path), indexed_at);
            expected.push_back(path);
        }
        writer.locked([](sqlite_store& s) { s.finish(); }, true);
    }
    EXPECT_EQ(paths_in_order(), expected);
}

TEST_F(StoreWriter, AUseAfterTheRowsSeesEveryRowHandedOverBefore) {
    sqlite_store store(file(), false);
    store_writer writer(store, options);
    for (const char* path : {"a.bin", "b.bin", "c.bin"}) {
        writer.put(result_of(path), line_of(path), indexed_at);
    }
    const std::optional<known_file> known =
        writer.locked([](sqlite_store& s) { return s.lookup("c.bin"); }, true);
    ASSERT_TRUE(known);
    EXPECT_EQ(known->report, line_of("c.bin"));
    EXPECT_EQ(known->options, options);
    writer.locked([](sqlite_store& s) { s.finish(); }, true);
}

TEST_F(StoreWriter, AWriteThatFailsIsThrownOnTheCallersThreadAndStopsTheWriting) {
    {
        sqlite_store made(file(), false);
        made.finish();
    }
    {
        database db(file());
        db.query(
            "CREATE TRIGGER refuse BEFORE INSERT ON recordings WHEN NEW.path = 'bad.bin' "
            "BEGIN SELECT RAISE(ABORT, 'bad.bin refused'); END");
    }
    sqlite_store store(file(), false);
    store_writer writer(store, options);
    writer.put(result_of("a.bin"), line_of("a.bin"), indexed_at);
    writer.put(result_of("bad.bin"), line_of("bad.bin"), indexed_at);
    writer.put(result_of("c.bin"), line_of("c.bin"), indexed_at);
    try {
        writer.flush();
        ADD_FAILURE() << "the refused write was not thrown";
    } catch (const store_error& e) {
        EXPECT_NE(std::string(e.what()).find("bad.bin refused"), std::string::npos) << e.what();
    }
    // Every later call says so too.
    EXPECT_THROW(writer.put(result_of("d.bin"), line_of("d.bin"), indexed_at), store_error);
    EXPECT_THROW(writer.locked([](sqlite_store& s) { return s.lookup("a.bin"); }), store_error);
}

TEST_F(StoreWriter, AWriterDroppedWithRowsWaitingStopsWithoutWritingThem) {
    {
        sqlite_store store(file(), false);
        store_writer writer(store, options);
        for (std::size_t i = 0; i < store_writer::max_waiting; ++i) {
            const std::string path = "take-" + std::to_string(i) + ".bin";
            writer.put(result_of(path), line_of(path), indexed_at);
        }
        // Neither flushed nor finished: the run was abandoned.
    }
    EXPECT_TRUE(paths_in_order().empty()) << "nothing was committed";
}
