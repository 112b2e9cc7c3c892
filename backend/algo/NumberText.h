#pragma once
#include <QString>

namespace hips {

// A number as a message shows it: every digit a user could have typed. QString::arg(double)
// rounds to 6 significant digits, which told a user who typed 1234567 that "1.23457e+06" was
// out of "[1, 1e+06]".
inline QString numberText(double value) {
    return QString::number(value, 'g', 15);
}

}  // namespace hips
