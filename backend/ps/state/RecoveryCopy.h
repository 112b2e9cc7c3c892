#pragma once
// The copy of a global server's recovery point kept off its host, so that a server whose host
// is lost starts again on its standby host (ListeningRole::standbyHost) from where it was.
//
// The server sends every recovery point to the global scheduler (which validation puts on
// another host) and waits for its "recovery_kept" before anyone gets that model; the scheduler
// keeps the newest and hands it over with the node table to the server's next process, which
// goes on from it when it finds none of its own on disk. A scheduler that is itself restarted
// starts with none and asks its members to register again: the server then sends it the newest
// copy again (SchedulerClient).
#include "Checkpoint.h"
#include "Message.h"

#include <QHash>

namespace hips {

// The recovery point as a message: {round, version} + the model and the optimizer's state.
Message recoveryPointMessage(const Checkpoint& point);

// The recovery point a table carries, checked: nullopt when there is none; with *error set when
// it is malformed (frames, sizes for a model of `modelFloats`, values that are not finite).
std::optional<Checkpoint> recoveryPointIn(const Message& table, size_t modelFloats, QString* error);

class RecoveryCopies {
public:
    // Keeps `point`, sent by global server `server` holding `modelFloats` floats, when it is well
    // formed and not older than the one kept. Returns why it was refused, or nothing.
    QString keep(const QString& server, const Message& point, size_t modelFloats);
    // The model version of the copy kept for `server`, or -1.
    qint64 version(const QString& server) const;
    // Adds the copy kept for `server`, if any, to the table it is about to be sent.
    void attachTo(const QString& server, Message& table) const;

private:
    struct Copy {
        QCborMap fields;
        QByteArray model, optimizer;
    };
    QHash<QString, Copy> m_copies;
};

}  // namespace hips
