#ifndef DIGITS_CZLIB_SHIM_H
#define DIGITS_CZLIB_SHIM_H

// zlib for Swift. inflateInit2 and deflateInit2 are macros (they pass the library version and
// the size of z_stream), which Swift cannot import: they are re-exported as inline functions.
#include <zlib.h>

static inline int CZlib_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

static inline int CZlib_deflateInit2(z_streamp stream, int level, int windowBits, int memLevel, int strategy) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, memLevel, strategy);
}

#endif
