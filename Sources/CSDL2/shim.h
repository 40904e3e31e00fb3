#ifndef DIGITPAD_CSDL2_SHIM_H
#define DIGITPAD_CSDL2_SHIM_H

// SDL2 for Swift. Macros that Swift cannot import (casts, function-like macros) are
// re-exported as inline functions.
#include <SDL2/SDL.h>

static inline Uint32 CSDL2_TouchMouseID(void) { return SDL_TOUCH_MOUSEID; }
static inline int CSDL2_WindowPosCentered(void) { return SDL_WINDOWPOS_CENTERED; }
static inline Uint32 CSDL2_PixelFormatARGB8888(void) { return SDL_PIXELFORMAT_ARGB8888; }
static inline Uint32 CSDL2_ButtonMask(int button) { return SDL_BUTTON(button); }

#endif
