// The routes POST /validate and GET /healthz: what the service answers about an upload's bytes,
// which the server (http_server.cpp) reads under its deadlines and hands over piece by piece: a
// recording's report, or for a tar or zip a line per recording it holds (archive_walk).
// POST /view validates the same way, then answers with viewer_routes.hpp.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "http/response.hpp"
#include "inputanim/archive.hpp"
#include "inputanim/input.hpp"
#include "inputanim/stream.hpp"
#include "inputanim/validate.hpp"

namespace inputanim::http {

// What validate says of a file over the byte ceiling (checked before anything else).
report oversized(std::uint64_t max_bytes, std::uint64_t bytes);

// The validator of one request body: the library's chunk_validator (gzip recognised by content),
// and a body declared gzip-encoded that is not gzip is a damaged gzip stream at its first byte.
class body_validator {
  public:
    body_validator(const validate_options& how, bool declared_gzip)
        : v_(how), declared_gzip_(declared_gzip) {}
    stream_status feed(std::span<const std::byte> bytes);
    const report& finish();
    // The recording's bytes taken up to the verdict (inflated for gzip).
    std::uint64_t bytes() const { return v_.recording_bytes(); }
    std::optional<std::uint64_t> compressed() const { return v_.compressed_bytes(); }
    bool gzip() const { return v_.gzip(); }

  private:
    // The first two bytes are known and are not gzip's, though the body was declared gzip.
    bool not_as_declared() const {
        return declared_gzip_ && !v_.gzip() && v_.recording_bytes() >= 2;
    }

    chunk_validator v_;
    bool declared_gzip_;
    report mismatch_{};
};

// The report of the upload `name` as `inputanim validate --json` prints it, one line, with that
// status (200, or 413 for a body over the byte ceiling).
response report_response(unsigned status, const std::string& name, const report& rep,
                         const validate_options& how, std::uint64_t bytes,
                         std::optional<std::uint64_t> compressed);

// GET /healthz: "ok".
response health_response();

// ---- archives ---------------------------------------------------------------------------------

// The archive a request's Content-Type names, whatever its parameters: a tar for
// application/x-tar, application/tar and application/x-gtar (plain or compressed: libarchive finds
// the filter), a zip for application/zip and application/x-zip-compressed.
std::optional<archive_format> archive_content_type(std::string_view content_type);

// What an upload is, as its first bytes say.
enum class upload_kind : std::uint8_t { undecided, recording, tar, zip };
// The first bytes an upload is told by: a tar's first header.
inline constexpr std::size_t upload_head_bytes = 512;
// What `head`, the first bytes of a body (all of it when `whole`), says the body is. A recording's
// magic or gzip's is a recording (a compressed tar is known by its Content-Type only: a gzip body
// is otherwise a .bin.gz); bytes that cannot begin a tar or a zip are a recording's at once; else
// the archive the library tells by them (archive_format_of over the first upload_head_bytes, as
// `inputanim validate` tells an archive file), or a recording. Undecided while fewer bytes are in
// hand than the answer needs.
upload_kind sniff_upload(std::span<const std::byte> head, bool whole);

// The most body bytes an archive's walk holds before it has read them, and the most lines it holds
// before they are sent: what a connection walking an archive costs beyond a connection's buffers,
// besides libarchive's and validate_member's (a member read through whole, up to
// whole_member_bytes).
inline constexpr std::size_t walk_queue_bytes = 128 * 1024;
inline constexpr std::size_t walk_lines_bytes = 64 * 1024;
// Archives uploaded to POST /validate that are walked at once, each on a thread of its own (as
// many threads, started with the server), from their header until their walk has ended; more are
// answered 503.
inline constexpr unsigned archive_walkers = 4;

// An archive uploaded to POST /validate, walked on a thread of the server's while its body
// arrives (a tar: libarchive pulls the bytes, input::from_source over the queue) or once it is
// held whole (a zip, whose directory is at its end: input::from_bytes). Each member that is a
// recording (found_recording, as `inputanim validate` sorts an archive's members, or one whose
// reading the archive's damage stopped) gets the line `inputanim validate --json` prints for it,
// named NAME/MEMBER (validate_member, tools::report_json and add_member), and a walk that
// stopped early the archive's line (its fault: code and offset). The connection's coroutine puts
// the body in and takes the lines out; the walking thread blocks while it has no bytes, or while
// its lines are not taken, so that what is held stays within walk_queue_bytes and
// walk_lines_bytes. `wake` is called on the walking thread whenever the coroutine may go on
// (lines, room in the queue, the end).
class archive_walk {
  public:
    archive_walk(const validate_options& how, const archive_limits& budgets, std::string name,
                 std::function<void()> wake);
    archive_walk(const archive_walk&) = delete;
    archive_walk& operator=(const archive_walk&) = delete;

    // ---- the connection's side
    // Bytes of the body the queue takes now.
    std::size_t room() const;
    // Queues `bytes`, at most room() of them.
    void put(std::span<const std::byte> bytes);
    // No more bytes: the walk reads what is queued, then the body's end.
    void end_body();
    // Stops the walk: its reads of the body fail and it makes no more lines (those made are
    // still taken); the thread is free once the member it is validating is done.
    void cancel();
    struct progress {
        // The archive was opened: its lines follow.
        bool opened = false;
        // It could not be opened as an archive: why (nothing follows).
        std::error_code refused;
        // Every line is in: the walk has ended (or was cancelled).
        bool ended = false;
        // The walk could not allocate what it needed and ended there.
        bool out_of_memory = false;
    };
    // Moves the lines made so far to the end of `lines` (each ends with a line feed), and says
    // how far the walk is.
    progress take(std::string& lines);

    // ---- the walking thread's side
    // Walks the body as it is put().
    void walk_body();
    // Walks the body held whole, which is freed once the walk has its own copy.
    void walk_held(std::vector<std::byte> body);

  private:
    class queued_body;

    void walk(input& in);
    // The walking thread's end of the queue (queued_body's reads).
    std::size_t pull(std::span<std::byte> out, std::error_code& ec);
    void emit(std::string line);
    bool cancelled() const;
    void open_ended(std::error_code refused);
    void ended(bool out_of_memory);

    const validate_options how_;
    const archive_limits budgets_;
    const std::string name_;
    const std::function<void()> wake_;

    mutable std::mutex mutex_;
    // Signalled to the walking thread: bytes, room for lines, the body's end, a cancellation.
    std::condition_variable walker_;
    std::vector<std::byte> queue_;
    // The first byte of queue_ not yet pulled.
    std::size_t front_ = 0;
    bool body_ended_ = false;
    bool cancelled_ = false;
    std::string lines_;
    progress progress_;
};

}  // namespace inputanim::http
