// libjpeg-turbo (Debian: libjpeg62-turbo-dev / libjpeg-dev, Ubuntu: libjpeg-turbo8-dev).
#include <stdio.h>
#include <jpeglib.h>
