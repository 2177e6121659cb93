#include "os/output_file.hpp"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <new>
#include <utility>

#include "inputanim/archive.hpp"
#include "inputanim/input.hpp"
#include "os/text.hpp"

namespace inputanim::tools {

namespace {

namespace fs = std::filesystem;

// The temporary files that exist now, for the signal handler: a fixed table, so that the handler
// reads only memory that is never allocated or freed. A slot is claimed, its path written, then
// marked live; the handler removes the live ones. A file is created only after its slot is live
// and renamed or removed before its slot stops being live, so no temporary file outlives a signal.
struct temporary_slot {
    std::atomic<bool> claimed{false};
    std::atomic<bool> live{false};
    // A database's temporary file: SQLite's -wal, -shm and -journal files beside it go too.
    bool journals = false;
    char path[PATH_MAX] = {};
};
static_assert(std::atomic<bool>::is_always_lock_free);
// More than any command has open at once (convert, gen and merge one; index one JSON Lines file).
constexpr int slot_count = 8;
temporary_slot slots[slot_count];

constexpr const char* journal_suffixes[] = {"-wal", "-shm", "-journal"};
constexpr int signals_handled[] = {SIGINT, SIGTERM, SIGHUP};

// Only async-signal-safe calls: unlink, memcpy, strlen, raise.
extern "C" void remove_temporaries_and_raise(int signal_number) {
    for (temporary_slot& s : slots) {
        if (!s.live.load(std::memory_order_acquire)) continue;
        ::unlink(s.path);
        if (!s.journals) continue;
        char companion[PATH_MAX + 16];
        const std::size_t length = std::strlen(s.path);
        for (const char* suffix : journal_suffixes) {
            std::memcpy(companion, s.path, length);
            std::memcpy(companion + length, suffix, std::strlen(suffix) + 1);
            ::unlink(companion);
        }
    }
    // SA_RESETHAND has restored the default action; the signal is blocked until the handler
    // returns, and then ends the process as it would have without the handler.
    ::raise(signal_number);
}

int claim_slot() noexcept {
    for (int i = 0; i < slot_count; ++i) {
        bool expected = false;
        if (slots[i].claimed.compare_exchange_strong(expected, true)) return i;
    }
    return -1;
}

void unlink_with_journals(const std::string& path, bool journals) noexcept {
    ::unlink(path.c_str());
    if (!journals) return;
    for (const char* suffix : journal_suffixes) ::unlink((path + suffix).c_str());
}

// What a name leads to, and so how it is written (output_file.hpp).
struct destination {
    enum class kind : std::uint8_t { failed, missing, regular, standard_output, through, refused };
    kind what = kind::failed;
    // missing, regular: the file to create or replace (a link resolved to the file it leads to).
    std::string file;
    // regular: its permission bits.
    unsigned permissions = 0;
    // through, refused: what it is; failed: the errno.
    std::string description;
    int error = 0;
};

destination failed(int error) {
    destination d;
    d.error = error != 0 ? error : EIO;
    return d;
}

const char* description_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISFIFO(mode)) return "a FIFO";
    return "not a regular file";
}

bool same_inode(const struct stat& a, const struct stat& b) {
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// A name that does not exist: itself, or, for a link that leads nowhere, the name the chain of
// links ends at (writing through a link creates the file it names, as the shell's > does).
destination missing_target(const std::string& name) {
    std::string file = name;
    for (int hops = 0; hops <= 40; ++hops) {
        struct stat l {};
        if (::lstat(file.c_str(), &l) != 0) {
            if (errno != ENOENT) return failed(errno);
            destination d;
            d.what = destination::kind::missing;
            d.file = file;
            return d;
        }
        if (!S_ISLNK(l.st_mode)) return failed(ENOENT);
        std::error_code ec;
        const fs::path text = fs::read_symlink(file, ec);
        if (ec) return failed(ec.value());
        file = text.is_absolute() ? text.string() : (fs::path(file).parent_path() / text).string();
    }
    return failed(ELOOP);
}

destination classify(const std::string& name) {
    struct stat st {};
    if (::stat(name.c_str(), &st) != 0) {
        return errno == ENOENT ? missing_target(name) : failed(errno);
    }
    destination d;
    if (!S_ISREG(st.st_mode)) {
        const bool through = S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode);
        d.what = through ? destination::kind::through : destination::kind::refused;
        d.description = description_of(st.st_mode);
        return d;
    }
    // The file open as standard output (/dev/stdout when stdout is a file): reopening it would
    // start at its beginning (and truncating it would undo a >>); its descriptor is the output.
    struct stat out {};
    if (::fstat(STDOUT_FILENO, &out) == 0 && same_inode(st, out)) {
        d.what = destination::kind::standard_output;
        return d;
    }
    d.what = destination::kind::regular;
    d.permissions = st.st_mode & 0777;
    struct stat l {};
    if (::lstat(name.c_str(), &l) == 0 && !S_ISLNK(l.st_mode)) {
        d.file = name;
        return d;
    }
    // A link: the file it leads to is replaced, so the link stays. /proc/self/fd/N and its kin
    // are links whose text need not name the file (one deleted, or of another mount namespace):
    // the resolved name must lead to the same file.
    char* resolved = ::realpath(name.c_str(), nullptr);
    if (resolved == nullptr) return failed(errno);
    d.file = resolved;
    std::free(resolved);
    struct stat again {};
    if (::stat(d.file.c_str(), &again) != 0 || !same_inode(st, again)) {
        d.what = destination::kind::refused;
        d.description = "a link to a file that no name leads to (deleted, or out of reach)";
    }
    return d;
}

// Random characters for a temporary file's name.
std::error_code random_suffix(char* out, std::size_t n) {
    static constexpr char alphabet[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    unsigned char bytes[32];
    std::size_t have = 0;
    while (have < n) {
        const ssize_t got =
            retry_interrupted([&] { return ::getrandom(bytes + have, n - have, 0); });
        if (got <= 0) return {got < 0 ? errno : EIO, std::system_category()};
        have += static_cast<std::size_t>(got);
    }
    for (std::size_t i = 0; i < n; ++i) out[i] = alphabet[bytes[i] % (sizeof alphabet - 1)];
    return {};
}

// stat(2) of a name a command was given: `-` is the standard descriptor `standard` (0 for an
// input, 1 for an output), and a name through an archive (ARCHIVE/MEMBER) is the archive's file.
bool stat_named(const std::string& name, int standard, struct stat& st) {
    if (name == "-") return ::fstat(standard, &st) == 0;
    if (::stat(name.c_str(), &st) == 0) return true;
    const std::optional<member_path> member =
        errno == ENOTDIR ? split_member_path(name) : std::nullopt;
    return member && ::stat(member->archive.c_str(), &st) == 0;
}

constexpr std::size_t piece = std::size_t{1} << 20;
constexpr std::size_t suffix_length = 12;

}  // namespace

output_file::~output_file() {
    discard();
}

std::optional<output_failure> output_is_input(const std::string& name,
                                              std::span<const std::string> inputs) {
    struct stat out {};
    // Only a regular file is destroyed by being written: a device or a FIFO is written through.
    if (!stat_named(name, STDOUT_FILENO, out) || !S_ISREG(out.st_mode)) return std::nullopt;
    for (const std::string& input : inputs) {
        struct stat in {};
        if (!stat_named(input, STDIN_FILENO, in) || !same_inode(in, out)) continue;
        struct stat direct {};
        const bool member = input != "-" && ::stat(input.c_str(), &direct) != 0;
        std::string reason = member ? "not written: it is the archive that holds the input"
                                    : "not written: it is the input file itself";
        if (input == "-") {
            reason += " (standard input)";
        } else if (input != name) {
            reason += " (" + printable(input) + ")";
        }
        return output_failure{true, name == "-" ? "stdout" : printable(name), std::move(reason)};
    }
    return std::nullopt;
}

std::optional<output_failure> output_file::open(const std::string& name,
                                                std::span<const std::string> inputs) {
    if (std::optional<output_failure> itself = output_is_input(name, inputs)) return itself;
    if (name == "-") {
        shown_ = "stdout";
        target_ = target::standard_output;
        fd_ = STDOUT_FILENO;
        return std::nullopt;
    }
    shown_ = printable(name);
    const destination d = classify(name);
    switch (d.what) {
        case destination::kind::failed:
            return failure({d.error, std::system_category()});
        case destination::kind::refused:
            return output_failure{true, shown_,
                                  "not written: " + d.description +
                                      " (an output is a regular file, a character device or a "
                                      "FIFO)"};
        case destination::kind::standard_output:
            target_ = target::standard_output;
            fd_ = STDOUT_FILENO;
            return std::nullopt;
        case destination::kind::through: {
            // Never created nor truncated: a device or FIFO is written as it is.
            fd_ = ::open(name.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
            if (fd_ < 0) return failure({errno, std::system_category()});
            target_ = target::through;
            struct stat st {};
            if (::fstat(fd_, &st) != 0) return failure({errno, std::system_category()});
            if (S_ISREG(st.st_mode)) {
                discard();
                return output_failure{true, shown_,
                                      "not written: it became a regular file while it was opened"};
            }
            return std::nullopt;
        }
        case destination::kind::missing:
        case destination::kind::regular:
            return create_beside(d.file, d.what == destination::kind::regular, d.permissions,
                                 false);
    }
    return failure({EINVAL, std::system_category()});
}

bool output_file::replaced_when_written(const std::string& name) {
    if (name == "-") return false;
    const destination::kind k = classify(name).what;
    return k == destination::kind::missing || k == destination::kind::regular;
}

std::optional<output_failure> output_file::open_new_database(const std::string& name) {
    shown_ = printable(name);
    return create_beside(name, false, 0, true);
}

std::optional<output_failure> output_file::create_beside(const std::string& file, bool existing,
                                                         unsigned permissions, bool database) {
    const fs::path target(file);
    const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
    // A file name has at most NAME_MAX bytes: the dot and the suffix take 14 of them.
    const std::string base = target.filename().string().substr(0, NAME_MAX - suffix_length - 2);
    slot_ = claim_slot();
    if (slot_ < 0) return failure({EMFILE, std::system_category()});
    temporary_slot& slot = slots[slot_];
    slot.journals = database;
    for (int attempt = 0; attempt < 100; ++attempt) {
        std::string suffix(suffix_length, 'x');
        if (const std::error_code ec = random_suffix(suffix.data(), suffix.size())) {
            release();
            return failure(ec);
        }
        std::string candidate = (folder / ("." + base + "." + suffix)).string();
        if (candidate.size() >= sizeof slot.path) {
            release();
            return failure({ENAMETOOLONG, std::system_category()});
        }
        std::memcpy(slot.path, candidate.c_str(), candidate.size() + 1);
        slot.live.store(true, std::memory_order_release);
        // An existing file's content is no one else's while it is written: 0600 until its own
        // bits are set below. A new file gets what the umask leaves of 0666.
        fd_ = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                     existing ? 0600 : 0666);
        if (fd_ >= 0) {
            temporary_ = std::move(candidate);
            break;
        }
        const int error = errno;
        slot.live.store(false, std::memory_order_release);
        if (error != EEXIST) {
            release();
            return failure({error, std::system_category()});
        }
    }
    if (fd_ < 0) {
        release();
        return failure({EEXIST, std::system_category()});
    }
    file_ = file;
    target_ = target::replaced;
    if (existing && ::fchmod(fd_, permissions) != 0) {
        const std::error_code ec(errno, std::system_category());
        discard();
        return failure(ec);
    }
    return std::nullopt;
}

std::error_code output_file::write(std::span<const std::byte> bytes) {
    if (failed_) return failed_;
    pending_.insert(pending_.end(), bytes.begin(), bytes.end());
    return pending_.size() >= piece ? drain() : std::error_code{};
}

std::error_code output_file::write(std::string_view text) {
    return write(std::as_bytes(std::span(text.data(), text.size())));
}

std::error_code output_file::copy_from(int fd, std::uint64_t offset, std::uint64_t size,
                                       std::error_code& source_error) {
    source_error.clear();
    if (const std::error_code ec = drain()) return ec;
    const std::error_code cut = std::make_error_code(std::errc::io_error);
    if (target_ == target::replaced) {
        auto from = static_cast<off_t>(offset);
        while (size > 0) {
            const std::size_t want =
                static_cast<std::size_t>(std::min<std::uint64_t>(size, 1 << 30));
            const ssize_t n = retry_interrupted(
                [&] { return ::copy_file_range(fd, &from, fd_, nullptr, want, 0); });
            if (n > 0) {
                size -= static_cast<std::uint64_t>(n);
                continue;
            }
            if (n == 0) {
                source_error = cut;
                return {};
            }
            // Another file system, or one that cannot: the copy below goes on from here.
            if (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP) break;
            failed_ = {errno, std::system_category()};
            return failed_;
        }
        offset = static_cast<std::uint64_t>(from);
    }
    std::vector<std::byte> buffer;
    try {
        buffer.resize(static_cast<std::size_t>(std::min<std::uint64_t>(size, piece)));
    } catch (const std::bad_alloc&) {
        failed_ = std::make_error_code(std::errc::not_enough_memory);
        return failed_;
    }
    while (size > 0) {
        const std::size_t want =
            static_cast<std::size_t>(std::min<std::uint64_t>(size, buffer.size()));
        const std::size_t got = read_at(fd, offset, {buffer.data(), want}, source_error);
        if (source_error) return {};
        if (got == 0) {
            source_error = cut;
            return {};
        }
        if (const std::error_code ec = write_all(fd_, {buffer.data(), got})) {
            failed_ = ec;
            return failed_;
        }
        offset += got;
        size -= got;
    }
    return {};
}

std::error_code output_file::drain() {
    if (failed_) return failed_;
    if (const std::error_code ec = write_all(fd_, pending_)) {
        failed_ = ec;
        return failed_;
    }
    pending_.clear();
    return {};
}

std::optional<output_failure> output_file::commit() {
    if (const std::error_code ec = drain()) {
        discard();
        return failure(ec);
    }
    const auto fail = [this](int error) {
        discard();
        return failure({error != 0 ? error : EIO, std::system_category()});
    };
    switch (target_) {
        case target::none:
            return fail(EBADF);
        case target::standard_output: {
            // A file system may report a failed write only on close (NFS): a duplicate is closed
            // to ask, and standard output stays open.
            const int copy = ::dup(STDOUT_FILENO);
            if (copy < 0 || ::close(copy) != 0) return fail(errno);
            break;
        }
        case target::through:
            if (::close(std::exchange(fd_, -1)) != 0) return fail(errno);
            break;
        case target::replaced:
            if (::fsync(fd_) != 0) return fail(errno);
            if (::close(std::exchange(fd_, -1)) != 0) return fail(errno);
            if (::rename(temporary_.c_str(), file_.c_str()) != 0) return fail(errno);
            temporary_.clear();
            release();
            break;
    }
    fd_ = -1;
    target_ = target::none;
    return std::nullopt;
}

void output_file::discard() noexcept {
    if (fd_ >= 0 && target_ != target::standard_output) ::close(fd_);
    fd_ = -1;
    if (!temporary_.empty()) unlink_with_journals(temporary_, slot_ >= 0 && slots[slot_].journals);
    temporary_.clear();
    release();
    target_ = target::none;
    pending_.clear();
}

void output_file::release() noexcept {
    if (slot_ < 0) return;
    slots[slot_].live.store(false, std::memory_order_release);
    slots[slot_].journals = false;
    slots[slot_].claimed.store(false, std::memory_order_release);
    slot_ = -1;
}

output_failure output_file::failure(std::error_code error) const {
    return {false, shown_, "cannot write: " + error.message()};
}

std::optional<output_failure> database_target_problem(const std::string& name,
                                                      std::span<const std::string> inputs) {
    if (std::optional<output_failure> itself = output_is_input(name, inputs)) return itself;
    const destination d = classify(name);
    switch (d.what) {
        case destination::kind::failed:
            return output_failure{false, printable(name),
                                  "cannot write: " + std::system_category().message(d.error)};
        case destination::kind::missing:
        case destination::kind::regular:
        case destination::kind::standard_output:
            return std::nullopt;
        case destination::kind::through:
        case destination::kind::refused:
            break;
    }
    return output_failure{true, printable(name),
                          "not a database file: " + d.description +
                              " (a database is a regular file, updated in place with its journal "
                              "beside it)"};
}

void remove_temporaries_on_signals() noexcept {
    for (const int signal_number : signals_handled) {
        struct sigaction previous {};
        if (::sigaction(signal_number, nullptr, &previous) != 0 || previous.sa_handler == SIG_IGN) {
            continue;
        }
        struct sigaction action {};
        action.sa_handler = remove_temporaries_and_raise;
        sigemptyset(&action.sa_mask);
        for (const int other : signals_handled) sigaddset(&action.sa_mask, other);
        action.sa_flags = SA_RESETHAND;
        ::sigaction(signal_number, &action, nullptr);
    }
}

}  // namespace inputanim::tools
