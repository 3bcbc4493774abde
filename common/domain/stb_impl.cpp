// stb_impl.cpp: the one translation unit that compiles stb_image (BMP; JPEG without libjpeg-turbo) and stb_image_write.
#include "common/domain/image.h"

// Only the formats convcompare documents, and stb's own dimension cap set to ours, so a hostile header
// is refused by stb too, not just by check_image_size.
// PNG is read by libspng (image_io.cpp says why); stb's PNG reader is not built.
// With libjpeg-turbo, stb 2.27's JPEG reader (which corrupts memory on hostile files) is left out of the
// binary altogether; without it, stb is the only JPEG decoder there is.
#if !CONVCOMPARE_WITH_TURBOJPEG
#define STBI_ONLY_JPEG
#endif
#define STBI_ONLY_BMP
#define STBI_MAX_DIMENSIONS cc::kMaxImageDimension
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image.h>
#include <stb_image_write.h>
