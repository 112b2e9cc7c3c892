#pragma once
// The charts' colours (matplotlib's tab10, as the report's): one per quantity, and one per party.
#include <QColor>
#include <QList>

namespace hips::chartcolors {
inline const QColor kTop5(0x17, 0xbe, 0xcf);
inline const QColor kAccuracy(0x1f, 0x77, 0xb4), kTrainLoss(0xff, 0x7f, 0x0e), kTestLoss(0xd6, 0x27, 0x28), kInside(0x2c, 0xa0, 0x2c),
    kAcross(0x94, 0x67, 0xbd), kThroughput(0x17, 0xbe, 0xcf), kRatio(0x8c, 0x56, 0x4b);
inline const QList<QColor> kParty{kTrainLoss, kInside, kTestLoss, kAcross, kRatio, QColor(0xe3, 0x77, 0xc2)};
}  // namespace hips::chartcolors
