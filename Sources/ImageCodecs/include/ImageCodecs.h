#ifndef IMAGE_CODECS_H
#define IMAGE_CODECS_H

// Thin C wrappers around libjpeg-turbo and libpng. Both libraries report errors by longjmp,
// which Swift cannot catch, so every call that may fail runs here behind a setjmp and comes
// back as a return code with the library's message.

#include <stddef.h>
#include <stdint.h>

#define IC_MESSAGE_LENGTH 200

/// Told the decoded size and channel count (3: RGB, 4: RGBA) before the first row; returns 0
/// to stop decoding.
typedef int (*ic_begin_fn)(void *context, uint32_t width, uint32_t height, uint32_t channels);
/// Handed each decoded row, top to bottom, 8 bits per channel.
typedef void (*ic_row_fn)(void *context, const uint8_t *pixels);

/// Decodes a JPEG as RGB rows, scaled down by libjpeg's DCT scaling (in eighths) as far as
/// keeps the longer side at least `min_long_side`. Returns 0, or 1 on a decoding error (any
/// libjpeg warning about corrupt data counts as one), 2 for colour spaces it cannot turn into
/// RGB (CMYK), 3 when `begin` stopped it; `message` (IC_MESSAGE_LENGTH bytes) says why.
int ic_jpeg_decode(const uint8_t *data, size_t size, uint32_t min_long_side, void *context,
                   ic_begin_fn begin, ic_row_fn row, char *message);

/// Decodes a PNG as 8-bit RGB rows, or RGBA when it has alpha or tRNS. Returns as ic_jpeg_decode.
int ic_png_decode(const uint8_t *data, size_t size, void *context, ic_begin_fn begin, ic_row_fn row, char *message);

/// Encodes RGB pixels as a baseline JPEG into `*output` (free with ic_free). Returns 0 or 1.
int ic_jpeg_encode(const uint8_t *rgb, uint32_t width, uint32_t height, int quality,
                   uint8_t **output, size_t *output_size, char *message);

/// Encodes RGB (channels 3) or RGBA (4) pixels as a PNG into `*output` (free with ic_free).
int ic_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, uint32_t channels,
                  uint8_t **output, size_t *output_size, char *message);

/// Frees what an encoder returned.
void ic_free(void *pointer);

#endif
