#pragma once
// Turns SIGINT/SIGTERM/SIGHUP into a Qt signal through a self-pipe, so a process can stop
// its children and exit cleanly from the event loop. (A pipe is level-triggered, so a
// QSocketNotifier on it is safe, unlike a ZeroMQ fd.)
#include <QObject>

class QSocketNotifier;

namespace hips {

class UnixSignals : public QObject {
    Q_OBJECT
public:
    explicit UnixSignals(QObject* parent = nullptr);
    static const char* name(int signal);

Q_SIGNALS:
    void received(int signal);

private:
    QSocketNotifier* m_notifier = nullptr;
};

}  // namespace hips
