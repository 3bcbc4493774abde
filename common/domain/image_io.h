// image_io.h: reading images (PNG via libspng, JPEG via libjpeg-turbo, BMP and PFM by our own readers: image_io/*.cpp), writing PNG and PFM, and the default image.
#pragma once

#include <string>

#include "common/domain/image.h"

namespace cc {

// Loads PNG, JPEG or BMP (8-bit, values 0..255, eight_bit = true) or PFM (float, eight_bit = false),
// chosen by the file's first bytes, not its name. Grey stays 1 channel; grey+alpha, RGB and RGBA keep
// their channel count. Throws InputError with one line naming the file and the problem.
Image load_image(const std::string& path);

Image load_pfm(const std::string& path);

// PNG in the image's 0..255 scale: each value rounded to nearest and clamped to [0, 255].
// 1 channel -> grey, 2 -> grey+alpha, 3 -> RGB, 4 -> RGBA. Written atomically (temporary + rename).
void save_png(const Image& image, const std::string& path);

// PFM: "Pf" (1 channel) or "PF" (3 channels; other counts throw InputError), little endian (negative
// scale), rows bottom to top. Written atomically.
void save_pfm(const Image& image, const std::string& path);

// The embedded default image, made in code so the tool needs no file: edges, gradients, fine texture
// and small detail, deterministic, 8-bit scale values (0..255, integers), eight_bit = true.
Image make_default_image(int width = 2048, int height = 2048, int channels = 1);

// Writes `bytes` to `path` through a temporary file in the same directory and a rename, so a reader
// never sees a half-written file; a symlink or other non-regular file (/dev/stdout) is written
// through instead, so the link survives. A regular file replaced keeps its mode (and owner, where
// permitted); its other hard links keep the old contents. Throws InputError on failure.
void write_file_atomically(const std::string& path, const std::string& bytes);

}  // namespace cc
