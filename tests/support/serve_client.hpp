// `inputanim serve` started on loopback (127.0.0.1, port 0) as an operator starts it, a raw TCP
// client that sends exactly the bytes it is given, the requests and chunks it sends, curl as a
// user runs it, and a fixture that starts the server: what the tests of the server
// (tests/test_serve*.cpp) share.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/builders.hpp"
#include "support/cli_fixture.hpp"
#include "support/run_process.hpp"

extern char** environ;

namespace inputanim::testing {

using steady = std::chrono::steady_clock;

inline std::string as_text(const bytes& b) {
    return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

// The JSON body of an HTTP response read off a socket.
inline nlohmann::json body_json(const std::string& response) {
    const std::size_t start = response.find("\r\n\r\n");
    if (start == std::string::npos) return nlohmann::json();
    return nlohmann::json::parse(response.substr(start + 4), nullptr, false);
}

// The header of a POST of `content_length` bytes to `target`, with more header fields.
inline std::string request_head(const std::string& target, std::uint64_t content_length,
                                const std::string& more_fields = "") {
    return "POST " + target +
           " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " + std::to_string(content_length) +
           "\r\n" + more_fields + "\r\n";
}

// A GET of `target`, with more header fields.
inline std::string get(const std::string& target, const std::string& more_fields = "") {
    return "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + more_fields + "\r\n";
}

// A HEAD of `target`, with more header fields.
inline std::string head_request(const std::string& target, const std::string& more_fields = "") {
    return "HEAD " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + more_fields + "\r\n";
}

// One chunk of the chunked coding (RFC 9112 §7.1): its size in hex, then its bytes.
inline std::string chunk(const std::string& piece) {
    char size[32];
    std::snprintf(size, sizeof size, "%zx", piece.size());
    return size + ("\r\n" + piece + "\r\n");
}
// The last chunk, with no trailer.
inline const std::string last_chunk = "0\r\n\r\n";

// `inputanim serve --listen 127.0.0.1:0 ...` (or `view`), with stdout and stderr in files.
class server_process {
  public:
    // `piped`: bytes written into the command's standard input through a pipe (a stream, as
    // from `cat FILE |`), which is then closed.
    server_process(const std::filesystem::path& dir, const std::vector<std::string>& options,
                   const std::string& command = "serve", const bytes* piped = nullptr)
        : out_(dir / "serve.out"), err_(dir / "serve.err") {
        std::vector<std::string> args = {INPUTANIM_CLI, command, "--listen", "127.0.0.1:0"};
        args.insert(args.end(), options.begin(), options.end());
        std::vector<char*> argv;
        for (std::string& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        int pipe_ends[2] = {-1, -1};
        if (piped) {
            // A command that exits early makes the writes below fail, not kill the test.
            ::signal(SIGPIPE, SIG_IGN);
            EXPECT_EQ(::pipe2(pipe_ends, O_CLOEXEC), 0);
            posix_spawn_file_actions_adddup2(&actions, pipe_ends[0], 0);
        }
        posix_spawn_file_actions_addopen(&actions, 1, out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                         0644);
        posix_spawn_file_actions_addopen(&actions, 2, err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                         0644);
        const int spawned = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        if (piped) {
            ::close(pipe_ends[0]);
            // The command reads its input whole before it listens.
            std::size_t written = 0;
            while (spawned == 0 && written < piped->size()) {
                const ssize_t n =
                    ::write(pipe_ends[1], piped->data() + written, piped->size() - written);
                if (n <= 0) break;
                written += static_cast<std::size_t>(n);
            }
            ::close(pipe_ends[1]);
        }
        if (spawned != 0) {
            ADD_FAILURE() << "cannot run " << argv[0];
            pid_ = -1;
            return;
        }
        // The first line on stdout names the port bound.
        const std::string prefix = "listening on 127.0.0.1:";
        const steady::time_point deadline = steady::now() + std::chrono::seconds(30);
        while (steady::now() < deadline) {
            const std::string out = slurp(out_);
            const std::size_t end = out.find('\n');
            if (end != std::string::npos) {
                first_line_ = out.substr(0, end);
                if (first_line_.rfind(prefix, 0) == 0) port_ = std::stoi(out.substr(prefix.size()));
                return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        ADD_FAILURE() << "the server did not say where it listens; stderr: " << log();
    }
    ~server_process() {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    server_process(const server_process&) = delete;
    server_process& operator=(const server_process&) = delete;

    int port() const { return port_; }
    const std::string& first_line() const { return first_line_; }
    std::string url(const std::string& target) const {
        return "http://127.0.0.1:" + std::to_string(port_) + target;
    }
    std::string log() const { return slurp(err_); }
    // Log lines are written as requests end: waits up to five seconds for `text` to appear.
    bool log_has(const std::string& text) const {
        const steady::time_point deadline = steady::now() + std::chrono::seconds(5);
        while (log().find(text) == std::string::npos) {
            if (steady::now() > deadline) return false;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return true;
    }

    void signal(int sig) const { ::kill(pid_, sig); }
    // The server's resident memory now (VmRSS), in KiB; 0 when it cannot be read.
    long resident_kib() const {
        const std::string status = slurp("/proc/" + std::to_string(pid_) + "/status");
        const std::size_t at = status.find("VmRSS:");
        return at == std::string::npos ? 0 : std::stol(status.substr(at + 6));
    }
    // Waits up to `limit` for the server to exit: its exit status, or -1 (it is then killed).
    // With `repeating`, sends that signal every millisecond until then, as a supervisor that
    // repeats itself would.
    int wait(std::chrono::seconds limit, int repeating = 0) {
        const steady::time_point deadline = steady::now() + limit;
        int status = 0;
        while (steady::now() < deadline) {
            if (::waitpid(pid_, &status, WNOHANG) == pid_) {
                pid_ = -1;
                return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            }
            if (repeating != 0) signal(repeating);
            std::this_thread::sleep_for(std::chrono::milliseconds(repeating != 0 ? 1 : 10));
        }
        return -1;
    }

  private:
    std::filesystem::path out_;
    std::filesystem::path err_;
    pid_t pid_ = -1;
    int port_ = 0;
    std::string first_line_;
};

// A TCP client on loopback that sends exactly the bytes it is given.
class raw_client {
  public:
    explicit raw_client(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
        sockaddr_in at{};
        at.sin_family = AF_INET;
        at.sin_port = htons(static_cast<std::uint16_t>(port));
        at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        EXPECT_EQ(::connect(fd_, reinterpret_cast<const sockaddr*>(&at), sizeof at), 0);
    }
    ~raw_client() { close(); }
    raw_client(const raw_client&) = delete;
    raw_client& operator=(const raw_client&) = delete;

    // Whether every byte went out (false once the server has closed the connection).
    bool send(const std::string& data) {
        std::size_t sent = 0;
        while (sent < data.size()) {
            const ssize_t n = ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
            if (n <= 0) return false;
            sent += static_cast<std::size_t>(n);
        }
        return true;
    }
    void shut_write() { ::shutdown(fd_, SHUT_WR); }
    // Closes with a TCP reset instead of the orderly FIN: the server sees an error, not an end.
    void reset() {
        const linger abort{1, 0};
        ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &abort, sizeof abort);
        close();
    }
    void close() {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }
    // Everything received until the server closes the connection, or `limit` passes.
    std::string read_all(std::chrono::milliseconds limit = std::chrono::seconds(10)) {
        std::string in;
        const steady::time_point deadline = steady::now() + limit;
        while (steady::now() < deadline) {
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, 20) <= 0) continue;
            char chunk[65536];
            const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
            if (n <= 0) {
                closed_ = true;
                break;
            }
            in.append(chunk, static_cast<std::size_t>(n));
        }
        return in;
    }
    // The first `n` bytes received, once they are there (or what is there after `limit`), left
    // unread: a client that looks at a response's status line without reading its body.
    std::string peek(std::size_t n, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
        std::string in(n, '\0');
        const steady::time_point deadline = steady::now() + limit;
        ssize_t got = 0;
        do {
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, 20) <= 0) continue;
            got = ::recv(fd_, in.data(), n, MSG_PEEK);
            if (got <= 0) break;
        } while (static_cast<std::size_t>(got) < n && steady::now() < deadline);
        in.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
        return in;
    }
    // What has arrived within 20 ms (empty when nothing has).
    std::string read_some() {
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, 20) <= 0) return {};
        char chunk[65536];
        const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
        return n > 0 ? std::string(chunk, static_cast<std::size_t>(n)) : std::string();
    }
    // Whether some response byte has arrived, without reading it.
    bool answered() {
        pollfd p{fd_, POLLIN, 0};
        return ::poll(&p, 1, 0) > 0;
    }
    // The server closed the connection during the last read_all.
    bool closed() const { return closed_; }

  private:
    int fd_ = -1;
    bool closed_ = false;
};

// What curl received: the status, headers and body of the (last) response.
struct reply {
    int status = 0;
    std::string headers;
    std::string body;
    nlohmann::json object() const { return nlohmann::json::parse(body, nullptr, false); }
};

// A test of the server: start() or start_view() starts one in the scratch folder.
class serve_fixture : public cli_fixture {
  protected:
    // `curl_path` ARGS... URL, run in the scratch folder: the status, headers and body of the
    // (last) response.
    reply curl_with(const std::string& curl_path, std::vector<std::string> args) const {
        const std::string body = (scratch_.path() / "curl.body").string();
        const std::string headers = (scratch_.path() / "curl.headers").string();
        std::vector<std::string> argv = {curl_path, "-sS", "--max-time", "30", "-o",
                                         body,      "-D",  headers,      "-w", "%{http_code}"};
        argv.insert(argv.end(), args.begin(), args.end());
        const run_result r = run_process(argv, {scratch_.path()});
        reply out;
        out.status = r.out.empty() ? 0 : std::stoi(r.out);
        out.headers = slurp(headers);
        out.body = slurp(body);
        std::filesystem::remove(body);
        std::filesystem::remove(headers);
        return out;
    }

    server_process& start(const std::vector<std::string>& options = {}) {
        server_.emplace(scratch_.path(), options);
        return *server_;
    }
    // `inputanim view FILES... --listen 127.0.0.1:0`.
    server_process& start_view(const std::vector<std::string>& files) {
        server_.emplace(scratch_.path(), files, "view");
        return *server_;
    }

    std::optional<server_process> server_;
};

}  // namespace inputanim::testing
