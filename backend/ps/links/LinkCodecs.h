#pragma once
// The tiers' codecs on a role's links (GradientCodec at both ends of each link): `compression` on
// links across parties, `party_compression` inside one. Pushes are encoded with the residual the
// codec left in this link's last push of that slice added (error feedback; with the codec's
// momentum correction, GeoMX's BSC, the residual gathers the pushes' momentum). Models are sent as
// the change from what the peer holds, a replica of it kept here per peer, so what a lossy codec
// could not say in one round goes out in the next; the first model a peer gets goes whole (dense),
// and so do the first `codec_warmup` rounds' pushes and models (DGC's warm-up). Each model slice
// is numbered (`seq`): a change that follows one lost on the way (a connection that dropped) is
// refused, and the receiver asks (codec_resync, naming it) for the slice whole, which the sender
// sends at once from its replica, unless it sent one whole after that change already (the asks of
// the changes that were on their way); added to a replica that missed one, every later model was
// wrong.
// The codec's spec travels in each header and must equal this end's: a mismatch is refused and
// counted, with both named, like every malformed frame.
#include "Channel.h"
#include "GradientCodec.h"
#include "RoleContext.h"

#include <QHash>
#include <algorithm>
#include <map>
#include <vector>

namespace hips {

class LinkCodecs final : public PayloadTransform {
public:
    // `codecOf(peer)`: the codec of the link to that peer (nullptr: none). `modelSize`: the
    // largest `total` accepted (a peer cannot make this end hold more than one model per link).
    LinkCodecs(std::function<const GradientCodec*(const QString& peer)> codecOf, size_t modelSize);

    // How many senders' pushes this end's models sum (its tier's contributors): a model change
    // may then carry that many times a sparse codec's share (GeoMX's pull).
    void setAggregateOf(size_t contributions) { m_aggregateOf = std::max<size_t>(1, contributions); }
    // Whether pushes are model deltas (every mode but ssgd): only then is a push's unsent residual
    // a part of the model this end should see. ssgd pushes gradients, which the global server
    // turns into a step of its own: adding their residual to the weights sent ssgd with `topk` to
    // 0.11 test accuracy (0.82 without). Under a server optimizer the view is an approximation of
    // its step, but a better one than none (FedAdam with topk 0.84 with it, 0.80 without).
    void setPushesAreModelChanges(bool yes) { m_pushesAreModelChanges = yes; }

    void outgoing(const QString& peer, Message& m) override;
    void undelivered(const QString& peer, const Message& m) override;
    QString incoming(const QString& peer, Message& m) override;
    bool takeControl(const QString& peer, const Message& m) override;
    std::vector<Message> takeAnswers(const QString& peer) override;

private:
    struct Link {
        std::vector<float> floats;  // pushes: the residual; models: the replica of what the peer holds
        std::vector<float> momentum;  // pushes under momentum correction: u
        std::vector<quint32> messages;  // per slice: messages sent (out, counting the warm-up)
        // Models, per slice: out, the number the next goes with (`seq`), and the header of the last
        // (to send it again whole when asked); in, the number expected next (0: none had whole).
        std::vector<quint32> numbers;
        std::vector<QCborMap> lastHeaders;
        std::vector<char> wholeNext;  // out: the peer asked for the slice whole
        std::vector<quint32> lastWhole;  // out: the number of the last sent whole (an ask before it is answered)
        // Pushes, per slice: the last one as it went. The same push sent again (to a global server
        // that restarted and lost it) goes as it went, not through the feedback a second time.
        struct Sent {
            qint64 round = -1, base = -1;
            QByteArray frame;
            bool dense = false;
        };
        std::vector<Sent> sent;
    };
    Link& linkTo(QHash<QString, Link>& links, const QString& peer, size_t total);
    static void addResidual(Link& link, float momentum, size_t offset, std::vector<float>& input);
    static void sendWhole(Message& m, const std::vector<float>& input);
    static bool sendAsBefore(Link::Sent& sent, Message& m, qint64 round, qint64 base);
    QString refuseChange(const QString& peer, const Link& link, qint64 offset, qint64 total, qint64 seq);
    static void keepResidual(Link& link, size_t offset, const std::vector<float>& input, const std::vector<float>& decoded);

    std::function<const GradientCodec*(const QString&)> m_codecOf;
    size_t m_modelSize;
    size_t m_aggregateOf = 1;
    bool m_pushesAreModelChanges = true;
    QHash<QString, Link> m_pushesOut, m_modelsOut, m_modelsIn;
    std::map<QString, std::vector<Message>> m_answers;  // (takeAnswers; move-only messages, so not a QHash)
};

// The codecs of `ctx`'s links, or nullptr when both tiers send floats as they are.
std::shared_ptr<LinkCodecs> makeLinkCodecs(const RoleContext& ctx);

}  // namespace hips
