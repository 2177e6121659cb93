#include "http/validate_route.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <new>

#include <nlohmann/json.hpp>

#include "report/report_json.hpp"

namespace inputanim::http {

report oversized(std::uint64_t max_bytes, std::uint64_t bytes) {
    report r;
    r.summary.bytes = bytes;
    limits lim;
    lim.max_bytes = max_bytes;
    r.error = size_error(bytes, lim);
    return r;
}

stream_status body_validator::feed(std::span<const std::byte> bytes) {
    if (not_as_declared()) return stream_status::error;
    const stream_status s = v_.feed(bytes);
    return not_as_declared() ? stream_status::error : s;
}

const report& body_validator::finish() {
    const report& r = v_.finish();
    if (!not_as_declared() && !(declared_gzip_ && !v_.gzip())) return r;
    mismatch_ = report{};
    mismatch_.error = error{errc::bad_compression, 0, error_place::none, {}, -1, limit_kind::none};
    return mismatch_;
}

response report_response(unsigned status, const std::string& name, const report& rep,
                         const validate_options& how, std::uint64_t bytes,
                         std::optional<std::uint64_t> compressed) {
    response r;
    r.status = status;
    r.body = records::json_line(name, records::report_json(rep, how, bytes, compressed)) + "\n";
    return r;
}

response health_response() {
    response r;
    r.body = "ok\n";
    r.content_type = "text/plain";
    return r;
}

namespace {

bool same_ascii_letters(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

}  // namespace

std::optional<archive_format> archive_content_type(std::string_view content_type) {
    std::string_view type = content_type.substr(0, content_type.find(';'));
    while (!type.empty() && (type.front() == ' ' || type.front() == '\t')) type.remove_prefix(1);
    while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.remove_suffix(1);
    for (const std::string_view tar :
         {"application/x-tar", "application/tar", "application/x-gtar"}) {
        if (same_ascii_letters(type, tar)) return archive_format::tar;
    }
    for (const std::string_view zip : {"application/zip", "application/x-zip-compressed"}) {
        if (same_ascii_letters(type, zip)) return archive_format::zip;
    }
    return std::nullopt;
}

namespace {

// Whether `head`, the first bytes of a body, may still be the start of an archive that
// archive_format_of tells by its first 512 bytes: a zip's signature (a local header, or the end
// record of an empty zip), or a tar's first header (a name that is not empty, "ustar" at byte
// 257). A compressed tar is not told this way: its first header is not in its first bytes.
bool may_begin_archive(std::span<const std::byte> head) {
    const auto has_at = [&](std::size_t at, std::string_view magic) {
        for (std::size_t i = 0; i < magic.size() && at + i < head.size(); ++i) {
            if (head[at + i] != static_cast<std::byte>(magic[i])) return false;
        }
        return true;
    };
    if (has_at(0, std::string_view("PK\x03\x04", 4)) ||
        has_at(0, std::string_view("PK\x05\x06", 4))) {
        return true;
    }
    return (head.empty() || head[0] != std::byte{0}) && has_at(257, "ustar");
}

}  // namespace

upload_kind sniff_upload(std::span<const std::byte> head, bool whole) {
    if (head.size() >= recording_head_size &&
        starts_like_recording(head.first(recording_head_size))) {
        return upload_kind::recording;
    }
    if (head.size() >= 2 && starts_like_gzip(head.first(2))) return upload_kind::recording;
    // Bytes that begin no archive are a recording's, however few: an early error is answered as
    // early as it was.
    if (!may_begin_archive(head)) return upload_kind::recording;
    if (head.size() < upload_head_bytes && !whole) return upload_kind::undecided;
    // The library's sniff reads a file: the first bytes as one, in memory.
    std::error_code ec;
    const input first = input::from_bytes(head.first(std::min(head.size(), upload_head_bytes)), ec);
    if (ec) return upload_kind::recording;
    const std::optional<archive_format> format = archive_format_of(first, ec);
    if (ec || !format) return upload_kind::recording;
    return *format == archive_format::zip ? upload_kind::zip : upload_kind::tar;
}

// The body as libarchive pulls it: the queue's bytes, then its end. A cancelled walk's reads fail
// (operation_canceled), which ends libarchive's walk as an unreadable archive would.
class archive_walk::queued_body final : public byte_source {
  public:
    explicit queued_body(archive_walk& walk) : walk_(walk) {}
    std::size_t read(std::span<std::byte> buffer, std::error_code& ec) noexcept override {
        return walk_.pull(buffer, ec);
    }
    // The body's bytes are what they are: damage is the archive's, found by its walk.
    error fault() const noexcept override { return {}; }

  private:
    archive_walk& walk_;
};

archive_walk::archive_walk(const validate_options& how, const archive_limits& budgets,
                           std::string name, std::function<void()> wake)
    : how_(how), budgets_(budgets), name_(std::move(name)), wake_(std::move(wake)) {
    queue_.reserve(walk_queue_bytes);
}

std::size_t archive_walk::room() const {
    const std::lock_guard lock(mutex_);
    return walk_queue_bytes - (queue_.size() - front_);
}

void archive_walk::put(std::span<const std::byte> bytes) {
    {
        const std::lock_guard lock(mutex_);
        // The pulled bytes make room at the front (the queue's capacity is never passed).
        queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(front_));
        front_ = 0;
        queue_.insert(queue_.end(), bytes.begin(), bytes.end());
    }
    walker_.notify_all();
}

void archive_walk::end_body() {
    {
        const std::lock_guard lock(mutex_);
        body_ended_ = true;
    }
    walker_.notify_all();
}

void archive_walk::cancel() {
    {
        const std::lock_guard lock(mutex_);
        cancelled_ = true;
    }
    walker_.notify_all();
}

archive_walk::progress archive_walk::take(std::string& lines) {
    progress p;
    {
        const std::lock_guard lock(mutex_);
        lines += lines_;
        lines_.clear();
        p = progress_;
        if (cancelled_) p.ended = true;
    }
    walker_.notify_all();
    return p;
}

std::size_t archive_walk::pull(std::span<std::byte> out, std::error_code& ec) {
    ec.clear();
    std::size_t n = 0;
    {
        std::unique_lock lock(mutex_);
        walker_.wait(lock, [&] { return front_ < queue_.size() || body_ended_ || cancelled_; });
        if (cancelled_) {
            ec = std::make_error_code(std::errc::operation_canceled);
            return 0;
        }
        n = std::min(out.size(), queue_.size() - front_);
        std::memcpy(out.data(), queue_.data() + front_, n);
        front_ += n;
    }
    // Room for more of the body.
    if (n > 0) wake_();
    return n;
}

void archive_walk::emit(std::string line) {
    {
        std::unique_lock lock(mutex_);
        walker_.wait(lock, [&] { return lines_.size() < walk_lines_bytes || cancelled_; });
        if (cancelled_) return;
        lines_ += line;
    }
    wake_();
}

bool archive_walk::cancelled() const {
    const std::lock_guard lock(mutex_);
    return cancelled_;
}

void archive_walk::open_ended(std::error_code refused) {
    {
        const std::lock_guard lock(mutex_);
        progress_.opened = !refused;
        progress_.refused = refused;
    }
    wake_();
}

void archive_walk::ended(bool out_of_memory) {
    {
        const std::lock_guard lock(mutex_);
        progress_.ended = true;
        progress_.out_of_memory = out_of_memory;
    }
    wake_();
}

void archive_walk::walk_body() {
    std::error_code ec;
    input in = input::from_source(std::make_unique<queued_body>(*this), ec);
    if (ec) {
        open_ended(ec);
        ended(false);
        return;
    }
    walk(in);
}

void archive_walk::walk_held(std::vector<std::byte> body) {
    std::error_code ec;
    input in = input::from_bytes(body, ec);
    // The walk reads its own copy.
    std::vector<std::byte>().swap(body);
    if (ec) {
        open_ended(ec);
        ended(false);
        return;
    }
    walk(in);
}

void archive_walk::walk(input& in) {
    try {
        std::error_code ec;
        archive_reader reader = archive_reader::open(in, budgets_, ec);
        open_ended(ec);
        if (ec) {
            ended(false);
            return;
        }
        // A member read through whole, kept from member to member.
        std::vector<std::byte> buffer;
        archive_member m;
        while (!cancelled() && reader.next(m)) {
            if (m.kind != member_kind::file) continue;
            file_check c = validate_member(reader, how_, buffer);
            if (cancelled()) break;
            if (c.io) {
                // No verdict: the member could not be read whole (memory).
                c.rep = report{};
                c.rep.error.code = errc::io_error;
            } else if (!reported_member(reader, c)) {
                continue;
            }
            nlohmann::json fields = records::report_json(c.rep, how_, c.bytes, c.compressed_bytes);
            records::add_member(fields, name_, m);
            emit(records::json_line(name_ + "/" + m.name, std::move(fields)) + "\n");
        }
        if (const error& fault = reader.fault(); fault && !cancelled()) {
            report r;
            r.error = fault;
            emit(records::json_line(name_, records::report_json(r, how_, 0)) + "\n");
        }
        ended(false);
    } catch (const std::bad_alloc&) {
        ended(true);
    }
}

}  // namespace inputanim::http
