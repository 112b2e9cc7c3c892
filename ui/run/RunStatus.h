#pragma once
// The status strip's run figures, on every tab: the run's state, round x of N, the time since it
// started (on the run's own clock: a resumed run's time before the resume counts) and an
// estimate of the time left (the rounds to go at the pace so far).
#include "RunController.h"

#include <QElapsedTimer>
#include <QLabel>
#include <QTimer>

namespace hips {

class RunStatus : public QLabel {
    Q_OBJECT
public:
    explicit RunStatus(QWidget* parent = nullptr);

    void start(int rounds);  // a run of `rounds` rounds begins
    void setState(RunState state);
    void onRound(const RoundRow& row);

private:
    void refresh();

    RunState m_state = RunState::Idle;
    int m_rounds = 0, m_round = 0;
    double m_roundElapsed = 0;  // when the last round finished training, since the start
    // The run's time before this clock began: a resumed or reattached run's rows, replayed at
    // once, say how long it had run (its rows' times are on the run's own clock).
    double m_carried = 0;
    QElapsedTimer m_clock;
    QTimer m_ticker;
};

}  // namespace hips
