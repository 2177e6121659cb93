// Raw bytes fed to the streaming validator in chunks split at points derived from the input:
// for every layout choice and level, its verdict (valid or not) equals validate's over the whole
// buffer, whatever the split.
#include <cstdint>

#include "inputanim/stream.hpp"
#include "invariants.hpp"

namespace {

// Chunk sizes from 1 to 64 bytes, drawn by a small generator seeded from the input, so that one
// input always splits the same way and different inputs split differently.
class splitter {
  public:
    explicit splitter(std::span<const std::byte> bytes) noexcept : state_(bytes.size() + 1) {
        for (std::size_t i = 0; i < bytes.size() && i < 16; ++i) {
            state_ = state_ * 131 + std::to_integer<std::uint64_t>(bytes[i]);
        }
    }
    std::size_t next() noexcept {
        state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
        return 1 + static_cast<std::size_t>((state_ >> 33) % 64);
    }

  private:
    std::uint64_t state_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace inputanim;
    using namespace inputanim::fuzz;
    const std::span<const std::byte> bytes = as_bytes(data, size);
    for (const layout_choice choice : all_layout_choices) {
        for (const level lvl : {level::structure, level::full}) {
            const validate_options options{lvl, choice, limits{}};
            const report whole = validate(bytes, options);
            stream_validator v(options);
            splitter split(bytes);
            for (std::size_t pos = 0; pos < bytes.size();) {
                const std::size_t n = std::min(split.next(), bytes.size() - pos);
                if (v.feed(bytes.subspan(pos, n)) == stream_status::error) break;
                pos += n;
            }
            FUZZ_CHECK(v.finish().valid() == whole.valid());
        }
    }
    return 0;
}
