// stb_impl.cpp: the one translation unit that compiles stb_image_write (the PNG writer) and, without libjpeg-turbo, stb_image's JPEG reader.
#include "common/domain/image.h"

// PNG is read by libspng and BMP by our own decoder (image_io/png.cpp and bmp.cpp say why). With
// libjpeg-turbo, stb 2.27's JPEG reader (which corrupts memory on hostile files) is left out of the
// binary altogether, and with it all of stb_image; without it, stb is the only JPEG decoder there is,
// built with its dimension cap set to ours, so a hostile header is refused by stb too.
#if !CONVCOMPARE_WITH_TURBOJPEG
#define STBI_ONLY_JPEG
#define STBI_MAX_DIMENSIONS cc::kMaxImageDimension
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>
#endif
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>
