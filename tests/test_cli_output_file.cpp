// The one way the command writes a file (tools/inputanim/output_file.hpp), through every command
// that writes one (convert OUT, gen -o, index --jsonl): where the name leads decides how it is
// written; links, devices and FIFOs are written through, never replaced; a replaced file keeps
// its permission bits; an interrupted command leaves no temporary file and the old file as it was.
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "support/cli_fixture.hpp"
#include "support/generated.hpp"
#include "support/gzip_bytes.hpp"

using namespace inputanim;
using namespace inputanim::testing;
namespace fs = std::filesystem;

namespace {

class OutputFile : public cli_fixture {
  protected:
    // The names in the scratch folder, sorted.
    std::vector<std::string> names() const {
        std::vector<std::string> found;
        for (const auto& e : fs::directory_iterator(path(""))) {
            found.push_back(e.path().filename().string());
        }
        std::sort(found.begin(), found.end());
        return found;
    }
    bool has_temporary_of(const std::string& name) const {
        for (const std::string& n : names()) {
            if (n.starts_with("." + name + ".")) return true;
        }
        return false;
    }
    run_result shell(const std::string& line) const {
        return run_process({"/bin/sh", "-c", line}, {path(""), false});
    }
    // `inputanim ARGS...` started in the background, its signals at their default actions.
    pid_t start(const std::vector<std::string>& args) const {
        std::vector<std::string> argv = {INPUTANIM_CLI};
        argv.insert(argv.end(), args.begin(), args.end());
        return start_process(argv);
    }
    // Starts `args`, waits until the temporary file of `name` exists (so the output is being
    // written), sends `signal_number`, and expects the process to end by that signal (a shell
    // reports 128 + its number) with no temporary file left.
    void interrupt_while_writing(const std::vector<std::string>& args, const std::string& name,
                                 int signal_number) const {
        const pid_t pid = start(args);
        ASSERT_GT(pid, 0);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
        bool writing = false;
        while (!writing && std::chrono::steady_clock::now() < deadline) {
            writing = has_temporary_of(name);
            if (!writing) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        EXPECT_TRUE(writing) << "no temporary file of " << name << " appeared";
        ::kill(pid, writing ? signal_number : SIGKILL);
        int status = 0;
        ASSERT_EQ(::waitpid(pid, &status, 0), pid);
        ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << WEXITSTATUS(status);
        EXPECT_EQ(WTERMSIG(status), signal_number) << strsignal(signal_number);
        EXPECT_FALSE(has_temporary_of(name)) << strsignal(signal_number);
    }
};

bytes text_bytes_of(const std::string& text) {
    const auto b = std::as_bytes(std::span(text.data(), text.size()));
    return bytes(b.begin(), b.end());
}

bytes read_bytes(const std::string& name) {
    return text_bytes_of(slurp(name));
}

unsigned mode_of(const std::string& name) {
    struct stat st {};
    EXPECT_EQ(::stat(name.c_str(), &st), 0) << name;
    return st.st_mode & 07777;
}

bool is_link(const std::string& name) {
    return fs::is_symlink(fs::symlink_status(name));
}

// A v1.1 compact recording whose last curve holds `keys` keys all at time 0: structurally sound
// (converted with --level structure), large once inflated, and a few hundred KiB as gzip.
bytes zero_keys_gzip(std::int32_t keys) {
    model m = empty_model(shape::v11_compact);
    m.markers.reset();
    m[gaze_curve(ray_channel::direction_z)].keys = {keyframe{}};
    bytes b = write(m);
    // The file ends with the last curve's one compact key (8 bytes), after its key count.
    const std::size_t count_at = b.size() - 8 - 4;
    EXPECT_EQ(get_i32(b, count_at), 1);
    put_i32(b, count_at, keys);
    b.resize(b.size() + (static_cast<std::size_t>(keys) - 1) * 8);
    return gzip_compress(view(b), 1);
}

}  // namespace

// --- where the name leads
// -----------------------------------------------------------------------------------

TEST_F(OutputFile, ALinkToStandardOutputIsWrittenThroughAndNeverReplaced) {
    const bytes source = generated();
    const std::string in = write_file("in.bin", source);
    const std::string expected = slurp(in);
    ASSERT_NO_THROW(fs::create_symlink("/dev/stdout", path("out-link")));

    // Standard output a regular file (the fixture's): written to it, the link left a link. (The
    // name /dev/stdout itself takes the same way; a test does not risk the machine's own node.)
    for (const std::string& name : {path("out-link"), std::string("/proc/self/fd/1")}) {
        const run_result r = run({"convert", in, name});
        EXPECT_EQ(r.status, 0) << name << ": " << r.err;
        EXPECT_TRUE(r.out == expected) << name;
    }
    EXPECT_TRUE(is_link(path("out-link")));
    EXPECT_EQ(fs::read_symlink(path("out-link")), "/dev/stdout");
    EXPECT_EQ(names(), (std::vector<std::string>{"in.bin", "out-link"}));

    // Appending to standard output appends, as the shell's >> asks.
    const std::string log = write_file("log.bin", text_bytes_of("head"));
    const std::string command =
        "'" + std::string(INPUTANIM_CLI) + "' convert '" + in + "' '" + path("out-link") + "'";
    const run_result appended = shell(command + " >> '" + log + "'");
    EXPECT_EQ(appended.status, 0) << appended.err;
    EXPECT_TRUE(slurp(log) == "head" + expected);

    // Standard output a pipe: the link leads to the pipe, which is written through.
    const run_result piped = shell(command + " | cat > '" + path("piped.bin") + "'");
    EXPECT_EQ(piped.status, 0) << piped.err;
    EXPECT_TRUE(slurp(path("piped.bin")) == expected);
    EXPECT_TRUE(is_link(path("out-link")));

    // Every writer takes the same way.
    const run_result gen = run({"gen", "-o", path("out-link"), "--seconds", "1"});
    EXPECT_EQ(gen.status, 0) << gen.err;
    EXPECT_TRUE(validate(std::as_bytes(std::span(gen.out.data(), gen.out.size()))).valid());
    write_file("data/a.bin", source);
    const run_result index = run({"index", "--jsonl", path("out-link"), path("data")});
    EXPECT_EQ(index.status, 0) << index.err;
    EXPECT_EQ(json_lines(index.out).size(), 1u) << index.out;
    EXPECT_TRUE(is_link(path("out-link")));
}

TEST_F(OutputFile, ALinkToARegularFileReplacesThatFileAndStaysALink) {
    const bytes source = generated();
    const std::string in = write_file("in.bin", source);
    const std::string target = write_file("real/target.bin", text_bytes_of("old"));
    ASSERT_EQ(::chmod(target.c_str(), 0640), 0);
    ASSERT_NO_THROW(fs::create_symlink("real/target.bin", path("link.bin")));

    const run_result r = run({"convert", in, path("link.bin")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(is_link(path("link.bin")));
    EXPECT_TRUE(slurp(target) == slurp(in));
    EXPECT_EQ(mode_of(target), 0640u);
    EXPECT_EQ(names(), (std::vector<std::string>{"in.bin", "link.bin", "real"}));

    // A link that leads nowhere yet: the file it names is created, the link stays.
    ASSERT_NO_THROW(fs::create_symlink("real/new.bin", path("dangling.bin")));
    ASSERT_EQ(run({"gen", "-o", path("dangling.bin"), "--seconds", "1"}).status, 0);
    EXPECT_TRUE(is_link(path("dangling.bin")));
    EXPECT_TRUE(validate(view(read_bytes(path("real/new.bin")))).valid());
}

TEST_F(OutputFile, DevicesAndFifosAreWrittenThroughAndStayWhatTheyAre) {
    const std::string in = write_file("in.bin", generated());
    const std::string expected = slurp(in);

    ASSERT_NO_THROW(fs::create_symlink("/dev/null", path("null-link")));
    for (const std::string& name : {std::string("/dev/null"), path("null-link")}) {
        const run_result r = run({"convert", in, name});
        EXPECT_EQ(r.status, 0) << name << ": " << r.err;
    }
    EXPECT_TRUE(fs::is_character_file("/dev/null"));
    EXPECT_TRUE(is_link(path("null-link")));

    const std::string fifo = path("fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::string received;
    std::thread reader([&] { received = slurp(fifo); });
    const run_result r = run({"convert", in, fifo});
    reader.join();
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(received == expected);
    EXPECT_TRUE(fs::is_fifo(fifo));
    EXPECT_EQ(names(), (std::vector<std::string>{"fifo", "in.bin", "null-link"}));
}

TEST_F(OutputFile, ADirectoryOrASocketIsRefusedAsAUsageError) {
    const std::string in = write_file("in.bin", generated());
    fs::create_directory(path("folder"));
    const std::string socket_name = path("socket");
    const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
    ASSERT_GE(s, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    ASSERT_LT(socket_name.size(), sizeof address.sun_path);
    std::memcpy(address.sun_path, socket_name.c_str(), socket_name.size() + 1);
    ASSERT_EQ(::bind(s, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);

    for (const auto& [name, what] :
         {std::pair{path("folder"), "a directory"}, std::pair{socket_name, "a socket"}}) {
        for (const std::vector<std::string>& args :
             {std::vector<std::string>{"convert", in, name},
              std::vector<std::string>{"gen", "-o", name, "--seconds", "1"},
              std::vector<std::string>{"index", "--jsonl", name, in}}) {
            const run_result r = run(args);
            EXPECT_EQ(r.status, 2) << args[0] << " " << name << ": " << r.err;
            EXPECT_NE(r.err.find("inputanim: " + name + ": not written: " + what),
                      std::string::npos)
                << r.err;
        }
    }
    ::close(s);
    EXPECT_TRUE(fs::is_directory(path("folder")));
    EXPECT_TRUE(fs::is_empty(path("folder")));
    EXPECT_TRUE(fs::is_socket(socket_name));
}

// --- permission bits
// ----------------------------------------------------------------------------------------

TEST_F(OutputFile, AReplacedFileKeepsItsPermissionBitsAndANewOneFollowsTheUmask) {
    const std::string in = write_file("in.bin", generated());
    write_file("data/a.bin", generated());
    const std::vector<std::pair<std::string, std::vector<std::string>>> writers = {
        {"convert.bin", {"convert", in, path("convert.bin")}},
        {"gen.bin", {"gen", "-o", path("gen.bin"), "--seconds", "1"}},
        {"rows.jsonl", {"index", "--jsonl", path("rows.jsonl"), path("data")}}};
    for (const unsigned mode : {0600u, 0640u}) {
        for (const auto& [name, args] : writers) {
            write_file(name, text_bytes_of("old"));
            ASSERT_EQ(::chmod(path(name).c_str(), mode), 0);
            const run_result r = run(args);
            EXPECT_EQ(r.status, 0) << args[0] << ": " << r.err;
            EXPECT_TRUE(slurp(path(name)) != "old") << args[0];
            EXPECT_EQ(mode_of(path(name)), mode) << args[0];
        }
    }
    for (const auto& [name, args] : writers) {
        fs::remove(path(name));
        std::string line = "umask 027 && '" + std::string(INPUTANIM_CLI) + "'";
        for (const std::string& a : args) line += " '" + a + "'";
        const run_result r = shell(line);
        EXPECT_EQ(r.status, 0) << args[0] << ": " << r.err;
        EXPECT_EQ(mode_of(path(name)), 0640u) << args[0];
    }
}

// --- interrupted
// --------------------------------------------------------------------------------------------

TEST_F(OutputFile, AnInterruptedGenLeavesNoTemporaryFileAndTheOldOutputAsItWas) {
    const std::string out = write_file("out.bin", text_bytes_of("the previous recording"));
    ASSERT_EQ(::chmod(out.c_str(), 0600), 0);
    for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
        // A day of raw samples: gigabytes, so the signal lands long before the end.
        interrupt_while_writing({"gen", "-o", out, "--seconds", "86400", "--raw"}, "out.bin",
                                signal_number);
        EXPECT_EQ(names(), std::vector<std::string>{"out.bin"});
        EXPECT_EQ(slurp(out), "the previous recording");
        EXPECT_EQ(mode_of(out), 0600u);
    }
}

TEST_F(OutputFile, AnInterruptedConvertLeavesNoTemporaryFileAndTheOldOutputAsItWas) {
    // 8 Mi keys: 64 MiB inflated, 224 MiB as full keys; the output is opened after the input is
    // read, and the conversion then takes far longer than the signal takes to arrive.
    const std::string in = write_file("in.bin.gz", zero_keys_gzip(std::int32_t{1} << 23));
    const std::string out = write_file("out.bin", text_bytes_of("the previous recording"));
    for (const int signal_number : {SIGINT, SIGTERM}) {
        interrupt_while_writing({"convert", "--level", "structure", "--layout", "full", in, out},
                                "out.bin", signal_number);
        EXPECT_EQ(names(), (std::vector<std::string>{"in.bin.gz", "out.bin"}));
        EXPECT_EQ(slurp(out), "the previous recording");
    }
}
