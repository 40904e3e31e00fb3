#ifndef DIGITS_JPEG_H
#define DIGITS_JPEG_H

// A small C layer over libjpeg for ImageFormats/JPEG.swift. libjpeg reports fatal errors by
// calling error_exit, whose default calls exit(); here it jumps back (setjmp/longjmp) to the
// function that was called, which returns -1 with libjpeg's message. Every function is
// self-contained: it creates and destroys its own libjpeg object.

#include <stddef.h>
#include <stdint.h>

/// JPEG colour spaces as this layer reports them.
enum {
    DIGITS_JPEG_UNKNOWN = 0,
    DIGITS_JPEG_GRAY = 1,
    DIGITS_JPEG_RGB = 2,
    DIGITS_JPEG_YCBCR = 3,
    DIGITS_JPEG_CMYK = 4,
    DIGITS_JPEG_YCCK = 5,
};

typedef struct {
    /// The image as stored.
    int width, height, components, color_space, progressive;
    /// The decoded size (after DCT scaling); set by digits_jpeg_decode_gray.
    int output_width, output_height;
    /// On error: libjpeg's message, and how many input bytes libjpeg had consumed; scan_limit is 1
    /// when the error is that the file has more than max_scans scans.
    size_t error_offset;
    int scan_limit;
    char message[200];
} digits_jpeg_info;

/// Reads the header (up to the first scan). 0 on success, -1 on error (info->message set).
int digits_jpeg_read_header(const uint8_t *data, size_t size, digits_jpeg_info *info);

/// Decodes to 8-bit luminance (libjpeg's own conversion: the Y channel of YCbCr, BT.601 weights for
/// RGB) at 1/scale_denom of the stored size (scale_denom 1, 2, 4 or 8), rows of output_width bytes,
/// into `out` of `capacity` bytes. Corrupt-data warnings count as errors (except harmless ones);
/// more than max_scans scans is an error too. 0 on success, -1 on error.
int digits_jpeg_decode_gray(const uint8_t *data, size_t size, int scale_denom, int max_scans,
                            uint8_t *out, size_t capacity, digits_jpeg_info *info);

/// Encodes 8-bit gray (components 1) or RGB (components 3) rows at quality 1...100. On success
/// returns 0 and a buffer that the caller releases with digits_jpeg_free; -1 on error.
int digits_jpeg_encode(const uint8_t *pixels, int width, int height, int components, int quality,
                       int progressive, uint8_t **out, size_t *out_size, char *message, size_t message_size);

void digits_jpeg_free(void *buffer);

#endif
