// zlib, the system's deflate/inflate (Debian: zlib1g-dev, a prerequisite of the Swift toolchain).
#include <zlib.h>
