#include "ImageCodecs.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>
#include <png.h>

// libjpeg may use this much working memory (progressive files buffer every coefficient);
// beyond it decoding fails instead of growing the process.
#define IC_MAX_JPEG_MEMORY (256L * 1024 * 1024)

// --- JPEG ---

struct ic_jpeg_error {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    char *message;
};

static void ic_jpeg_fail(j_common_ptr info) {
    struct ic_jpeg_error *error = (struct ic_jpeg_error *)info->err;
    char text[JMSG_LENGTH_MAX];
    (*info->err->format_message)(info, text);
    snprintf(error->message, IC_MESSAGE_LENGTH, "%s", text);
    longjmp(error->jump, 1);
}

// Warnings mean corrupt data (a truncated file is padded with grey and only warned about), so
// they fail too, except stray bytes between segments, which harm nothing.
static void ic_jpeg_emit(j_common_ptr info, int level) {
    if (level < 0 && info->err->msg_code != JWRN_EXTRANEOUS_DATA) {
        ic_jpeg_fail(info);
    }
}

static void ic_jpeg_errors(struct ic_jpeg_error *error, char *message) {
    jpeg_std_error(&error->manager);
    error->manager.error_exit = ic_jpeg_fail;
    error->manager.emit_message = ic_jpeg_emit;
    error->message = message;
}

int ic_jpeg_decode(const uint8_t *data, size_t size, uint32_t min_long_side, void *context,
                   ic_begin_fn begin, ic_row_fn row, char *message) {
    struct jpeg_decompress_struct info;
    struct ic_jpeg_error error;
    uint8_t *volatile line = NULL;
    info.err = &error.manager;
    ic_jpeg_errors(&error, message);
    if (setjmp(error.jump)) {
        free(line);
        jpeg_destroy_decompress(&info);
        return 1;
    }
    jpeg_create_decompress(&info);
    info.mem->max_memory_to_use = IC_MAX_JPEG_MEMORY;
    jpeg_mem_src(&info, data, (unsigned long)size);
    jpeg_read_header(&info, TRUE);
    if (info.jpeg_color_space == JCS_CMYK || info.jpeg_color_space == JCS_YCCK) {
        snprintf(message, IC_MESSAGE_LENGTH, "CMYK is not decoded to RGB");
        jpeg_destroy_decompress(&info);
        return 2;
    }
    info.out_color_space = JCS_RGB;
    uint64_t long_side = info.image_width > info.image_height ? info.image_width : info.image_height;
    unsigned eighths = 8;
    for (unsigned candidate = 1; candidate < 8; candidate++) {
        if (long_side * candidate >= (uint64_t)min_long_side * 8) {
            eighths = candidate;
            break;
        }
    }
    info.scale_num = eighths;
    info.scale_denom = 8;
    jpeg_start_decompress(&info);
    if (!begin(context, info.output_width, info.output_height, 3)) {
        snprintf(message, IC_MESSAGE_LENGTH, "stopped");
        jpeg_destroy_decompress(&info);
        return 3;
    }
    line = malloc((size_t)info.output_width * 3);
    if (line == NULL) {
        snprintf(message, IC_MESSAGE_LENGTH, "out of memory");
        jpeg_destroy_decompress(&info);
        return 1;
    }
    while (info.output_scanline < info.output_height) {
        JSAMPROW rows[1] = {line};
        jpeg_read_scanlines(&info, rows, 1);
        row(context, line);
    }
    jpeg_finish_decompress(&info);
    free(line);
    jpeg_destroy_decompress(&info);
    return 0;
}

int ic_jpeg_encode(const uint8_t *rgb, uint32_t width, uint32_t height, int quality,
                   uint8_t **output, size_t *output_size, char *message) {
    struct jpeg_compress_struct info;
    struct ic_jpeg_error error;
    unsigned char *buffer = NULL;
    unsigned long length = 0;
    info.err = &error.manager;
    ic_jpeg_errors(&error, message);
    if (setjmp(error.jump)) {
        jpeg_destroy_compress(&info);
        free(buffer);
        return 1;
    }
    jpeg_create_compress(&info);
    jpeg_mem_dest(&info, &buffer, &length);
    info.image_width = width;
    info.image_height = height;
    info.input_components = 3;
    info.in_color_space = JCS_RGB;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality, TRUE);
    info.optimize_coding = TRUE;
    jpeg_start_compress(&info, TRUE);
    while (info.next_scanline < info.image_height) {
        JSAMPROW rows[1] = {(JSAMPROW)(rgb + (size_t)info.next_scanline * width * 3)};
        jpeg_write_scanlines(&info, rows, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    *output = buffer;
    *output_size = length;
    return 0;
}

// --- PNG ---

struct ic_png_source {
    const uint8_t *data;
    size_t size;
    size_t offset;
    char *message;
};

static void ic_png_read(png_structp png, png_bytep target, size_t length) {
    struct ic_png_source *source = png_get_io_ptr(png);
    if (length > source->size - source->offset) {
        png_error(png, "the file ends before the image does");
    }
    memcpy(target, source->data + source->offset, length);
    source->offset += length;
}

static void ic_png_fail(png_structp png, png_const_charp text) {
    struct ic_png_source *source = png_get_error_ptr(png);
    snprintf(source->message, IC_MESSAGE_LENGTH, "%s", text);
    png_longjmp(png, 1);
}

static void ic_png_warn(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;
}

int ic_png_decode(const uint8_t *data, size_t size, void *context, ic_begin_fn begin, ic_row_fn row, char *message) {
    struct ic_png_source source = {data, size, 0, message};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &source, ic_png_fail, ic_png_warn);
    if (png == NULL) {
        snprintf(message, IC_MESSAGE_LENGTH, "out of memory");
        return 1;
    }
    png_infop volatile info = NULL;
    uint8_t *volatile pixels = NULL;
    if (setjmp(png_jmpbuf(png))) {
        free(pixels);
        png_infop lost = info;
        png_destroy_read_struct(&png, lost ? &lost : NULL, NULL);
        return 1;
    }
    info = png_create_info_struct(png);
    if (info == NULL) {
        png_error(png, "out of memory");
    }
    png_set_read_fn(png, &source, ic_png_read);
    png_read_info(png, info);
    int colour_type = png_get_color_type(png, info);
    int alpha = (colour_type & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, info, PNG_INFO_tRNS);
    png_set_expand(png);
    png_set_strip_16(png);
    png_set_gray_to_rgb(png);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    uint32_t width = png_get_image_width(png, info);
    uint32_t height = png_get_image_height(png, info);
    uint32_t channels = png_get_channels(png, info);
    if (channels != (alpha ? 4u : 3u) || png_get_rowbytes(png, info) != (size_t)width * channels) {
        png_error(png, "unexpected pixel layout");
    }
    if (!begin(context, width, height, channels)) {
        snprintf(message, IC_MESSAGE_LENGTH, "stopped");
        png_infop stopped = info;
        png_destroy_read_struct(&png, &stopped, NULL);
        return 3;
    }
    size_t row_bytes = (size_t)width * channels;
    // An interlaced image arrives in passes over every row, so it needs all of them at once;
    // any other streams through one row.
    size_t rows_held = passes > 1 ? height : 1;
    pixels = malloc(row_bytes * rows_held);
    if (pixels == NULL) {
        png_error(png, "out of memory");
    }
    if (passes > 1) {
        for (int pass = 0; pass < passes; pass++) {
            for (uint32_t y = 0; y < height; y++) {
                png_read_row(png, pixels + y * row_bytes, NULL);
            }
        }
        for (uint32_t y = 0; y < height; y++) {
            row(context, pixels + y * row_bytes);
        }
    } else {
        for (uint32_t y = 0; y < height; y++) {
            png_read_row(png, pixels, NULL);
            row(context, pixels);
        }
    }
    png_read_end(png, NULL);
    free(pixels);
    png_infop done = info;
    png_destroy_read_struct(&png, &done, NULL);
    return 0;
}

int ic_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, uint32_t channels,
                  uint8_t **output, size_t *output_size, char *message) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = width;
    image.height = height;
    image.format = channels == 4 ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
    png_alloc_size_t size = 0;
    if (!png_image_write_get_memory_size(image, size, 0, pixels, 0, NULL)) {
        snprintf(message, IC_MESSAGE_LENGTH, "%s", image.message);
        png_image_free(&image);
        return 1;
    }
    uint8_t *buffer = malloc(size);
    if (buffer == NULL || !png_image_write_to_memory(&image, buffer, &size, 0, pixels, 0, NULL)) {
        snprintf(message, IC_MESSAGE_LENGTH, "%s", buffer == NULL ? "out of memory" : image.message);
        free(buffer);
        png_image_free(&image);
        return 1;
    }
    *output = buffer;
    *output_size = size;
    return 0;
}

void ic_free(void *pointer) {
    free(pointer);
}
