#pragma once
// Axis ticks a reader can count on: a value axis on 1, 2 or 5 × 10^k, a time-of-day axis on
// whole seconds, minutes or hours, each with a tick at both ends of its (widened) range.
class QValueAxis;
class QDateTimeAxis;

namespace hips {

struct NiceStep {
    double step;
    int decimals;  // what its labels need: no two read the same, none with digits the step lacks
};

// About five ticks over `span` (whole numbers when `integers`: rounds).
NiceStep niceStep(double span, bool integers);

// The axis's range widened to multiples of the nice step, with a tick on each: connect it to the
// axis's rangeChanged (a zoom too). Fixed ticks, not Qt's dynamic ones: those lay out the new range
// with the old interval first, and after a reset from a deep zoom that is thousands of labels.
void applyNiceTicks(QValueAxis* axis, bool integers);

// The same for wall-clock time: steps of 1, 2, 5, 10, 15 or 30 s, 1, 2, 5, 10, 15 or 30 min, or
// whole hours, labelled HH:mm:ss or HH:mm.
void applyNiceTimeTicks(QDateTimeAxis* axis);

}  // namespace hips
