#pragma once
// Pushes taken one at a time, as they come (the asynchronous modes): each contributor's slices are
// put together into its whole update, which goes to the server as soon as its last slice is in,
// whatever the others are doing.
#include "ModelSlices.h"
#include "RejectionLog.h"

#include <QHash>
#include <QSet>
#include <optional>

namespace hips {

struct WholePush {
    QString sender;
    qint64 round = 0;  // the sender's own count of its pushes
    qint64 base = 0;  // the model version the update was computed from
    FloatBuffer values;  // null when a slice held NaN or ±Inf: the push is refused, but answered
    QString origin;  // the worker behind a party server's forwarded push, as the party server says
};

// Rejects strangers, a round not above the sender's last, repeated slices, slices that are not
// the canonical cut of the expected size and a base newer than `newestVersion`, each counted and
// logged (rate-limited, naming the sender). A push one of whose slices is not finite comes out
// whole but without values, so that its sender still gets the model it waits for.
class AsyncPushes {
public:
    AsyncPushes(const QString& self, QSet<QString> contributors) : m_contributors(std::move(contributors)), m_log(self) {}

    std::optional<WholePush> add(Envelope& push, size_t expectedSize, qint64 newestVersion);
    quint64 rejected() const { return m_log.total(); }
    quint64 nonFinite() const { return m_nonFinite; }

private:
    struct Partial {
        qint64 round = 0, base = 0;
        QString origin;
        FloatBuffer values;
        std::vector<bool> slices;
        size_t count = 0;
        bool spoiled = false;
    };
    bool reject(const Envelope& push, const QString& why);

    QSet<QString> m_contributors;
    QHash<QString, Partial> m_open;
    QHash<QString, qint64> m_lastRound;
    RejectionLog m_log;
    quint64 m_nonFinite = 0;
};

}  // namespace hips
