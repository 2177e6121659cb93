// Byte-at-a-time decoders of the two variable-length things in a file, the marker name's length
// and its UTF-8, shared by the whole-buffer walk and the streaming validator (which keeps them by
// value, hence a public header). Internal: not part of the API.
#pragma once

#include <cstdint>

namespace inputanim::detail {

// .NET BinaryWriter's 7-bit encoded length: low 7 bits first, high bit = more.
class length_decoder {
  public:
    enum class step : std::uint8_t { more, done, too_long };

    step add(std::uint8_t b) noexcept {
        value_ |= std::uint64_t{b & 0x7fu} << shift_;
        shift_ += 7;
        if ((b & 0x80u) == 0) return step::done;
        // Five bytes that all say "more" make the length invalid whatever follows.
        return shift_ == 35 ? step::too_long : step::more;
    }
    std::uint64_t value() const noexcept { return value_; }

  private:
    std::uint64_t value_ = 0;
    int shift_ = 0;
};

// RFC 3629 UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF.
class utf8_decoder {
  public:
    // Adds the next byte; false when the bytes so far are no longer a prefix of valid UTF-8.
    bool add(std::uint8_t c) noexcept {
        if (pending_ == 0) {
            if (c < 0x80) return true;
            lo_ = 0x80;
            hi_ = 0xbf;
            if (c >= 0xc2 && c <= 0xdf) {
                pending_ = 1;
            } else if (c >= 0xe0 && c <= 0xef) {
                pending_ = 2;
                if (c == 0xe0) lo_ = 0xa0;  // overlong
                if (c == 0xed) hi_ = 0x9f;  // surrogates
            } else if (c >= 0xf0 && c <= 0xf4) {
                pending_ = 3;
                if (c == 0xf0) lo_ = 0x90;  // overlong
                if (c == 0xf4) hi_ = 0x8f;  // above U+10FFFF
            } else {
                return false;
            }
            return true;
        }
        if (c < lo_ || c > hi_) return false;
        lo_ = 0x80;
        hi_ = 0xbf;
        --pending_;
        return true;
    }
    // True between characters: no multi-byte sequence is half read.
    bool at_boundary() const noexcept { return pending_ == 0; }

  private:
    std::uint8_t pending_ = 0;
    std::uint8_t lo_ = 0x80;
    std::uint8_t hi_ = 0xbf;
};

}  // namespace inputanim::detail
