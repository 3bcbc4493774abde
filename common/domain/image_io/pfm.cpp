// pfm.cpp: the PFM reader (our own parser of exactly the grammar in docs/correctness.md, a file or a stream) and the PFM writer.
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/domain/error.h"
#include "common/domain/image_io.h"
#include "common/domain/image_io/reader.h"

namespace cc {
namespace image_io {

namespace {

// The grammar (docs/correctness.md, "Input files"): "Pf" or "PF", '\n', WIDTH ' ' HEIGHT '\n', SCALE
// '\n', then exactly WIDTH x HEIGHT x channels little- or big-endian float32 values, rows bottom to
// top. Nothing else is accepted: another separator, a CR, a sign on a size, a scale of 0, NaN or Inf,
// missing or extra data are each refused with the reason.

constexpr std::size_t kPfmLineLimit = 40;  // "32768 32768" and any sane scale fit many times over

// One header line without its '\n'; the line is refused if it ends otherwise or runs too long.
std::string read_pfm_line(InputFile& input, std::string_view field) {
  std::string line;
  for (;;) {
    char c = 0;
    if (!input.read_exact(&c, 1))
      input.fail(fmt::format("truncated PFM header: the file ends in the {} line", field));
    if (c == '\n') return line;
    if (c == '\r') input.fail(fmt::format("PFM {} line ends in CR LF; PFM header lines end with a single LF", field));
    line += c;
    if (line.size() > kPfmLineLimit)
      input.fail(fmt::format("PFM {} line '{}...' is too long (a PFM header line ends with LF)", field, printable(line, 40)));
  }
}

bool all_of_chars(std::string_view text, std::string_view allowed) {
  return !text.empty() && text.find_first_not_of(allowed) == std::string_view::npos;
}

struct PfmHeader {
  int width = 0, height = 0, channels = 0;
  bool swap = false;  // file byte order differs from this machine's
};

PfmHeader read_pfm_header(InputFile& input) {
  PfmHeader header;
  char magic[3] = {};
  if (!input.read_exact(magic, 3) || magic[0] != 'P' || (magic[1] != 'f' && magic[1] != 'F') || magic[2] != '\n')
    input.fail("not a PFM file: it must start with \"Pf\" or \"PF\" and a line feed");
  header.channels = magic[1] == 'f' ? 1 : 3;

  const std::string size = read_pfm_line(input, "size");
  const std::size_t space = size.find(' ');
  const std::string_view width_text = std::string_view(size).substr(0, space);
  const std::string_view height_text = space == std::string::npos ? "" : std::string_view(size).substr(space + 1);
  long long width = 0, height = 0;
  const auto number = [](std::string_view digits, long long& value) {
    return all_of_chars(digits, "0123456789") && digits.size() <= 10 &&
           std::from_chars(digits.data(), digits.data() + digits.size(), value).ec == std::errc();
  };
  if (!number(width_text, width) || !number(height_text, height))
    input.fail(fmt::format("bad PFM size line '{}': expected WIDTH HEIGHT, two decimal numbers and one space",
                           printable(size, 40)));
  check_image_size(width, height, header.channels, input.name());
  header.width = static_cast<int>(width);
  header.height = static_cast<int>(height);

  const std::string scale_text = read_pfm_line(input, "scale");
  double scale = 0;
  if (!all_of_chars(scale_text, "0123456789.eE+-") ||
      std::from_chars(scale_text.data(), scale_text.data() + scale_text.size(), scale).ptr !=
          scale_text.data() + scale_text.size() ||
      !std::isfinite(scale) || scale == 0)
    input.fail(fmt::format("bad PFM scale '{}': a finite decimal number other than 0 is required (its sign gives "
                           "the byte order)",
                           printable(scale_text, 40)));
  header.swap = (scale < 0) != (std::endian::native == std::endian::little);
  return header;
}

// File rows [first, first + count) from `bytes` into the image (rows are stored bottom to top).
void store_pfm_rows(Image& image, const PfmHeader& header, int first, int count, const char* bytes) {
  for (int file_row = first; file_row < first + count; ++file_row) {
    const int y = image.height - 1 - file_row;
    for (int x = 0; x < header.width; ++x)
      for (int c = 0; c < header.channels; ++c, bytes += sizeof(std::uint32_t)) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, bytes, sizeof bits);
        if (header.swap) bits = __builtin_bswap32(bits);
        image.at(c, y, x) = std::bit_cast<float>(bits);
      }
  }
}

Image read_pfm(InputFile& input) {
  const PfmHeader header = read_pfm_header(input);
  const std::size_t row_bytes = static_cast<std::size_t>(header.width) * header.channels * sizeof(float);
  const std::uint64_t data_bytes = static_cast<std::uint64_t>(row_bytes) * header.height;
  const auto shape = fmt::format("{}x{}x{} floats", header.width, header.height, header.channels);

  if (const std::optional<std::uint64_t> left = input.bytes_left()) {
    // A regular file: its size must be exactly the header's, checked before anything is allocated.
    if (*left < data_bytes)
      input.fail(fmt::format("truncated PFM: {} need {} bytes of data, the file has {}", shape, data_bytes, *left));
    if (*left > data_bytes)
      input.fail(fmt::format("PFM has {} bytes after its {} ({} bytes of data)", *left - data_bytes, shape, data_bytes));
    check_decoded_size(input, header.width, header.height, header.channels, row_bytes);
    Image image(header.width, header.height, header.channels, false);
    std::vector<char> row(row_bytes);
    for (int file_row = 0; file_row < header.height; ++file_row) {
      if (!input.read_exact(row.data(), row.size()))
        input.fail(fmt::format("truncated PFM: the data end in row {} of {}", file_row, header.height));
      store_pfm_rows(image, header, file_row, 1, row.data());
    }
    return image;
  }

  // A stream has no size to check: the data are gathered in blocks of whole rows as they arrive, so a
  // header that lies costs no more memory than the bytes that really came, and the image is made last.
  constexpr std::size_t kBlockBytes = 16u << 20;
  const int rows_per_block = static_cast<int>(std::max<std::size_t>(1, kBlockBytes / row_bytes));
  std::vector<std::vector<char>> blocks;
  for (int file_row = 0; file_row < header.height; file_row += rows_per_block) {
    const int rows = std::min(rows_per_block, header.height - file_row);
    std::vector<char>& block = blocks.emplace_back();
    block.resize(row_bytes * rows);
    std::size_t got = 0;
    while (got < block.size()) {
      const std::size_t n = input.read_some(block.data() + got, block.size() - got);
      if (n == 0)
        input.fail(fmt::format("truncated PFM: {} need {} bytes of data, the stream ended after {}", shape,
                               data_bytes, static_cast<std::uint64_t>(file_row) * row_bytes + got));
      got += n;
    }
  }
  if (!input.at_end()) input.fail(fmt::format("PFM has more data after its {} ({} bytes)", shape, data_bytes));
  check_decoded_size(input, header.width, header.height, header.channels);
  Image image(header.width, header.height, header.channels, false);
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const int first = static_cast<int>(b) * rows_per_block;
    store_pfm_rows(image, header, first, std::min(rows_per_block, header.height - first), blocks[b].data());
    std::vector<char>().swap(blocks[b]);  // freed as it is copied: the peak stays near one image
  }
  return image;
}

bool recognise_pfm(std::string_view magic) { return magic.size() >= 2 && magic[0] == 'P' && (magic[1] == 'f' || magic[1] == 'F'); }

}  // namespace

const ImageReader kPfmReader{"PFM", recognise_pfm, read_pfm};

}  // namespace image_io

Image load_pfm(const std::string& path) {
  InputFile input(path, "image");
  return image_io::kPfmReader.read(input);
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

}  // namespace cc
