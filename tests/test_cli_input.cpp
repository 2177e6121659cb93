// Every command through the front door: each of info, validate, index, dump and sample given a
// plain recording, its gzip, `-` from a pipe, a FIFO, a folder, a damaged gzip and a gzip of
// 512 MiB of zeros gives its documented verdict and exit status, in seconds and in bounded
// memory. Memory: the peak RSS of the command (wait4's rusage) may exceed that of the same
// command on the small valid file by at most 64 MiB (an absolute figure would measure the
// sanitizers' own reservations, not the input).
#include <sys/stat.h>

#include <chrono>
#include <string>
#include <vector>

#include "support/cli_fixture.hpp"
#include "support/gzip_bytes.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

class CliInput : public cli_fixture {
  protected:
    void SetUp() override {
        raw_ = write(without_warnings(small_model(shape::v11_compact)));
        write_file("a.bin", raw_);
        write_file("a.bin.gz", gzip_compress(raw_));
        bytes damaged = gzip_compress(raw_);
        damaged.resize(damaged.size() / 2);
        write_file("cut.bin.gz", damaged);
        write_file("bomb.bin.gz", gzip_of_zeros(512));
        ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
        std::filesystem::create_directory(path("folder"));
    }

    // The arguments of `command` with `file` as its input.
    std::vector<std::string> args(const std::string& command, const std::string& file) const {
        if (command == "index") return {"index", "--jsonl", path("index.jsonl"), file};
        if (command == "sample") return {"sample", "--rate", "10", file};
        return {command, file};
    }

    // Runs `command` on `input` ("pipe": `-` with the plain file piped into standard input).
    run_result run_on(const std::string& command, const std::string& input) const {
        if (input != "pipe") return run(args(command, path(input)));
        std::string line = "cat '" + path("a.bin") + "' | exec '" + INPUTANIM_CLI + "'";
        for (const std::string& a : args(command, "-")) line += " '" + a + "'";
        return run_process({"/bin/sh", "-c", line}, {scratch_.path(), false});
    }

    bytes raw_;
};

struct expectation {
    const char* input;
    // info/validate/dump/sample, then index.
    int status;
    int index_status;
    // Part of what the command prints on stderr (info/validate/dump/sample); "" for nothing.
    const char* diagnostic;
};

TEST_F(CliInput, EveryCommandGivesTheDocumentedVerdictForEveryKindOfInput) {
    const std::vector<expectation> table = {
        {"a.bin", 0, 0, ""},
        {"a.bin.gz", 0, 0, ""},
        {"pipe", 0, 0, ""},
        // Refused at once (no writer would ever come): not a file to read.
        {"fifo", 3, 0, "not a regular file (a FIFO); use - to read standard input"},
        // index walks a folder (an empty one: nothing to index).
        {"folder", 3, 0, "Is a directory"},
        {"cut.bin.gz", 1, 1, "bad_compression"},
        {"bomb.bin.gz", 1, 1, "bad_magic at byte 0"},
    };
    for (const char* command : {"info", "validate", "index", "dump", "sample"}) {
        const long baseline = run_on(command, "a.bin").peak_rss_kib;
        for (const expectation& e : table) {
            const auto start = std::chrono::steady_clock::now();
            const run_result r = run_on(command, e.input);
            const auto took = std::chrono::steady_clock::now() - start;
            const std::string what = std::string(command) + " " + e.input;
            const bool index = std::string(command) == "index";
            EXPECT_EQ(r.status, index ? e.index_status : e.status) << what << ": " << r.err;
            const bool to_stderr =
                std::string(command) == "dump" || std::string(command) == "sample" || e.status == 3;
            if (!index && *e.diagnostic != '\0') {
                EXPECT_NE((to_stderr ? r.err : r.out).find(e.diagnostic), std::string::npos)
                    << what << ": " << r.out << r.err;
            }
            // A hang guard, not a measure of speed.
            EXPECT_LT(took, std::chrono::seconds(20)) << what;
            EXPECT_LE(r.peak_rss_kib - baseline, 64 * 1024) << what;
        }
    }
}

TEST_F(CliInput, IndexListsGzipRecordingsFoundByTheWalkAndSkipsOtherGzipFiles) {
    std::filesystem::create_directory(path("walk"));
    write_file("walk/a.bin.gz", gzip_compress(raw_));
    write_file("walk/notes.gz", gzip_compress(bytes(100, std::byte{'x'})));
    const run_result r = run({"index", "--jsonl", path("out.jsonl"), path("walk")});
    EXPECT_EQ(r.status, 0) << r.err;
    const std::vector<std::string> rows = lines_of(slurp(path("out.jsonl")));
    ASSERT_EQ(rows.size(), 1u);
    const nlohmann::json j = nlohmann::json::parse(rows[0]);
    EXPECT_EQ(j["path"], path("walk/a.bin.gz"));
    EXPECT_EQ(j["valid"], true);
    EXPECT_EQ(j["bytes"], raw_.size());
}

TEST_F(CliInput, DumpAndSampleOfAGzipOrAPipeGiveThePlainFilesOutput) {
    for (const char* command : {"dump", "sample"}) {
        const run_result plain = run_on(command, "a.bin");
        ASSERT_EQ(plain.status, 0) << plain.err;
        EXPECT_GT(plain.out.size(), 100u);
        const run_result packed = run_on(command, "a.bin.gz");
        const run_result piped = run_on(command, "pipe");
        if (std::string(command) == "sample") {
            EXPECT_EQ(packed.out, plain.out);
            EXPECT_EQ(piped.out, plain.out);
        } else {
            // dump's JSON names the file: compare the keyframe tables.
            EXPECT_EQ(nlohmann::json::parse(packed.out)["curves"],
                      nlohmann::json::parse(plain.out)["curves"]);
            EXPECT_EQ(nlohmann::json::parse(piped.out)["curves"],
                      nlohmann::json::parse(plain.out)["curves"]);
        }
    }
}

}  // namespace
