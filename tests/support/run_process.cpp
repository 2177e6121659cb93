#include "support/run_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <fstream>
#include <iterator>
#include <sstream>

#include <gtest/gtest.h>

extern char** environ;

namespace inputanim::testing {

namespace {

// Appends what the terminal's master side holds; false once it holds nothing more for now.
bool read_terminal(int master, std::string& into) {
    char chunk[4096];
    const ssize_t n = ::read(master, chunk, sizeof chunk);
    if (n <= 0) return false;
    into.append(chunk, static_cast<std::size_t>(n));
    return true;
}

// A pseudo-terminal whose slave side the child gets as stderr. The parent keeps the slave open
// too, so that the master never reports a hang-up before everything written was read.
struct terminal {
    int master = -1;
    int slave = -1;
    std::string slave_name;

    bool open() {
        master = ::posix_openpt(O_RDWR | O_NOCTTY);
        if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0) return false;
        const char* name = ::ptsname(master);
        if (name == nullptr) return false;
        slave_name = name;
        slave = ::open(name, O_RDWR | O_NOCTTY);
        return slave >= 0 && ::fcntl(master, F_SETFL, O_NONBLOCK) == 0;
    }
    ~terminal() {
        if (slave >= 0) ::close(slave);
        if (master >= 0) ::close(master);
    }
};

}  // namespace

int start_process(const std::vector<std::string>& args) {
    std::vector<std::string> words = args;
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t defaults;
    sigemptyset(&defaults);
    for (const int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&defaults, s);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    pid_t pid = -1;
    const int started = posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(), environ);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    EXPECT_EQ(started, 0) << "cannot start " << args.at(0);
    return started == 0 ? pid : -1;
}

run_result run_process(const std::vector<std::string>& args, const run_options& options) {
    run_result r;
    // Names of this run's own: a test may run several commands at once in one scratch folder.
    static std::atomic<unsigned> runs{0};
    const std::string run_id = std::to_string(::getpid()) + "-" + std::to_string(runs++);
    const std::filesystem::path out = options.scratch / ("stdout-" + run_id + ".txt");
    const std::filesystem::path err = options.scratch / ("stderr-" + run_id + ".txt");
    terminal tty;
    if (options.stderr_is_terminal && !tty.open()) {
        ADD_FAILURE() << "cannot open a pseudo-terminal";
        return r;
    }
    std::vector<std::string> storage = args;
    std::vector<char*> argv;
    for (std::string& a : storage) argv.push_back(a.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    switch (options.out) {
        case stdout_target::file:
            posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                             0644);
            break;
        case stdout_target::full_device:
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/full", O_WRONLY, 0);
            break;
        case stdout_target::closed:
            posix_spawn_file_actions_addclose(&actions, 1);
            break;
    }
    if (options.stderr_is_terminal) {
        posix_spawn_file_actions_addopen(&actions, 2, tty.slave_name.c_str(), O_RDWR | O_NOCTTY, 0);
    } else {
        posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                         0644);
    }
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    EXPECT_EQ(spawned, 0) << "cannot run " << argv[0];
    if (spawned != 0) return r;

    int wstatus = 0;
    if (options.stderr_is_terminal) {
        // The terminal holds only a few kilobytes: read it while the program runs.
        for (;;) {
            pollfd p{tty.master, POLLIN, 0};
            ::poll(&p, 1, 50);
            while (read_terminal(tty.master, r.err)) {
            }
            const pid_t done = waitpid(pid, &wstatus, WNOHANG);
            if (done == pid) break;
            EXPECT_EQ(done, 0) << "waitpid failed";
            if (done != 0) return r;
        }
        while (read_terminal(tty.master, r.err)) {
        }
    } else {
        struct rusage usage {};
        EXPECT_EQ(wait4(pid, &wstatus, 0, &usage), pid);
        r.peak_rss_kib = usage.ru_maxrss;
        r.err = slurp(err);
        std::filesystem::remove(err);
    }
    EXPECT_TRUE(WIFEXITED(wstatus)) << "the command did not exit normally";
    r.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
    if (options.out == stdout_target::file) {
        r.out = slurp(out);
        std::filesystem::remove(out);
    }
    return r;
}

scratch_folder::scratch_folder() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "inputanim-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
        ADD_FAILURE() << "cannot create a temporary folder";
        return;
    }
    path_ = pattern;
}

scratch_folder::~scratch_folder() {
    if (path_.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

}  // namespace inputanim::testing
