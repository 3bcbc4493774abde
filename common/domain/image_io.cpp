// image_io.cpp: JPEG via libjpeg-turbo (else stb), PNG/BMP via stb, PFM by hand, atomic writes, the default image.
#include "common/domain/image_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <stb_image.h>
#include <stb_image_write.h>
#if CONVCOMPARE_WITH_TURBOJPEG
#include <turbojpeg.h>
#endif

#include "common/domain/error.h"

namespace cc {

namespace {

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

// fopen succeeds on a directory under Linux and only the first read fails, so refuse one up front.
FilePtr open_image(const std::string& path) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored))
    throw InputError(fmt::format("cannot open image '{}': it is a directory", path));
  FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file) throw InputError(fmt::format("cannot open image '{}': {}", path, std::strerror(errno)));
  return file;
}

// Bytes from the current position to the end of a regular file; -1 where that is unknown (a pipe).
long long bytes_left(std::FILE* file) {
  struct stat info {};
  const long position = std::ftell(file);
  if (position < 0 || ::fstat(::fileno(file), &info) != 0 || !S_ISREG(info.st_mode)) return -1;
  return info.st_size - position;
}

bool is_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// One whitespace-delimited PFM header field; consumes exactly one whitespace character after it, which
// matters after the scale because the binary data starts right behind that one character.
std::string read_header_token(std::FILE* file, const std::string& path) {
  int c = std::fgetc(file);
  while (c != EOF && is_space(c)) c = std::fgetc(file);
  std::string token;
  while (c != EOF && !is_space(c)) {
    if (token.size() > 32) throw InputError(fmt::format("bad PFM header in '{}': field too long", path));
    token += static_cast<char>(c);
    c = std::fgetc(file);
  }
  if (token.empty() || c == EOF) throw InputError(fmt::format("truncated PFM header in '{}'", path));
  return token;
}

template <typename Number>
bool parse_whole(const std::string& token, Number& value) {
  auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  return error == std::errc() && end == token.data() + token.size();
}

// The magic has been read already; `channels` is 1 for "Pf", 3 for "PF".
Image read_pfm_body(std::FILE* file, int channels, const std::string& path) {
  long long width = 0, height = 0;
  double scale = 0;
  std::string token = read_header_token(file, path);
  if (!parse_whole(token, width)) throw InputError(fmt::format("bad PFM width '{}' in '{}'", token, path));
  token = read_header_token(file, path);
  if (!parse_whole(token, height)) throw InputError(fmt::format("bad PFM height '{}' in '{}'", token, path));
  check_image_size(width, height, channels, fmt::format("PFM '{}'", path));
  token = read_header_token(file, path);
  if (!parse_whole(token, scale) || !std::isfinite(scale) || scale == 0)
    throw InputError(fmt::format("bad PFM scale '{}' in '{}': a non-zero number is required", token, path));
  // A 20-byte header can claim gigabytes: a regular file too short for its pixels is refused before
  // they are allocated (a pipe has no size to check and is caught by the row reads below).
  const long long data_bytes = width * height * channels * static_cast<long long>(sizeof(float));
  if (const long long left = bytes_left(file); left >= 0 && left < data_bytes)
    throw InputError(fmt::format("truncated PFM '{}': {}x{}x{} floats need {} bytes of data, the file has {}", path,
                                 width, height, channels, data_bytes, left));

  const bool swap = (scale < 0) != (std::endian::native == std::endian::little);
  Image image(static_cast<int>(width), static_cast<int>(height), channels, false);
  std::vector<std::uint32_t> row(static_cast<std::size_t>(width) * channels);
  for (int file_row = 0; file_row < image.height; ++file_row) {
    if (std::fread(row.data(), sizeof(std::uint32_t), row.size(), file) != row.size())
      throw InputError(fmt::format("truncated PFM '{}': the data ends in row {} of {}", path, file_row, height));
    const int y = image.height - 1 - file_row;  // rows are stored bottom to top
    for (int x = 0; x < image.width; ++x)
      for (int c = 0; c < channels; ++c) {
        std::uint32_t bits = row[static_cast<std::size_t>(x) * channels + c];
        if (swap) bits = __builtin_bswap32(bits);
        image.at(c, y, x) = std::bit_cast<float>(bits);
      }
  }
  return image;
}

int pfm_channels(const char magic[2]) {
  if (magic[0] != 'P') return 0;
  return magic[1] == 'f' ? 1 : magic[1] == 'F' ? 3 : 0;
}

// Planar floats on the 0..255 scale from a decoder's interleaved 8-bit pixels.
Image from_interleaved(const unsigned char* interleaved, int width, int height, int channels) {
  Image image(width, height, channels, true);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < channels; ++c) image.at(c, y, x) = *interleaved++;
  return image;
}

using StbPixels = std::unique_ptr<stbi_uc, void (*)(void*)>;

StbPixels decode(std::FILE* file, int& width, int& height, int& channels) {
  return StbPixels(stbi_load_from_file(file, &width, &height, &channels, 0), stbi_image_free);
}

// stb reserves an IDAT chunk's declared length before reading it, so a 75-byte PNG could claim 2 GB: a
// chunk running past the end of the file (which stb would refuse only after that) is refused first.
void check_png_chunk_lengths(std::FILE* file, const std::string& path) {
  static constexpr unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  unsigned char bytes[8];
  if (std::fread(bytes, 1, 8, file) == 8 && std::memcmp(bytes, kSignature, 8) == 0) {
    long long left = bytes_left(file);
    while (left >= 8 && std::fread(bytes, 1, 8, file) == 8 && std::memcmp(bytes + 4, "IEND", 4) != 0) {
      const long long length = std::uint32_t{bytes[0]} << 24 | bytes[1] << 16 | bytes[2] << 8 | bytes[3];
      left -= 8 + length + 4;  // length and type, data, CRC
      if (left < 0)
        throw InputError(fmt::format("cannot decode image '{}': truncated PNG (a chunk claims {} bytes, more than "
                                     "the file has left)", path, length));
      std::fseek(file, static_cast<long>(length + 4), SEEK_CUR);
    }
  }
  std::rewind(file);
}

Image load_with_stb(std::FILE* file, const std::string& path) {
  check_png_chunk_lengths(file, path);
  int width = 0, height = 0, channels = 0;
  // The header alone first: a file claiming a huge size is refused before stb allocates anything.
  if (!stbi_info_from_file(file, &width, &height, &channels)) {
    // stbi_info's own reason is always "unknown image type". A decode attempt stops at the same header
    // check, still before allocating, and says what is actually wrong ("too large", "bad png sig"...).
    decode(file, width, height, channels);
    std::string reason = stbi_failure_reason();
    if (reason == "too large")
      reason = fmt::format("too large (each side must be at most {} pixels)", kMaxImageDimension);
    if (reason == "unknown image type") reason = "not a PNG, JPEG, BMP or PFM file";
    throw InputError(fmt::format("cannot read image '{}': {}", path, reason));
  }
  check_image_size(width, height, channels, fmt::format("image '{}'", path));

  const StbPixels pixels = decode(file, width, height, channels);
  if (!pixels) throw InputError(fmt::format("cannot decode image '{}': {}", path, stbi_failure_reason()));
  return from_interleaved(pixels.get(), width, height, channels);
}

#if CONVCOMPARE_WITH_TURBOJPEG
// Every JPEG starts with SOI (FF D8) and the next marker's FF; the stream is left at its start.
bool is_jpeg(std::FILE* file) {
  unsigned char magic[3] = {};
  const bool jpeg = std::fread(magic, 1, 3, file) == 3 && magic[0] == 0xFF && magic[1] == 0xD8 && magic[2] == 0xFF;
  std::rewind(file);
  return jpeg;
}

struct TurboJpegDestroyer {
  void operator()(void* handle) const { tjDestroy(handle); }
};

Image load_with_turbojpeg(std::FILE* file, const std::string& path) {
  std::vector<unsigned char> bytes;
  unsigned char chunk[1 << 16];
  for (std::size_t got; (got = std::fread(chunk, 1, sizeof chunk, file)) > 0;)
    bytes.insert(bytes.end(), chunk, chunk + got);
  if (std::ferror(file)) throw InputError(fmt::format("cannot read image '{}': {}", path, std::strerror(errno)));

  const std::unique_ptr<void, TurboJpegDestroyer> decoder(tjInitDecompress());
  if (!decoder) throw std::runtime_error(fmt::format("cannot start the JPEG decoder: {}", tjGetErrorStr2(nullptr)));
  const auto failure = [&] {
    return InputError(fmt::format("cannot decode image '{}': {}", path, tjGetErrorStr2(decoder.get())));
  };
  int width = 0, height = 0, subsampling = 0, colorspace = 0;
  if (tjDecompressHeader3(decoder.get(), bytes.data(), bytes.size(), &width, &height, &subsampling, &colorspace) != 0)
    throw failure();
  // A tables-only stream (or one that ends before its frame header) is "read" without any frame.
  if (width < 1 || height < 1)
    throw InputError(fmt::format("cannot decode image '{}': the JPEG data end before a frame header", path));
  const int channels = colorspace == TJCS_GRAY ? 1 : 3;
  check_image_size(width, height, channels, fmt::format("image '{}'", path));

  std::vector<unsigned char> pixels(static_cast<std::size_t>(width) * height * channels);
  // TJFLAG_LIMITSCANS: a hostile progressive file can demand thousands of scans, seconds each.
  // Warnings (TJERR_WARNING: stray bytes between segments, data cut short) still yield a whole image, as
  // every viewer shows it; only fatal errors are refused.
  if (tjDecompress2(decoder.get(), bytes.data(), bytes.size(), pixels.data(), width, 0, height,
                    channels == 1 ? TJPF_GRAY : TJPF_RGB, TJFLAG_LIMITSCANS) != 0 &&
      tjGetErrorCode(decoder.get()) == TJERR_FATAL)
    throw failure();
  return from_interleaved(pixels.data(), width, height, channels);
}
#endif

}  // namespace

Image load_image(const std::string& path) {
  FilePtr file = open_image(path);
  char magic[2] = {};
  const std::size_t got = std::fread(magic, 1, 2, file.get());
  if (got == 0) throw InputError(fmt::format("cannot read image '{}': the file is empty", path));
  if (got == 2 && pfm_channels(magic) != 0) return read_pfm_body(file.get(), pfm_channels(magic), path);
  std::rewind(file.get());
#if CONVCOMPARE_WITH_TURBOJPEG
  if (is_jpeg(file.get())) return load_with_turbojpeg(file.get(), path);
#endif
  return load_with_stb(file.get(), path);
}

Image load_pfm(const std::string& path) {
  FilePtr file = open_image(path);
  char magic[2] = {};
  if (std::fread(magic, 1, 2, file.get()) != 2 || pfm_channels(magic) == 0)
    throw InputError(fmt::format("'{}' is not a PFM file (it must start with Pf or PF)", path));
  return read_pfm_body(file.get(), pfm_channels(magic), path);
}

void save_png(const Image& image, const std::string& path) {
  check_image_size(image.width, image.height, image.channels, fmt::format("image for '{}'", path));
  std::vector<std::uint8_t> interleaved(image.plane_size() * image.channels);
  std::size_t i = 0;
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x)
      for (int c = 0; c < image.channels; ++c) {
        const float value = image.at(c, y, x);
        // NaN has no place on the 0..255 scale; it becomes 0 rather than undefined behaviour.
        const float clamped = std::isnan(value) ? 0.0f : std::clamp(value, 0.0f, 255.0f);
        interleaved[i++] = static_cast<std::uint8_t>(std::lround(clamped));
      }
  std::string bytes;
  auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), size);
  };
  if (!stbi_write_png_to_func(append, &bytes, image.width, image.height, image.channels, interleaved.data(),
                              image.width * image.channels))
    throw InputError(fmt::format("cannot write '{}': PNG encoding failed", path));
  write_file_atomically(path, bytes);
}

void save_pfm(const Image& image, const std::string& path) {
  if (image.channels != 1 && image.channels != 3)
    throw InputError(
        fmt::format("cannot write '{}': PFM holds 1 or 3 channels, the image has {}", path, image.channels));
  check_image_size(image.width, image.height, image.channels, fmt::format("image for '{}'", path));
  std::string bytes =
      fmt::format("{}\n{} {}\n-1.0\n", image.channels == 1 ? "Pf" : "PF", image.width, image.height);
  const std::size_t header = bytes.size();
  bytes.resize(header + image.plane_size() * image.channels * sizeof(float));
  char* out = bytes.data() + header;
  for (int y = image.height - 1; y >= 0; --y)  // bottom row first
    for (int x = 0; x < image.width; ++x)
      for (int c = 0; c < image.channels; ++c) {
        std::uint32_t bits = std::bit_cast<std::uint32_t>(image.at(c, y, x));
        if constexpr (std::endian::native == std::endian::big) bits = __builtin_bswap32(bits);
        std::memcpy(out, &bits, sizeof bits);
        out += sizeof bits;
      }
  write_file_atomically(path, bytes);
}

void write_file_atomically(const std::string& path, const std::string& bytes) {
  auto failure = [&path](int error) {
    return InputError(fmt::format("cannot write '{}': {}", path, std::strerror(error)));
  };
  // Writes everything, closes, and returns 0 or the first errno.
  auto write_and_close = [&bytes](int fd) {
    int error = 0;
    for (std::size_t written = 0; written < bytes.size() && error == 0;) {
      const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
      if (n > 0)
        written += static_cast<std::size_t>(n);
      else if (n == 0)
        error = EIO;  // no progress and no errno: give up rather than spin
      else if (errno != EINTR)
        error = errno;
    }
    if (::close(fd) != 0 && error == 0) error = errno;
    return error;
  };

  // A rename would replace a symlink or a device such as /dev/stdout (itself a symlink) with a plain
  // file: write through those instead; only regular files and new names get the atomic rename.
  std::error_code ignored;
  const std::filesystem::file_status status = std::filesystem::symlink_status(path, ignored);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) throw failure(errno);
    if (const int error = write_and_close(fd); error != 0) throw failure(error);
    return;
  }

  // O_EXCL on a name unique to this process and call, rather than mkstemp, so the file gets the
  // usual umask permissions instead of mkstemp's 0600.
  static std::atomic<unsigned> counter{0};
  std::string temp;
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    temp = fmt::format("{}.tmp-{}-{}", path, ::getpid(), counter++);
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && (errno != EEXIST || attempt == 100)) throw failure(errno);
  }
  int error = write_and_close(fd);
  std::error_code renamed;
  if (error == 0) {
    std::filesystem::rename(temp, path, renamed);
    error = renamed.value();
  }
  if (error != 0) {
    std::filesystem::remove(temp, ignored);
    throw failure(error);
  }
}

// The default test chart, one value per pixel from integer arithmetic only (no libm), so it is the same
// on every machine and every integer filter stays bit-exact. Four quadrants:
//   top-left      smooth gradient, a filled and an outlined rectangle, a 45-degree line (straight edges)
//   top-right     a disc on the gradient (curved edges)
//   bottom-left   single-pixel dots, 1-pixel lines, bars 1 to 4 pixels wide (small detail)
//   bottom-right  1- and 2-pixel checkerboards, a period-4 grating and a zone plate (high frequencies)
// Each channel gets its own gradient direction and shape colours, so planes differ.
Image make_default_image(int width, int height, int channels) {
  check_image_size(width, height, channels, "default image");
  Image image(width, height, channels, true);
  const long long w = width, h = height, side = std::min(w, h);
  // Shape colours by channel, and one period of a sampled cosine grating (128 + 100 cos(2 pi x / 4)).
  static constexpr int kDark[4] = {16, 96, 176, 40}, kBright[4] = {240, 200, 64, 250},
                       kDisc[4] = {232, 48, 160, 220}, kPeriod4[4] = {228, 128, 28, 128};

  auto chart = [&](long long x, long long y, int c) -> int {
    const long long wx = std::max(w - 1, 1LL), hy = std::max(h - 1, 1LL);
    int gradient = 0;
    switch (c) {
      case 0: gradient = static_cast<int>(32 + 96 * x / wx + 96 * y / hy); break;
      case 1: gradient = static_cast<int>(32 + 96 * (wx - x) / wx + 96 * y / hy); break;
      case 2: gradient = static_cast<int>(32 + 192 * y / hy); break;
      default: gradient = static_cast<int>(160 + 80 * x / wx); break;
    }
    const bool left = 2 * x < w, top = 2 * y < h;
    if (left && top) {
      if (std::llabs(x - y) <= 1) return kBright[c];  // 3-pixel 45-degree line
      if (20 * x >= 2 * w && 20 * x < 7 * w && 20 * y >= 2 * h && 20 * y < 5 * h) return kDark[c];
      const bool outer = 20 * x >= 2 * w && 20 * x < 8 * w && 20 * y >= 6 * h && 20 * y < 9 * h;
      const long long border = std::max(1LL, side / 256);
      const bool inner = 20 * x >= 2 * w + 20 * border && 20 * x < 8 * w - 20 * border &&
                         20 * y >= 6 * h + 20 * border && 20 * y < 9 * h - 20 * border;
      if (outer && !inner) return kBright[c];
      return gradient;
    }
    if (!left && top) {
      const long long dx = 4 * x - 3 * w, dy = 4 * y - h;  // centre (3w/4, h/4), in quarter pixels
      const long long radius = 4 * side * 9 / 50;
      if (dx * dx + dy * dy <= radius * radius) return kDisc[c];
      return gradient;
    }
    if (left) {  // bottom-left: small detail on a flat mid grey
      const long long lx = x, ly = y - h / 2, qw = w / 2, qh = h - h / 2;
      if (2 * ly < qh) {
        if (lx % 8 == 4 && ly % 8 == 4) return 255;                   // single-pixel dots
        if (ly % 16 == 0 || (lx % 32 == 0 && 2 * lx > qw)) return 0;  // 1-pixel lines
        return 128;
      }
      // Bar groups of widths 1, 2, 3, 4, each five bars and five gaps: vertical bars above horizontal
      // ones, so x and y derivative filters both have something to find.
      const long long group = std::max(1LL, qw / 4), bar = std::min(lx / group, 3LL) + 1, span = 10 * bar;
      const long long bx = lx - (bar - 1) * group - (group - span) / 2, by = ly - qh / 2, band = qh - qh / 2;
      if (bx < 0 || bx >= span) return 128;
      long long stripe = bx;
      if (2 * by < band) {
        if (8 * by < band || 8 * (band / 2 - by) < band) return 128;
      } else {
        stripe = by - band / 2 - (band - band / 2 - span) / 2;
        if (stripe < 0 || stripe >= span) return 128;
      }
      return (stripe / bar) % 2 == 0 ? 16 : 240;
    }
    // bottom-right: four texture cells
    const long long tx = x - w / 2, ty = y - h / 2, tw = w - w / 2, th = h - h / 2;
    const bool cell_left = 2 * tx < tw, cell_top = 2 * ty < th;
    if (cell_top && cell_left) return (x + y) % 2 ? 224 : 32;          // 1-pixel checkerboard
    if (cell_top) return kPeriod4[x % 4];                              // period-4 grating
    if (cell_left) {                                                   // zone plate
      const long long dx = 2 * tx - tw / 2, dy = 2 * ty - 3 * th / 2;  // half-pixel units
      // The local frequency grows with the radius and reaches 1/2 cycle per pixel at the cell's edge.
      const long long phase = (dx * dx + dy * dy) * 256 / side % 512;
      return static_cast<int>(phase < 256 ? phase : 511 - phase);
    }
    return ((x / 2) + (y / 2)) % 2 ? 200 : 56;  // 2-pixel checkerboard
  };

  for (int c = 0; c < channels; ++c)
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) image.at(c, y, x) = static_cast<float>(chart(x, y, c));
  return image;
}

}  // namespace cc
