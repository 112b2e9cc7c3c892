#include "NiceTicks.h"

#include <QDateTime>
#include <QDateTimeAxis>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace hips {

NiceStep niceStep(double span, bool integers) {
    const double raw = span > 0 ? span / 5 : 1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = 10 * magnitude;
    for (double m : {1.0, 2.0, 5.0})
        if (m * magnitude >= raw) {
            step = m * magnitude;
            break;
        }
    if (integers) step = std::max(1.0, std::round(step));
    return {step, std::max(0, -int(std::floor(std::log10(step) + 1e-9)))};
}

void applyNiceTicks(QValueAxis* axis, bool integers) {
    const double lo = axis->min(), hi = axis->max();
    const NiceStep nice = niceStep(hi - lo, integers);
    const double alignedLo = std::floor(lo / nice.step + 1e-9) * nice.step;
    const double alignedHi = std::max(alignedLo + nice.step, std::ceil(hi / nice.step - 1e-9) * nice.step);
    if (std::abs(alignedLo - lo) > nice.step * 1e-6 || std::abs(alignedHi - hi) > nice.step * 1e-6) {
        axis->setRange(alignedLo, alignedHi);  // the signal comes back here, aligned (a wider span only grows the step)
        return;
    }
    axis->setTickType(QValueAxis::TicksFixed);
    axis->setTickCount(int(std::lround((alignedHi - alignedLo) / nice.step)) + 1);
    axis->setLabelFormat(QStringLiteral("%.%1f").arg(nice.decimals));
}

void applyNiceTimeTicks(QDateTimeAxis* axis) {
    constexpr qint64 kSecond = 1000, kMinute = 60 * kSecond, kHour = 60 * kMinute, kDay = 24 * kHour;
    static const qint64 steps[] = {kSecond,  2 * kSecond, 5 * kSecond, 10 * kSecond, 15 * kSecond, 30 * kSecond,
                                   kMinute,  2 * kMinute, 5 * kMinute, 10 * kMinute, 15 * kMinute, 30 * kMinute,
                                   kHour,    2 * kHour,   3 * kHour,   6 * kHour,    12 * kHour,   kDay,
                                   2 * kDay, 7 * kDay,    14 * kDay,   30 * kDay,    91 * kDay,    365 * kDay};
    const qint64 lo = axis->min().toMSecsSinceEpoch(), hi = axis->max().toMSecsSinceEpoch();
    qint64 step = steps[std::size(steps) - 1];
    for (qint64 s : steps)
        if ((hi - lo) / s <= 4) {  // five labels of HH:mm:ss fit the narrowest chart
            step = s;
            break;
        }
    // Whole steps of the local clock: 14:05:10, not 14:05:07.3 (an offset from UTC that is not
    // whole hours, as in India, is taken into account).
    const qint64 offset = qint64(axis->min().offsetFromUtc()) * kSecond;
    const qint64 alignedLo = (lo + offset) / step * step - offset;
    const qint64 alignedHi = std::max(alignedLo + step, ((hi + offset + step - 1) / step) * step - offset);
    if (alignedLo != lo || alignedHi != hi) {
        axis->setRange(QDateTime::fromMSecsSinceEpoch(alignedLo), QDateTime::fromMSecsSinceEpoch(alignedHi));  // comes back here
        return;
    }
    axis->setTickCount(int((alignedHi - alignedLo) / step) + 1);
    // Beyond a day the date: a run of four days had every label "00:00".
    if (step >= kDay) axis->setFormat(QStringLiteral("yyyy-MM-dd"));
    else if (alignedHi - alignedLo > kDay) axis->setFormat(QStringLiteral("MM-dd HH:mm"));
    else axis->setFormat(step < kMinute ? QStringLiteral("HH:mm:ss") : QStringLiteral("HH:mm"));
}

}  // namespace hips
