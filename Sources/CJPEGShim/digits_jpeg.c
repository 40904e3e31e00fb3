#include "digits_jpeg.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

struct digits_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    /// The error is the end of the input (libjpeg's own position then lags behind).
    int at_end;
};

static void digits_error_exit(j_common_ptr cinfo) {
    struct digits_error *error = (struct digits_error *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, error->message);
    longjmp(error->jump, 1);
}

// Warnings that mean the data is damaged (a truncated file, a bad Huffman code, a marker in the
// middle of a scan) stop the decode: libjpeg would go on and fill the rest of the image with gray.
// Stray bytes between markers are common in files from real cameras and are let through.
static void digits_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;
    int code = cinfo->err->msg_code;
    if (code == JWRN_EXTRANEOUS_DATA) return;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    if (code == JWRN_JPEG_EOF) ((struct digits_error *)cinfo->err)->at_end = 1;
    if (code == JWRN_JPEG_EOF || code == JWRN_NOT_SEQUENTIAL || code == JWRN_BOGUS_PROGRESSION
        || strncmp(text, "Corrupt JPEG data", 17) == 0) {
        digits_error_exit(cinfo);
    }
}

static void digits_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void digits_install_errors(struct digits_error *error) {
    jpeg_std_error(&error->pub);
    error->pub.error_exit = digits_error_exit;
    error->pub.emit_message = digits_emit_message;
    error->pub.output_message = digits_output_message;
    error->message[0] = 0;
    error->at_end = 0;
}

// Clears `info` and `cinfo` and gives `cinfo` the error handler `error`, before a decode.
static void digits_begin_decompress(digits_jpeg_info *info, j_decompress_ptr cinfo, struct digits_error *error) {
    memset(info, 0, sizeof *info);
    memset(cinfo, 0, sizeof *cinfo);
    digits_install_errors(error);
    cinfo->err = &error->pub;
}

// After libjpeg's error: the message and the offset into `info`, then `cinfo` destroyed.
static void digits_fail(digits_jpeg_info *info, struct digits_error *error, j_decompress_ptr cinfo, size_t size) {
    if (error->at_end) {
        snprintf(info->message, sizeof info->message, "the file ends before the image data does (%s)", error->message);
        info->error_offset = size;
    } else {
        snprintf(info->message, sizeof info->message, "%s", error->message);
        info->error_offset = cinfo->src ? size - cinfo->src->bytes_in_buffer : 0;
    }
    jpeg_destroy_decompress(cinfo);
}

// Where a decode returns -1 after libjpeg's error (`digits_fail`). A macro, not a function:
// setjmp must run in the frame that the error handler's longjmp returns to.
#define DIGITS_RETURN_ON_JPEG_ERROR(info, error, cinfo, size) \
    do {                                                      \
        if (setjmp((error).jump)) {                           \
            digits_fail((info), &(error), &(cinfo), (size));  \
            return -1;                                        \
        }                                                     \
    } while (0)

static int digits_color_space(J_COLOR_SPACE space) {
    switch (space) {
    case JCS_GRAYSCALE: return DIGITS_JPEG_GRAY;
    case JCS_RGB: return DIGITS_JPEG_RGB;
    case JCS_YCbCr: return DIGITS_JPEG_YCBCR;
    case JCS_CMYK: return DIGITS_JPEG_CMYK;
    case JCS_YCCK: return DIGITS_JPEG_YCCK;
    default: return DIGITS_JPEG_UNKNOWN;
    }
}

static void digits_fill_header(digits_jpeg_info *info, j_decompress_ptr cinfo) {
    info->width = (int)cinfo->image_width;
    info->height = (int)cinfo->image_height;
    info->components = cinfo->num_components;
    info->color_space = digits_color_space(cinfo->jpeg_color_space);
    info->progressive = jpeg_has_multiple_scans(cinfo) ? 1 : 0;
}

int digits_jpeg_read_header(const uint8_t *data, size_t size, digits_jpeg_info *info) {
    struct jpeg_decompress_struct cinfo;
    struct digits_error error;
    digits_begin_decompress(info, &cinfo, &error);
    DIGITS_RETURN_ON_JPEG_ERROR(info, error, cinfo, size);
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    digits_fill_header(info, &cinfo);
    jpeg_destroy_decompress(&cinfo);
    return 0;
}

struct digits_progress {
    struct jpeg_progress_mgr pub;
    int max_scans;
    digits_jpeg_info *info;
};

// A progressive file can hold any number of scans, each a pass over the whole image: a small
// hostile file could keep the decoder busy for minutes without a bound.
static void digits_progress_monitor(j_common_ptr cinfo) {
    struct digits_progress *progress = (struct digits_progress *)cinfo->progress;
    j_decompress_ptr dinfo = (j_decompress_ptr)cinfo;
    if (dinfo->input_scan_number > progress->max_scans) {
        struct digits_error *error = (struct digits_error *)cinfo->err;
        snprintf(error->message, sizeof error->message, "more than %d scans", progress->max_scans);
        progress->info->scan_limit = 1;
        longjmp(error->jump, 1);
    }
}

int digits_jpeg_decode_gray(const uint8_t *data, size_t size, int scale_denom, int max_scans,
                            uint8_t *out, size_t capacity, digits_jpeg_info *info) {
    struct jpeg_decompress_struct cinfo;
    struct digits_error error;
    struct digits_progress progress;
    digits_begin_decompress(info, &cinfo, &error);
    DIGITS_RETURN_ON_JPEG_ERROR(info, error, cinfo, size);
    jpeg_create_decompress(&cinfo);
    progress.pub.progress_monitor = digits_progress_monitor;
    progress.max_scans = max_scans;
    progress.info = info;
    cinfo.progress = &progress.pub;
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    digits_fill_header(info, &cinfo);
    cinfo.out_color_space = JCS_GRAYSCALE;
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned int)scale_denom;
    jpeg_calc_output_dimensions(&cinfo);
    info->output_width = (int)cinfo.output_width;
    info->output_height = (int)cinfo.output_height;
    if ((size_t)cinfo.output_width * cinfo.output_height > capacity) {
        snprintf(error.message, sizeof error.message, "decoded size %ux%u does not fit the buffer",
                 cinfo.output_width, cinfo.output_height);
        longjmp(error.jump, 1);
    }
    jpeg_start_decompress(&cinfo);
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW rows[16];
        JDIMENSION count = cinfo.output_height - cinfo.output_scanline;
        if (count > 16) count = 16;
        for (JDIMENSION i = 0; i < count; i++) {
            rows[i] = out + (size_t)(cinfo.output_scanline + i) * cinfo.output_width;
        }
        jpeg_read_scanlines(&cinfo, rows, count);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return 0;
}

int digits_jpeg_encode(const uint8_t *pixels, int width, int height, int components, int quality,
                       int progressive, uint8_t **out, size_t *out_size, char *message, size_t message_size) {
    struct jpeg_compress_struct cinfo;
    struct digits_error error;
    unsigned char *buffer = NULL;
    unsigned long buffer_size = 0;
    *out = NULL;
    *out_size = 0;
    memset(&cinfo, 0, sizeof cinfo);
    digits_install_errors(&error);
    cinfo.err = &error.pub;
    if (setjmp(error.jump)) {
        snprintf(message, message_size, "%s", error.message);
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        return -1;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &buffer, &buffer_size);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = components;
    cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    if (progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    size_t stride = (size_t)width * (size_t)components;
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + cinfo.next_scanline * stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = buffer;
    *out_size = buffer_size;
    return 0;
}

void digits_jpeg_free(void *buffer) { free(buffer); }
