// short_string.h: a string held in 24 bytes, its characters inline up to 23 of them and on the heap
// beyond. For the short text a broker keeps per partition (a replica.id is 22 characters), where a
// std::string would take 32 bytes inline and 32 more on the heap past 15 characters.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace lds {

class ShortString {
 public:
  static constexpr size_t kInline = 23;
  static constexpr size_t kMaxSize = 255;

  ShortString() = default;
  // Throws std::length_error past kMaxSize characters.
  explicit ShortString(std::string_view text) { assign(text); }
  ShortString(const ShortString& other) { assign(other.view()); }
  ShortString(ShortString&& other) noexcept {
    std::memcpy(buf_, other.buf_, sizeof buf_);
    std::memset(other.buf_, 0, sizeof other.buf_);
  }
  ShortString& operator=(const ShortString& other) {
    if (this != &other) {
      ShortString copy(other);
      *this = std::move(copy);
    }
    return *this;
  }
  ShortString& operator=(ShortString&& other) noexcept {
    if (this != &other) {
      release();
      std::memcpy(buf_, other.buf_, sizeof buf_);
      std::memset(other.buf_, 0, sizeof other.buf_);
    }
    return *this;
  }
  ~ShortString() { release(); }

  size_t size() const { return static_cast<unsigned char>(buf_[kInline]); }
  bool empty() const { return size() == 0; }
  std::string_view view() const { return {data(), size()}; }
  std::string str() const { return std::string(view()); }
  bool operator==(const ShortString& other) const { return view() == other.view(); }

 private:
  bool on_heap() const { return size() > kInline; }
  const char* data() const { return on_heap() ? heap() : buf_; }
  char* heap() const {
    char* p = nullptr;
    std::memcpy(&p, buf_, sizeof p);
    return p;
  }
  void assign(std::string_view text) {
    if (text.size() > kMaxSize) throw std::length_error("ShortString: longer than 255 characters");
    std::memset(buf_, 0, sizeof buf_);
    if (text.size() <= kInline) {
      if (!text.empty()) std::memcpy(buf_, text.data(), text.size());
    } else {
      char* p = new char[text.size()];
      std::memcpy(p, text.data(), text.size());
      std::memcpy(buf_, &p, sizeof p);
    }
    buf_[kInline] = static_cast<char>(static_cast<unsigned char>(text.size()));
  }
  void release() {
    if (on_heap()) delete[] heap();
  }

  // Inline: the characters, then their count in the last byte. On the heap: the pointer in the
  // first bytes, the count still in the last.
  char buf_[kInline + 1] = {};
};

static_assert(sizeof(ShortString) == 24);

}  // namespace lds
