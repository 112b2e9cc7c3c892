#pragma once
// The window's palette decides the charts' theme and the canvas's background, so that the app
// follows a dark desktop instead of glaring white panes in it.
#include <QPalette>

namespace hips {

inline bool isDarkPalette(const QPalette& palette) {
    return palette.color(QPalette::Window).lightness() < 128;
}

}  // namespace hips
