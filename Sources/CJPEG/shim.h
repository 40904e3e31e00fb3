#ifndef DIGITS_CJPEG_SHIM_H
#define DIGITS_CJPEG_SHIM_H

// libjpeg (libjpeg-turbo) headers; jpeglib.h needs stdio.h and stddef.h before it.
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>

#endif
