// `inputanim serve` given a tar or a zip: POST /validate answers a JSON line per recording the
// archive holds, the lines `inputanim validate --json --upload-limits` prints for the same archive
// (named by the upload), whether the archive is known by its Content-Type or by its first bytes;
// a walk that stops says where, the archive budgets bound it, and the connection serves the next
// request after it. POST /view?member=NAME plays one member of an uploaded archive.
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "inputanim/generate.hpp"
#include "support/archives.hpp"
#include "support/generated.hpp"
#include "support/gzip_bytes.hpp"
#include "support/serve_client.hpp"

using namespace inputanim;
using namespace inputanim::testing;
using nlohmann::json;

namespace {

const bytes& take() {
    static const bytes b = [] {
        generate_options o;
        o.seconds = 2;
        o.markers = 2;
        return write(generated_model(o));
    }();
    return b;
}

class ServeArchives : public serve_fixture {
  protected:
    void SetUp() override {
        if (std::string_view(INPUTANIM_CURL).empty()) GTEST_SKIP() << "curl is not installed";
        cut_ = take();
        cut_.resize(cut_.size() / 3);
        entries_ = {
            {"a.bin", take()},
            {"session", {}, "directory"},
            {"session/cut.bin", cut_},
            {"notes.txt", bytes(40, std::byte{'n'})},
            {"b.bin.gz", gzip_compress(view(take()))},
        };
    }

    reply curl(std::vector<std::string> args) const {
        return curl_with(INPUTANIM_CURL, std::move(args));
    }

    // POSTs the file `name` to `target`, with extra curl arguments.
    reply post(const std::string& name, const std::string& target,
               const std::vector<std::string>& extra = {}) const {
        std::vector<std::string> args = {"--data-binary", "@" + path(name)};
        args.insert(args.end(), extra.begin(), extra.end());
        args.push_back(server_->url(target));
        return curl(args);
    }

    // What `inputanim validate --json --upload-limits OPTIONS... FILE` prints for the archive
    // `file`, with the archive's path replaced by `name`, as the server names an upload. A tar is
    // read as a stream and not kept: its lines give no offset into it (a zip is held whole, and
    // its members' offsets are where they lie in the body).
    std::vector<json> validate_lines(const std::string& file, const std::string& name,
                                     const std::vector<std::string>& options = {}) const {
        const bool streamed = slurp(path(file)).rfind("PK", 0) != 0;
        std::vector<std::string> args = {"validate", "--json", "--upload-limits"};
        args.insert(args.end(), options.begin(), options.end());
        args.push_back(path(file));
        std::vector<json> lines = json_lines(run(args).out);
        for (json& line : lines) {
            std::string p = line["path"].get<std::string>();
            EXPECT_EQ(p.rfind(path(file), 0), 0u) << p;
            line["path"] = name + p.substr(path(file).size());
            if (line.contains("archive")) line["archive"] = name;
            if (streamed && line.contains("member_offset")) line["member_offset"] = nullptr;
        }
        return lines;
    }

    bytes cut_;
    std::vector<archive_entry_spec> entries_;
};

struct container {
    const char* file;
    const char* format;
    const char* filter;
    bool deflate;
};

const std::vector<container> containers = {
    {"take.tar", "pax", "none", false},
    {"take.ustar", "ustar", "none", false},
    {"take.zip", "zip", "none", false},
    {"deflated.zip", "zip", "none", true},
};

}  // namespace

TEST_F(ServeArchives, AnArchiveKnownByItsFirstBytesGetsALinePerRecordingAsValidateJsonGives) {
    start();
    for (const container& c : containers) {
        write_file(c.file, make_archive(entries_, c.format, c.filter, c.deflate));
        const reply r = post(c.file, "/validate?name=upload." + std::string(c.file));
        EXPECT_EQ(r.status, 200) << c.file << r.body;
        EXPECT_NE(r.headers.find("Content-Type: application/x-ndjson"), std::string::npos)
            << r.headers;
        const std::vector<json> lines = json_lines(r.body);
        // a.bin, session/cut.bin and b.bin.gz; notes.txt is not a recording.
        ASSERT_EQ(lines.size(), 3u) << c.file << r.body;
        EXPECT_EQ(lines, validate_lines(c.file, "upload." + std::string(c.file))) << c.file;
        EXPECT_EQ(lines[0]["path"], "upload." + std::string(c.file) + "/a.bin");
        EXPECT_EQ(lines[0]["valid"], true);
        EXPECT_EQ(lines[1]["error"]["code"], "truncated");
        EXPECT_EQ(lines[2]["valid"], true);
    }
}

TEST_F(ServeArchives, ACompressedTarIsReadWhenItsContentTypeSaysTar) {
    write_file("take.tar.gz", make_archive(entries_, "ustar", "gzip"));
    start();
    for (const std::string type :
         {"application/x-tar", "application/x-gtar; charset=binary", "APPLICATION/TAR"}) {
        const reply r =
            post("take.tar.gz", "/validate?name=t.tgz", {"-H", "Content-Type: " + type});
        EXPECT_EQ(r.status, 200) << type << r.body;
        EXPECT_EQ(json_lines(r.body), validate_lines("take.tar.gz", "t.tgz")) << type;
    }
    // Without it, a gzip body is a .bin.gz, as it always was: one report, of what it inflates to.
    const reply r = post("take.tar.gz", "/validate?name=t.tgz");
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_NE(r.headers.find("Content-Type: application/json"), std::string::npos);
    EXPECT_EQ(r.object()["valid"], false) << r.body;
    EXPECT_EQ(r.object()["path"], "t.tgz");
}

TEST_F(ServeArchives, AZipSentWithAContentEncodingIsRefused) {
    write_file("take.zip", make_archive(entries_, "zip"));
    write_file("take.zip.gz", gzip_compress(view(make_archive(entries_, "zip"))));
    start();
    const reply r = post("take.zip.gz", "/validate",
                         {"-H", "Content-Type: application/zip", "-H", "Content-Encoding: gzip"});
    EXPECT_EQ(r.status, 415) << r.body;
    EXPECT_EQ(r.object()["error"], "unsupported_encoding");
}

TEST_F(ServeArchives, ABodyTypedAsAnArchiveThatIsNoneIsRefusedWithTheReason) {
    write_file("a.bin", take());
    start();
    const reply r = post("a.bin", "/validate", {"-H", "Content-Type: application/zip"});
    EXPECT_EQ(r.status, 422) << r.body;
    EXPECT_EQ(r.object()["error"], "not_an_archive");
    EXPECT_NE(r.object()["message"].get<std::string>().find("no zip archive"), std::string::npos);
}

TEST_F(ServeArchives, ADamagedTarGivesTheMembersBeforeTheDamageThenWhereItsWalkStopped) {
    const bytes whole = make_archive({{"a.bin", take()}, {"b.bin", take()}}, "ustar");
    const std::size_t second = 512 + (take().size() + 511) / 512 * 512;
    // The second header cut short.
    write_file("cut.tar", bytes(whole.begin(), whole.begin() + static_cast<long>(second + 100)));
    start();
    const reply r = post("cut.tar", "/validate?name=cut.tar");
    EXPECT_EQ(r.status, 200) << r.body;
    const std::vector<json> lines = json_lines(r.body);
    ASSERT_EQ(lines.size(), 2u) << r.body;
    EXPECT_EQ(lines, validate_lines("cut.tar", "cut.tar"));
    EXPECT_EQ(lines[0]["path"], "cut.tar/a.bin");
    EXPECT_EQ(lines[1]["path"], "cut.tar");
    EXPECT_EQ(lines[1]["error"]["code"], "archive_truncated");
    EXPECT_EQ(lines[1]["error"]["offset"], second);
}

TEST_F(ServeArchives, TheArchiveBudgetsStopAWalkAsTheyStopValidate) {
    std::vector<archive_entry_spec> many;
    for (int i = 0; i < 5; ++i) many.push_back({"m" + std::to_string(i) + ".bin", take()});
    write_file("many.tar", make_archive(many, "ustar"));
    write_file("many.zip", make_archive(many, "zip", "none", true));
    start({"--max-members", "3"});
    for (const char* file : {"many.tar", "many.zip"}) {
        const reply r = post(file, "/validate?name=many");
        EXPECT_EQ(r.status, 200) << r.body;
        const std::vector<json> lines = json_lines(r.body);
        EXPECT_EQ(lines, validate_lines(file, "many", {"--max-members", "3"})) << file;
        ASSERT_FALSE(lines.empty());
        EXPECT_EQ(lines.back()["path"], "many") << file;
        EXPECT_EQ(lines.back()["error"]["code"], "too_many_members") << file << lines.back();
    }
}

TEST_F(ServeArchives, AnArchivePastTheByteCeilingIsRefusedBeforeItsBodyIsRead) {
    write_file("take.zip", make_archive(entries_, "zip"));
    start({"--max-bytes", "1000"});
    const reply r = post("take.zip", "/validate");
    EXPECT_EQ(r.status, 413) << r.body;
}

TEST_F(ServeArchives, ATarStreamedInChunksPastTheByteCeilingEndsWithTheRefusalAsItsLastLine) {
    std::vector<archive_entry_spec> many;
    for (int i = 0; i < 8; ++i) many.push_back({"m" + std::to_string(i) + ".bin", take()});
    const std::string tar = as_text(make_archive(many, "ustar"));
    // Room for a few members, not for all of them: the ceiling is found mid-walk.
    const std::uint64_t ceiling = 3 * take().size();
    server_process& s = start({"--max-bytes", std::to_string(ceiling)});
    raw_client client(s.port());
    const std::string head =
        "POST /validate?name=many HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Transfer-Encoding: chunked\r\n\r\n";
    // The first member whole, then the rest once its line has come.
    const std::size_t first = take().size() + 2000;
    ASSERT_TRUE(client.send(head + chunk(tar.substr(0, first))));
    std::string in;
    const steady::time_point deadline = steady::now() + std::chrono::seconds(10);
    while (in.find("many/m0.bin") == std::string::npos && steady::now() < deadline) {
        in += client.read_some();
    }
    EXPECT_EQ(in.find("HTTP/1.1 200 OK"), 0u) << in;
    client.send(chunk(tar.substr(first)) + last_chunk);
    in += client.read_all(std::chrono::seconds(5));
    // The last line is the refusal a 413 carries, then the body's end.
    const std::size_t refusal = in.rfind("{\"bytes\"");
    ASSERT_NE(refusal, std::string::npos) << in;
    const json last = json::parse(in.substr(refusal, in.find('\n', refusal) - refusal));
    EXPECT_EQ(last["path"], "many");
    EXPECT_EQ(last["error"]["code"], "limit_exceeded") << last;
    EXPECT_EQ(last["error"]["limit"], "max_bytes");
    EXPECT_EQ(in.find("many/m7.bin"), std::string::npos) << in;
    EXPECT_NE(in.find("\r\n0\r\n\r\n", refusal), std::string::npos) << in;
}

TEST_F(ServeArchives, TheConnectionServesTheNextRequestAfterAZipsLines) {
    // A zip is held whole before its walk: its body is read before its first line.
    const bytes zip = make_archive(entries_, "zip");
    server_process& s = start();
    raw_client client(s.port());
    ASSERT_TRUE(
        client.send(request_head("/validate?name=t", zip.size()) + as_text(zip) + get("/healthz")));
    const std::string in = client.read_all(std::chrono::seconds(5));
    EXPECT_EQ(in.find("HTTP/1.1 200 OK"), 0u) << in;
    EXPECT_NE(in.find("Transfer-Encoding: chunked"), std::string::npos) << in;
    EXPECT_NE(in.find("\"path\":\"t/a.bin\""), std::string::npos) << in;
    // The last chunk, then the second response on the same connection.
    const std::size_t second = in.find("HTTP/1.1 200 OK", 1);
    ASSERT_NE(second, std::string::npos) << in;
    EXPECT_NE(in.rfind("\r\n0\r\n\r\n", second), std::string::npos);
    EXPECT_NE(in.find("ok", second), std::string::npos) << in;
}

TEST_F(ServeArchives, ATarWhoseLinesBeganBeforeItsBodyEndedClosesTheConnectionAfterThem) {
    const bytes tar = make_archive(entries_, "pax");
    server_process& s = start();
    raw_client client(s.port());
    // The first member whole (and some bytes more), the rest after its line has come.
    const std::size_t first = take().size() + 20000;
    ASSERT_LT(first, tar.size());
    ASSERT_TRUE(
        client.send(request_head("/validate?name=t", tar.size()) + as_text(tar).substr(0, first)));
    std::string in;
    const steady::time_point deadline = steady::now() + std::chrono::seconds(10);
    while (in.find("t/a.bin") == std::string::npos && steady::now() < deadline) {
        in += client.read_some();
    }
    EXPECT_NE(in.find("Connection: close"), std::string::npos) << in;
    ASSERT_TRUE(client.send(as_text(tar).substr(first) + get("/healthz")));
    in += client.read_all(std::chrono::seconds(5));
    EXPECT_TRUE(client.closed());
    EXPECT_NE(in.find("t/b.bin.gz"), std::string::npos) << in;
    EXPECT_NE(in.find("\r\n0\r\n\r\n"), std::string::npos) << in;
    EXPECT_EQ(in.find("HTTP/1.1 200 OK", 1), std::string::npos) << in;
}

TEST_F(ServeArchives, ArchivesWalkedAtOnceAreBoundedAndMoreAreAnswered503) {
    const bytes tar = make_archive({{"a.bin", take()}}, "ustar");
    server_process& s = start();
    // Four walks (the server's archive_walkers) that have their first header and wait for more.
    std::vector<std::unique_ptr<raw_client>> walking;
    for (int i = 0; i < 4; ++i) {
        walking.push_back(std::make_unique<raw_client>(s.port()));
        ASSERT_TRUE(walking.back()->send(
            request_head("/validate", tar.size(), "Content-Type: application/x-tar\r\n") +
            as_text(tar).substr(0, 1024)));
        EXPECT_EQ(walking.back()->peek(15), "HTTP/1.1 200 OK");
    }
    raw_client fifth(s.port());
    ASSERT_TRUE(
        fifth.send(request_head("/validate", tar.size(), "Content-Type: application/x-tar\r\n") +
                   as_text(tar)));
    const std::string refused = fifth.read_all(std::chrono::seconds(5));
    EXPECT_EQ(refused.find("HTTP/1.1 503"), 0u) << refused;
    EXPECT_NE(refused.find("\"busy\""), std::string::npos);
    // A walk that ends frees its place.
    ASSERT_TRUE(walking[0]->send(as_text(tar).substr(1024)));
    EXPECT_NE(walking[0]->read_all(std::chrono::seconds(2)).find("\"valid\":true"),
              std::string::npos);
    walking[0]->close();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    write_file("one.tar", tar);
    EXPECT_EQ(post("one.tar", "/validate", {"-H", "Content-Type: application/x-tar"}).status, 200);
}

TEST_F(ServeArchives, ViewPlaysTheMemberOfAnUploadedArchiveItNames) {
    write_file("take.zip", make_archive(entries_, "zip", "none", true));
    write_file("take.tar", make_archive(entries_, "pax"));
    write_file("a.bin", take());
    server_process& s = start();
    const reply loose = post("a.bin", "/view?name=a.bin");
    ASSERT_EQ(loose.status, 200) << loose.body;
    for (const char* file : {"take.zip", "take.tar"}) {
        const reply r = post(file, "/view?name=" + std::string(file) + "&member=a.bin");
        ASSERT_EQ(r.status, 200) << file << r.body;
        EXPECT_NE(r.headers.find("Content-Type: application/vnd.inputanim.view"),
                  std::string::npos);
        // The description (a length, then JSON), padded to four bytes, then the frames.
        const std::uint32_t length = static_cast<std::uint32_t>(
            static_cast<unsigned char>(r.body[0]) | static_cast<unsigned char>(r.body[1]) << 8 |
            static_cast<unsigned char>(r.body[2]) << 16 |
            static_cast<unsigned char>(r.body[3]) << 24);
        const json d = json::parse(r.body.substr(4, length));
        const std::uint32_t loose_length =
            static_cast<std::uint32_t>(static_cast<unsigned char>(loose.body[0]) |
                                       static_cast<unsigned char>(loose.body[1]) << 8 |
                                       static_cast<unsigned char>(loose.body[2]) << 16 |
                                       static_cast<unsigned char>(loose.body[3]) << 24);
        const json l = json::parse(loose.body.substr(4, loose_length));
        EXPECT_EQ(d["name"], std::string(file) + "/a.bin");
        EXPECT_EQ(d["report"]["valid"], true);
        EXPECT_EQ(d["curves"], l["curves"]);
        EXPECT_EQ(d["markers"], l["markers"]);
        EXPECT_EQ(d["frames"], l["frames"]);
        // The same frames, byte for byte.
        EXPECT_EQ(r.body.substr((4 + length + 3) / 4 * 4),
                  loose.body.substr((4 + loose_length + 3) / 4 * 4))
            << file;
    }
    EXPECT_TRUE(s.log_has("\"POST /view?name=take.tar&member=a.bin\" 200"));
}

TEST_F(ServeArchives, ViewOfAnArchiveSaysWhichMemberItNeedsAndWhyOneCannotBePlayed) {
    write_file("take.zip", make_archive(entries_, "zip"));
    write_file("take.tar", make_archive(entries_, "pax"));
    start();
    for (const char* file : {"take.zip", "take.tar"}) {
        const reply none = post(file, "/view");
        EXPECT_EQ(none.status, 400) << none.body;
        EXPECT_EQ(none.object()["error"], "member_required");
        const reply typed = post(file, "/view", {"-H", "Content-Type: application/zip"});
        EXPECT_EQ(typed.status, 400) << typed.body;
        const reply missing = post(file, "/view?member=nothing.bin");
        EXPECT_EQ(missing.status, 422) << missing.body;
        EXPECT_EQ(missing.object()["error"], "no_such_member");
    }
    const reply folder = post("take.tar", "/view?member=session");  // stored as session/
    EXPECT_EQ(folder.status, 422) << folder.body;
    EXPECT_EQ(folder.object()["error"], "not_a_file");
}
