#include "RunStatus.h"

#include "RunPanel.h"

#include <algorithm>

namespace hips {

RunStatus::RunStatus(QWidget* parent) : QLabel(parent) {
    setObjectName(QStringLiteral("run_status"));
    m_ticker.setInterval(1000);
    connect(&m_ticker, &QTimer::timeout, this, &RunStatus::refresh);
    refresh();
}

void RunStatus::start(int rounds) {
    m_rounds = rounds;
    m_round = 0;
    m_roundElapsed = 0;
    m_carried = 0;
    m_clock.start();
    m_ticker.start();
    refresh();
}

void RunStatus::setState(RunState state) {
    m_state = state;
    const bool active =
        state == RunState::Deploying || state == RunState::Starting || state == RunState::Running || state == RunState::Stopping;
    if (!active) m_ticker.stop();
    refresh();
}

void RunStatus::onRound(const RoundRow& row) {
    m_round = std::max(m_round, row.round);
    m_roundElapsed = row.elapsed;
    m_carried = std::max(m_carried, row.elapsed - double(m_clock.elapsed()) / 1000.0);
    refresh();
}

void RunStatus::refresh() {
    if (m_state == RunState::Idle || !m_clock.isValid()) {
        setText({});
        return;
    }
    const double elapsed = m_carried + double(m_clock.elapsed()) / 1000.0;
    QString text = tr("%1 · round %2 of %3 · %4 s").arg(RunPanel::stateText(m_state)).arg(m_round).arg(m_rounds).arg(elapsed, 0, 'f', 0);
    if (m_state == RunState::Running && m_round > 0 && m_round < m_rounds) {
        const double left = (m_rounds - m_round) * m_roundElapsed / m_round;
        text += tr(" · about %1 s left").arg(left, 0, 'f', 0);
    }
    setText(text);
}

}  // namespace hips
